/* test-qj.c -- m68k quajects called from the host: results, callbacks, limits and bad input. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

#include "qf-stencils.h"
#include "quaject68k-internal.h"
#include "quaject68k.h"

static m68k_machine_t *new_machine(void) {
  m68k_machine_config_t cfg = {.model = M68K_MODEL_68030, .ncpus = 2, .ram_size = 16u << 20};
  m68k_machine_t *m = m68k_machine_create(&cfg);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  return m;
}

static m68k_qj_t *new_qj(m68k_machine_t *m, const char *type, const char *variant, uint32_t cap) {
  m68k_qj_t *q = NULL;
  char err[256] = "";
  int rc = m68k_qj_create(m, type, variant, cap, &q, err, sizeof err);
  if (rc != M68K_OK)
    fprintf(stderr, "create %s: %s\n", type, err);
  CU_ASSERT_EQUAL_FATAL(rc, M68K_OK);
  return q;
}

/* Calls entry on cpu and checks the status; returns the value. */
static uint32_t call(m68k_qj_t *q, unsigned cpu, const char *entry, uint32_t arg, int status) {
  uint32_t v = 0xdeadbeef;
  int rc = m68k_qj_call(q, cpu, entry, arg, &v, NULL, NULL);
  CU_ASSERT_EQUAL(rc, status);
  return v;
}

static void counter_adds_and_reads(void) {
  m68k_machine_t *m = new_machine();
  m68k_qj_t *q = new_qj(m, "counter", NULL, 0);
  CU_ASSERT_EQUAL(call(q, 0, "read", 0, M68K_QJ_OK), 0);
  CU_ASSERT_EQUAL(call(q, 0, "add", 5, M68K_QJ_OK), 5);
  CU_ASSERT_EQUAL(call(q, 1, "add", 7, M68K_QJ_OK), 12);
  CU_ASSERT_EQUAL(call(q, 1, "add", (uint32_t)-2, M68K_QJ_OK), 10);
  CU_ASSERT_EQUAL(call(q, 0, "read", 0, M68K_QJ_OK), 10);
  uint32_t v;
  CU_ASSERT(m68k_machine_read32(m, m68k_qj_data(q), &v));
  CU_ASSERT_EQUAL(v, 10);
  m68k_machine_destroy(m);
}

static void stack_is_lifo_with_full_and_empty(void) {
  m68k_machine_t *m = new_machine();
  m68k_qj_t *q = new_qj(m, "stack", NULL, 3);
  call(q, 0, "pop", 0, M68K_QJ_EMPTY);
  for (uint32_t i = 1; i <= 3; i++)
    CU_ASSERT_EQUAL(call(q, i & 1, "push", i * 11, M68K_QJ_OK), i * 11);
  CU_ASSERT_EQUAL(call(q, 0, "push", 99, M68K_QJ_FULL), 99);
  for (uint32_t i = 3; i >= 1; i--)
    CU_ASSERT_EQUAL(call(q, i & 1, "pop", 0, M68K_QJ_OK), i * 11);
  CU_ASSERT_EQUAL(call(q, 0, "pop", 0, M68K_QJ_EMPTY), 0);
  m68k_machine_destroy(m);
}

/* The queue in every variant: FIFO, full at capacity, empty, wrapping. */
static void queue_is_fifo_in_every_variant(void) {
  static const char *const variants[] = {"auto", "spsc", "mpmc", "broken"};
  for (size_t k = 0; k < 4; k++) {
    m68k_machine_t *m = new_machine();
    m68k_qj_t *q = new_qj(m, "queue", variants[k], 4);
    uint32_t next_put = 1, next_get = 1;
    call(q, 0, "get", 0, M68K_QJ_EMPTY);
    for (int round = 0; round < 5; round++) {
      for (int i = 0; i < 4; i++)
        call(q, 0, "put", next_put++, M68K_QJ_OK);
      CU_ASSERT_EQUAL(call(q, 0, "put", 1000, M68K_QJ_FULL), 1000);
      for (int i = 0; i < 3; i++)
        CU_ASSERT_EQUAL(call(q, 1, "get", 0, M68K_QJ_OK), next_get++);
      call(q, 0, "put", next_put++, M68K_QJ_OK);
      for (int i = 0; i < 2; i++)
        CU_ASSERT_EQUAL(call(q, 1, "get", 0, M68K_QJ_OK), next_get++);
      while (next_get < next_put)
        CU_ASSERT_EQUAL(call(q, 1, "get", 0, M68K_QJ_OK), next_get++);
      call(q, 1, "get", 0, M68K_QJ_EMPTY);
    }
    m68k_machine_destroy(m);
  }
}

