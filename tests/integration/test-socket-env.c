/* test-socket-env.c -- $QUA_SOCKET: quad listens and qua connects where it says, without --socket. */
#include <sys/stat.h>

#include "itest.h"

#define HAS(s, sub) (strstr((s), (sub)) != NULL)

/* Runs quad with one argument (or none) in the foreground: it must exit
 * by itself (it refuses to start, or prints its help). Its exit status. */
static int quad_once(itest_out_t *o, const char *arg) {
  char *argv[] = {(char *)itest_quad_path, (char *)arg, NULL};
  return itest_run(o, argv);
}

static void quad_and_qua_meet_on_qua_socket_alone(void) {
  itest_daemon_t d;
  CU_ASSERT_FATAL(itest_start_env(&d, (char *)NULL) == 0);
  /* quad bound the path QUA_SOCKET named, with the usual mode. */
  struct stat st;
  CU_ASSERT(lstat(d.sock, &st) == 0 && S_ISSOCK(st.st_mode));
  CU_ASSERT_EQUAL(st.st_mode & 0777, 0660);
  char log[4096];
  itest_slurp(d.log, log, sizeof log);
  CU_ASSERT(HAS(log, d.sock));

  /* qua, told nothing but QUA_SOCKET, reaches it: state made in one run is
   * seen by the next. */
  itest_out_t o;
  setenv("QUA_SOCKET", d.sock, 1);
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "ping", (char *)NULL), 0);
  CU_ASSERT(HAS(o.out, "pong: quad"));
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "create", "counter", "envc", (char *)NULL), 0);
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "call", "envc", "add", "7", (char *)NULL), 0);
  CU_ASSERT_STRING_EQUAL(o.out, "7\n");
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "ls", (char *)NULL), 0);
  CU_ASSERT(HAS(o.out, "envc"));
  unsetenv("QUA_SOCKET");
  CU_ASSERT(itest_stop_clean(&d));
}

static void socket_option_wins_over_qua_socket(void) {
  /* The daemon is started with --socket while QUA_SOCKET names another
   * path (which must stay unused), and then while it is set but empty
   * (which must not matter either). */
  itest_daemon_t d;
  char other[] = "/tmp/qua-itest-other-XXXXXX";
  CU_ASSERT_FATAL(mkdtemp(other) != NULL);
  char other_sock[96];
  snprintf(other_sock, sizeof other_sock, "%s/elsewhere.sock", other);
  setenv("QUA_SOCKET", other_sock, 1);
  int r = itest_start(&d, (char *)NULL);
  CU_ASSERT_FATAL(r == 0);
  struct stat st;
  CU_ASSERT(lstat(other_sock, &st) < 0 && errno == ENOENT);
  /* qua's --socket wins too: QUA_SOCKET names a path nobody listens on. */
  itest_out_t o;
  CU_ASSERT_EQUAL(itest_qua(&o, &d, "ping", (char *)NULL), 0);
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "ping", (char *)NULL), 3);
  CU_ASSERT(HAS(o.err, "elsewhere.sock"));
  CU_ASSERT(itest_stop_clean(&d));

  setenv("QUA_SOCKET", "", 1);
  CU_ASSERT_FATAL(itest_start(&d, (char *)NULL) == 0);
  CU_ASSERT_EQUAL(itest_qua(&o, &d, "ping", (char *)NULL), 0);
  CU_ASSERT(itest_stop_clean(&d));
  unsetenv("QUA_SOCKET");
  rmdir(other);
}

static void empty_qua_socket_is_an_error_naming_it(void) {
  itest_out_t o;
  setenv("QUA_SOCKET", "", 1);
  /* quad: a usage error (2) that names the variable, and no daemon. */
  CU_ASSERT_EQUAL(quad_once(&o, NULL), 2);
  CU_ASSERT(HAS(o.err, "QUA_SOCKET"));
  CU_ASSERT(HAS(o.err, "empty"));
  /* qua: the same, rather than trying the default socket. */
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "ping", (char *)NULL), 2);
  CU_ASSERT(HAS(o.err, "QUA_SOCKET"));
  CU_ASSERT(HAS(o.err, "empty"));
  CU_ASSERT(!HAS(o.err, "quad.sock"));
  /* Verbs that need no daemon still work. */
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "help", "ping", (char *)NULL), 0);
  unsetenv("QUA_SOCKET");
}

