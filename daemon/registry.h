/* registry.h -- quad's objects, handles and names: what the daemon runs, who reaches it, what it
 * is published as (loop thread only).
 *
 * Every operation costs in proportion to what it touches, never to the
 * number of objects the daemon runs: objects are found by quaject id and by
 * published name through hash maps, a connection's owned objects are on a
 * list of its own, and an object's handles on a list of the object's.
 * Nothing here calls libqua or allocates besides the maps' slots, a
 * published name and a handle, so a failure leaves everything as it was.
 */
#ifndef QUAD_REGISTRY_H
#define QUAD_REGISTRY_H

#include "quad-internal.h"

/* Makes reg empty. A registry with every object removed is empty again. */
void quad_reg_init(quad_reg_t *reg);
/* Frees the maps' memory; the objects must have been removed. */
void quad_reg_fini(quad_reg_t *reg);

/* Adds o, whose id (non-zero, not in reg), owner (a connection or NULL) and
 * name (NULL, or a malloc'ed name no object in reg has) are set: it becomes
 * the newest object, is found by id and by name, and is on its owner's
 * list. 0, or QUA_ENOMEM with nothing changed. */
int quad_reg_add(quad_reg_t *reg, quad_obj_t *o);
/* Undoes quad_reg_add: o is on no list and in no map. Its name and owner
 * fields are kept as they were (the caller frees the name). */
void quad_reg_remove(quad_reg_t *reg, quad_obj_t *o);

/* The object of quaject id, or NULL. */
quad_obj_t *quad_reg_by_id(const quad_reg_t *reg, uint64_t id);
/* The object published as name, or NULL. */
quad_obj_t *quad_reg_by_name(const quad_reg_t *reg, const char *name);

/* Publishes o (unpublished) as a copy of name (no object's name). 0, or
 * QUA_ENOMEM with nothing changed. */
int quad_reg_publish(quad_reg_t *reg, quad_obj_t *o, const char *name);
/* Unpublishes o (published): its name is freed. */
void quad_reg_unpublish(quad_reg_t *reg, quad_obj_t *o);

/* Gives o (in a registry) to owner (a connection, or NULL for none): it
 * leaves its former owner's list and joins owner's. Counts are the
 * caller's (quad_conn.owned). */
void quad_reg_set_owner(quad_obj_t *o, quad_conn_t *owner);

/* The handle connection c holds on o, or NULL. Walks o's handles: one per
 * connection that created or opened o. */
quad_ref_t *quad_ref_find(quad_conn_t *c, const quad_obj_t *o);
/* c's handle on o, made (numbered c->next_handle, which it advances) when
 * c has none. NULL when out of memory, with nothing changed. */
quad_ref_t *quad_ref_get(quad_conn_t *c, quad_obj_t *o);
/* Takes r out of its connection's handles and its object's list; r->conn
 * and r->obj become NULL. Its sites and bindings are the caller's. */
void quad_ref_remove(quad_ref_t *r);

#endif /* QUAD_REGISTRY_H */
