/* test-views.c -- qua graph and qua top against a real quad: what they draw and count. */
#include "itest.h"

static itest_daemon_t daemon_;

#define QUA(o, ...) itest_qua((o), &daemon_, __VA_ARGS__, (char *)NULL)
#define HAS(s, sub) (strstr((s), (sub)) != NULL)

/* The graph: a box per quaject with its name, type, id and state; an arrow
 * per wire labelled CALLOUT -> ENTRY; nothing else. */
static void graph_draws_every_quaject_and_wire(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "create", "queue", "gq", "capacity=4"), 0);
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "create", "counter", "gc"), 0);
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "wire", "gc.out", "gq.put"), 0);
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "close", "gq"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "graph"), 0);
  CU_ASSERT(HAS(o.out, "digraph quad {"));
  CU_ASSERT(HAS(o.out, "[label=\"gq\\nqueue #"));
  CU_ASSERT(HAS(o.out, "[label=\"gc\\ncounter #"));
  CU_ASSERT(HAS(o.out, "[label=\"out -> put\"]"));
  CU_ASSERT(HAS(o.out, "fillcolor=\"#dddddd\"")); /* gq is closed */
  int arrows = 0;
  for (const char *p = o.out; (p = strstr(p, " -> q")) != NULL; p++)
    arrows++;
  CU_ASSERT_EQUAL(arrows, 1);
  /* --dot is the default, spelled out. */
  itest_out_t d;
  CU_ASSERT_EQUAL(QUA(&d, "graph", "--dot"), 0);
  CU_ASSERT_STRING_EQUAL(d.out, o.out);
  /* DOT, not JSON; and no operands. */
  CU_ASSERT_EQUAL(QUA(&o, "graph", "--json"), 2);
  CU_ASSERT(HAS(o.err, "ls --json"));
  CU_ASSERT_EQUAL(QUA(&o, "graph", "gq"), 2);
  CU_ASSERT_EQUAL(QUA(&o, "rm", "--force", "gc", "gq"), 0);
}

/* --svg renders with Graphviz's dot when it is there (make deps installs
 * it), and says so when the file cannot be written. */
static void graph_svg_renders_with_dot(void) {
  if (system("command -v dot >/dev/null 2>&1") != 0) {
    printf("(dot missing: --svg not checked) ");
    return;
  }
  itest_out_t o;
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "create", "queue", "sq"), 0);
  char path[600];
  snprintf(path, sizeof path, "%s/graph.svg", daemon_.dir);
  CU_ASSERT_EQUAL(QUA(&o, "graph", "--svg", path), 0);
  CU_ASSERT(HAS(o.err, "wrote"));
  FILE *f = fopen(path, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  char buf[8192];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  CU_ASSERT(HAS(buf, "<svg"));
  CU_ASSERT(HAS(buf, "sq"));
  CU_ASSERT_EQUAL(QUA(&o, "graph", "--svg", "/nonexistent-dir/x.svg"), 1);
  CU_ASSERT(HAS(o.err, "could not render"));
  CU_ASSERT_EQUAL(QUA(&o, "rm", "sq"), 0);
}

/* Clients bound to a quaject: show lists them ("bound:"), the graph draws
 * each connection once as an oval with a dotted arrow per binding, and
 * they go when the client does. */
