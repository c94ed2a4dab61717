/* test-registry.c -- quad's registry alone: objects by id and by name, owners' lists, handles.
 *
 * Built with names hashed to 2 bits (QUAD_NAME_HASH_MASK=3), so that most
 * names share a hash and the collision chains are what is tested.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtest.h"
#include "registry.h"

enum { N = 200 };

static quad_reg_t reg;
static quad_obj_t objs[N];
static char names[N][16];

/* N objects with ids 1..N, none added. */
static void objs_fresh(void) {
  memset(objs, 0, sizeof objs);
  for (int i = 0; i < N; i++) {
    objs[i].id = (uint64_t)i + 1;
    snprintf(names[i], sizeof names[i], "q%d", i);
  }
  quad_reg_init(&reg);
}

static quad_conn_t *conn_new(void) {
  quad_conn_t *c = calloc(1, sizeof *c);
  CU_ASSERT_FATAL(c != NULL);
  c->next_handle = 1;
  quad_map_init(&c->handles);
  return c;
}

static void conn_free(quad_conn_t *c) {
  quad_map_fini(&c->handles);
  free(c);
}

static size_t owned_count(quad_conn_t *c) {
  size_t n = 0;
  quad_obj_t *o;
  LIST_FOREACH(o, &c->owns, owner_link)
    n++;
  return n;
}

/* Every object of `in` (1: in reg, published when named[i]) is found by id
 * and name as it should be, and no other name is found. */
static void check_all(const bool *in, const bool *named) {
  for (int i = 0; i < N; i++) {
    CU_ASSERT_PTR_EQUAL(quad_reg_by_id(&reg, objs[i].id), in[i] ? &objs[i] : NULL);
    CU_ASSERT_PTR_EQUAL(quad_reg_by_name(&reg, names[i]), in[i] && named[i] ? &objs[i] : NULL);
  }
  CU_ASSERT_PTR_NULL(quad_reg_by_name(&reg, "nobody"));
}

static void reg_finds_objects_by_id_and_published_name(void) {
  objs_fresh();
  objs[0].name = strdup("first");
  CU_ASSERT_EQUAL(quad_reg_add(&reg, &objs[0]), 0);
  CU_ASSERT_EQUAL(quad_reg_add(&reg, &objs[1]), 0);
  CU_ASSERT_PTR_EQUAL(quad_reg_by_id(&reg, 1), &objs[0]);
  CU_ASSERT_PTR_EQUAL(quad_reg_by_id(&reg, 2), &objs[1]);
  CU_ASSERT_PTR_NULL(quad_reg_by_id(&reg, 3));
  CU_ASSERT_PTR_EQUAL(quad_reg_by_name(&reg, "first"), &objs[0]);
  CU_ASSERT_PTR_NULL(quad_reg_by_name(&reg, "firs"));
  CU_ASSERT_PTR_NULL(quad_reg_by_name(&reg, "first2"));
  CU_ASSERT_EQUAL(quad_reg_publish(&reg, &objs[1], "second"), 0);
  CU_ASSERT_STRING_EQUAL(objs[1].name, "second");
  CU_ASSERT_PTR_EQUAL(quad_reg_by_name(&reg, "second"), &objs[1]);
  quad_reg_unpublish(&reg, &objs[0]);
  CU_ASSERT_PTR_NULL(objs[0].name);
  CU_ASSERT_PTR_NULL(quad_reg_by_name(&reg, "first"));
  CU_ASSERT_PTR_EQUAL(quad_reg_by_id(&reg, 1), &objs[0]); /* still there, unnamed */
  /* The name is free again, for another object. */
  quad_reg_unpublish(&reg, &objs[1]);
  CU_ASSERT_EQUAL(quad_reg_publish(&reg, &objs[1], "first"), 0);
  CU_ASSERT_PTR_EQUAL(quad_reg_by_name(&reg, "first"), &objs[1]);
  quad_reg_remove(&reg, &objs[0]);
  quad_reg_remove(&reg, &objs[1]);
  CU_ASSERT_STRING_EQUAL(objs[1].name, "first"); /* remove keeps the name: the caller's */
  CU_ASSERT_PTR_NULL(quad_reg_by_name(&reg, "first"));
  CU_ASSERT_PTR_NULL(quad_reg_by_id(&reg, 2));
  free(objs[1].name);
  CU_ASSERT(TAILQ_EMPTY(&reg.objs));
  CU_ASSERT_EQUAL(reg.by_id.len, 0);
  CU_ASSERT_EQUAL(reg.by_name.len, 0);
  quad_reg_fini(&reg);
}

