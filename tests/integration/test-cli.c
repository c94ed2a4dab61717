/* test-cli.c -- every verb of the qua command against a real quad, exit statuses included. */
#include "itest.h"

static itest_daemon_t daemon_;

#define QUA(o, ...) itest_qua((o), &daemon_, __VA_ARGS__, (char *)NULL)
#define HAS(s, sub) (strstr((s), (sub)) != NULL)

/* Counts the lines of s. */
static int lines(const char *s) {
  int n = 0;
  for (; *s; s++)
    n += *s == '\n';
  return n;
}

static void cli_help_and_usage_errors_exit_2(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "--help", (char *)NULL), 0);
  CU_ASSERT(HAS(o.out, "drain NAME"));
  CU_ASSERT(HAS(o.out, "Exit status"));
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "help", "watch", (char *)NULL), 0);
  CU_ASSERT(HAS(o.out, "SYNOPSIS"));
  CU_ASSERT(HAS(o.out, "--count"));
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "help", "nosuchverb", (char *)NULL), 2);
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, (char *)NULL), 2);
  CU_ASSERT(HAS(o.err, "no verb"));
  CU_ASSERT_EQUAL(QUA(&o, "frobnicate"), 2);
  CU_ASSERT(HAS(o.err, "unknown verb"));
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "--bogus", "ping", (char *)NULL), 2);
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue"), 2);
  CU_ASSERT(HAS(o.err, "usage: qua create TYPE NAME"));
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "qx", "capacity"), 2);
  CU_ASSERT_EQUAL(QUA(&o, "call", "c", "add", "twelve"), 2);
  CU_ASSERT_EQUAL(QUA(&o, "call", "c", "add", "1", "2", "3"), 2);
  CU_ASSERT_EQUAL(QUA(&o, "get", "q", "0"), 2);
  CU_ASSERT_EQUAL(QUA(&o, "watch", "q", "--count"), 2);
  CU_ASSERT_EQUAL(QUA(&o, "ls", "--force"), 2);
  CU_ASSERT_EQUAL(QUA(&o, "wire", "nodot", "q.put"), 2);
  CU_ASSERT_EQUAL(QUA(&o, "unwire", "c."), 2);
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "--socket", "/x", "--connect", "127.0.0.1:1", "ping",
                            (char *)NULL), 2);
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "--connect", "127.0.0.1", "ping", (char *)NULL), 2);
}

static void cli_without_daemon_exits_3(void) {
  itest_out_t o;
  char path[160];
  snprintf(path, sizeof path, "%s/nobody.sock", daemon_.dir);
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "--socket", path, "ping", (char *)NULL), 3);
  CU_ASSERT(HAS(o.err, "ECONN"));
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "--socket", path, "ls", (char *)NULL), 3);
  /* The socket comes from $QUA_SOCKET when --socket is not given. */
  setenv("QUA_SOCKET", path, 1);
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "ping", (char *)NULL), 3);
  CU_ASSERT(HAS(o.err, "nobody.sock"));
  setenv("QUA_SOCKET", daemon_.sock, 1);
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "ping", (char *)NULL), 0);
  unsetenv("QUA_SOCKET");
}

static void cli_ping_types_stats(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL(QUA(&o, "ping"), 0);
  CU_ASSERT(HAS(o.out, "pong: quad"));
  CU_ASSERT_EQUAL(QUA(&o, "types"), 0);
  CU_ASSERT(HAS(o.out, "queue:"));
  CU_ASSERT(HAS(o.out, "counter:"));
  CU_ASSERT(HAS(o.out, "callback full"));
  CU_ASSERT(HAS(o.out, "param    capacity=1024"));
  CU_ASSERT_EQUAL(QUA(&o, "types", "counter"), 0);
  CU_ASSERT(HAS(o.out, "entry    add/1 -> word"));
  CU_ASSERT(!HAS(o.out, "queue:"));
  CU_ASSERT_EQUAL(QUA(&o, "types", "nosuchtype"), 1);
  CU_ASSERT(HAS(o.err, "ENOTYPE"));
  CU_ASSERT_EQUAL(QUA(&o, "stats"), 0);
  CU_ASSERT(HAS(o.out, "connections"));
  CU_ASSERT(HAS(o.out, "uptime_ms"));
}