static void list_inserts_and_deletes_nodes(void) {
  m68k_machine_t *m = new_machine();
  m68k_qj_t *q = new_qj(m, "list", NULL, 4);
  CU_ASSERT_EQUAL(m68k_qj_node(q, 4), 0);
  call(q, 0, "delete", 0, M68K_QJ_EMPTY);
  for (uint32_t i = 0; i < 4; i++)
    CU_ASSERT_EQUAL(call(q, i & 1, "insert", m68k_qj_node(q, i), M68K_QJ_OK), m68k_qj_node(q, i));
  for (uint32_t i = 4; i-- > 0;) {
    uint32_t node = call(q, i & 1, "delete", 0, M68K_QJ_OK), next = 1;
    CU_ASSERT_EQUAL(node, m68k_qj_node(q, i));
    CU_ASSERT(m68k_machine_read32(m, node, &next));
    CU_ASSERT_EQUAL(next, 0); /* delete clears the node's link (design note L2) */
  }
  call(q, 0, "delete", 0, M68K_QJ_EMPTY);
  m68k_machine_destroy(m);
}

typedef struct seen {
  char log[512];
} seen_t;

static void note(void *ctx, const char *cb, uint32_t arg) {
  seen_t *s = ctx;
  size_t n = strlen(s->log);
  snprintf(s->log + n, sizeof s->log - n, "%s(%u) ", cb, arg);
}

/* notempty once per empty -> not empty, notfull once per full -> not
 * full, in every variant (tracked templates are chosen by listening). */
static void queue_edges_fire_once_per_transition(void) {
  static const char *const variants[] = {"auto", "spsc", "mpmc"};
  for (size_t k = 0; k < 3; k++) {
    m68k_machine_t *m = new_machine();
    m68k_qj_t *q = new_qj(m, "queue", variants[k], 2);
    seen_t s = {""};
    for (unsigned cb = 0; m68k_qj_callback_name(q, cb) != NULL; cb++)
      CU_ASSERT_EQUAL(m68k_qj_on_callback(q, m68k_qj_callback_name(q, cb), note, &s), 0);
    call(q, 0, "put", 1, M68K_QJ_OK);  /* notempty */
    call(q, 0, "put", 2, M68K_QJ_OK);
    call(q, 0, "put", 3, M68K_QJ_FULL); /* full(3) */
    call(q, 1, "get", 0, M68K_QJ_OK);  /* notfull */
    call(q, 1, "get", 0, M68K_QJ_OK);
    call(q, 1, "get", 0, M68K_QJ_EMPTY); /* empty(0) */
    call(q, 0, "put", 4, M68K_QJ_OK);  /* notempty */
    CU_ASSERT_STRING_EQUAL(s.log, "notempty(0) full(3) notfull(0) empty(0) notempty(0) ");
    const char *name;
    CU_ASSERT_EQUAL(m68k_qj_entry_code(q, "put", NULL, NULL, &name), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(name, "_t"));
    /* Nobody listening: the untracked code, and no more calls. */
    CU_ASSERT_EQUAL(m68k_qj_on_callback(q, "notempty", NULL, NULL), 0);
    CU_ASSERT_EQUAL(m68k_qj_entry_code(q, "put", NULL, NULL, &name), 0);
    CU_ASSERT_PTR_NULL(strstr(name, "_t"));
    m68k_machine_destroy(m);
  }
}