/* With 2-bit hashes, 200 names share 3 keys: chains of about 67. Objects
 * come and go, published or not, in an order that removes chain heads,
 * middles and tails; after each step every lookup is checked. */
static void reg_colliding_names_are_found_and_removed_in_any_order(void) {
  objs_fresh();
  static bool in[N], named[N];
  memset(in, 0, sizeof in);
  memset(named, 0, sizeof named);
  for (int i = 0; i < N; i++) {
    if (i % 3 != 0)
      objs[i].name = strdup(names[i]);
    CU_ASSERT_EQUAL_FATAL(quad_reg_add(&reg, &objs[i]), 0);
    in[i] = true;
    named[i] = i % 3 != 0;
  }
  CU_ASSERT(reg.by_name.len <= 3);
  check_all(in, named);
  for (int i = 0; i < N; i += 3) { /* the unnamed ones get their names */
    CU_ASSERT_EQUAL(quad_reg_publish(&reg, &objs[i], names[i]), 0);
    named[i] = true;
  }
  check_all(in, named);
  unsigned x = 12345; /* a fixed pseudo-random order */
  for (int step = 0; step < 4 * N; step++) {
    x = x * 1103515245u + 12345u;
    int i = (int)((x >> 8) % N);
    if (in[i] && named[i] && (x & 1)) {
      quad_reg_unpublish(&reg, &objs[i]);
      named[i] = false;
    } else if (in[i]) {
      quad_reg_remove(&reg, &objs[i]);
      free(objs[i].name);
      objs[i].name = NULL;
      in[i] = named[i] = false;
    } else {
      CU_ASSERT_EQUAL_FATAL(quad_reg_add(&reg, &objs[i]), 0);
      CU_ASSERT_EQUAL_FATAL(quad_reg_publish(&reg, &objs[i], names[i]), 0);
      in[i] = named[i] = true;
    }
    check_all(in, named);
  }
  for (int i = 0; i < N; i++)
    if (in[i]) {
      quad_reg_remove(&reg, &objs[i]);
      free(objs[i].name);
    }
  CU_ASSERT(TAILQ_EMPTY(&reg.objs));
  CU_ASSERT_EQUAL(reg.by_name.len, 0);
  CU_ASSERT_EQUAL(reg.by_id.len, 0);
  quad_reg_fini(&reg);
}

static void reg_lists_objects_oldest_first(void) {
  objs_fresh();
  for (int i = 0; i < 5; i++)
    CU_ASSERT_EQUAL(quad_reg_add(&reg, &objs[i]), 0);
  quad_reg_remove(&reg, &objs[2]);
  CU_ASSERT_EQUAL(quad_reg_add(&reg, &objs[2]), 0); /* now the newest */
  const int want[] = {0, 1, 3, 4, 2};
  int k = 0;
  quad_obj_t *o;
  TAILQ_FOREACH(o, &reg.objs, link) {
    CU_ASSERT_FATAL(k < 5);
    CU_ASSERT_PTR_EQUAL(o, &objs[want[k]]);
    k++;
  }
  CU_ASSERT_EQUAL(k, 5);
  for (int i = 0; i < 5; i++)
    quad_reg_remove(&reg, &objs[i]);
  quad_reg_fini(&reg);
}

/* An owner's list holds what it owns, whatever else the registry holds,
 * and follows set_owner and remove. */
static void reg_owner_lists_hold_exactly_what_each_owns(void) {
  objs_fresh();
  quad_conn_t *a = conn_new(), *b = conn_new();
  for (int i = 0; i < N; i++) {
    objs[i].owner = i < 10 ? a : i < 15 ? b : NULL;
    CU_ASSERT_EQUAL(quad_reg_add(&reg, &objs[i]), 0);
  }
  CU_ASSERT_EQUAL(owned_count(a), 10);
  CU_ASSERT_EQUAL(owned_count(b), 5);
  quad_obj_t *o;
  LIST_FOREACH(o, &a->owns, owner_link)
    CU_ASSERT(o >= &objs[0] && o < &objs[10]);
  quad_reg_set_owner(&objs[3], NULL);       /* left without an owner */
  quad_reg_set_owner(&objs[4], b);          /* given to another */
  quad_reg_set_owner(&objs[100], a);        /* taken by one */
  quad_reg_remove(&reg, &objs[5]);          /* gone */
  CU_ASSERT_EQUAL(owned_count(a), 8);
  CU_ASSERT_EQUAL(owned_count(b), 6);
  CU_ASSERT_PTR_EQUAL(objs[4].owner, b);
  CU_ASSERT_PTR_NULL(objs[3].owner);
  bool saw100 = false;
  LIST_FOREACH(o, &a->owns, owner_link) {
    CU_ASSERT_PTR_EQUAL(o->owner, a);
    saw100 |= o == &objs[100];
  }
  CU_ASSERT(saw100);
  /* A closing connection's walk: its list, emptied as it goes. */
  while (!LIST_EMPTY(&a->owns)) {
    o = LIST_FIRST(&a->owns);
    quad_reg_remove(&reg, o);
  }
  CU_ASSERT_PTR_NOT_NULL(quad_reg_by_id(&reg, objs[3].id));
  CU_ASSERT_PTR_NULL(quad_reg_by_id(&reg, objs[100].id));
  CU_ASSERT_EQUAL(owned_count(b), 6);
  TAILQ_FOREACH(o, &reg.objs, link) {
    CU_ASSERT(o->owner != a);
  }
  while (!TAILQ_EMPTY(&reg.objs))
    quad_reg_remove(&reg, TAILQ_FIRST(&reg.objs));
  CU_ASSERT(LIST_EMPTY(&b->owns));
  quad_reg_fini(&reg);
  conn_free(a);
  conn_free(b);
}