static void cli_create_ls_show_rm(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "cq", "capacity=4"), 0);
  CU_ASSERT(HAS(o.out, "created cq (queue, id "));
  CU_ASSERT_EQUAL(QUA(&o, "ls"), 0);
  CU_ASSERT(HAS(o.out, "cq"));
  CU_ASSERT(HAS(o.out, "capacity=4"));
  CU_ASSERT_EQUAL(QUA(&o, "show", "cq"), 0);
  CU_ASSERT(HAS(o.out, "type:    queue"));
  CU_ASSERT(HAS(o.out, "param:   capacity=4"));
  CU_ASSERT(HAS(o.out, "impl:    put"));
  /* Each callentry's own code, and a pump's step (quad synthesises by default). */
  CU_ASSERT_EQUAL(QUA(&o, "create", "pump", "cp"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "wire", "cp.source", "cq.get"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "show", "cq"), 0);
  CU_ASSERT(HAS(o.out, "impl:    get: stencil spsc (synthesised in "));
  CU_ASSERT(HAS(o.out, "impl:    put: no site (spsc)"));
  CU_ASSERT_EQUAL(QUA(&o, "show", "cp"), 0);
  CU_ASSERT(HAS(o.out, "impl:    (step): stencil step"));
  CU_ASSERT_EQUAL(QUA(&o, "rm", "--force", "cp"), 0);
  /* Refusals: exit 1 and the status's name on stderr. */
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "cq"), 1);
  CU_ASSERT(HAS(o.err, "EEXIST"));
  CU_ASSERT_EQUAL(QUA(&o, "create", "nosuchtype", "cz"), 1);
  CU_ASSERT(HAS(o.err, "ENOTYPE"));
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "cz", "capacity=3"), 1);
  CU_ASSERT(HAS(o.err, "ERANGE") || HAS(o.err, "EINVAL"));
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "cz", "colour=3"), 1);
  CU_ASSERT(HAS(o.err, "ENOPARAM"));
  CU_ASSERT_EQUAL(QUA(&o, "show", "cz"), 1);
  CU_ASSERT(HAS(o.err, "ENOTFOUND"));
  CU_ASSERT_EQUAL(QUA(&o, "rm", "cq"), 0);
  CU_ASSERT(HAS(o.out, "removed cq"));
  CU_ASSERT_EQUAL(QUA(&o, "show", "cq"), 1);
  CU_ASSERT_EQUAL(QUA(&o, "rm", "cq"), 1);
  CU_ASSERT(HAS(o.err, "ENOTFOUND"));
  CU_ASSERT_EQUAL(QUA(&o, "ls"), 0);
  CU_ASSERT(!HAS(o.out, "cq "));
}