static void quad_help_documents_qua_socket(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL(quad_once(&o, "--help"), 0);
  CU_ASSERT(HAS(o.out, "QUA_SOCKET"));
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "--help", (char *)NULL), 0);
  CU_ASSERT(HAS(o.out, "QUA_SOCKET"));
}

/* Runs quad with argv (NULL-terminated, after the program) until it exits. */
static int quad_args(itest_out_t *o, char *const args[]) {
  char *argv[8] = {(char *)itest_quad_path};
  for (int i = 0; args[i] != NULL && i < 6; i++)
    argv[i + 1] = args[i];
  return itest_run(o, argv);
}

static void quad_creates_missing_socket_folders(void) {
  itest_daemon_t d = {0};
  char sock[160], sub[160];
  snprintf(d.dir, sizeof d.dir, "/tmp/qua-itest-XXXXXX");
  CU_ASSERT_FATAL(mkdtemp(d.dir) != NULL);
  snprintf(sub, sizeof sub, "%s/a", d.dir);
  snprintf(sock, sizeof sock, "%s/a/b/quad.sock", d.dir);
  /* The README's quick start: QUA_SOCKET in folders that do not exist yet. */
  setenv("QUA_SOCKET", sock, 1);
  char *argv[] = {(char *)itest_quad_path, NULL};
  pid_t pid = fork();
  if (pid == 0) {
    int nul = open("/dev/null", O_WRONLY);
    dup2(nul, 2);
    execv(argv[0], argv);
    _exit(127);
  }
  itest_out_t o;
  int ok = -1;
  for (int i = 0; i < 2000 && ok != 0; i++) {
    itest_sleep_ms(10);
    ok = itest_qua(&o, NULL, "ping", (char *)NULL);
  }
  CU_ASSERT_EQUAL(ok, 0);
  struct stat st;
  CU_ASSERT(stat(sub, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0750);
  kill(pid, SIGTERM);
  int ws = itest_wait(pid, 10);
  CU_ASSERT(ws >= 0 && WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
  unsetenv("QUA_SOCKET");
  /* A file where a folder should be: said, exit status 1. */
  char file[192], bad[224];
  snprintf(file, sizeof file, "%s/plainfile", d.dir);
  FILE *f = fopen(file, "w");
  CU_ASSERT_FATAL(f != NULL);
  fclose(f);
  snprintf(bad, sizeof bad, "%s/x.sock", file);
  char *args[] = {"--socket", bad, NULL};
  CU_ASSERT_EQUAL(quad_args(&o, args), 1);
  CU_ASSERT(HAS(o.err, "is not a folder"));
  itest_remove_dir(&d);
}

static void quad_short_options_and_missing_values(void) {
  itest_out_t o;
  char *h[] = {"-h", NULL}, *v[] = {"-V", NULL}, *lv[] = {"--version", NULL};
  CU_ASSERT_EQUAL(quad_args(&o, h), 0);
  CU_ASSERT(HAS(o.out, "Usage: quad"));
  CU_ASSERT_EQUAL(quad_args(&o, v), 0);
  CU_ASSERT(HAS(o.out, "quad 0."));
  CU_ASSERT_EQUAL(quad_args(&o, lv), 0);
  CU_ASSERT(HAS(o.out, "quad 0."));
  /* An option without its value says so (not "unknown option"). */
  char *nov[] = {"--socket", NULL};
  CU_ASSERT_EQUAL(quad_args(&o, nov), 2);
  CU_ASSERT(HAS(o.err, "'--socket' needs a value"));
  char *bogus[] = {"--bogus", NULL};
  CU_ASSERT_EQUAL(quad_args(&o, bogus), 2);
  CU_ASSERT(HAS(o.err, "unknown option"));
}

int main(int argc, char **argv) {
  if (itest_init(argc, argv) < 0)
    return 2;
  /* Nothing inherited decides where these daemons listen. */
  unsetenv("QUA_SOCKET");
  static const qtest_case_t cases[] = {
      {"quad_and_qua_meet_on_qua_socket_alone", quad_and_qua_meet_on_qua_socket_alone},
      {"socket_option_wins_over_qua_socket", socket_option_wins_over_qua_socket},
      {"empty_qua_socket_is_an_error_naming_it", empty_qua_socket_is_an_error_naming_it},
      {"quad_help_documents_qua_socket", quad_help_documents_qua_socket},
      {"quad_creates_missing_socket_folders", quad_creates_missing_socket_folders},
      {"quad_short_options_and_missing_values", quad_short_options_and_missing_values},
      {NULL, NULL},
  };
  return qtest_run("integration-socket-env", cases);
}
