/* registry.c -- quad's objects, handles and names: the lists and maps that find them (loop thread).
 *
 * Design note (see also dispatch.c's note on what the methods do with them).
 *
 *  1. Every quaject the daemon runs for clients is a quad_obj on one list,
 *     oldest first (List pages and --state-dir save in that order), and in
 *     a map by quaject id. A published one is also in a map by name.
 *  2. The name map is a quad_map (uint64 keys) keyed by a 64-bit hash of the
 *     name; its value is the first object whose name has that hash, and
 *     objects whose names collide follow it through name_next. A lookup
 *     hashes once and compares the names on that short chain.
 *  3. Replacing a map entry is a quad_map_del then a quad_map_put of the
 *     same key, which never allocates: the del left len one lower, so the
 *     put finds the room the entry had. Only a new key can fail.
 *  4. A connection's owned objects are on its `owns` list, so a closing
 *     connection finds them in proportion to their number. An object's
 *     handles are on its `refs` list, one per connection that holds one.
 */
#include <stdlib.h>
#include <string.h>

#include "registry.h"

/* Tests narrow the hash to force collisions (note 2). */
#ifndef QUAD_NAME_HASH_MASK
#define QUAD_NAME_HASH_MASK UINT64_MAX
#endif

/* The name map's key: FNV-1a of the name, narrowed, never 0 (the map's empty key). */
static uint64_t name_key(const char *name) {
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (const unsigned char *p = (const unsigned char *)name; *p != '\0'; p++) {
    h ^= *p;
    h *= UINT64_C(0x100000001b3);
  }
  h &= (uint64_t)QUAD_NAME_HASH_MASK;
  return h != 0 ? h : 1;
}

/* Makes o the first of its key's chain, or takes it off (note 3: never fails). */
static void name_head_replace(quad_reg_t *reg, uint64_t key, quad_obj_t *head) {
  quad_map_del(&reg->by_name, key);
  if (head != NULL)
    quad_map_put(&reg->by_name, key, head);
}

/* Indexes o->name. 0 or QUA_ENOMEM. */
static int name_index(quad_reg_t *reg, quad_obj_t *o) {
  uint64_t key = name_key(o->name);
  quad_obj_t *head = quad_map_get(&reg->by_name, key);
  if (head == NULL) {
    o->name_next = NULL;
    return quad_map_put(&reg->by_name, key, o);
  }
  o->name_next = head->name_next;
  head->name_next = o;
  return 0;
}

static void name_unindex(quad_reg_t *reg, quad_obj_t *o) {
  uint64_t key = name_key(o->name);
  quad_obj_t *head = quad_map_get(&reg->by_name, key);
  if (head == o) {
    name_head_replace(reg, key, o->name_next);
  } else {
    for (quad_obj_t *p = head; p != NULL; p = p->name_next)
      if (p->name_next == o) {
        p->name_next = o->name_next;
        break;
      }
  }
  o->name_next = NULL;
}

void quad_reg_init(quad_reg_t *reg) {
  TAILQ_INIT(&reg->objs);
  quad_map_init(&reg->by_id);
  quad_map_init(&reg->by_name);
}

void quad_reg_fini(quad_reg_t *reg) {
  quad_map_fini(&reg->by_id);
  quad_map_fini(&reg->by_name);
  TAILQ_INIT(&reg->objs);
}

int quad_reg_add(quad_reg_t *reg, quad_obj_t *o) {
  if (quad_map_put(&reg->by_id, o->id, o) < 0)
    return QUA_ENOMEM;
  if (o->name != NULL && name_index(reg, o) < 0) {
    quad_map_del(&reg->by_id, o->id);
    return QUA_ENOMEM;
  }
  TAILQ_INSERT_TAIL(&reg->objs, o, link);
  if (o->owner != NULL)
    LIST_INSERT_HEAD(&o->owner->owns, o, owner_link);
  return 0;
}

void quad_reg_remove(quad_reg_t *reg, quad_obj_t *o) {
  if (o->owner != NULL)
    LIST_REMOVE(o, owner_link);
  TAILQ_REMOVE(&reg->objs, o, link);
  if (o->name != NULL)
    name_unindex(reg, o);
  quad_map_del(&reg->by_id, o->id);
}

quad_obj_t *quad_reg_by_id(const quad_reg_t *reg, uint64_t id) {
  return quad_map_get(&reg->by_id, id);
}

quad_obj_t *quad_reg_by_name(const quad_reg_t *reg, const char *name) {
  for (quad_obj_t *o = quad_map_get(&reg->by_name, name_key(name)); o != NULL; o = o->name_next)
    if (strcmp(o->name, name) == 0)
      return o;
  return NULL;
}

int quad_reg_publish(quad_reg_t *reg, quad_obj_t *o, const char *name) {
  if ((o->name = strdup(name)) == NULL)
    return QUA_ENOMEM;
  if (name_index(reg, o) < 0) {
    free(o->name);
    o->name = NULL;
    return QUA_ENOMEM;
  }
  return 0;
}

void quad_reg_unpublish(quad_reg_t *reg, quad_obj_t *o) {
  name_unindex(reg, o);
  free(o->name);
  o->name = NULL;
}

void quad_reg_set_owner(quad_obj_t *o, quad_conn_t *owner) {
  if (o->owner != NULL)
    LIST_REMOVE(o, owner_link);
  o->owner = owner;
  if (owner != NULL)
    LIST_INSERT_HEAD(&owner->owns, o, owner_link);
}

quad_ref_t *quad_ref_find(quad_conn_t *c, const quad_obj_t *o) {
  quad_ref_t *r;
  LIST_FOREACH(r, &o->refs, obj_link) {
    if (r->conn == c)
      return r;
  }
  return NULL;
}

quad_ref_t *quad_ref_get(quad_conn_t *c, quad_obj_t *o) {
  quad_ref_t *r = quad_ref_find(c, o);
  if (r != NULL)
    return r;
  if ((r = calloc(1, sizeof *r)) == NULL)
    return NULL;
  r->handle = c->next_handle;
  r->conn = c;
  r->obj = o;
  if (quad_map_put(&c->handles, r->handle, r) < 0) {
    free(r);
    return NULL;
  }
  c->next_handle++;
  LIST_INSERT_HEAD(&o->refs, r, obj_link);
  return r;
}

void quad_ref_remove(quad_ref_t *r) {
  quad_map_del(&r->conn->handles, r->handle);
  LIST_REMOVE(r, obj_link);
  r->obj = NULL;
  r->conn = NULL;
}