static void cli_call_counter_prints_results(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL(QUA(&o, "create", "counter", "cc"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "call", "cc", "add", "5"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "5\n");
  CU_ASSERT_EQUAL(QUA(&o, "call", "cc", "add", "0x10"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "21\n");
  CU_ASSERT_EQUAL(QUA(&o, "call", "cc", "add", "-1"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "20\n");
  CU_ASSERT_EQUAL(QUA(&o, "call", "cc", "read"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "20\n");
  CU_ASSERT_EQUAL(QUA(&o, "call", "cc", "nosuchentry"), 1);
  CU_ASSERT(HAS(o.err, "ENOENTRY"));
  CU_ASSERT_EQUAL(QUA(&o, "call", "nosuchname", "read"), 1);
  CU_ASSERT(HAS(o.err, "ENOTFOUND"));
  /* A callback that fires on the call is printed with the result. */
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "cq1", "capacity=1"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "call", "cq1", "put", "7"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "ok\n");
  CU_ASSERT_EQUAL(QUA(&o, "call", "cq1", "put", "8"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "callback full 8\n");
  CU_ASSERT_EQUAL(QUA(&o, "call", "cq1", "get"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "7\n");
  CU_ASSERT_EQUAL(QUA(&o, "call", "cq1", "get"), 0);
  CU_ASSERT(HAS(o.out, "callback empty"));
  CU_ASSERT_EQUAL(QUA(&o, "rm", "cc", "cq1"), 0);
}

static void cli_put_until_full_then_get(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "pq", "capacity=4"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "put", "pq", "1", "2", "3", "4", "5"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "stored 1\nstored 2\nstored 3\nstored 4\nfull 5\n");
  CU_ASSERT_EQUAL(QUA(&o, "get", "pq", "2"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "1\n2\n");
  CU_ASSERT_EQUAL(QUA(&o, "get", "pq", "10"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "3\n4\n(empty)\n");
  CU_ASSERT_EQUAL(QUA(&o, "get", "pq"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "(empty)\n");
  CU_ASSERT_EQUAL(QUA(&o, "put", "pq", "1", "x"), 2);
  CU_ASSERT_EQUAL(QUA(&o, "get", "nosuchq"), 1);
  CU_ASSERT_EQUAL(QUA(&o, "rm", "pq"), 0);
}

static void cli_wire_unwire_and_busy_rm(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL(QUA(&o, "create", "counter", "wc"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "wq", "capacity=8"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "wire", "wc.out", "wq.put"), 0);
  CU_ASSERT(HAS(o.out, "wired wc.out -> wq.put"));
  CU_ASSERT_EQUAL(QUA(&o, "show", "wc"), 0);
  CU_ASSERT(HAS(o.out, "wire:    out -> wq.put"));
  CU_ASSERT_EQUAL(QUA(&o, "call", "wc", "pass", "9"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "get", "wq"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "9\n");
  CU_ASSERT_EQUAL(QUA(&o, "wire", "wc.out", "wq.put"), 1);
  CU_ASSERT(HAS(o.err, "EWIRED"));
  CU_ASSERT_EQUAL(QUA(&o, "wire", "wc.nosuch", "wq.put"), 1);
  CU_ASSERT(HAS(o.err, "ENOCALLOUT"));
  CU_ASSERT_EQUAL(QUA(&o, "rm", "wq"), 1);
  CU_ASSERT(HAS(o.err, "EBUSY"));
  CU_ASSERT_EQUAL(QUA(&o, "unwire", "wc.out"), 0);
  CU_ASSERT(HAS(o.out, "unwired wc.out"));
  CU_ASSERT_EQUAL(QUA(&o, "unwire", "wc.out"), 1);
  CU_ASSERT(HAS(o.err, "ENOTWIRED"));
  CU_ASSERT_EQUAL(QUA(&o, "wire", "wc.out", "wq.put"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "rm", "--force", "wq"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "show", "wc"), 0);
  CU_ASSERT(!HAS(o.out, "wire:"));
  CU_ASSERT_EQUAL(QUA(&o, "rm", "wc"), 0);
}

static void cli_json_prints_one_object_per_line(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "jq", "capacity=2"), 0);
  CU_ASSERT_EQUAL(itest_qua(&o, &daemon_, "--json", "put", "jq", "1", "2", "3", (char *)NULL), 0);
  CU_ASSERT_EQUAL(lines(o.out), 3);
  CU_ASSERT(HAS(o.out, "{\"name\":\"jq\",\"item\":3,\"stored\":false,\"callback\":\"full\"}"));
  const char *verbs[][4] = {{"ls"}, {"stats"}, {"show", "jq"}, {"types", "queue"}, {"ping"},
                            {"call", "jq", "count"}, {"get", "jq", "5"}};
  for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
    CU_ASSERT_EQUAL(itest_qua(&o, &daemon_, "--json", verbs[i][0], verbs[i][1], verbs[i][2],
                              (char *)NULL), 0);
    for (char *line = o.out; *line;) {
      char *nl = strchr(line, '\n');
      CU_ASSERT_FATAL(nl != NULL);
      CU_ASSERT_EQUAL(line[0], '{');
      CU_ASSERT_EQUAL(nl[-1], '}');
      line = nl + 1;
    }
  }
  CU_ASSERT_EQUAL(itest_qua(&o, &daemon_, "--json", "call", "jq", "count", (char *)NULL), 0);
  CU_ASSERT(HAS(o.out, "\"result\":0"));
  CU_ASSERT_EQUAL(QUA(&o, "rm", "jq"), 0);
}

/* itest_spawn_qua against the suite's quad. */
static pid_t spawn_qua(const char *tag, const char *ready, char *const args[]) {
  return itest_spawn_qua(daemon_.dir, daemon_.sock, tag, ready, args);
}

static void read_spawned(const char *tag, char *buf, size_t len) {
  char p[160];
  snprintf(p, sizeof p, "%s/%s.out", daemon_.dir, tag);
  itest_slurp(p, buf, len);
}

static void cli_watch_prints_callbacks_as_they_fire(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "wtq", "capacity=2"), 0);
  char *named[] = {"watch", "wtq", "notempty", "full", "--count", "2", NULL};
  pid_t w1 = spawn_qua("w1", "watching wtq: notempty full", named);
  char *all[] = {"watch", "wtq", "--count", "3", NULL};
  pid_t w2 = spawn_qua("w2", "watching wtq:", all);
  CU_ASSERT_EQUAL(QUA(&o, "put", "wtq", "1", "2", "3"), 0);
  CU_ASSERT(HAS(o.out, "full 3"));
  int st1 = itest_wait(w1, 20);
  CU_ASSERT(st1 >= 0 && WIFEXITED(st1) && WEXITSTATUS(st1) == 0);
  if (st1 == -1)
    kill(w1, SIGKILL), waitpid(w1, NULL, 0);
  itest_sleep_ms(100);
  char buf[4096];
  read_spawned("w1", buf, sizeof buf);
  CU_ASSERT(HAS(buf, "wtq notempty "));
  CU_ASSERT(HAS(buf, " seq=1\n"));
  CU_ASSERT(HAS(buf, "wtq full 3 seq=2\n")); /* seq numbers the watch's events */
  CU_ASSERT_EQUAL(lines(buf), 2);
  read_spawned("w2", buf, sizeof buf);
  CU_ASSERT_EQUAL(lines(buf), 2); /* notempty and full: the third event needs a get */
  CU_ASSERT_EQUAL(QUA(&o, "get", "wtq", "1"), 0); /* from full: notfull */
  int st2 = itest_wait(w2, 20);
  CU_ASSERT(st2 >= 0 && WIFEXITED(st2) && WEXITSTATUS(st2) == 0);
  if (st2 == -1)
    kill(w2, SIGKILL), waitpid(w2, NULL, 0);
  read_spawned("w2", buf, sizeof buf);
  CU_ASSERT(HAS(buf, "wtq notfull"));
  /* A watcher without --count stops cleanly on SIGTERM. */
  char *forever[] = {"watch", "wtq", "empty", NULL};
  pid_t w3 = spawn_qua("w3", "watching wtq: empty", forever);
  CU_ASSERT_EQUAL(QUA(&o, "get", "wtq", "5"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "2\n(empty)\n");
  itest_sleep_ms(100);
  kill(w3, SIGTERM);
  int st3 = itest_wait(w3, 10);
  CU_ASSERT(st3 >= 0 && WIFEXITED(st3) && WEXITSTATUS(st3) == 0);
  read_spawned("w3", buf, sizeof buf);
  CU_ASSERT(HAS(buf, "wtq empty"));
  CU_ASSERT_EQUAL(QUA(&o, "watch", "wtq", "nosuchcallback", "--count", "1"), 1);
  CU_ASSERT(HAS(o.err, "ENOCALLBACK"));
  CU_ASSERT_EQUAL(QUA(&o, "rm", "wtq"), 0);
}

static void cli_drain_takes_items_as_they_come(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "dq", "capacity=64"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "put", "dq", "10", "11", "12"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "drain", "dq", "--count", "2"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "10\n11\n");
  /* --count 2 took exactly two: 12 is still there. */
  CU_ASSERT_EQUAL(QUA(&o, "call", "dq", "count"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "1\n");
  /* A drainer that is waiting gets items put later, in order. */
  char *args[] = {"drain", "dq", "--count", "5", "--window", "2", NULL};
  pid_t d = spawn_qua("d1", "draining dq", args);
  CU_ASSERT_EQUAL(QUA(&o, "put", "dq", "13", "14", "15", "16"), 0);
  int st = itest_wait(d, 20);
  CU_ASSERT(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
  if (st == -1)
    kill(d, SIGKILL), waitpid(d, NULL, 0);
  char buf[1024];
  read_spawned("d1", buf, sizeof buf);
  CU_ASSERT_STRING_EQUAL(buf, "12\n13\n14\n15\n16\n");
  CU_ASSERT_EQUAL(QUA(&o, "drain", "nosuchq", "--count", "1"), 1);
  CU_ASSERT_EQUAL(QUA(&o, "rm", "dq"), 0);
}

static void cli_options_go_anywhere(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL(QUA(&o, "create", "counter", "oc"), 0);
  /* Global options after the verb and its operands. */
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "ls", "--json", "--socket", daemon_.sock, (char *)NULL), 0);
  CU_ASSERT(HAS(o.out, "{\"name\":\"oc\""));
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "ping", "-s", daemon_.sock, (char *)NULL), 0);
  CU_ASSERT(HAS(o.out, "pong"));
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "ping", "--socket=/nonexistent/x", (char *)NULL), 3);
  /* --help and -h after a verb give its manual, and do not run it. */
  CU_ASSERT_EQUAL(QUA(&o, "put", "--help"), 0);
  CU_ASSERT(HAS(o.out, "qua put - "));
  CU_ASSERT_EQUAL(QUA(&o, "watch", "-h"), 0);
  CU_ASSERT(HAS(o.out, "qua watch - "));
  CU_ASSERT_EQUAL(QUA(&o, "-V"), 0);
  CU_ASSERT(HAS(o.out, "qua 0."));
  /* Verb options before the verb, attached values, clusters. */
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "oq", "capacity=8"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "put", "oq", "1", "2", "3"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "--count=1", "drain", "oq"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "1\n");
  CU_ASSERT_EQUAL(QUA(&o, "drain", "oq", "-jn1"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "{\"name\":\"oq\",\"item\":2,\"seq\":1}\n");
  CU_ASSERT_EQUAL(QUA(&o, "drain", "-n", "1", "oq"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "3\n");
  /* A negative number is an operand; "--" ends the options. */
  CU_ASSERT_EQUAL(QUA(&o, "call", "oc", "add", "-1"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "18446744073709551615\n");
  CU_ASSERT_EQUAL(QUA(&o, "call", "oc", "add", "--", "1"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "0\n");
  /* A verb option on a verb that does not take it; unknown options. */
  CU_ASSERT_EQUAL(QUA(&o, "ls", "--force"), 2);
  CU_ASSERT(HAS(o.err, "ls takes no --force"));
  CU_ASSERT_EQUAL(QUA(&o, "--jsn", "ls"), 2);
  CU_ASSERT(HAS(o.err, "did you mean '--json'?"));
  CU_ASSERT_EQUAL(QUA(&o, "ls", "-x"), 2);
  CU_ASSERT_EQUAL(QUA(&o, "drain", "oq", "--count"), 2);
  CU_ASSERT(HAS(o.err, "--count needs a value"));
  CU_ASSERT_EQUAL(QUA(&o, "rm", "oc", "oq"), 0);
}

static void cli_json_errors_are_objects_on_stderr(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL(QUA(&o, "show", "nosuch", "--json"), 1);
  CU_ASSERT_STRING_EQUAL(o.out, "");
  CU_ASSERT(HAS(o.err, "{\"error\":\"no quaject is published as 'nosuch'"));
  CU_ASSERT(HAS(o.err, "\"status\":\"ENOTFOUND\",\"code\":-25,\"subject\":\"nosuch\",\"exit\":1}\n"));
  CU_ASSERT_EQUAL(lines(o.err), 1);
  CU_ASSERT_EQUAL(QUA(&o, "--json", "frobnicate"), 2);
  CU_ASSERT(HAS(o.err, "\"status\":\"EUSAGE\",\"code\":null"));
  CU_ASSERT(HAS(o.err, "\"exit\":2}"));
  CU_ASSERT_EQUAL(lines(o.err), 1);
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "-j", "--socket", "/nonexistent/x", "ping", (char *)NULL), 3);
  CU_ASSERT(HAS(o.err, "\"status\":\"ECONN\""));
  CU_ASSERT(HAS(o.err, "\"exit\":3}"));
  /* Results: "op" names the verb, "name" the quaject, in every verb. */
  CU_ASSERT_EQUAL(QUA(&o, "--json", "create", "counter", "jc"), 0);
  CU_ASSERT(HAS(o.out, "{\"op\":\"create\",\"name\":\"jc\",\"id\":"));
  CU_ASSERT_EQUAL(QUA(&o, "--json", "create", "queue", "jq2", "capacity=1"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "--json", "wire", "jc.out", "jq2.put"), 0);
  CU_ASSERT(HAS(o.out, "{\"op\":\"wire\",\"src\":\"jc\""));
  CU_ASSERT(HAS(o.out, "\"callout\":\"out\",\"dst\":\"jq2\""));
  CU_ASSERT_EQUAL(QUA(&o, "--json", "call", "jc", "add", "2"), 0);
  CU_ASSERT(HAS(o.out, "\"status\":\"OK\",\"result\":2"));
  CU_ASSERT_EQUAL(QUA(&o, "--json", "call", "jq2", "get"), 0);
  CU_ASSERT(HAS(o.out, "\"status\":\"DIVERTED\",\"result\":null,\"fired\":[{\"callback\":\"empty\""));
  /* show: state as fields, no handle, wires both ways. */
  CU_ASSERT_EQUAL(QUA(&o, "--json", "show", "jq2"), 0);
  CU_ASSERT(HAS(o.out, "\"state\":{\"count\":0,\"capacity\":1,"));
  CU_ASSERT(HAS(o.out, "\"synth\":\"stencil\"}"));
  CU_ASSERT(!HAS(o.out, "handle"));
  CU_ASSERT(HAS(o.out, "\"wires_in\":[{\"src\":\"jc\""));
  CU_ASSERT_EQUAL(QUA(&o, "--json", "get", "jq2", "2"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "{\"name\":\"jq2\",\"callback\":\"empty\"}\n");
  CU_ASSERT_EQUAL(QUA(&o, "put", "jq2", "5"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "--json", "get", "jq2", "2"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "{\"name\":\"jq2\",\"item\":5,\"seq\":1}\n"
                                "{\"name\":\"jq2\",\"callback\":\"empty\"}\n");
  /* A full callback that went to the counter's callout, not to this client. */
  CU_ASSERT_EQUAL(QUA(&o, "call", "jc", "pass", "6"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "ok\n");
  CU_ASSERT_EQUAL(QUA(&o, "call", "jc", "pass", "6"), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "diverted (downstream)\n");
  CU_ASSERT_EQUAL(QUA(&o, "--json", "call", "jc", "pass", "6"), 0);
  CU_ASSERT(HAS(o.out, "\"status\":\"DIVERTED\",\"result\":null,\"fired\":[]}"));
  CU_ASSERT_EQUAL(QUA(&o, "--json", "rm", "--force", "jq2", "jc"), 0);
  CU_ASSERT(HAS(o.out, "{\"op\":\"rm\",\"name\":\"jq2\""));
  CU_ASSERT_EQUAL(QUA(&o, "help", "json"), 0);
  CU_ASSERT(HAS(o.out, "EUSAGE"));
  CU_ASSERT(HAS(o.out, "wires_in"));
}

static void cli_exit_statuses_are_consistent(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL(QUA(&o, "create", "counter", "xc"), 0);
  /* Too few and too many arguments for a callentry: both usage errors. */
  CU_ASSERT_EQUAL(QUA(&o, "call", "xc", "add"), 2);
  CU_ASSERT(HAS(o.err, "counter.add takes 1 argument, not 0"));
  CU_ASSERT_EQUAL(QUA(&o, "call", "xc", "add", "1", "2"), 2);
  CU_ASSERT_EQUAL(QUA(&o, "call", "xc", "read", "1"), 2);
  CU_ASSERT_EQUAL(QUA(&o, "call", "xc", "ad", "1"), 1);
  CU_ASSERT(HAS(o.err, "did you mean 'add'?"));
  /* rm carries on past a failure, says which, and exits with its status. */
  CU_ASSERT_EQUAL(QUA(&o, "create", "counter", "xa"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "rm", "xa", "nosuch", "xc"), 1);
  CU_ASSERT_STRING_EQUAL(o.out, "removed xa\nremoved xc\n");
  CU_ASSERT(HAS(o.err, "nosuch"));
  CU_ASSERT(HAS(o.err, "ENOTFOUND"));
  CU_ASSERT_EQUAL(QUA(&o, "show", "xc"), 1);
}

static void cli_names_follow_the_documented_rule(void) {
  itest_out_t o;
  char n63[64], n64[65];
  memset(n63, 'a', 63);
  n63[63] = '\0';
  memset(n64, 'b', 64);
  n64[64] = '\0';
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", ""), 2);
  CU_ASSERT(HAS(o.err, "is not a name: 1 to 63 letters, digits, '_' or '-'"));
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "a b"), 2);
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "a.b"), 2);
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", n64), 2);
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", n63), 0);
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "x_-9"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "ls"), 0);
  CU_ASSERT(HAS(o.out, n63));
  CU_ASSERT_EQUAL(QUA(&o, "rm", n63, "x_-9"), 0);
}