/* A folded form (m68k_qj_call_folded) does what its entry does: the same
 * sequence of operations on two equal quajects, one called and one
 * folded, gives the same statuses, values and callbacks, through full and
 * empty (the folded forms keep a2 across a callback), in every variant,
 * with and without listeners (the tracked forms). */
static void folded_forms_match_the_calls(void) {
  static const struct {
    const char *type, *variant;
  } ts[] = {{"counter", NULL}, {"counter", "broken"}, {"stack", NULL},   {"stack", "broken"},
            {"queue", "auto"}, {"queue", "spsc"},     {"queue", "mpmc"}, {"queue", "broken"},
            {"list", NULL},    {"list", "broken"}};
  for (size_t t = 0; t < sizeof ts / sizeof ts[0]; t++) {
    for (int listen = 0; listen < 2; listen++) {
      m68k_machine_t *m = new_machine();
      bool counter = strcmp(ts[t].type, "counter") == 0, list = strcmp(ts[t].type, "list") == 0;
      m68k_qj_t *q[2] = {new_qj(m, ts[t].type, ts[t].variant, counter ? 0 : 3),
                         new_qj(m, ts[t].type, ts[t].variant, counter ? 0 : 3)};
      seen_t s[2] = {{""}, {""}};
      for (int k = 0; k < 2 && listen; k++)
        for (unsigned cb = 0; m68k_qj_callback_name(q[k], cb) != NULL; cb++)
          CU_ASSERT_EQUAL(m68k_qj_on_callback(q[k], m68k_qj_callback_name(q[k], cb), note, &s[k]),
                          0);
      uint32_t seed = 12345, next_node = 0;
      for (int i = 0; i < 200; i++) {
        seed = seed * 1103515245u + 12345u;
        unsigned e = (seed >> 16) % 2, cpu = (seed >> 20) % 2;
        const char *entry = m68k_qj_entry_name(q[0], e);
        /* A list's inserts take its nodes in turn, while there are any. */
        if (list && e == 0 && next_node == 3)
          e = 1, entry = m68k_qj_entry_name(q[0], 1);
        uint32_t r[2], v[2] = {0, 0};
        int st[2];
        for (int k = 0; k < 2; k++) {
          uint32_t arg = e != 0 ? 0 : list ? m68k_qj_node(q[k], next_node) : counter ? 3 : i + 1u;
          st[k] = k == 0 ? m68k_qj_call(q[k], cpu, entry, arg, &v[k], NULL, NULL)
                         : m68k_qj_call_folded(q[k], cpu, entry, arg, &v[k], NULL, NULL);
          /* A list's values are nodes: compared as node numbers. */
          r[k] = list && st[k] == M68K_QJ_OK ? (v[k] - m68k_qj_node(q[k], 0)) / 8 : v[k];
          if (st[k] != M68K_QJ_OK)
            r[k] = 0;
        }
        if (list && e == 0 && st[0] == M68K_QJ_OK)
          next_node++;
        if (st[0] != st[1] || r[0] != r[1])
          fprintf(stderr, "\n  %s %s op %d %s: called %d %u, folded %d %u\n", ts[t].type,
                  ts[t].variant ? ts[t].variant : "", i, entry, st[0], r[0], st[1], r[1]);
        CU_ASSERT_EQUAL(st[0], st[1]);
        CU_ASSERT_EQUAL(r[0], r[1]);
        if (list && e == 1 && st[0] == M68K_QJ_OK)
          next_node--; /* the list is LIFO: the last node inserted is free again */
      }
      CU_ASSERT_STRING_EQUAL(s[0].log, s[1].log);
      m68k_machine_destroy(m);
    }
  }
}

static void count_edge(void *ctx, const char *callback, uint32_t item) {
  (void)item;
  ((unsigned *)ctx)[strcmp(callback, "notempty") == 0 ? 0 : 1]++;
}

/* An operation's cold stubs (quaject68k-templates.c note F5) are appended
 * only where links[] and the operation's calls have room for all of them;
 * without room nothing changes and the caller is told (0). */