/* One handle per connection and object, numbered per connection from 1 and
 * never reused; removing one leaves the others. */
static void ref_one_handle_per_connection_numbered_from_1(void) {
  objs_fresh();
  quad_conn_t *a = conn_new(), *b = conn_new();
  for (int i = 0; i < 3; i++)
    CU_ASSERT_EQUAL(quad_reg_add(&reg, &objs[i]), 0);
  quad_ref_t *a0 = quad_ref_get(a, &objs[0]), *a1 = quad_ref_get(a, &objs[1]);
  quad_ref_t *b1 = quad_ref_get(b, &objs[1]);
  CU_ASSERT_FATAL(a0 != NULL && a1 != NULL && b1 != NULL);
  CU_ASSERT_EQUAL(a0->handle, 1);
  CU_ASSERT_EQUAL(a1->handle, 2);
  CU_ASSERT_EQUAL(b1->handle, 1);
  CU_ASSERT_PTR_EQUAL(quad_ref_get(a, &objs[1]), a1); /* the same handle again */
  CU_ASSERT_EQUAL(a->next_handle, 3);
  CU_ASSERT_PTR_EQUAL(quad_ref_find(a, &objs[1]), a1);
  CU_ASSERT_PTR_EQUAL(quad_ref_find(b, &objs[1]), b1);
  CU_ASSERT_PTR_NULL(quad_ref_find(b, &objs[0]));
  CU_ASSERT_PTR_EQUAL(quad_map_get(&a->handles, 2), a1);
  quad_ref_remove(a1);
  CU_ASSERT_PTR_NULL(a1->conn);
  CU_ASSERT_PTR_NULL(a1->obj);
  CU_ASSERT_PTR_NULL(quad_map_get(&a->handles, 2));
  CU_ASSERT_PTR_NULL(quad_ref_find(a, &objs[1]));
  CU_ASSERT_PTR_EQUAL(quad_ref_find(b, &objs[1]), b1);
  CU_ASSERT_PTR_EQUAL(LIST_FIRST(&objs[1].refs), b1);
  CU_ASSERT_PTR_NULL(LIST_NEXT(b1, obj_link));
  free(a1);
  quad_ref_t *again = quad_ref_get(a, &objs[1]); /* a new handle, not 2 again */
  CU_ASSERT_FATAL(again != NULL);
  CU_ASSERT_EQUAL(again->handle, 3);
  quad_ref_remove(again);
  quad_ref_remove(a0);
  quad_ref_remove(b1);
  free(again);
  free(a0);
  free(b1);
  CU_ASSERT_EQUAL(a->handles.len, 0);
  for (int i = 0; i < 3; i++) {
    CU_ASSERT(LIST_EMPTY(&objs[i].refs));
    quad_reg_remove(&reg, &objs[i]);
  }
  quad_reg_fini(&reg);
  conn_free(a);
  conn_free(b);
}

int main(void) {
  static const qtest_case_t cases[] = {
      {"reg_finds_objects_by_id_and_published_name", reg_finds_objects_by_id_and_published_name},
      {"reg_colliding_names_are_found_and_removed_in_any_order",
       reg_colliding_names_are_found_and_removed_in_any_order},
      {"reg_lists_objects_oldest_first", reg_lists_objects_oldest_first},
      {"reg_owner_lists_hold_exactly_what_each_owns", reg_owner_lists_hold_exactly_what_each_owns},
      {"ref_one_handle_per_connection_numbered_from_1",
       ref_one_handle_per_connection_numbered_from_1},
      {NULL, NULL},
  };
  return qtest_run("registry", cases);
}