static void cli_errors_name_the_fix(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL(QUA(&o, "create", "counter", "fc"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "drain", "fc", "--count", "1"), 1);
  CU_ASSERT(HAS(o.err, "a counter, not a queue: drain takes a queue"));
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "fq", "synth=maybe"), 1);
  CU_ASSERT(HAS(o.err, "synth takes stencil or off"));
  CU_ASSERT(HAS(o.err, "EBADVALUE"));
  CU_ASSERT(!HAS(o.err, "not a number"));
  CU_ASSERT_EQUAL(QUA(&o, "crete", "queue", "fq"), 2);
  CU_ASSERT(HAS(o.err, "did you mean 'create'?"));
  CU_ASSERT_EQUAL(QUA(&o, "create", "queu", "fq"), 1);
  CU_ASSERT(HAS(o.err, "did you mean 'queue'?"));
  CU_ASSERT(HAS(o.err, "ENOTYPE"));
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "fq", "capacty=4"), 1);
  CU_ASSERT(HAS(o.err, "queue takes capacity"));
  CU_ASSERT_EQUAL(QUA(&o, "watch", "fc", "treshold"), 1);
  CU_ASSERT(HAS(o.err, "did you mean 'threshold'?"));
  CU_ASSERT_EQUAL(QUA(&o, "help", "wach"), 2);
  CU_ASSERT(HAS(o.err, "did you mean 'watch'?"));
  /* The socket path is said once. */
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "--socket", "/nonexistent/q.sock", "ping", (char *)NULL), 3);
  CU_ASSERT(strstr(o.err, "/nonexistent/q.sock") != NULL);
  CU_ASSERT(strstr(strstr(o.err, "/nonexistent/q.sock") + 1, "/nonexistent/q.sock: ") == NULL);
  CU_ASSERT(HAS(o.err, "is quad running?"));
  CU_ASSERT_EQUAL(QUA(&o, "rm", "fc"), 0);
}