static void cold_stubs_need_room(void) {
  m68k_machine_t *m = new_machine();
  m68k_qj_t *q = new_qj(m, "queue", "mpmc", 8);
  unsigned put = 0;
  while (strcmp(m68k_qj_entry_name(q, put), "put") != 0)
    put++;
  jit_link_t links[8] = {{.stencil = m68k__qj_fold_entry(q, put)}}, before[8];
  CU_ASSERT_PTR_NOT_NULL_FATAL(links[0].stencil);
  memcpy(before, links, sizeof links);
  size_t n = m68k__qj_fold_colds(links, 1, 8, 0);
  CU_ASSERT_FATAL(n > 1);
  size_t want = n - 1;
  CU_ASSERT_EQUAL(links[0].ncalls, want);
  memcpy(links, before, sizeof links);
  CU_ASSERT_EQUAL(m68k__qj_fold_colds(links, 1, 1 + want - 1, 0), 0); /* one link short */
  CU_ASSERT(memcmp(links, before, sizeof links) == 0);
  links[0].ncalls = JIT_LINK_CALLS - (unsigned)want + 1; /* one call short */
  memcpy(before, links, sizeof links);
  CU_ASSERT_EQUAL(m68k__qj_fold_colds(links, 1, 8, 0), 0);
  CU_ASSERT(memcmp(links, before, sizeof links) == 0);
  links[0].ncalls = JIT_LINK_CALLS - (unsigned)want; /* just room */
  CU_ASSERT_EQUAL(m68k__qj_fold_colds(links, 1, 1 + want, 0), 1 + want);
  m68k_qj_destroy(q);
  m68k_machine_destroy(m);
}

/* The largest ring (M68K_QJ_CAPACITY_MAX items: byte offsets up to 65532,
 * past those whose top bit is set, in the 16-bit halves of ht) holds every
 * item it may hold, twice round, called and folded, SP-SC and MP-MC, edges
 * untracked and tracked: each put succeeds until the queue holds its
 * capacity, the next is refused, and the gets give the items back in
 * order, then find it empty. An index widened with its sign (MOVEA.W,
 * EXT.L) instead of zeros, or a bound compared as signed, would make the
 * ring wrap early or refuse puts it has room for. */
static void largest_ring_keeps_every_item(void) {
  static const char *const variants[] = {"spsc", "mpmc"};
  const uint32_t cap = M68K_QJ_CAPACITY_MAX;
  for (int k = 0; k < 2; k++)
    for (int tracked = 0; tracked < 2; tracked++)
      for (int folded = 0; folded < 2; folded++) {
        m68k_machine_t *m = new_machine();
        m68k_qj_t *q = new_qj(m, "queue", variants[k], cap);
        unsigned edges[2] = {0, 0};
        for (int e = 0; e < 2 && tracked; e++)
          CU_ASSERT_EQUAL(m68k_qj_on_callback(q, e ? "notfull" : "notempty", count_edge, edges),
                          M68K_OK);
        int (*op)(m68k_qj_t *, unsigned, const char *, uint32_t, uint32_t *, uint64_t *,
                  uint64_t *) = folded ? m68k_qj_call_folded : m68k_qj_call;
        uint32_t in = 1, out = 1, v = 0;
        bool ok = true;
        for (int round = 0; round < 2 && ok; round++) {
          for (uint32_t i = 0; i < cap && ok; i++)
            ok = op(q, 0, "put", in++, &v, NULL, NULL) == M68K_QJ_OK;
          ok = ok && op(q, 0, "put", in, &v, NULL, NULL) == M68K_QJ_FULL;
          for (uint32_t i = 0; i < cap && ok; i++)
            ok = op(q, 1, "get", 0, &v, NULL, NULL) == M68K_QJ_OK && v == out++;
          ok = ok && op(q, 1, "get", 0, &v, NULL, NULL) == M68K_QJ_EMPTY;
        }
        if (!ok)
          fprintf(stderr, "\n  %s%s%s: wrong at put %u, get %u\n", variants[k],
                  tracked ? " tracked" : "", folded ? " folded" : "", in - 1, out - 1);
        CU_ASSERT(ok);
        CU_ASSERT_EQUAL(edges[0], tracked ? 2u : 0u); /* once per round each */
        CU_ASSERT_EQUAL(edges[1], tracked ? 2u : 0u);
        m68k_machine_destroy(m);
      }
}

