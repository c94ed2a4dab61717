/* test-client-bounds.c -- libquaclient's memory stays bounded: events queued while a program
 * only makes blocking calls, and the ids of calls that timed out; and its waits end at their
 * timeouts. */
#include <pthread.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "frame.h"
#include "itest.h"

static itest_daemon_t daemon_;

/* The drainer takes 50 items as events while it only makes blocking
 * calls: 8 are queued (its limit), the other 42 discarded and counted. */
static void events_past_the_limit_are_discarded_and_counted(void) {
  quac_conn_t *a = itest_connect(&daemon_), *d = itest_connect(&daemon_);
  CU_ASSERT_FATAL(a != NULL && d != NULL);
  quac_set_event_limit(d, 8);
  const char *params[] = {"capacity=64"};
  uint64_t qa;
  CU_ASSERT_EQUAL_FATAL(quac_create(a, "queue", params, 1, "bounds-q", &qa, NULL), 0);
  quac_opened_t qd;
  CU_ASSERT_EQUAL_FATAL(quac_open(d, "bounds-q", &qd), 0);
  uint64_t binding;
  CU_ASSERT_EQUAL_FATAL(quac_bind_callout(d, qd.handle, "get", 100, &binding), 0);
  for (uint64_t v = 0; v < 50; v++) {
    quac_result_t r;
    CU_ASSERT_EQUAL(quac_invoke(a, qa, "put", &v, 1, &r), 0);
  }
  double end = itest_now() + 5.0;
  quac_stats_t st;
  while (quac_pending(d) + quac_events_discarded(d) < 50 && itest_now() < end)
    CU_ASSERT_EQUAL(quac_stats(d, &st), 0);
  CU_ASSERT_EQUAL(quac_pending(d), 8);
  CU_ASSERT_EQUAL(quac_events_discarded(d), 42);
  CU_ASSERT_EQUAL(quac_poll(d, 0), 8);
  CU_ASSERT_EQUAL(quac_pending(d), 0);
  quac_close(d);
  quac_close(a);
}

/* 200 calls time out (a timeout of 0 gives up before the response can
 * come); their late responses are dropped, so a pipelined invoke gets
 * its own. Before, only 16 ids were remembered and the rest of the late
 * responses were taken for the pipelined invoke's. */
static void late_responses_of_timed_out_calls_are_dropped(void) {
  quac_conn_t *c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  uint64_t h;
  CU_ASSERT_EQUAL_FATAL(quac_create(c, "counter", NULL, 0, NULL, &h, NULL), 0);
  quac_set_timeout(c, 0);
  quac_stats_t st;
  for (int i = 0; i < 200; i++)
    CU_ASSERT_EQUAL(quac_stats(c, &st), QUA_ETIMEDOUT);
  quac_set_timeout(c, 5000);
  uint64_t five = 5, id = 0, got = 0;
  CU_ASSERT_EQUAL(quac_invoke_send(c, h, "add", &five, 1, &id), 0);
  quac_result_t r;
  CU_ASSERT_EQUAL(quac_invoke_recv(c, 5000, &got, &r), 0);
  CU_ASSERT_EQUAL(got, id);
  CU_ASSERT_EQUAL(r.result, 5);
  CU_ASSERT_EQUAL(quac_stats(c, &st), 0);
  quac_close(c);
}

/* 256 calls whose responses have not come are remembered; the 257th
 * timeout gives the connection up, with a message that says so. */
static void timeouts_past_the_bound_give_the_connection_up(void) {
  quac_conn_t *c = itest_connect(&daemon_);
  CU_ASSERT_FATAL(c != NULL);
  quac_set_timeout(c, 0);
  quac_stats_t st;
  for (int i = 0; i < 256; i++)
    CU_ASSERT_EQUAL(quac_stats(c, &st), QUA_ETIMEDOUT);
  CU_ASSERT_EQUAL(quac_stats(c, &st), QUA_ETIMEDOUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(quac_last_error(c), "given up"));
  quac_set_timeout(c, 5000);
  CU_ASSERT_EQUAL(quac_stats(c, &st), QUA_ETIMEDOUT); /* dead: fails at once */
  quac_close(c);
}

/* A peer that answers Hello and then nothing: reads requests until the client goes. */
static int silent_listener = -1;

