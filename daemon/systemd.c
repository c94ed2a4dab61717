/* systemd.c -- quad under systemd: readiness and status, a socket handed over, journald priorities.
 *
 * Design notes
 *
 * 1. Readiness (Type=notify): READY=1 once every listener listens, so a
 *    unit ordered after quad.service finds the socket answering; STOPPING=1
 *    on SIGTERM; STATUS= with the connections, quajects and requests,
 *    refreshed every QUAD_SD_STATUS_MS by a timer that runs only when
 *    systemd asked for notifications (NOTIFY_SOCKET) and never keeps the
 *    loop alive (uv_unref).
 * 2. Socket activation (quad.socket): when systemd passes one listening
 *    unix stream socket (sd_listen_fds), quad serves it instead of binding
 *    --socket, and neither creates nor removes the socket file: its mode
 *    and group are the socket unit's (SocketMode=, SocketGroup=). Anything
 *    else passed (two sockets, a TCP or datagram one) is an error that
 *    names what was passed, not a silent fallback to binding.
 * 3. Log lines (quad_log) carry journald priorities ("<3>" error, "<4>"
 *    warning, "<6>" info, "<7>" debug) when stderr is the journal, which
 *    is when JOURNAL_STREAM names stderr's device and inode (systemd.exec);
 *    journald then adds the time and the pid, so quad leaves them out.
 *    This needs no library.
 * 4. Without libsystemd (QUAD_SYSTEMD undefined) notifications are no-ops
 *    and no socket is taken over; the unit is then Type=simple.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "quad-internal.h"

#ifdef QUAD_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#define QUAD_SD_STATUS_MS 2000

static bool to_journal;
static bool notify_on;
static uv_timer_t status_timer;
static bool status_started;

void quad_sd_init(void) {
  const char *js = getenv("JOURNAL_STREAM");
  unsigned long long dev, ino;
  struct stat st;
  to_journal = js != NULL && sscanf(js, "%llu:%llu", &dev, &ino) == 2 &&
               fstat(STDERR_FILENO, &st) == 0 && (unsigned long long)st.st_dev == dev &&
               (unsigned long long)st.st_ino == ino;
#ifdef QUAD_SYSTEMD
  notify_on = getenv("NOTIFY_SOCKET") != NULL;
#endif
}

bool quad_sd_journal(void) { return to_journal; }

int quad_sd_listen_fd(char *path, size_t len) {
#ifdef QUAD_SYSTEMD
  int n = sd_listen_fds(1);
  if (n == 0)
    return -1;
  if (n < 0) {
    quad_log(QUAD_LOG_ERROR, "the sockets systemd passed cannot be used: %s", strerror(-n));
    return -2;
  }
  if (n > 1) {
    quad_log(QUAD_LOG_ERROR, "systemd passed %d sockets; quad serves one unix socket "
             "(quad.socket: one ListenStream= with a path)", n);
    return -2;
  }
  int fd = SD_LISTEN_FDS_START;
  if (sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0) <= 0) {
    quad_log(QUAD_LOG_ERROR, "the socket systemd passed (fd %d) is not a listening unix stream "
             "socket (quad.socket: ListenStream= with a path)", fd);
    return -2;
  }
  struct sockaddr_un sa;
  socklen_t sl = sizeof sa;
  if (getsockname(fd, (struct sockaddr *)&sa, &sl) < 0 || sl <= offsetof(struct sockaddr_un, sun_path) ||
      sa.sun_path[0] == '\0') {
    quad_log(QUAD_LOG_ERROR, "the socket systemd passed has no path (an abstract or unnamed "
             "socket); quad serves a socket file");
    return -2;
  }
  snprintf(path, len, "%.*s", (int)(sl - offsetof(struct sockaddr_un, sun_path)), sa.sun_path);
  return fd;
#else
  (void)path;
  (void)len;
  return -1;
#endif
}

#ifdef QUAD_SYSTEMD
static void send_status(const char *state) {
  quad_server_t *s = quad_srv;
  sd_notifyf(0, "%sSTATUS=%s: %u connections, %u quajects, %" PRIu64 " requests",
             state, s->stopping ? "stopping" : "serving", s->nconns, s->nobjs, s->requests);
}

static void on_status(uv_timer_t *t) { send_status(""); }
#endif

void quad_sd_ready(uv_loop_t *loop) {
#ifdef QUAD_SYSTEMD
  if (!notify_on)
    return;
  send_status("READY=1\n");
  uv_timer_init(loop, &status_timer);
  uv_timer_start(&status_timer, on_status, QUAD_SD_STATUS_MS, QUAD_SD_STATUS_MS);
  uv_unref((uv_handle_t *)&status_timer);
  status_started = true;
#else
  (void)loop;
#endif
}

void quad_sd_stopping(void) {
#ifdef QUAD_SYSTEMD
  if (notify_on)
    send_status("STOPPING=1\n");
#endif
}

static void on_status_closed(uv_handle_t *h) {}

void quad_sd_finish(void) {
  if (status_started && !uv_is_closing((uv_handle_t *)&status_timer))
    uv_close((uv_handle_t *)&status_timer, on_status_closed);
}