/* No folded form (quaject68k-templates.c note F2) moves the stack pointer
 * or addresses the stack, except to keep a2 across a callback: it has no
 * epilogue that could undo it. Each is disassembled, instruction by
 * instruction, from a copy in RAM. */
static void folded_forms_never_touch_the_stack(void) {
  m68k_machine_t *m = new_machine();
  m68k_cpu_t *c = m68k_machine_cpu(m, 0);
  unsigned checked = 0;
  for (uint32_t i = 0; i < qf_set.nstencils; i++) {
    const jit_stencil_t *st = qf_set.stencils[i];
    if (strncmp(st->name, "qk_fold_", 8) == 0)
      continue; /* the callers' pieces: not operations */
    const uint32_t at = 0x10000;
    CU_ASSERT_FATAL(m68k_machine_load(m, at, st->bytes, st->code_size) == M68K_OK);
    for (uint32_t off = 0; off < st->code_size;) {
      char text[128] = "";
      int len = m68k_disassemble(c, at + off, text, sizeof text);
      CU_ASSERT_FATAL(len > 0);
      bool stack = strstr(text, "sp") != NULL || strstr(text, "a7") != NULL;
      bool keep_a2 = strstr(text, "a2,-(") != NULL || strstr(text, ")+,a2") != NULL;
      if (stack && !keep_a2)
        fprintf(stderr, "\n  %s+%u: %s\n", st->name, off, text);
      CU_ASSERT(!stack || keep_a2);
      off += (uint32_t)len;
    }
    checked++;
  }
  CU_ASSERT(checked >= 20);
  m68k_machine_destroy(m);
}

/* The seeded bugs need another CPU: run alone, each is correct. */
static void broken_variants_are_correct_alone(void) {
  m68k_machine_t *m = new_machine();
  m68k_qj_t *st = new_qj(m, "stack", "broken", 3), *ls = new_qj(m, "list", "broken", 3),
            *ct = new_qj(m, "counter", "broken", 0);
  for (uint32_t i = 1; i <= 3; i++) {
    call(st, 0, "push", i, M68K_QJ_OK);
    call(ls, 1, "insert", m68k_qj_node(ls, i - 1), M68K_QJ_OK);
    CU_ASSERT_EQUAL(call(ct, i & 1, "add", i, M68K_QJ_OK), i * (i + 1) / 2);
  }
  call(st, 0, "push", 4, M68K_QJ_FULL);
  for (uint32_t i = 3; i >= 1; i--) {
    CU_ASSERT_EQUAL(call(st, 1, "pop", 0, M68K_QJ_OK), i);
    CU_ASSERT_EQUAL(call(ls, 0, "delete", 0, M68K_QJ_OK), m68k_qj_node(ls, i - 1));
  }
  call(st, 1, "pop", 0, M68K_QJ_EMPTY);
  call(ls, 0, "delete", 0, M68K_QJ_EMPTY);
  const char *name;
  m68k_qj_entry_code(st, "pop", NULL, NULL, &name);
  CU_ASSERT_STRING_EQUAL(name, "pop_broken");
  m68k_machine_destroy(m);
}

