/* test-m68k.c -- target=m68k quajects in quad: 68030 code on the daemon's quamachine behind the
 * usual put, get, call, watch, drain and show. */
#include "itest.h"
#include "quaject68k.h" /* the backend's limits (macros only) */

static itest_daemon_t daemon_;

#define QUA(o, ...) itest_qua((o), &daemon_, __VA_ARGS__, (char *)NULL)
#define HAS(s, sub) (strstr((s), (sub)) != NULL)

/* What a watcher heard. */
typedef struct heard {
  uint64_t watch_notempty, watch_notfull;
  size_t notempty, notfull, other;
  uint64_t items[32];
  size_t nitems;
  uint64_t drain;
} heard_t;

static void on_event(void *ctx, quac_conn_t *c, const quac_event_t *ev) {
  heard_t *h = ctx;
  (void)c;
  if (ev->binding == h->watch_notempty && strcmp(ev->callback, "notempty") == 0)
    h->notempty++;
  else if (ev->binding == h->watch_notfull && strcmp(ev->callback, "notfull") == 0)
    h->notfull++;
  else if (ev->binding == h->drain && h->nitems < 32)
    h->items[h->nitems++] = ev->arg;
  else
    h->other++;
}

static int invoke(quac_conn_t *c, uint64_t h, const char *entry, const uint64_t *arg,
                  quac_result_t *r) {
  return quac_invoke(c, h, entry, arg, arg != NULL ? 1 : 0, r);
}

static void queue_full_empty_and_one_notempty_per_transition(void) {
  quac_conn_t *p = itest_connect(&daemon_), *w = itest_connect(&daemon_);
  CU_ASSERT_FATAL(p != NULL && w != NULL);
  const char *params[] = {"target=m68k", "capacity=8"};
  uint64_t q;
  CU_ASSERT_EQUAL_FATAL(quac_create(p, "queue", params, 2, "mq", &q, NULL), 0);
  quac_opened_t wq;
  CU_ASSERT_EQUAL_FATAL(quac_open(w, "mq", &wq), 0);
  heard_t h = {0};
  quac_on_event(w, on_event, &h);
  CU_ASSERT_EQUAL_FATAL(quac_bind_callback(w, wq.handle, "notempty", &h.watch_notempty), 0);
  CU_ASSERT_EQUAL_FATAL(quac_bind_callback(w, wq.handle, "notfull", &h.watch_notfull), 0);

  for (int round = 1; round <= 2; round++) {
    /* Put until full: 8 stored, the 9th fires "full" with the item. */
    quac_result_t r;
    for (uint64_t v = 1; v <= 8; v++) {
      uint64_t x = 100 * (uint64_t)round + v;
      CU_ASSERT_EQUAL(invoke(p, q, "put", &x, &r), 0);
      CU_ASSERT_EQUAL(r.nfired, 0);
    }
    uint64_t x = 999;
    CU_ASSERT_EQUAL(invoke(p, q, "put", &x, &r), QUA_DIVERTED);
    CU_ASSERT_EQUAL_FATAL(r.nfired, 1);
    CU_ASSERT_STRING_EQUAL(r.fired[0].callback, "full");
    CU_ASSERT_EQUAL(r.fired[0].arg, 999);
    /* Get until empty: in order, then "empty". */
    for (uint64_t v = 1; v <= 8; v++) {
      CU_ASSERT_EQUAL(invoke(p, q, "get", NULL, &r), 0);
      CU_ASSERT(r.has_result);
      CU_ASSERT_EQUAL(r.result, 100 * (uint64_t)round + v);
    }
    CU_ASSERT_EQUAL(invoke(p, q, "get", NULL, &r), QUA_DIVERTED);
    CU_ASSERT_EQUAL_FATAL(r.nfired, 1);
    CU_ASSERT_STRING_EQUAL(r.fired[0].callback, "empty");
    /* One empty -> not empty and one full -> not full transition per round. */
    ITEST_POLL_UNTIL(w, h.notempty == (size_t)round && h.notfull == (size_t)round);
    CU_ASSERT_EQUAL(quac_poll(w, 100), 0);
    CU_ASSERT_EQUAL(h.notempty, round);
    CU_ASSERT_EQUAL(h.notfull, round);
    CU_ASSERT_EQUAL(h.other, 0);
  }
  /* Words are 32 bits on the 68k: a wider one is refused, nothing stored. */
  uint64_t wide = 1ull << 32;
  quac_result_t r;
  CU_ASSERT_EQUAL(invoke(p, q, "put", &wide, &r), QUA_ERANGE);
  CU_ASSERT_EQUAL(invoke(p, q, "get", NULL, &r), QUA_DIVERTED);
  CU_ASSERT_EQUAL(quac_destroy(p, q, true), 0);
  quac_close(w);
  quac_close(p);
}