static void cli_types_and_show_list_synth(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL(QUA(&o, "types", "counter"), 0);
  CU_ASSERT(HAS(o.out, "param    synth=stencil|off"));
  CU_ASSERT_EQUAL(QUA(&o, "--json", "types", "tee"), 0);
  CU_ASSERT(HAS(o.out, "{\"name\":\"synth\",\"choices\":[\"stencil\",\"off\"]"));
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "sq", "synth=off"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "show", "sq"), 0);
  CU_ASSERT(HAS(o.out, "param:   synth=off\n"));
  CU_ASSERT_EQUAL(QUA(&o, "rm", "sq"), 0);
}

/* The column at which `word` starts on the line of s that contains `key`. */
static int column_of(const char *s, const char *key, const char *word) {
  const char *k = strstr(s, key);
  if (k == NULL)
    return -1;
  const char *bol = k;
  while (bol > s && bol[-1] != '\n')
    bol--;
  const char *w = strstr(bol, word);
  return w != NULL ? (int)(w - bol) : -1;
}

static void cli_ls_and_show_list_wires_both_ways(void) {
  itest_out_t o;
  const char *longname = "a-rather-long-quaject-name-that-is-wider-than-twenty";
  CU_ASSERT_EQUAL(QUA(&o, "create", "counter", longname), 0);
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "lq"), 0);
  char src[96];
  snprintf(src, sizeof src, "%s.out", longname);
  CU_ASSERT_EQUAL(QUA(&o, "wire", src, "lq.put"), 0);
  CU_ASSERT_EQUAL(QUA(&o, "ls"), 0);
  CU_ASSERT(HAS(o.out, "WIRES"));
  CU_ASSERT(HAS(o.out, "out->lq.put"));
  /* Columns stay aligned past a long name. */
  CU_ASSERT(column_of(o.out, "ID", "TYPE") > 0);
  CU_ASSERT_EQUAL(column_of(o.out, longname, "counter"), column_of(o.out, "ID", "TYPE"));
  CU_ASSERT_EQUAL(column_of(o.out, " lq ", "queue"), column_of(o.out, "ID", "TYPE"));
  CU_ASSERT_EQUAL(QUA(&o, "show", "lq"), 0);
  char in[128];
  snprintf(in, sizeof in, "wired:   %s.out -> put\n", longname);
  CU_ASSERT(HAS(o.out, in));
  CU_ASSERT_EQUAL(QUA(&o, "rm", "--force", "lq", longname), 0);
}