/* A callback routed to 68k code: its d0:d1 is the entry's result. */
static void callbacks_can_go_to_68k_code(void) {
  m68k_machine_t *m = new_machine();
  m68k_qj_t *q = new_qj(m, "stack", NULL, 1);
  /* moveq #7,d0; addq.l #1,d1; rts (the item arrives in d1) */
  static const uint8_t code[] = {0x70, 0x07, 0x52, 0x81, 0x4E, 0x75};
  CU_ASSERT_EQUAL_FATAL(m68k_machine_load(m, 0x2000, code, sizeof code), M68K_OK);
  CU_ASSERT_EQUAL(m68k_qj_set_callback_code(q, "full", 0x2000), 0);
  call(q, 0, "push", 5, M68K_QJ_OK);
  CU_ASSERT_EQUAL(call(q, 0, "push", 6, 7), 7);
  CU_ASSERT_EQUAL(m68k_qj_set_callback_code(q, "full", 0), 0);
  CU_ASSERT_EQUAL(call(q, 0, "push", 6, M68K_QJ_FULL), 6);
  CU_ASSERT_EQUAL(m68k_qj_set_callback_code(q, "notempty", 0x2000), M68K_ENOTYPE);
  m68k_machine_destroy(m);
}

/* Control operations refuse while a CPU is inside the quaject's code. */
static void control_refuses_while_a_cpu_runs_the_code(void) {
  m68k_machine_t *m = new_machine();
  m68k_qj_t *q = new_qj(m, "queue", NULL, 4);
  m68k_cpu_t *cpu = m68k_machine_cpu(m, 1);
  m68k_set_reg(cpu, M68K_REG_PC, m68k_qj_entry(q, "put") + 2);
  CU_ASSERT_EQUAL(m68k_qj_attach(q, "put"), M68K_EBUSY);
  CU_ASSERT_EQUAL(m68k_qj_on_callback(q, "full", note, NULL), M68K_EBUSY);
  CU_ASSERT_EQUAL(m68k_qj_attached(q, "put"), 0);
  m68k_set_reg(cpu, M68K_REG_PC, 0x1000);
  CU_ASSERT_EQUAL(m68k_qj_attach(q, "put"), 0);
  m68k_machine_destroy(m);
}

/* auto: SP-SC code for one caller per side, CAS2 code from the second. */
static void queue_switches_code_with_callers(void) {
  m68k_machine_t *m = new_machine();
  m68k_qj_t *q = new_qj(m, "queue", NULL, 8);
  const char *name;
  uint32_t addr0, addr1;
  m68k_qj_entry_code(q, "put", &addr0, NULL, &name);
  CU_ASSERT_STRING_EQUAL(name, "put_sp");
  CU_ASSERT_EQUAL(m68k_qj_attach(q, "put"), 0);
  call(q, 0, "put", 1, M68K_QJ_OK);
  CU_ASSERT_EQUAL(m68k_qj_attach(q, "put"), 0);
  m68k_qj_entry_code(q, "put", &addr1, NULL, &name);
  CU_ASSERT_STRING_EQUAL(name, "put_mp");
  CU_ASSERT_EQUAL(addr0, addr1); /* entries stay where they are */
  call(q, 1, "put", 2, M68K_QJ_OK);
  CU_ASSERT_EQUAL(m68k_qj_attached(q, "put"), 2);
  CU_ASSERT_EQUAL(m68k_qj_detach(q, "put"), 0);
  m68k_qj_entry_code(q, "put", NULL, NULL, &name);
  CU_ASSERT_STRING_EQUAL(name, "put_sp");
  call(q, 0, "put", 3, M68K_QJ_OK);
  for (uint32_t i = 1; i <= 3; i++)
    CU_ASSERT_EQUAL(call(q, 1, "get", 0, M68K_QJ_OK), i);
  CU_ASSERT_EQUAL(m68k_qj_detach(q, "put"), 0);
  CU_ASSERT_EQUAL(m68k_qj_detach(q, "put"), M68K_EINVAL);
  m68k_qj_t *sp = new_qj(m, "queue", "spsc", 8);
  CU_ASSERT_EQUAL(m68k_qj_attach(sp, "get"), 0);
  CU_ASSERT_EQUAL(m68k_qj_attach(sp, "get"), M68K_EINVAL);
  m68k_machine_destroy(m);
}