static void drain_gets_the_items_in_order(void) {
  quac_conn_t *p = itest_connect(&daemon_), *d = itest_connect(&daemon_);
  CU_ASSERT_FATAL(p != NULL && d != NULL);
  const char *params[] = {"capacity=4", "target=m68k"};
  uint64_t q;
  CU_ASSERT_EQUAL_FATAL(quac_create(p, "queue", params, 2, "mdq", &q, NULL), 0);
  quac_opened_t dq;
  CU_ASSERT_EQUAL_FATAL(quac_open(d, "mdq", &dq), 0);
  heard_t h = {0};
  h.watch_notempty = h.watch_notfull = UINT64_MAX;
  quac_on_event(d, on_event, &h);
  CU_ASSERT_EQUAL_FATAL(quac_bind_callout(d, dq.handle, "get", 100, &h.drain), 0);
  /* More items than the queue holds: the drain empties it as they come. */
  for (uint64_t v = 1; v <= 12; v++) {
    quac_result_t r;
    CU_ASSERT_EQUAL(invoke(p, q, "put", &v, &r), 0);
    ITEST_POLL_UNTIL(d, h.nitems == v);
  }
  CU_ASSERT_EQUAL_FATAL(h.nitems, 12);
  for (size_t i = 0; i < 12; i++)
    CU_ASSERT_EQUAL(h.items[i], i + 1);
  CU_ASSERT_EQUAL(quac_destroy(p, q, true), 0);
  quac_close(d);
  quac_close(p);
}

static void second_producer_switches_put_to_cas2(void) {
  quac_conn_t *a = itest_connect(&daemon_), *b = itest_connect(&daemon_);
  CU_ASSERT_FATAL(a != NULL && b != NULL);
  const char *params[] = {"target=m68k"};
  uint64_t q;
  CU_ASSERT_EQUAL_FATAL(quac_create(a, "queue", params, 1, "mpq", &q, NULL), 0);
  uint64_t v = 7;
  quac_result_t r;
  CU_ASSERT_EQUAL(invoke(a, q, "put", &v, &r), 0);
  quac_quaject_info_t *qi;
  CU_ASSERT_EQUAL_FATAL(quac_describe(a, q, NULL, &qi), 0);
  CU_ASSERT_EQUAL_FATAL(qi->nimpls, 2);
  CU_ASSERT(HAS(qi->impls[0].impl, "m68k stencil put_sp"));
  quac_free(qi);
  /* A second connection's put site is a second producer: the CAS2 code. */
  quac_opened_t bq;
  CU_ASSERT_EQUAL_FATAL(quac_open(b, "mpq", &bq), 0);
  v = 8;
  CU_ASSERT_EQUAL(invoke(b, bq.handle, "put", &v, &r), 0);
  CU_ASSERT_EQUAL_FATAL(quac_describe(a, q, NULL, &qi), 0);
  CU_ASSERT(HAS(qi->impls[0].impl, "m68k stencil put_mp"));
  CU_ASSERT(HAS(qi->impls[0].impl, "(mean of 1 call)"));
  CU_ASSERT(HAS(qi->impls[0].code, "cas2.l"));
  quac_free(qi);
  /* Both items, in order; and back to SP-SC code once b is gone. */
  quac_close(b);
  CU_ASSERT_EQUAL(invoke(a, q, "get", NULL, &r), 0);
  CU_ASSERT_EQUAL(r.result, 7);
  CU_ASSERT_EQUAL(invoke(a, q, "get", NULL, &r), 0);
  CU_ASSERT_EQUAL(r.result, 8);
  /* The daemon sees b's close when it reads it: ask until then. */
  bool sp = false;
  for (double end = itest_now() + 5.0; !sp && itest_now() < end; itest_sleep_ms(sp ? 0 : 20)) {
    CU_ASSERT_EQUAL_FATAL(quac_describe(a, q, NULL, &qi), 0);
    sp = HAS(qi->impls[0].impl, "m68k stencil put_sp");
    quac_free(qi);
  }
  CU_ASSERT(sp);
  CU_ASSERT_EQUAL(quac_destroy(a, q, true), 0);
  quac_close(a);
}