static void graph_and_show_name_bound_clients(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "create", "queue", "bq"), 0);
  char *watch[] = {"watch", "bq", "notempty", "full", NULL};
  char *drain[] = {"drain", "bq", NULL};
  pid_t w = itest_spawn_qua(daemon_.dir, daemon_.sock, "bw", "watching bq", watch);
  pid_t d = itest_spawn_qua(daemon_.dir, daemon_.sock, "bd", "draining bq", drain);
  CU_ASSERT_EQUAL(QUA(&o, "show", "bq"), 0);
  CU_ASSERT(HAS(o.out, "bound:   notempty -> conn "));
  CU_ASSERT(HAS(o.out, "bound:   full -> conn "));
  CU_ASSERT(HAS(o.out, "bound:   get (drained) -> conn "));
  CU_ASSERT(HAS(o.out, "(unix pid="));
  CU_ASSERT_EQUAL(QUA(&o, "--json", "show", "bq"), 0);
  CU_ASSERT(HAS(o.out, "\"bindings\":[{\"member\":"));
  CU_ASSERT(HAS(o.out, "\"callout\":true"));
  CU_ASSERT_EQUAL(QUA(&o, "graph"), 0);
  int ovals = 0, dotted = 0;
  for (const char *p = o.out; (p = strstr(p, "[shape=ellipse, label=\"client conn ")) != NULL; p++)
    ovals++;
  for (const char *p = o.out; (p = strstr(p, "[style=dotted")) != NULL; p++)
    dotted++;
  CU_ASSERT_EQUAL(ovals, 2);  /* two clients */
  CU_ASSERT_EQUAL(dotted, 3); /* notempty, full, get */
  CU_ASSERT(HAS(o.out, "label=\"get (items)\""));
  kill(w, SIGTERM);
  kill(d, SIGTERM);
  itest_wait(w, 10000);
  itest_wait(d, 10000);
  /* Gone with their connections. */
  double end = itest_now() + 10;
  do
    QUA(&o, "show", "bq");
  while (HAS(o.out, "bound:") && itest_now() < end);
  CU_ASSERT(!HAS(o.out, "bound:"));
  CU_ASSERT_EQUAL(QUA(&o, "rm", "bq"), 0);
}

/* top --once: the daemon's line, then one row per quaject with the rates
 * of the numbers that changed during the second it sampled. */
static void top_once_counts_and_rates(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "create", "counter", "tc"), 0);
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "create", "queue", "tq"), 0);
  /* Adds land while top samples: a child adds 5 every 50 ms for 2 s. */
  pid_t pid = fork();
  if (pid == 0) {
    for (int i = 0; i < 40; i++) {
      itest_out_t c;
      QUA(&c, "call", "tc", "add", "5");
      usleep(50000);
    }
    _exit(0);
  }
  CU_ASSERT_EQUAL(QUA(&o, "top", "--once"), 0);
  CU_ASSERT(HAS(o.out, "quad: connections "));
  CU_ASSERT(HAS(o.out, "ID "));
  const char *row = strstr(o.out, " tc ");
  CU_ASSERT_PTR_NOT_NULL_FATAL(row);
  CU_ASSERT(HAS(row, "value=")); /* its state, */
  const char *rate = strstr(row, "value +");
  CU_ASSERT_PTR_NOT_NULL(rate); /* and how fast value grew */
  const char *tq = strstr(o.out, " tq ");
  CU_ASSERT_PTR_NOT_NULL(tq);
  /* JSON: the daemon's object, then one per quaject, rates an object. */
  CU_ASSERT_EQUAL(QUA(&o, "top", "--once", "--json"), 0);
  CU_ASSERT(strncmp(o.out, "{\"connections\":", 15) == 0);
  CU_ASSERT(HAS(o.out, "\"name\":\"tc\""));
  CU_ASSERT(HAS(o.out, "\"rates\":{\"value\":"));
  int st;
  waitpid(pid, &st, 0);
  CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  /* --count N: N frames, then exit 0. */
  CU_ASSERT_EQUAL(QUA(&o, "top", "--count", "2"), 0);
  int frames = 0;
  for (const char *p = o.out; (p = strstr(p, "quad: connections")) != NULL; p++)
    frames++;
  CU_ASSERT_EQUAL(frames, 2);
  CU_ASSERT_EQUAL(QUA(&o, "top", "extra"), 2);
  CU_ASSERT_EQUAL(QUA(&o, "rm", "tc", "tq"), 0);
}

int main(int argc, char **argv) {
  if (itest_init(argc, argv) < 0 || itest_start(&daemon_, (char *)NULL) < 0)
    return 1;
  static const qtest_case_t cases[] = {
      {"graph_draws_every_quaject_and_wire", graph_draws_every_quaject_and_wire},
      {"graph_svg_renders_with_dot", graph_svg_renders_with_dot},
      {"graph_and_show_name_bound_clients", graph_and_show_name_bound_clients},
      {"top_once_counts_and_rates", top_once_counts_and_rates},
      {NULL, NULL}};
  return itest_run_and_stop(&daemon_, "views", cases);
}
