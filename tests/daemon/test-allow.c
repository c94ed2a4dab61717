/* test-allow.c -- which unix peers may connect: root, and by default the socket's group, or
 * the uids and groups given with --allow-uid and --allow-group; others are refused with EPERM
 * and a message naming the rule. Needs root, to connect as another uid. */
#include <grp.h>
#include <inttypes.h>

#include "qtest.h"
#include "rawconn.h"
#include "quadcalls.h"

static const char *quad_exe;

enum { NOBODY = 65534 };

/* What a peer with uid and gid NOBODY and the supplementary groups
 * groups[0..n) gets from quad q: 0 when a Stats call is answered, 10 when
 * refused with EPERM and a message naming --allow-uid, another number
 * otherwise. */
static int connect_as(const quad_child_t *q, const gid_t *groups, size_t n) {
  chmod(q->dir, 0755);
  chmod(q->sock, 0666);
  pid_t pid = fork();
  if (pid == 0) {
    if (setgroups(n, groups) < 0 || setgid(NOBODY) < 0 || setuid(NOBODY) < 0)
      _exit(3);
    rawconn_t c;
    if (rc_connect_unix(&c, q->sock) < 0)
      _exit(4);
    Qua__V1__StatsRequest sr = QUA__V1__STATS_REQUEST__INIT;
    uint64_t id = rc_send(&c, QUAP_STATS, &sr.base);
    Qua__V1__Frame *f = rc_recv(&c, 3000);
    if (f == NULL)
      _exit(5);
    int rc = f->kind == QUA__V1__FRAME__KIND__RESPONSE && f->id == id && f->status == 0 ? 0
             : f->status == QUA_EPERM && strstr(f->message, "--allow-uid") != NULL ? 10
                                                                                     : 6;
    _exit(rc);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int connect_as_nobody(const quad_child_t *q) { return connect_as(q, NULL, 0); }

static void nobody_is_refused_by_default_with_the_rule(void) {
  quad_child_t q;
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, NULL), 0);
  CU_ASSERT_EQUAL(connect_as_nobody(&q), 10);
  /* Root still connects. */
  witness_t w;
  witness_open(&w, q.sock);
  witness_check(&w);
  rc_close(&w.c);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, NULL), 0);
}

/* What nobody gets from a quad started with option opt=val. */
static int nobody_with(const char *opt, const char *val) {
  quad_child_t q;
  const char *extra[] = {opt, val, NULL};
  if (quad_start(&q, quad_exe, extra) != 0)
    return -1;
  int r = connect_as_nobody(&q);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, NULL), 0);
  return r;
}

static void allow_uid_lets_that_uid_in(void) {
  CU_ASSERT_EQUAL(nobody_with("--allow-uid", "65534"), 0);
  CU_ASSERT_EQUAL(nobody_with("--allow-uid", "12345"), 10);
}

static void bad_allow_values_are_refused_at_start(void) {
  quad_child_t q;
  const char *bad_uid[] = {"--allow-uid", "root", NULL};
  CU_ASSERT_EQUAL(quad_start(&q, quad_exe, bad_uid), 1002);
  quad_stop(&q, SIGTERM, 100, NULL);
  const char *bad_group[] = {"--allow-group", "no-such-group-here", NULL};
  CU_ASSERT_EQUAL(quad_start(&q, quad_exe, bad_group), 1002);
  quad_stop(&q, SIGTERM, 100, NULL);
}

static void allow_group_lets_its_members_in(void) {
  CU_ASSERT_EQUAL(nobody_with("--allow-group", "65534"), 0);
  CU_ASSERT_EQUAL(nobody_with("--allow-group", "12345"), 10);
}

/* A supplementary group counts as the kernel recorded it at connect (no
 * group database is read: nobody is in no group of /etc/group here). */
static void allow_group_counts_the_peers_supplementary_groups(void) {
  quad_child_t q;
  const char *extra[] = {"--allow-group", "12345", NULL};
  CU_ASSERT_EQUAL_FATAL(quad_start(&q, quad_exe, extra), 0);
  const gid_t member[] = {54321, 12345}, other[] = {54321, 12346};
  CU_ASSERT_EQUAL(connect_as(&q, member, 2), 0);
  CU_ASSERT_EQUAL(connect_as(&q, other, 2), 10); /* refused, naming the rule */
  CU_ASSERT_EQUAL(connect_as(&q, NULL, 0), 10);
  /* Many groups (past the first read's 64): the last one still counts. */
  gid_t many[200];
  for (int i = 0; i < 200; i++)
    many[i] = (gid_t)(20000 + i);
  many[199] = 12345;
  CU_ASSERT_EQUAL(connect_as(&q, many, 200), 0);
  CU_ASSERT_EQUAL(quad_stop(&q, SIGTERM, 5000, NULL), 0);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test-allow QUAD\n");
    return 2;
  }
  if (geteuid() != 0) {
    fprintf(stderr, "test-allow: needs root to connect as another uid; skipped\n");
    return 77; /* meson: skipped */
  }
  quad_exe = argv[1];
  signal(SIGPIPE, SIG_IGN);
  static const qtest_case_t cases[] = {
      {"nobody_is_refused_by_default_with_the_rule", nobody_is_refused_by_default_with_the_rule},
      {"allow_uid_lets_that_uid_in", allow_uid_lets_that_uid_in},
      {"allow_group_lets_its_members_in", allow_group_lets_its_members_in},
      {"allow_group_counts_the_peers_supplementary_groups",
       allow_group_counts_the_peers_supplementary_groups},
      {"bad_allow_values_are_refused_at_start", bad_allow_values_are_refused_at_start},
      {NULL, NULL},
  };
  return qtest_run("allow", cases);
}