static void cli_show_names_and_disassembles_the_code(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "cq", "target=m68k", "capacity=8"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "show", "cq"), 0);
  CU_ASSERT(HAS(o.out, "state:   target=m68k"));
  CU_ASSERT(HAS(o.out, "impl:    put: m68k stencil put_sp"));
  CU_ASSERT(HAS(o.out, "not called yet"));
  CU_ASSERT_EQUAL(QUA(&o, "put", "cq", "1", "2", "3"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "show", "cq"), 0);
  CU_ASSERT(HAS(o.out, "insns/call"));
  CU_ASSERT(HAS(o.out, "(mean of 3 calls)"));
  CU_ASSERT(!HAS(o.out, "rts"));
  CU_ASSERT_EQUAL(QUA(&o, "show", "--code", "cq"), 0);
  /* Each entry's code under its line: addresses, the project's mnemonics. */
  const char *put = strstr(o.out, "impl:    put:"), *get = strstr(o.out, "impl:    get:");
  CU_ASSERT_FATAL(put != NULL && get != NULL && put < get);
  const char *rts = strstr(put, "  rts\n");
  CU_ASSERT(rts != NULL && rts < get);
  CU_ASSERT(HAS(get, "  rts\n"));
  unsigned addr, state;
  char insn[32];
  const char *line = strchr(put, '\n') + 1;
  CU_ASSERT(strncmp(line, "         m68k code at 0x", 24) == 0);
  line = strchr(line, '\n') + 1;
  CU_ASSERT_EQUAL(sscanf(line, "    %12x  %31s", &addr, insn), 2);
  CU_ASSERT(HAS(o.out, "cas.l")); /* put_sp_t publishes its head with CAS (notempty tracked) */
  /* The holes: the queue's state block where its state line says, and its
   * last slot's offset (4 bytes a slot, capacity 8), each on an instruction. */
  const char *st = strstr(o.out, " state=0x");
  CU_ASSERT_FATAL(st != NULL && sscanf(st, " state=0x%x", &state) == 1);
  char want[48];
  snprintf(want, sizeof want, "  ; hole state=0x%x\n", state);
  CU_ASSERT(HAS(put, want));
  CU_ASSERT(HAS(put, "  ; hole last=32\n"));
  const char *last = strstr(put, "  ; hole last=32\n");
  while (last != NULL && last > put && last[-1] != '\n')
    last--;
  CU_ASSERT(last != NULL && strncmp(last, "    ", 4) == 0 && HAS(last, "#$20,"));
  CU_ASSERT(HAS(put, "jsr ") && HAS(put, "; hole full=0x"));
  /* --json: the code with its holes and the listing. */
  CU_ASSERT_EQUAL(QUA(&o, "--json", "show", "--code", "cq"), 0);
  CU_ASSERT(HAS(o.out, "\"machine_code\":{\"machine\":\"m68k\""));
  CU_ASSERT(HAS(o.out, "{\"name\":\"last\",\"offset\":"));
  CU_ASSERT(HAS(o.out, "\"size\":4,\"value\":32,"));
  CU_ASSERT(HAS(o.out, "\"insn\":\"rts\""));
  CU_ASSERT_EQUAL(QUA(&o, "get", "cq", "5"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "1\n2\n3\n(empty)\n");
  CU_ASSERT_EQUAL(QUA(&o, "help", "show"), 0);
  CU_ASSERT(HAS(o.out, "--code"));
  CU_ASSERT_EQUAL(QUA(&o, "show", "--code=1", "cq"), 2);
  CU_ASSERT_EQUAL(QUA(&o, "rm", "cq"), 0);
}