/* The CAS2 the entries execute is the emulator's instruction. */
static void entries_execute_real_cas_and_cas2(void) {
  m68k_machine_t *m = new_machine();
  m68k_cpu_t *cpu = m68k_machine_cpu(m, 0);
  m68k_qj_t *st = new_qj(m, "stack", NULL, 4), *ctr = new_qj(m, "counter", NULL, 0);
  uint64_t c2 = m68k_cas_executed(cpu, 2), c1 = m68k_cas_executed(cpu, 1);
  call(st, 0, "push", 1, M68K_QJ_OK);
  call(st, 0, "pop", 0, M68K_QJ_OK);
  CU_ASSERT_EQUAL(m68k_cas_executed(cpu, 2) - c2, 2);
  call(ctr, 0, "add", 1, M68K_QJ_OK);
  CU_ASSERT_EQUAL(m68k_cas_executed(cpu, 1) - c1, 1);
  m68k_machine_destroy(m);
}

/* Instructions and cycles of a call: read is move.l abs,d1; clr.l d0; rts. */
static void call_counts_instructions_and_cycles(void) {
  m68k_machine_t *m = new_machine();
  m68k_qj_t *q = new_qj(m, "counter", NULL, 0);
  uint64_t insns = 0, cycles = 0;
  uint32_t v;
  CU_ASSERT_EQUAL(m68k_qj_call(q, 0, "read", 0, &v, &insns, &cycles), M68K_QJ_OK);
  CU_ASSERT_EQUAL(insns, 3);
  CU_ASSERT(cycles > 0 && cycles < 40);
  CU_ASSERT_FALSE(m68k_cycle_counting(m68k_machine_cpu(m, 0)));
  uint32_t addr, len;
  CU_ASSERT_EQUAL(m68k_qj_entry_code(q, "read", &addr, &len, NULL), 0);
  CU_ASSERT_EQUAL(addr, m68k_qj_entry(q, "read"));
  CU_ASSERT(len == 10);
  m68k_machine_destroy(m);
}

static void bad_input_is_refused_with_a_reason(void) {
  m68k_machine_t *m = new_machine();
  m68k_qj_t *q = NULL;
  char err[256];
  CU_ASSERT_EQUAL(m68k_qj_create(m, "heap", NULL, 4, &q, err, sizeof err), M68K_ENOTYPE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "heap"));
  CU_ASSERT_EQUAL(m68k_qj_create(m, "queue", "lifo", 4, &q, err, sizeof err), M68K_ENOTYPE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "lifo"));
  CU_ASSERT_EQUAL(m68k_qj_create(m, "queue", NULL, 0, &q, err, sizeof err), M68K_EINVAL);
  CU_ASSERT_EQUAL(m68k_qj_create(m, "counter", NULL, 3, &q, err, sizeof err), M68K_EINVAL);
  /* Capacity at and past its limit. */
  CU_ASSERT_EQUAL(m68k_qj_create(m, "queue", NULL, M68K_QJ_CAPACITY_MAX + 1, &q, err, sizeof err),
                  M68K_EINVAL);
  q = new_qj(m, "queue", NULL, M68K_QJ_CAPACITY_MAX);
  for (uint32_t i = 0; i < M68K_QJ_CAPACITY_MAX; i++)
    call(q, 0, "put", i, M68K_QJ_OK);
  call(q, 0, "put", 0, M68K_QJ_FULL);
  CU_ASSERT_EQUAL(call(q, 1, "get", 0, M68K_QJ_OK), 0);
  CU_ASSERT_EQUAL(m68k_qj_call(q, 0, "push", 0, NULL, NULL, NULL), M68K_ENOTYPE);
  CU_ASSERT_EQUAL(m68k_qj_call(q, 2, "put", 0, NULL, NULL, NULL), M68K_EINVAL);
  CU_ASSERT_EQUAL(m68k_qj_on_callback(q, "threshold", note, NULL), M68K_ENOTYPE);
  CU_ASSERT_EQUAL(m68k_qj_attach(q, "pop"), M68K_ENOTYPE);
  m68k_qj_t *st = new_qj(m, "stack", NULL, 1);
  CU_ASSERT_EQUAL(m68k_qj_on_callback(st, "notfull", note, NULL), M68K_ENOTYPE);
  CU_ASSERT_EQUAL(m68k_qj_entry(st, "put"), 0);
  m68k_qj_destroy(st);
  m68k_machine_destroy(m);

  /* A 68000, and a machine too small for the arena. */
  m68k_machine_config_t cfg = {.model = M68K_MODEL_68000, .ncpus = 1, .ram_size = 8u << 20};
  m = m68k_machine_create(&cfg);
  CU_ASSERT_EQUAL(m68k_qj_create(m, "counter", NULL, 0, &q, err, sizeof err), M68K_EINVAL);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "68030"));
  m68k_machine_destroy(m);
  cfg = (m68k_machine_config_t){.model = M68K_MODEL_68030, .ncpus = 1, .ram_size = 1u << 20};
  m = m68k_machine_create(&cfg);
  CU_ASSERT_EQUAL(m68k_qj_create(m, "counter", NULL, 0, &q, err, sizeof err), M68K_EINVAL);
  m68k_machine_destroy(m);
}