static void cli_watch_ends_when_its_quaject_is_destroyed(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "dwq", "capacity=2"), 0);
  char *args[] = {"watch", "dwq", NULL};
  pid_t w = spawn_qua("dw", "watching dwq:", args);
  char *dargs[] = {"drain", "dwq", NULL};
  pid_t d = spawn_qua("dd", "draining dwq", dargs);
  CU_ASSERT_EQUAL(QUA(&o, "put", "dwq", "1"), 0);
  char buf[1024];
  double end = itest_now() + 10;
  do {
    itest_sleep_ms(10);
    read_spawned("dd", buf, sizeof buf);
  } while (!HAS(buf, "1\n") && itest_now() < end);
  CU_ASSERT_EQUAL(QUA(&o, "rm", "dwq"), 0);
  int st = itest_wait(w, 10), sd = itest_wait(d, 10);
  CU_ASSERT(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 4);
  CU_ASSERT(sd >= 0 && WIFEXITED(sd) && WEXITSTATUS(sd) == 4);
  if (st == -1)
    kill(w, SIGKILL), waitpid(w, NULL, 0);
  if (sd == -1)
    kill(d, SIGKILL), waitpid(d, NULL, 0);
  /* What fired before the rm was printed before the end. */
  read_spawned("dw", buf, sizeof buf);
  CU_ASSERT(HAS(buf, "dwq notempty 0 seq="));
  char p[160];
  snprintf(p, sizeof p, "%s/dw.err", daemon_.dir);
  itest_slurp(p, buf, sizeof buf);
  CU_ASSERT(HAS(buf, "qua: watch: dwq was destroyed"));
}

