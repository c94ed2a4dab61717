/* rawconn.h -- a raw-socket qua.v1 peer for quad's tests: start quad, send frames, read them. */
#ifndef QUA_TESTS_RAWCONN_H
#define QUA_TESTS_RAWCONN_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "frame.h"
#include "qua.h"

#define RC_EVENTS_MAX 256

typedef struct rawconn {
  int fd;
  quap_decoder_t dec;
  uint64_t next_id;
  uint8_t buf[65536];
  size_t off, len;
  bool eof;
  /* Events that arrived while waiting for a response, oldest first. */
  Qua__V1__Frame *events[RC_EVENTS_MAX];
  int nevents;
} rawconn_t;

static inline double rc_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int rc_connect_unix(rawconn_t *c, const char *path) {
  memset(c, 0, sizeof *c);
  c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  size_t n = strlen(path);
  if (n >= sizeof sa.sun_path) {
    close(c->fd);
    c->fd = -1;
    return -ENAMETOOLONG;
  }
  memcpy(sa.sun_path, path, n + 1);
  if (connect(c->fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
    close(c->fd);
    c->fd = -1;
    return -errno;
  }
  quap_decoder_init(&c->dec, 64u << 20);
  c->next_id = 1;
  return 0;
}

static inline int rc_connect_tcp(rawconn_t *c, int port) {
  memset(c, 0, sizeof *c);
  c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(c->fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
    close(c->fd);
    c->fd = -1;
    return -errno;
  }
  quap_decoder_init(&c->dec, 64u << 20);
  c->next_id = 1;
  return 0;
}

static inline void rc_close(rawconn_t *c) {
  if (c->fd >= 0)
    close(c->fd);
  c->fd = -1;
  for (int i = 0; i < c->nevents; i++)
    quap_frame_free(c->events[i]);
  c->nevents = 0;
  quap_decoder_fini(&c->dec);
}

static inline int rc_write(rawconn_t *c, const void *p, size_t n) {
  const uint8_t *b = p;
  while (n > 0) {
    ssize_t w = send(c->fd, b, n, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return -errno;
    }
    b += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Sends a request; returns its id (0 on a write error). */
static inline uint64_t rc_send(rawconn_t *c, unsigned method, const ProtobufCMessage *in) {
  quap_buf_t b;
  quap_buf_init(&b);
  uint64_t id = c->next_id++;
  if (quap_request_append(&b, id, method, in) < 0 || rc_write(c, b.data, b.len) < 0)
    id = 0;
  quap_buf_fini(&b);
  return id;
}

/* The next frame, or NULL on timeout, EOF (c->eof) or a decode error. */
static inline Qua__V1__Frame *rc_recv(rawconn_t *c, int timeout_ms) {
  double end = rc_now() + timeout_ms / 1000.0;
  for (;;) {
    if (c->off < c->len) {
      size_t used = 0;
      Qua__V1__Frame *f = NULL;
      int r = quap_decoder_feed(&c->dec, c->buf + c->off, c->len - c->off, &used, &f);
      c->off += used;
      if (r < 0)
        return NULL;
      if (r == 1)
        return f;
      continue;
    }
    int left = (int)((end - rc_now()) * 1000);
    if (left < 0)
      return NULL;
    struct pollfd p = {.fd = c->fd, .events = POLLIN};
    if (poll(&p, 1, left) <= 0)
      continue;
    ssize_t n = recv(c->fd, c->buf, sizeof c->buf, 0);
    if (n <= 0) {
      if (n < 0 && errno == EINTR)
        continue;
      c->eof = true;
      return NULL;
    }
    c->off = 0;
    c->len = (size_t)n;
  }
}

/* Waits for the response to id, keeping events that come first. */
static inline Qua__V1__Frame *rc_response(rawconn_t *c, uint64_t id, int timeout_ms) {
  double end = rc_now() + timeout_ms / 1000.0;
  for (;;) {
    int left = (int)((end - rc_now()) * 1000);
    Qua__V1__Frame *f = rc_recv(c, left > 0 ? left : 0);
    if (f == NULL)
      return NULL;
    if (f->kind == QUA__V1__FRAME__KIND__EVENT && c->nevents < RC_EVENTS_MAX) {
      c->events[c->nevents++] = f;
      continue;
    }
    if (f->kind == QUA__V1__FRAME__KIND__RESPONSE && f->id == id)
      return f;
    quap_frame_free(f);
  }
}

/* The next event (kept or new), or NULL on timeout. */
static inline Qua__V1__Frame *rc_event(rawconn_t *c, int timeout_ms) {
  if (c->nevents > 0) {
    Qua__V1__Frame *f = c->events[0];
    memmove(c->events, c->events + 1, (size_t)(c->nevents - 1) * sizeof c->events[0]);
    c->nevents--;
    return f;
  }
  double end = rc_now() + timeout_ms / 1000.0;
  for (;;) {
    int left = (int)((end - rc_now()) * 1000);
    Qua__V1__Frame *f = rc_recv(c, left > 0 ? left : 0);
    if (f == NULL || f->kind == QUA__V1__FRAME__KIND__EVENT)
      return f;
    quap_frame_free(f);
  }
}

/* One call: the status (negative from the frame, or 0), the reply in *out
 * (when out is not NULL; free with protobuf_c_message_free_unpacked).
 * QUA_ECONN when the connection ended, QUA_ETIMEDOUT after 5 s. */
static inline int rc_call(rawconn_t *c, unsigned method, const ProtobufCMessage *in,
                          ProtobufCMessage **out) {
  if (out != NULL)
    *out = NULL;
  uint64_t id = rc_send(c, method, in);
  if (id == 0)
    return QUA_ECONN;
  Qua__V1__Frame *f = rc_response(c, id, 5000);
  if (f == NULL)
    return c->eof ? QUA_ECONN : QUA_ETIMEDOUT;
  ProtobufCMessage *m = NULL;
  int r = quap_response_unpack(f, method, &m);
  quap_frame_free(f);
  if (out != NULL)
    *out = m;
  else if (m != NULL)
    protobuf_c_message_free_unpacked(m, NULL);
  return r;
}

/* True when the peer closes within timeout_ms (frames before it are skipped). */
static inline bool rc_closed_within(rawconn_t *c, int timeout_ms) {
  double end = rc_now() + timeout_ms / 1000.0;
  while (rc_now() < end) {
    Qua__V1__Frame *f = rc_recv(c, (int)((end - rc_now()) * 1000) + 1);
    if (f == NULL && c->eof)
      return true;
    if (f == NULL && c->dec.error)
      return false;
    quap_frame_free(f);
  }
  return false;
}

/* --- A quad child ------------------------------------------------------------- */

typedef struct quad_child {
  pid_t pid;
  char dir[64];
  char sock[96];
  char log[96];
  int port; /* when started with --listen */
} quad_child_t;

/* Starts quad (argv[0] = its path) with extra options, in a fresh
 * mkdtemp() folder, and waits until its socket answers (or it exits).
 * Returns 0, or the exit status of a quad that stopped at once (+1000). */
/* The ids of pid's threads (/proc/PID/task) into tids[], at most max; how
 * many, or -1 when the folder cannot be read. */
static inline int rc_threads(pid_t pid, int *tids, int max) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
  DIR *d = opendir(path);
  if (d == NULL)
    return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < max)
    if (e->d_name[0] != '.')
      tids[n++] = atoi(e->d_name);
  closedir(d);
  return n;
}

static inline int quad_start(quad_child_t *q, const char *exe, const char *const *extra) {
  memset(q, 0, sizeof *q);
  snprintf(q->dir, sizeof q->dir, "/tmp/quad-test-XXXXXX");
  if (mkdtemp(q->dir) == NULL)
    return -1;
  snprintf(q->sock, sizeof q->sock, "%s/quad.sock", q->dir);
  snprintf(q->log, sizeof q->log, "%s/quad.log", q->dir);
  const char *argv[32];
  int n = 0;
  argv[n++] = exe;
  argv[n++] = "--socket";
  argv[n++] = q->sock;
  argv[n++] = "--log-level";
  argv[n++] = "debug";
  for (int i = 0; extra != NULL && extra[i] != NULL && n < 31; i++)
    argv[n++] = extra[i];
  argv[n] = NULL;
  q->pid = fork();
  if (q->pid == 0) {
    int fd = open(q->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      dup2(fd, 2);
      close(fd);
    }
    execv(exe, (char *const *)argv);
    _exit(127);
  }
  double end = rc_now() + 30.0; /* generous: sanitizer builds on a loaded machine */
  while (rc_now() < end) {
    int st;
    if (waitpid(q->pid, &st, WNOHANG) == q->pid) {
      q->pid = 0;
      return 1000 + (WIFEXITED(st) ? WEXITSTATUS(st) : 128);
    }
    rawconn_t c;
    if (rc_connect_unix(&c, q->sock) == 0) {
      rc_close(&c);
      /* The TCP port, from the log. */
      FILE *f = fopen(q->log, "r");
      char line[512];
      while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        const char *p = strstr(line, "listening on tcp 127.0.0.1:");
        if (p != NULL)
          q->port = atoi(p + strlen("listening on tcp 127.0.0.1:"));
      }
      if (f != NULL)
        fclose(f);
      /* quad logs its TCP listener after the unix one: wait for it too. */
      bool tcp = false;
      for (int i = 0; extra != NULL && extra[i] != NULL; i++)
        tcp = tcp || strcmp(extra[i], "--listen") == 0;
      if (!tcp || q->port != 0)
        return 0;
    }
    usleep(10000);
  }
  return -1;
}

