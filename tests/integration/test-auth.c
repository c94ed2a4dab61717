/* test-auth.c -- quad on TCP (127.0.0.1, a random high port): the token is required and checked. */
#include "itest.h"

static itest_daemon_t daemon_;
static char token_dir[64] = "/tmp/qua-itest-token-XXXXXX";
static char good_file[128], bad_file[128];
static unsigned port;
static char hostport[32];

static void right_token_connects_over_tcp(void) {
  quac_conn_t *c = NULL;
  CU_ASSERT_EQUAL_FATAL(quac_connect_tcp("127.0.0.1", port, "s3cret-token", "itest", &c), 0);
  CU_ASSERT_EQUAL(quac_server_info(c)->version, 1);
  uint64_t h;
  CU_ASSERT_EQUAL(quac_create(c, "counter", NULL, 0, NULL, &h, NULL), 0);
  uint64_t two = 2;
  quac_result_t r;
  CU_ASSERT_EQUAL(quac_invoke(c, h, "add", &two, 1, &r), 0);
  CU_ASSERT_EQUAL(r.result, 2);
  quac_close(c);
}

static void wrong_or_missing_token_refused(void) {
  quac_conn_t *c = NULL;
  CU_ASSERT_EQUAL(quac_connect_tcp("127.0.0.1", port, "s3cret-tokeN", "itest", &c), QUA_EAUTH);
  CU_ASSERT_PTR_NULL(c);
  CU_ASSERT_STRING_NOT_EQUAL(quac_last_error(NULL), "");
  CU_ASSERT_EQUAL(quac_connect_tcp("127.0.0.1", port, "s3cret-token-and-more", "itest", &c),
                  QUA_EAUTH);
  CU_ASSERT_EQUAL(quac_connect_tcp("127.0.0.1", port, "", "itest", &c), QUA_EAUTH);
  CU_ASSERT_EQUAL(quac_connect_tcp("127.0.0.1", port, NULL, "itest", &c), QUA_EAUTH);
  /* The daemon still serves both listeners. */
  CU_ASSERT_EQUAL(quac_connect_tcp("127.0.0.1", port, "s3cret-token", "itest", &c), 0);
  quac_close(c);
  c = itest_connect(&daemon_);
  CU_ASSERT_PTR_NOT_NULL(c);
  quac_close(c);
}

static void cli_over_tcp_needs_the_token(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "--connect", hostport, "--token-file", good_file, "ping",
                            (char *)NULL), 0);
  CU_ASSERT(strstr(o.out, "pong") != NULL);
  /* No usable connection: exit status 3, EAUTH named, and the fix. */
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "--connect", hostport, "--token-file", bad_file, "ping",
                            (char *)NULL), 3);
  CU_ASSERT(strstr(o.err, "EAUTH") != NULL);
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "--connect", hostport, "ping", (char *)NULL), 3);
  CU_ASSERT(strstr(o.err, "EAUTH") != NULL);
  CU_ASSERT(strstr(o.err, "give --token-file") != NULL);
  char missing[160];
  snprintf(missing, sizeof missing, "%s/nonexistent", token_dir);
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "--connect", hostport, "--token-file", missing, "ping",
                            (char *)NULL), 2);
  /* Nothing listens on port 1 of loopback. */
  CU_ASSERT_EQUAL(itest_qua(&o, NULL, "--connect", "127.0.0.1:1", "--token-file", good_file,
                            "ping", (char *)NULL), 3);
}

static void tcp_without_token_file_is_refused_at_start(void) {
  itest_daemon_t d;
  char listen[32];
  snprintf(listen, sizeof listen, "127.0.0.1:%u", port + 1);
  CU_ASSERT_EQUAL(itest_start(&d, "--listen", listen, (char *)NULL), -1);
  itest_stop(&d);
}

static int write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f == NULL)
    return -1;
  fputs(text, f);
  return fclose(f);
}

int main(int argc, char **argv) {
  if (itest_init(argc, argv) < 0 || mkdtemp(token_dir) == NULL)
    return 1;
  snprintf(good_file, sizeof good_file, "%s/token", token_dir);
  snprintf(bad_file, sizeof bad_file, "%s/bad", token_dir);
  if (write_file(good_file, "s3cret-token\n") < 0 || write_file(bad_file, "guess\n") < 0)
    return 1;
  chmod(good_file, 0600);
  srand((unsigned)getpid() ^ (unsigned)time(NULL));
  int started = -1;
  for (int attempt = 0; attempt < 5 && started < 0; attempt++) {
    port = 20000 + (unsigned)rand() % 40000;
    snprintf(hostport, sizeof hostport, "127.0.0.1:%u", port);
    started = itest_start(&daemon_, "--listen", hostport, "--token-file", good_file, (char *)NULL);
  }
  int rc = 1;
  if (started == 0) {
    static const qtest_case_t cases[] = {
        {"right_token_connects_over_tcp", right_token_connects_over_tcp},
        {"wrong_or_missing_token_refused", wrong_or_missing_token_refused},
        {"cli_over_tcp_needs_the_token", cli_over_tcp_needs_the_token},
        {"tcp_without_token_file_is_refused_at_start", tcp_without_token_file_is_refused_at_start},
        {NULL, NULL}};
    rc = qtest_run("auth", cases);
    if (rc != 0)
      itest_dump_log(&daemon_);
    if (!itest_stop_clean(&daemon_))
      rc = 1;
  }
  unlink(good_file);
  unlink(bad_file);
  rmdir(token_dir);
  return rc;
}