static void cli_watch_ends_when_quad_goes(void) {
  itest_daemon_t other;
  CU_ASSERT_FATAL(itest_start(&other, (char *)NULL) == 0);
  itest_out_t o;
  CU_ASSERT_EQUAL(itest_qua(&o, &other, "create", "queue", "gq", (char *)NULL), 0);
  char *args[] = {"watch", "gq", NULL};
  pid_t w = itest_spawn_qua(daemon_.dir, other.sock, "gw", "watching gq", args);
  itest_stop(&other);
  int st = itest_wait(w, 10);
  CU_ASSERT(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 3);
  if (st == -1)
    kill(w, SIGKILL), waitpid(w, NULL, 0);
  char errp[160], buf[1024];
  snprintf(errp, sizeof errp, "%s/gw.err", daemon_.dir);
  itest_slurp(errp, buf, sizeof buf);
  CU_ASSERT(HAS(buf, "quad closed the connection"));
}

/* Counts the lines of s that contain sub. */
static int count_of(const char *s, const char *sub) {
  int n = 0;
  for (const char *p = s; (p = strstr(p, sub)) != NULL; p += strlen(sub))
    n++;
  return n;
}

static void cli_idle_drain_fires_empty_once_per_transition(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL(QUA(&o, "create", "queue", "eq", "capacity=8"), 0);
  char *wargs[] = {"watch", "eq", "empty", NULL};
  pid_t w = spawn_qua("ew", "watching eq: empty", wargs);
  char *dargs[] = {"drain", "eq", "--window", "4", NULL};
  pid_t d = spawn_qua("ed", "draining eq", dargs);
  char buf[4096];
  /* The drain's first get may find the queue empty: that is a transition. */
  itest_sleep_ms(300);
  read_spawned("ew", buf, sizeof buf);
  int base = count_of(buf, "eq empty");
  CU_ASSERT(base <= 1);
  for (int round = 1; round <= 3; round++) {
    char item[16];
    snprintf(item, sizeof item, "%d", round);
    CU_ASSERT_EQUAL(QUA(&o, "put", "eq", item), 0);
    double end = itest_now() + 10;
    do {
      itest_sleep_ms(10);
      read_spawned("ew", buf, sizeof buf);
    } while (count_of(buf, "eq empty") < base + round && itest_now() < end);
    itest_sleep_ms(300); /* the drain credits and wakes again meanwhile */
    read_spawned("ew", buf, sizeof buf);
    CU_ASSERT_EQUAL(count_of(buf, "eq empty"), base + round);
  }
  read_spawned("ed", buf, sizeof buf);
  CU_ASSERT_STRING_EQUAL(buf, "1\n2\n3\n");
  kill(w, SIGTERM);
  kill(d, SIGTERM);
  CU_ASSERT(itest_wait(w, 10) >= 0);
  CU_ASSERT(itest_wait(d, 10) >= 0);
  CU_ASSERT_EQUAL(QUA(&o, "rm", "eq"), 0);
}