/* Removes the daemon's folder, its socket and its log: after quad_stop, or
 * after a quad_start that quad refused (status 1000 and up) once the test
 * has read the log. */
static inline void quad_discard(quad_child_t *q) {
  unlink(q->sock);
  unlink(q->log);
  rmdir(q->dir);
}

/* Sends sig and waits up to timeout_ms; returns the exit status, or -1
 * if quad is still running (then it is killed), 128+N for a signal. */
static inline int quad_stop(quad_child_t *q, int sig, int timeout_ms, double *took) {
  int rc = -1;
  if (q->pid > 0) {
    double t0 = rc_now();
    kill(q->pid, sig);
    while (rc_now() - t0 < timeout_ms / 1000.0) {
      int st;
      if (waitpid(q->pid, &st, WNOHANG) == q->pid) {
        rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        q->pid = 0;
        break;
      }
      usleep(5000);
    }
    if (took != NULL)
      *took = rc_now() - t0;
    if (q->pid > 0) {
      kill(q->pid, SIGKILL);
      waitpid(q->pid, NULL, 0);
      q->pid = 0;
    }
  }
  /* Show the daemon's log when something went wrong. */
  if (rc != 0 || getenv("QUAD_TEST_LOG") != NULL) {
    FILE *f = fopen(q->log, "r");
    char line[512];
    fprintf(stderr, "--- quad log (%s)\n", q->log);
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
      fputs(line, stderr);
    if (f != NULL)
      fclose(f);
  }
  quad_discard(q);
  return rc;
}

#endif /* QUA_TESTS_RAWCONN_H */
