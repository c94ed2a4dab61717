/* test-chain-map.c -- jit_chain_map and jit_parts_map: the map of a chain names exactly the
 * fields jit_emit_chain patched, with the values it patched them with. */
#include "jit.h"
#include "tb-stencils.h"

#include <CUnit/Basic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Where the maps' code is taken to run (never run: only compared). */
#define RUN_AT 0x40000000u

static uint64_t load(const uint8_t *p, unsigned bytes) {
  uint64_t v = 0;
  for (unsigned i = 0; i < bytes; i++)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* Every row of map is a hole of its link, at the link's place in the code,
 * and the field there holds what patching that hole with the row's value
 * gives (value + addend, minus the field's address when PC-relative);
 * every hole of every link not in a dropped tail jump has a row. */
static void check_map(const jit_link_t *links, size_t n, const uint8_t *code,
                      const jit_chain_map_t *m) {
  size_t expected = 0;
  for (size_t i = 0; i < n; i++) {
    const jit_stencil_t *s = links[i].stencil;
    size_t text = m->entry[i] - s->entry;
    bool through = i + 1 < n && m->entry[i + 1] - links[i + 1].stencil->entry == text + s->tail &&
                   s->tail != JIT_NO_TAIL;
    for (uint32_t k = 0; k < s->nholes; k++)
      if (!(through && s->holes[k].offset >= s->tail && s->holes[k].offset < s->code_size))
        expected++;
  }
  CU_ASSERT_EQUAL(m->n, expected);
  for (size_t r = 0; r < m->n && r < m->cap; r++) {
    const jit_patch_t *p = &m->patches[r];
    CU_ASSERT_FATAL(p->link < n);
    const jit_stencil_t *s = links[p->link].stencil;
    const jit_hole_t *h = NULL;
    size_t text = m->entry[p->link] - s->entry;
    for (uint32_t k = 0; k < s->nholes && h == NULL; k++)
      if (s->holes[k].hole == p->hole && s->holes[k].offset < s->data_off &&
          text + s->holes[k].offset == p->offset)
        h = &s->holes[k];
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    const jit_hole_kind_info_t *k = jit_hole_kind_info(h->kind);
    CU_ASSERT_EQUAL(p->kind, h->kind);
    uint64_t want = p->value + (uint64_t)h->addend - (k->pcrel ? RUN_AT + p->offset : 0);
    uint64_t mask = k->bytes == 8 ? ~0ull : (1ull << (8 * k->bytes)) - 1;
    CU_ASSERT_EQUAL(load(code + p->offset, k->bytes), want & mask);
    if (p->to_link >= 0) {
      CU_ASSERT_EQUAL(p->value, RUN_AT + m->entry[p->to_link]);
    } else if (p->hole < TB_HOLE__COUNT) {
      CU_ASSERT_EQUAL(p->value, links[p->link].values[p->hole]);
    }
  }
}

static bool same_patch(const jit_patch_t *a, const jit_patch_t *b) {
  return a->offset == b->offset && a->link == b->link && a->hole == b->hole &&
         a->kind == b->kind && a->to_link == b->to_link && a->value == b->value;
}

static void emit_and_map(const jit_link_t *links, size_t n, uint8_t **code, jit_chain_map_t *m) {
  size_t size = jit_chain_size(links, n), entry, used;
  *code = malloc(size);
  CU_ASSERT_PTR_NOT_NULL_FATAL(*code);
  CU_ASSERT_EQUAL_FATAL(jit_emit_chain(*code, RUN_AT, size, links, n, &entry, &used, NULL), JIT_OK);
  CU_ASSERT_EQUAL_FATAL(jit_chain_map(links, n, RUN_AT, m), JIT_OK);
  CU_ASSERT_EQUAL(m->size, used);
  CU_ASSERT_EQUAL(m->entry[0], entry);
  CU_ASSERT(m->text_end <= m->size);
  /* Emitting and mapping in one pass gives the same bytes and the same map. */
  jit_patch_t rows[64];
  jit_chain_map_t m2 = {.patches = rows, .cap = m->cap < 64 ? m->cap : 64};
  uint8_t *code2 = malloc(size);
  CU_ASSERT_PTR_NOT_NULL_FATAL(code2);
  CU_ASSERT_EQUAL_FATAL(
      jit_emit_chain_mapped(code2, RUN_AT, size, links, n, &entry, &used, NULL, &m2), JIT_OK);
  CU_ASSERT_EQUAL(memcmp(*code, code2, used), 0);
  CU_ASSERT_EQUAL(m2.n, m->n);
  CU_ASSERT_EQUAL(m2.size, m->size);
  CU_ASSERT_EQUAL(m2.text_end, m->text_end);
  CU_ASSERT_EQUAL(memcmp(m2.entry, m->entry, n * sizeof m->entry[0]), 0);
  for (size_t r = 0; r < m2.n && r < m2.cap && r < m->cap; r++)
    CU_ASSERT(same_patch(&rows[r], &m->patches[r]));
  free(code2);
}

/* Links falling through into each other: their dropped jumps have no row. */
static void fall_through_chain_maps_every_field_it_patched(void) {
  uint64_t v0[TB_HOLE__COUNT] = {0}, v1[TB_HOLE__COUNT] = {0}, v2[TB_HOLE__COUNT] = {0};
  jit_link_t links[3] = {
      {&tb_stencil_t_link, v0, TB_HOLE_hole_next, 0, {{0, 0}}},
      {&tb_stencil_t_link, v1, TB_HOLE_hole_next, 0, {{0, 0}}},
      {&tb_stencil_t_add, v2, -1, 0, {{0, 0}}},
  };
  v0[TB_HOLE_hole_k] = 10;
  v1[TB_HOLE_hole_k] = 100;
  v2[TB_HOLE_hole_k] = 1000;
  jit_patch_t rows[64];
  jit_chain_map_t m = {.patches = rows, .cap = 64};
  uint8_t *code;
  emit_and_map(links, 3, &code, &m);
  check_map(links, 3, code, &m);
  bool ks[3] = {false};
  for (size_t r = 0; r < m.n; r++)
    if (rows[r].hole == TB_HOLE_hole_k)
      ks[rows[r].link] = rows[r].value == (uint64_t[]){10, 100, 1000}[rows[r].link];
  CU_ASSERT(ks[0] && ks[1] && ks[2]);
  free(code);
}

/* A link calling another: the call's row names the link it enters. */
static void call_into_another_link_names_it(void) {
  uint64_t v0[TB_HOLE__COUNT] = {0}, v1[TB_HOLE__COUNT] = {0}, v2[TB_HOLE__COUNT] = {0};
  jit_link_t links[3] = {
      {&tb_stencil_t_call2, v0, -1, 1, {{TB_HOLE_hole_fn, 2}}},
      {&tb_stencil_t_add, v1, -1, 0, {{0, 0}}},
      {&tb_stencil_t_add, v2, -1, 0, {{0, 0}}},
  };
  v0[TB_HOLE_hole_k] = 7;
  v1[TB_HOLE_hole_k] = 1000;
  v2[TB_HOLE_hole_k] = 5;
  jit_patch_t rows[64];
  jit_chain_map_t m = {.patches = rows, .cap = 64};
  uint8_t *code;
  emit_and_map(links, 3, &code, &m);
  check_map(links, 3, code, &m);
  int calls = 0;
  for (size_t r = 0; r < m.n; r++)
    if (rows[r].hole == TB_HOLE_hole_fn && rows[r].link == 0) {
      CU_ASSERT_EQUAL(rows[r].to_link, 2);
      calls++;
    }
  CU_ASSERT(calls >= 1);
  /* The same through the parts of the stencil tier. */
  jit_part_t parts[3] = {
      {&tb_tmpl_t_call2, v0, -1, 1, {{TB_HOLE_hole_fn, 2}}},
      {&tb_tmpl_t_add, v1, -1, 0, {{0, 0}}},
      {&tb_tmpl_t_add, v2, -1, 0, {{0, 0}}},
  };
  jit_patch_t rows2[64];
  jit_chain_map_t m2 = {.patches = rows2, .cap = 64};
  CU_ASSERT_EQUAL_FATAL(jit_parts_map(parts, 3, RUN_AT, &m2), JIT_OK);
  CU_ASSERT_EQUAL(m2.n, m.n);
  for (size_t r = 0; r < m.n; r++)
    CU_ASSERT(same_patch(&rows2[r], &rows[r]));
  /* A part without a stencil: no map. */
  jit_template_t none = {"none", NULL, NULL, 0};
  parts[1].tmpl = &none;
  CU_ASSERT_EQUAL(jit_parts_map(parts, 3, RUN_AT, &m2), JIT_ENOTIER);
  free(code);
}

/* Too few rows: every field is counted, only cap stored, nothing past it
 * written; no rows at all just counts. */
static void short_map_counts_all_and_stores_cap(void) {
  uint64_t v0[TB_HOLE__COUNT] = {0}, v1[TB_HOLE__COUNT] = {0};
  jit_link_t links[2] = {
      {&tb_stencil_t_link, v0, TB_HOLE_hole_next, 0, {{0, 0}}},
      {&tb_stencil_t_add, v1, -1, 0, {{0, 0}}},
  };
  jit_patch_t full[64];
  jit_chain_map_t all = {.patches = full, .cap = 64};
  CU_ASSERT_EQUAL_FATAL(jit_chain_map(links, 2, RUN_AT, &all), JIT_OK);
  CU_ASSERT_FATAL(all.n >= 2);
  jit_patch_t rows[3];
  memset(rows, 0xa5, sizeof rows);
  jit_chain_map_t m = {.patches = rows, .cap = 1};
  CU_ASSERT_EQUAL(jit_chain_map(links, 2, RUN_AT, &m), JIT_OK);
  CU_ASSERT_EQUAL(m.n, all.n);
  CU_ASSERT(same_patch(&rows[0], &full[0]));
  CU_ASSERT_EQUAL(rows[1].offset, 0xa5a5a5a5u);
  jit_chain_map_t count = {0};
  CU_ASSERT_EQUAL(jit_chain_map(links, 2, RUN_AT, &count), JIT_OK);
  CU_ASSERT_EQUAL(count.n, all.n);
  /* Bad arguments, as jit_emit_chain refuses them. */
  CU_ASSERT_EQUAL(jit_chain_map(links, 2, RUN_AT, NULL), JIT_EINVAL);
  CU_ASSERT_EQUAL(jit_chain_map(links, 0, RUN_AT, &m), JIT_EINVAL);
  CU_ASSERT_EQUAL(jit_chain_map(links, JIT_CHAIN_MAX + 1, RUN_AT, &m), JIT_EINVAL);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  CU_pSuite s = CU_add_suite("jit-chain-map", NULL, NULL);
  CU_add_test(s, "fall_through_chain_maps_every_field_it_patched",
              fall_through_chain_maps_every_field_it_patched);
  CU_add_test(s, "call_into_another_link_names_it", call_into_another_link_names_it);
  CU_add_test(s, "short_map_counts_all_and_stores_cap", short_map_counts_all_and_stores_cap);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
  CU_cleanup_registry();
  return failed ? 1 : 0;
}