int main(int argc, char **argv) {
  if (itest_init(argc, argv) < 0 || itest_start(&daemon_, (char *)NULL) < 0)
    return 1;
  static const qtest_case_t cases[] = {
      {"cli_help_and_usage_errors_exit_2", cli_help_and_usage_errors_exit_2},
      {"cli_without_daemon_exits_3", cli_without_daemon_exits_3},
      {"cli_ping_types_stats", cli_ping_types_stats},
      {"cli_create_ls_show_rm", cli_create_ls_show_rm},
      {"cli_call_counter_prints_results", cli_call_counter_prints_results},
      {"cli_put_until_full_then_get", cli_put_until_full_then_get},
      {"cli_wire_unwire_and_busy_rm", cli_wire_unwire_and_busy_rm},
      {"cli_json_prints_one_object_per_line", cli_json_prints_one_object_per_line},
      {"cli_watch_prints_callbacks_as_they_fire", cli_watch_prints_callbacks_as_they_fire},
      {"cli_drain_takes_items_as_they_come", cli_drain_takes_items_as_they_come},
      {"cli_options_go_anywhere", cli_options_go_anywhere},
      {"cli_json_errors_are_objects_on_stderr", cli_json_errors_are_objects_on_stderr},
      {"cli_exit_statuses_are_consistent", cli_exit_statuses_are_consistent},
      {"cli_names_follow_the_documented_rule", cli_names_follow_the_documented_rule},
      {"cli_errors_name_the_fix", cli_errors_name_the_fix},
      {"cli_types_and_show_list_synth", cli_types_and_show_list_synth},
      {"cli_ls_and_show_list_wires_both_ways", cli_ls_and_show_list_wires_both_ways},
      {"cli_watch_ends_when_its_quaject_is_destroyed", cli_watch_ends_when_its_quaject_is_destroyed},
      {"cli_watch_ends_when_quad_goes", cli_watch_ends_when_quad_goes},
      {"cli_idle_drain_fires_empty_once_per_transition",
       cli_idle_drain_fires_empty_once_per_transition},
      {NULL, NULL}};
  return itest_run_and_stop(&daemon_, "cli", cases);
}