static void cli_stack_and_counter(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL(QUA(&o, "create", "stack", "cs", "target=m68k", "capacity=2"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "call", "cs", "push", "5"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "call", "cs", "push", "6"), 0);
  QUA(&o, "call", "cs", "push", "7");
  CU_ASSERT(HAS(o.out, "full 7"));
  CU_ASSERT_EQUAL(QUA(&o, "call", "cs", "pop"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "6\n");
  CU_ASSERT_EQUAL(QUA(&o, "show", "cs"), 0);
  CU_ASSERT(HAS(o.out, "push: m68k stencil push_cas2"));
  CU_ASSERT_EQUAL(QUA(&o, "create", "counter", "cc", "target=m68k"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "call", "cc", "add", "40"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "call", "cc", "add", "2"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "42\n");
  CU_ASSERT_EQUAL(QUA(&o, "show", "--code", "cc"), 0);
  CU_ASSERT(HAS(o.out, "add: m68k stencil"));
  CU_ASSERT(HAS(o.out, "cas.l"));
  CU_ASSERT_EQUAL(QUA(&o, "rm", "cs", "cc"), 0);
  /* The m68k types are listed, and created by their own names too. */
  CU_ASSERT_EQUAL(QUA(&o, "types"), 0);
  CU_ASSERT(HAS(o.out, "m68k-stack:"));
  CU_ASSERT(HAS(o.out, "m68k-queue:"));
  CU_ASSERT_EQUAL(QUA(&o, "create", "m68k-stack", "ms", "capacity=4"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "show", "ms"), 0);
  CU_ASSERT(HAS(o.out, "type:    m68k-stack"));
  CU_ASSERT(HAS(o.out, "param:   capacity=4"));
  CU_ASSERT_EQUAL(QUA(&o, "rm", "ms"), 0);
}

static void bad_targets_are_refused_by_name(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL(QUA(&o, "create", "buffer", "b", "target=m68k"), 1);
  CU_ASSERT(HAS(o.err, "no quaject type 'buffer' for target=m68k"));
  CU_ASSERT(HAS(o.err, "ENOTYPE"));
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "b", "target=mars"), 1);
  CU_ASSERT(HAS(o.err, "target=mars"));
  char at[32], past[32];
  snprintf(at, sizeof at, "capacity=%u", M68K_QJ_CAPACITY_MAX);
  snprintf(past, sizeof past, "capacity=%u", M68K_QJ_CAPACITY_MAX + 1);
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "b", "target=m68k", past), 1);
  CU_ASSERT(HAS(o.err, "ERANGE"));
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "b", "target=m68k", at), 0);
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "b0", "target=m68k", "capacity=0"), 1);
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "b1", "target=m68k", "notify=1"), 1);
  CU_ASSERT(HAS(o.err, "ENOPARAM"));
  /* target=host is the host's queue. */
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "h", "target=host"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "show", "h"), 0);
  CU_ASSERT(!HAS(o.out, "m68k"));
  CU_ASSERT_EQUAL(QUA(&o, "rm", "b", "h"), 0);
}

int main(int argc, char **argv) {
  if (itest_init(argc, argv) < 0)
    return 2;
  if (itest_start(&daemon_, (char *)NULL) < 0)
    return 1;
  static const qtest_case_t cases[] = {
      {"queue_full_empty_and_one_notempty_per_transition",
       queue_full_empty_and_one_notempty_per_transition},
      {"drain_gets_the_items_in_order", drain_gets_the_items_in_order},
      {"second_producer_switches_put_to_cas2", second_producer_switches_put_to_cas2},
      {"cli_show_names_and_disassembles_the_code", cli_show_names_and_disassembles_the_code},
      {"cli_stack_and_counter", cli_stack_and_counter},
      {"bad_targets_are_refused_by_name", bad_targets_are_refused_by_name},
      {NULL, NULL},
  };
  return itest_run_and_stop(&daemon_, "integration-m68k", cases);
}