/* The arena fills up and a destroyed quaject's room is reused. */
static void arena_full_is_reported_and_reused(void) {
  m68k_machine_t *m = new_machine();
  m68k_qj_t *qs[64];
  char err[256];
  int n = 0, rc = M68K_OK;
  while (n < 64 && (rc = m68k_qj_create(m, "queue", NULL, M68K_QJ_CAPACITY_MAX, &qs[n], err,
                                        sizeof err)) == M68K_OK)
    n++;
  CU_ASSERT_EQUAL(rc, M68K_EARENA);
  CU_ASSERT(n > 1 && n < 64);
  m68k_qj_destroy(qs[0]);
  CU_ASSERT_EQUAL(m68k_qj_create(m, "queue", NULL, M68K_QJ_CAPACITY_MAX, &qs[0], err, sizeof err),
                  M68K_OK);
  m68k_machine_destroy(m);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS)
    return CU_get_error();
  CU_pSuite s = CU_add_suite("m68k-qj", NULL, NULL);
  CU_add_test(s, "counter_adds_and_reads", counter_adds_and_reads);
  CU_add_test(s, "stack_is_lifo_with_full_and_empty", stack_is_lifo_with_full_and_empty);
  CU_add_test(s, "queue_is_fifo_in_every_variant", queue_is_fifo_in_every_variant);
  CU_add_test(s, "list_inserts_and_deletes_nodes", list_inserts_and_deletes_nodes);
  CU_add_test(s, "queue_edges_fire_once_per_transition", queue_edges_fire_once_per_transition);
  CU_add_test(s, "queue_switches_code_with_callers", queue_switches_code_with_callers);
  CU_add_test(s, "broken_variants_are_correct_alone", broken_variants_are_correct_alone);
  CU_add_test(s, "folded_forms_match_the_calls", folded_forms_match_the_calls);
  CU_add_test(s, "folded_forms_never_touch_the_stack", folded_forms_never_touch_the_stack);
  CU_add_test(s, "largest_ring_keeps_every_item", largest_ring_keeps_every_item);
  CU_add_test(s, "cold_stubs_need_room", cold_stubs_need_room);
  CU_add_test(s, "callbacks_can_go_to_68k_code", callbacks_can_go_to_68k_code);
  CU_add_test(s, "control_refuses_while_a_cpu_runs_the_code",
              control_refuses_while_a_cpu_runs_the_code);
  CU_add_test(s, "entries_execute_real_cas_and_cas2", entries_execute_real_cas_and_cas2);
  CU_add_test(s, "call_counts_instructions_and_cycles", call_counts_instructions_and_cycles);
  CU_add_test(s, "bad_input_is_refused_with_a_reason", bad_input_is_refused_with_a_reason);
  CU_add_test(s, "arena_full_is_reported_and_reused", arena_full_is_reported_and_reused);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned fails = CU_get_number_of_failures();
  CU_cleanup_registry();
  return fails ? 1 : 0;
}