static void *silent_peer(void *arg) {
  (void)arg;
  int fd = accept(silent_listener, NULL, NULL);
  if (fd < 0)
    return NULL;
  quap_decoder_t dec;
  quap_decoder_init(&dec, 1 << 20);
  uint8_t buf[4096];
  bool said_hello = false;
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) {
    for (size_t off = 0; off < (size_t)n;) {
      size_t used;
      Qua__V1__Frame *f = NULL;
      if (quap_decoder_feed(&dec, buf + off, (size_t)n - off, &used, &f) < 0)
        goto out;
      off += used;
      if (f != NULL && !said_hello) {
        Qua__V1__HelloReply rep = QUA__V1__HELLO_REPLY__INIT;
        rep.version = QUAC_PROTOCOL_VERSION;
        rep.server = (char *)"silent";
        quap_buf_t out;
        quap_buf_init(&out);
        if (quap_response_append(&out, f->id, 0, NULL, &rep.base) > 0 &&
            write(fd, out.data, out.len) == (ssize_t)out.len)
          said_hello = true;
        quap_buf_fini(&out);
      }
      quap_frame_free(f);
    }
  }
out:
  quap_decoder_fini(&dec);
  close(fd);
  return NULL;
}

/* A blocking call whose answer never comes returns ETIMEDOUT at its timeout (it waits in
 * recv(2) bounded by the socket's receive timeout), not before and not much after; a later
 * shorter timeout holds too, as quac_set_timeout resets the socket's. */
static void blocking_call_times_out_at_its_timeout(void) {
  char path[sizeof daemon_.dir + 16];
  snprintf(path, sizeof path, "%s/silent.sock", daemon_.dir);
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
  silent_listener = socket(AF_UNIX, SOCK_STREAM, 0);
  CU_ASSERT_FATAL(silent_listener >= 0 &&
                  bind(silent_listener, (struct sockaddr *)&sa, sizeof sa) == 0 &&
                  listen(silent_listener, 1) == 0);
  pthread_t t;
  CU_ASSERT_FATAL(pthread_create(&t, NULL, silent_peer, NULL) == 0);
  quac_conn_t *c = NULL;
  CU_ASSERT_EQUAL_FATAL(quac_connect_unix(path, "bounds", &c), 0);
  static const int timeouts[] = {300, 100};
  for (int i = 0; i < 2; i++) {
    quac_set_timeout(c, timeouts[i]);
    quac_stats_t st;
    double t0 = itest_now();
    CU_ASSERT_EQUAL(quac_stats(c, &st), QUA_ETIMEDOUT);
    double ms = (itest_now() - t0) * 1000.0;
    CU_ASSERT(ms >= timeouts[i] - 1);
    CU_ASSERT(ms < timeouts[i] + 1000);
  }
  quac_close(c);
  pthread_join(t, NULL);
  close(silent_listener);
  unlink(path);
}

/* A quad whose frames hold 2 KiB pages List: quac_list asks for every
 * page and gives all 60 quajects, each once, in id order (60 of them
 * with their state lines do not fit in one 2 KiB reply). */
static void list_gathers_every_page(void) {
  itest_daemon_t small;
  CU_ASSERT_FATAL(itest_start(&small, "--log-level", "warn", "--max-frame", "2048", (char *)NULL) ==
                  0);
  quac_conn_t *c = itest_connect(&small);
  CU_ASSERT_FATAL(c != NULL);
  for (int i = 0; i < 60; i++) {
    char name[32];
    uint64_t h;
    snprintf(name, sizeof name, "page-q-%02d", i);
    CU_ASSERT_EQUAL(quac_create(c, "queue", NULL, 0, name, &h, NULL), 0);
  }
  quac_quaject_list_t *l = NULL;
  CU_ASSERT_EQUAL_FATAL(quac_list(c, &l), 0);
  CU_ASSERT_EQUAL(l->nquajects, 60);
  size_t bytes = 0;
  for (size_t i = 0; i < l->nquajects; i++) {
    bytes += strlen(l->quajects[i].name) + strlen(l->quajects[i].state);
    if (i > 0)
      CU_ASSERT(l->quajects[i].id > l->quajects[i - 1].id);
  }
  CU_ASSERT(bytes > 2048);
  quac_free(l);
  quac_close(c);
  CU_ASSERT(itest_stop_clean(&small));
}

int main(int argc, char **argv) {
  if (itest_init(argc, argv) < 0)
    return 1;
  if (itest_start(&daemon_, "--log-level", "warn", (char *)NULL) < 0)
    return 1;
  static const qtest_case_t cases[] = {
      {"events_past_the_limit_are_discarded_and_counted",
       events_past_the_limit_are_discarded_and_counted},
      {"late_responses_of_timed_out_calls_are_dropped",
       late_responses_of_timed_out_calls_are_dropped},
      {"timeouts_past_the_bound_give_the_connection_up",
       timeouts_past_the_bound_give_the_connection_up},
      {"list_gathers_every_page", list_gathers_every_page},
      {"blocking_call_times_out_at_its_timeout", blocking_call_times_out_at_its_timeout},
      {NULL, NULL}};
  return itest_run_and_stop(&daemon_, "client-bounds", cases);
}
