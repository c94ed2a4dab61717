/* quad.c -- the qua daemon: options, logging, listeners, signals and an orderly exit.
 *
 * One libuv loop thread owns the sockets, the sessions and every control
 * operation on quajects; pumps and clocks run on their own threads and
 * reach the loop through the connections' event rings and one uv_async
 * (events.c). session.c has the connection state machine, dispatch.c the
 * methods.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "quad-internal.h"
#include "quad-m68k.h"
#include "quad-state.h"
#include "registry.h"

quad_server_t *quad_srv;
int quad_log_level = QUAD_LOG_INFO;

static const char *const level_names[] = {"error", "warn", "info", "debug"};

void quad_log(int level, const char *fmt, ...) {
  if (level > quad_log_level)
    return;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  /* For journald, its priority instead of the pid and level it records. */
  static const int journal_prio[] = {3, 4, 6, 7};
  if (quad_sd_journal())
    fprintf(stderr, "<%d>%s\n", journal_prio[level], line);
  else
    fprintf(stderr, "quad[%ld]: %s: %s\n", (long)getpid(), level_names[level], line);
}

/* --- Options ------------------------------------------------------------------------ */

static const char usage_text[] =
    "Usage: quad [OPTION]...\n"
    "Run the qua daemon: serve quaject graphs to clients over the qua.v1 protocol.\n"
    "\n"
    "quad listens on a unix socket (and, when asked, on TCP) and lets clients\n"
    "(libquaclient, the qua command) create quajects, wire them into graphs,\n"
    "invoke their callentries and bind their callbacks and callouts to\n"
    "themselves. It logs to standard error and runs until SIGTERM or SIGINT,\n"
    "on which it stops accepting and reading requests, answers those it has\n"
    "read, sends the events it has queued, saves its state (--state-dir) and\n"
    "exits with status 0. The stop has a deadline counted from the signal,\n"
    "kept by a thread of its own whatever the rest of quad is doing: 2.5 s\n"
    "after it the connections still open are closed, written or not; 3.5 s\n"
    "after it quad exits with status 3 if it has still not finished. A second\n"
    "signal during the stop is only logged.\n"
    "\n"
    "Options:\n"
    "  --socket PATH       listen on the unix socket PATH (mode 0660; peer\n"
    "                      credentials are logged). Default: $QUA_SOCKET when\n"
    "                      it is set (the variable qua reads too; set but empty\n"
    "                      is an error), else $XDG_RUNTIME_DIR/qua/quad.sock, or\n"
    "                      /run/qua/quad.sock for root. Missing folders of the\n"
    "                      path are created (0750; 0700 for the default path of\n"
    "                      a user other than root). A stale socket file is\n"
    "                      removed; if a daemon answers on PATH, quad refuses\n"
    "                      to start.\n"
    "  --listen HOST:PORT  also listen on TCP (IPv6 as [ADDR]:PORT; port 0 picks\n"
    "                      one, which is logged). Needs --token-file.\n"
    "  --token-file FILE   the token TCP clients must send in Hello. FILE must\n"
    "                      not be readable by others; trailing white space is\n"
    "                      ignored.\n"
    "  --max-quajects N    quajects the daemon runs in all (default 100000);\n"
    "                      past it Create is refused with ELIMIT.\n"
    "  --max-threads N     quajects with a thread of their own (pumps,\n"
    "                      clocks) in all (default 256); past it: ELIMIT.\n"
    "  --thread-nice N     the nice increment (0 to 19, default 19) of clocks'\n"
    "                      threads over quad's own, so that however many clocks\n"
    "                      tick, the threads that answer clients and stop quad\n"
    "                      get the CPU first. 0 runs them at quad's priority.\n"
    "                      Pumps keep quad's priority.\n"
    "  --allow-uid UID     let unix peers with this uid connect (repeatable).\n"
    "  --allow-group GROUP\n"
    "                      let unix peers in this group (name or gid) connect\n"
    "                      (repeatable): the peer process's primary or\n"
    "                      supplementary groups when it connected, as the kernel\n"
    "                      gives them (no group database lookup). Root may\n"
    "                      always connect; with neither option, the members of\n"
    "                      the socket's group may.\n"
    "                      Others are refused with EPERM, naming the rule.\n"
    "  --hello-timeout MS  a TCP connection must say Hello within MS\n"
    "                      milliseconds (default 5000), in a frame of at most\n"
    "                      4096 bytes, or it is closed. Peers with 10 failed\n"
    "                      Hellos in 10 s are refused (ELIMIT) for the rest\n"
    "                      of those 10 s.\n"
    "  --max-frame BYTES   largest frame accepted (default 1048576); a larger\n"
    "                      one is answered ETOOBIG and closes the connection.\n"
    "  --max-quajects-per-client N\n"
    "                      quajects (and bindings) one connection may own\n"
    "                      (default 1024); past it: ELIMIT.\n"
    "  --max-inflight N    requests per connection read but not yet answered\n"
    "                      (default 64); past it quad stops reading that\n"
    "                      connection until its responses are written.\n"
    "  --max-events N      events queued per connection (default 4096); past it\n"
    "                      callback events are dropped and counted.\n"
    "  --max-conn-queued BYTES\n"
    "                      bytes of replies and events one connection may have\n"
    "                      waiting to be written (default 4194304); past it quad\n"
    "                      reads no more of its requests and takes no more of\n"
    "                      its events (they wait in the ring, then are dropped\n"
    "                      and counted) until the client reads. One reply may\n"
    "                      go past it.\n"
    "  --max-queued BYTES  the same for all connections together (default\n"
    "                      268435456); past it the connections holding more\n"
    "                      than an equal share are held back first.\n"
    "  --max-links N       links from other quads this one serves (default\n"
    "                      1024); past it the least recently used detached\n"
    "                      link is forgotten, or, if all are connected, a new\n"
    "                      one is refused with ELIMIT.\n"
    "  --metrics-listen IP:PORT\n"
    "                      serve Prometheus metrics (GET /metrics, text format)\n"
    "                      on this TCP address: connections, requests by\n"
    "                      method and status, events sent and dropped, bytes,\n"
    "                      synthesis counts and time, and every quaject's\n"
    "                      state numbers. No token: keep it on loopback (quad\n"
    "                      warns otherwise). Port 0 picks one, which is logged.\n"
    "  --state-dir DIR     keep the published graph in DIR (made 0700 when\n"
    "                      missing; it must be owned by quad's user, closed to\n"
    "                      group and others, and writable). Published quajects\n"
    "                      (their type, parameters, creator) and the wires\n"
    "                      between them are written ahead on every change and\n"
    "                      restored at start, before clients are accepted;\n"
    "                      unpublished quajects belong to their connection and\n"
    "                      are not saved. The writes run beside the loop, which\n"
    "                      goes on serving others; the client that made a\n"
    "                      change gets its answer (and any later one) once the\n"
    "                      change is on disk (fsynced). On SIGTERM or SIGINT the\n"
    "                      contents of queues, buffers, stacks and counters\n"
    "                      are saved too, so a restart loses nothing. Queues,\n"
    "                      buffers, counters and m68k quajects keep their\n"
    "                      state in files in DIR (ring.*, mapped shared), so\n"
    "                      after kill -9 or a crash of quad the graph comes\n"
    "                      back and each of them with what it held; nothing\n"
    "                      comes twice. Only what was in flight can be\n"
    "                      missing: what a get, read or pop had taken and not\n"
    "                      yet answered, a pump's batch (at most 64 items)\n"
    "                      taken and not yet put; a put, write or add not yet\n"
    "                      answered may or may not be there. After the machine\n"
    "                      restarts they come back empty (the files are not\n"
    "                      synced: stop quad first). A bad ring file is named,\n"
    "                      kept as NAME.bad, and its quaject comes back empty.\n"
    "                      A corrupt or truncated state file is named and quad\n"
    "                      refuses to start; the previous generation is kept.\n"
    "  --log-level LEVEL   error, warn, info (default) or debug.\n"
    "  --synth MODE        code quajects run: stencil (default; methods\n"
    "                      synthesised per wire) or off (generic C code). A\n"
    "                      create parameter synth=off|stencil overrides it.\n"
    "  -h, --help          print this help and exit.\n"
    "  -V, --version       print the version and exit.\n"
    "\n"
    "Environment:\n"
    "  QUA_SOCKET          the socket path when --socket is not given.\n"
    "  LISTEN_FDS, LISTEN_PID\n"
    "                      set by systemd (quad.socket): quad serves the one\n"
    "                      unix socket passed instead of binding --socket, and\n"
    "                      leaves its file, mode and group to the socket unit.\n"
    "  NOTIFY_SOCKET       set by systemd (Type=notify): quad sends READY=1\n"
    "                      once it serves, STOPPING=1 on SIGTERM, and STATUS=\n"
    "                      with its connections, quajects and requests.\n"
    "  JOURNAL_STREAM      when it names quad's stderr, log lines carry\n"
    "                      journald priorities (<3> error ... <7> debug).\n"
    "\n"
    "Exit status: 0 after a clean shutdown, 1 when the daemon cannot run (the\n"
    "socket is taken, the address cannot be bound, the state directory or\n"
    "file is refused), 2 for bad options or a bad token file, 3 when the stop\n"
    "did not finish by its deadline (answers not yet written, and the final\n"
    "save of queue contents if it was not made, are lost; what was written\n"
    "ahead to --state-dir is kept).\n"
    "\n"
    "The protocol, the connection states, the limits and every status code are\n"
    "described in proto/README.md.\n";

enum {
  OPT_SOCKET = 256,
  OPT_LISTEN,
  OPT_TOKEN_FILE,
  OPT_HELLO_TIMEOUT,
  OPT_ALLOW_UID,
  OPT_MAX_QUAJECTS_TOTAL,
  OPT_MAX_THREADS,
  OPT_THREAD_NICE,
  OPT_ALLOW_GROUP,
  OPT_MAX_FRAME,
  OPT_MAX_QUAJECTS,
  OPT_MAX_INFLIGHT,
  OPT_MAX_EVENTS,
  OPT_MAX_CONN_QUEUED,
  OPT_MAX_QUEUED,
  OPT_MAX_LINKS,
  OPT_LOG_LEVEL,
  OPT_SYNTH,
  OPT_METRICS_LISTEN,
  OPT_STATE_DIR,
  OPT_HELP,
  OPT_VERSION,
};

static const struct option long_options[] = {
    {"socket", required_argument, NULL, OPT_SOCKET},
    {"listen", required_argument, NULL, OPT_LISTEN},
    {"token-file", required_argument, NULL, OPT_TOKEN_FILE},
    {"hello-timeout", required_argument, NULL, OPT_HELLO_TIMEOUT},
    {"allow-uid", required_argument, NULL, OPT_ALLOW_UID},
    {"max-quajects", required_argument, NULL, OPT_MAX_QUAJECTS_TOTAL},
    {"max-threads", required_argument, NULL, OPT_MAX_THREADS},
    {"thread-nice", required_argument, NULL, OPT_THREAD_NICE},
    {"allow-group", required_argument, NULL, OPT_ALLOW_GROUP},
    {"max-frame", required_argument, NULL, OPT_MAX_FRAME},
    {"max-quajects-per-client", required_argument, NULL, OPT_MAX_QUAJECTS},
    {"max-inflight", required_argument, NULL, OPT_MAX_INFLIGHT},
    {"max-events", required_argument, NULL, OPT_MAX_EVENTS},
    {"max-conn-queued", required_argument, NULL, OPT_MAX_CONN_QUEUED},
    {"max-queued", required_argument, NULL, OPT_MAX_QUEUED},
    {"max-links", required_argument, NULL, OPT_MAX_LINKS},
    {"log-level", required_argument, NULL, OPT_LOG_LEVEL},
    {"synth", required_argument, NULL, OPT_SYNTH},
    {"metrics-listen", required_argument, NULL, OPT_METRICS_LISTEN},
    {"state-dir", required_argument, NULL, OPT_STATE_DIR},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "quad: ");
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nTry 'quad --help' for more information.\n");
  return 2;
}

/* Parses a decimal number in [min, max]. */
static bool parse_num(const char *s, uint64_t min, uint64_t max, uint64_t *out) {
  if (s == NULL || *s < '0' || *s > '9')
    return false;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno != 0 || *end != '\0' || v < min || v > max)
    return false;
  *out = v;
  return true;
}

int quad_read_token(const char *path, char *token, size_t *len, char *why, size_t whylen) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    snprintf(why, whylen, "cannot open token file %s: %s", path, strerror(errno));
    return -1;
  }
  struct stat st;
  int rc = -1;
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
    snprintf(why, whylen, "token file %s is not a regular file", path);
    goto out;
  }
  if (st.st_mode & (S_IROTH | S_IWOTH)) {
    snprintf(why, whylen,
             "token file %s is accessible to others (mode %04o); refusing to use it "
             "(chmod o-rw %s)",
             path, (unsigned)(st.st_mode & 07777), path);
    goto out;
  }
  /* The whole file, so that white space at any offset cannot end a token
   * that goes on after it; the room beyond the token is for trailing
   * white space. */
  char buf[4096];
  ssize_t n = 0, r;
  while ((size_t)n < sizeof buf && (r = read(fd, buf + n, sizeof buf - (size_t)n)) != 0) {
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0) {
      snprintf(why, whylen, "cannot read token file %s: %s", path, strerror(errno));
      goto out;
    }
    n += r;
  }
  if ((size_t)n == sizeof buf) {
    snprintf(why, whylen, "token in %s is longer than %d bytes", path, QUAD_TOKEN_MAX - 1);
    goto out;
  }
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' ||
                   buf[n - 1] == '\t'))
    n--;
  if (n == 0) {
    snprintf(why, whylen, "token file %s is empty", path);
    goto out;
  }
  if ((size_t)n >= QUAD_TOKEN_MAX) {
    snprintf(why, whylen, "token in %s is longer than %d bytes", path, QUAD_TOKEN_MAX - 1);
    goto out;
  }
  if (memchr(buf, '\0', (size_t)n) != NULL) {
    snprintf(why, whylen, "token in %s contains a NUL byte", path);
    goto out;
  }
  memcpy(token, buf, (size_t)n);
  token[n] = '\0';
  *len = (size_t)n;
  rc = 0;
out:
  close(fd);
  return rc;
}

static int read_token(quad_config_t *cfg) {
  char why[PATH_MAX + 128];
  if (quad_read_token(cfg->token_file, cfg->token, &cfg->token_len, why, sizeof why) < 0) {
    fprintf(stderr, "quad: %s\n", why);
    return 2;
  }
  return 0;
}

void quad_config_defaults(quad_config_t *cfg) {
  cfg->max_frame = QUAP_DEFAULT_MAX_FRAME;
  cfg->max_quajects = 1024;
  cfg->max_inflight = 64;
  cfg->max_events = 4096;
  cfg->max_conn_queued = 4u << 20;
  cfg->max_queued = 256u << 20;
  cfg->max_links = 1024;
  cfg->hello_timeout_ms = 5000;
  cfg->max_quajects_total = 100000;
  cfg->max_threads = 256;
  cfg->thread_nice = 19;
  cfg->log_level = QUAD_LOG_INFO;
}

/* Fills cfg from argv. Returns -1 to go on, else an exit status. */
static int parse_options(int argc, char **argv, quad_config_t *cfg) {
  quad_config_defaults(cfg);
  uint64_t v;
  const char *env;
  int opt;
  opterr = 0;
  while ((opt = getopt_long(argc, argv, ":hV", long_options, NULL)) != -1) {
    switch (opt) {
    case OPT_SOCKET:
      if (optarg[0] == '\0')
        return usage_error("--socket: empty path");
      free(cfg->socket_path);
      if ((cfg->socket_path = strdup(optarg)) == NULL)
        return usage_error("out of memory");
      break;
    case OPT_LISTEN:
      free(cfg->listen);
      if ((cfg->listen = strdup(optarg)) == NULL)
        return usage_error("out of memory");
      break;
    case OPT_METRICS_LISTEN: {
      char host[128];
      unsigned port;
      if (quad_parse_hostport(optarg, host, sizeof host, &port) < 0)
        return usage_error("--metrics-listen '%s': expected IP:PORT", optarg);
      free(cfg->metrics_listen);
      if ((cfg->metrics_listen = strdup(optarg)) == NULL)
        return usage_error("out of memory");
      break;
    }
    case OPT_TOKEN_FILE:
      free(cfg->token_file);
      if ((cfg->token_file = strdup(optarg)) == NULL)
        return usage_error("out of memory");
      break;
    case OPT_MAX_QUAJECTS_TOTAL:
      if (!parse_num(optarg, 1, 10000000, &v))
        return usage_error("--max-quajects '%s': expected 1 to 10000000", optarg);
      cfg->max_quajects_total = (unsigned)v;
      break;
    case OPT_MAX_THREADS:
      if (!parse_num(optarg, 0, 100000, &v))
        return usage_error("--max-threads '%s': expected 0 to 100000", optarg);
      cfg->max_threads = (unsigned)v;
      break;
    case OPT_THREAD_NICE:
      if (!parse_num(optarg, 0, 19, &v))
        return usage_error("--thread-nice '%s': expected 0 to 19", optarg);
      cfg->thread_nice = (int)v;
      break;
    case OPT_ALLOW_UID:
      if (!parse_num(optarg, 0, UINT32_MAX - 1, &v))
        return usage_error("--allow-uid '%s': expected a numeric uid", optarg);
      if (cfg->n_allow_uids == QUAD_ALLOW_MAX)
        return usage_error("--allow-uid: at most %d", QUAD_ALLOW_MAX);
      cfg->allow_uids[cfg->n_allow_uids++] = (uint32_t)v;
      break;
    case OPT_ALLOW_GROUP: {
      struct group *g = getgrnam(optarg);
      if (g != NULL)
        v = g->gr_gid;
      else if (!parse_num(optarg, 0, UINT32_MAX - 1, &v))
        return usage_error("--allow-group '%s': no such group", optarg);
      if (cfg->n_allow_gids == QUAD_ALLOW_MAX)
        return usage_error("--allow-group: at most %d", QUAD_ALLOW_MAX);
      cfg->allow_gids[cfg->n_allow_gids++] = (uint32_t)v;
      break;
    }
    case OPT_HELLO_TIMEOUT:
      if (!parse_num(optarg, 1, 3600000, &v))
        return usage_error("--hello-timeout '%s': expected milliseconds, 1 to 3600000", optarg);
      cfg->hello_timeout_ms = (unsigned)v;
      break;
    case OPT_MAX_FRAME:
      if (!parse_num(optarg, 64, UINT32_C(1) << 30, &v))
        return usage_error("--max-frame '%s': expected bytes, 64 to 1073741824", optarg);
      cfg->max_frame = (size_t)v;
      break;
    case OPT_MAX_QUAJECTS:
      if (!parse_num(optarg, 1, 1000000, &v))
        return usage_error("--max-quajects-per-client '%s': expected 1 to 1000000", optarg);
      cfg->max_quajects = (unsigned)v;
      break;
    case OPT_MAX_INFLIGHT:
      if (!parse_num(optarg, 1, 65536, &v))
        return usage_error("--max-inflight '%s': expected 1 to 65536", optarg);
      cfg->max_inflight = (unsigned)v;
      break;
    case OPT_MAX_EVENTS:
      if (!parse_num(optarg, 1, 1u << 20, &v))
        return usage_error("--max-events '%s': expected 1 to 1048576", optarg);
      cfg->max_events = (unsigned)v;
      break;
    case OPT_MAX_CONN_QUEUED:
      if (!parse_num(optarg, 4096, UINT64_C(1) << 40, &v))
        return usage_error("--max-conn-queued '%s': expected bytes, 4096 to 1099511627776",
                           optarg);
      cfg->max_conn_queued = (size_t)v;
      break;
    case OPT_MAX_QUEUED:
      if (!parse_num(optarg, 4096, UINT64_C(1) << 40, &v))
        return usage_error("--max-queued '%s': expected bytes, 4096 to 1099511627776", optarg);
      cfg->max_queued = (size_t)v;
      break;
    case OPT_MAX_LINKS:
      if (!parse_num(optarg, 1, 1000000, &v))
        return usage_error("--max-links '%s': expected 1 to 1000000", optarg);
      cfg->max_links = (unsigned)v;
      break;
    case OPT_LOG_LEVEL: {
      int l = -1;
      for (int i = 0; i < 4; i++)
        if (strcmp(optarg, level_names[i]) == 0)
          l = i;
      if (l < 0)
        return usage_error("--log-level '%s': expected error, warn, info or debug", optarg);
      cfg->log_level = l;
      break;
    }
    case OPT_SYNTH: {
      int m = qua_synth_parse(optarg);
      if (m < 0)
        return usage_error("--synth '%s': expected stencil or off", optarg);
      qua_set_synth_default((qua_synth_mode_t)m);
      break;
    }
    case OPT_STATE_DIR:
      if (optarg[0] == '\0')
        return usage_error("--state-dir: empty path");
      free(cfg->state_dir);
      if ((cfg->state_dir = strdup(optarg)) == NULL)
        return usage_error("out of memory");
      break;
    case 'h':
    case OPT_HELP:
      fputs(usage_text, stdout);
      return 0;
    case 'V':
    case OPT_VERSION:
      printf("quad %s\n", QUAD_VERSION);
      return 0;
    case ':':
      return usage_error("option '%s' needs a value (see 'quad --help')", argv[optind - 1]);
    default:
      return usage_error("unknown option '%s'", argv[optind - 1]);
    }
  }
  if (optind < argc)
    return usage_error("unexpected argument '%s'", argv[optind]);
  if (cfg->listen != NULL && cfg->token_file == NULL)
    return usage_error("--listen needs --token-file: TCP is refused without a token");
  if (cfg->token_file != NULL && cfg->listen == NULL)
    return usage_error("--token-file is only for --listen");
  if (cfg->token_file != NULL) {
    int r = read_token(cfg);
    if (r != 0)
      return r;
  }
  if (cfg->socket_path == NULL && (env = getenv("QUA_SOCKET")) != NULL) {
    /* Set but empty is a mistake in a script or a unit, not a request for
     * the default: say so rather than listen somewhere else. */
    if (env[0] == '\0')
      return usage_error("QUA_SOCKET is set but empty: set it to a socket path, unset it, "
                         "or give --socket PATH");
    if ((cfg->socket_path = strdup(env)) == NULL) {
      fprintf(stderr, "quad: out of memory\n");
      return 1;
    }
  }
  if (cfg->socket_path == NULL) {
    char path[PATH_MAX];
    if (geteuid() == 0) {
      snprintf(path, sizeof path, "/run/qua/quad.sock");
    } else {
      const char *xdg = getenv("XDG_RUNTIME_DIR");
      if (xdg == NULL || xdg[0] != '/')
        return usage_error("XDG_RUNTIME_DIR is not set: give --socket PATH or set QUA_SOCKET");
      if ((size_t)snprintf(path, sizeof path, "%s/qua/quad.sock", xdg) >= sizeof path)
        return usage_error("XDG_RUNTIME_DIR is too long");
    }
    if ((cfg->socket_path = strdup(path)) == NULL) {
      fprintf(stderr, "quad: out of memory\n");
      return 1;
    }
    cfg->socket_default = true;
  }
  if (strlen(cfg->socket_path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
    return usage_error("socket path '%s' is too long for a unix socket", cfg->socket_path);
  return -1;
}

/* The socket's group, the default rule's (set by listen_unix). */
static gid_t socket_gid;

/* --- Listeners ---------------------------------------------------------------------- */

/* Removes a socket file nobody answers on. 0, or 1 after a message. */
static int clear_stale_socket(const char *path) {
  struct stat st;
  if (lstat(path, &st) < 0) {
    if (errno == ENOENT)
      return 0;
    quad_log(QUAD_LOG_ERROR, "%s: %s", path, strerror(errno));
    return 1;
  }
  if (!S_ISSOCK(st.st_mode)) {
    quad_log(QUAD_LOG_ERROR, "%s exists and is not a socket; refusing to replace it", path);
    return 1;
  }
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    quad_log(QUAD_LOG_ERROR, "socket: %s", strerror(errno));
    return 1;
  }
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
  int r = connect(fd, (struct sockaddr *)&sa, sizeof sa);
  int e = errno;
  close(fd);
  if (r == 0) {
    quad_log(QUAD_LOG_ERROR, "another quad is running on %s", path);
    return 1;
  }
  if (e != ECONNREFUSED && e != ENOENT) {
    quad_log(QUAD_LOG_ERROR, "%s: %s; refusing to replace it", path, strerror(e));
    return 1;
  }
  quad_log(QUAD_LOG_INFO, "removing stale socket %s", path);
  if (unlink(path) < 0 && errno != ENOENT) {
    quad_log(QUAD_LOG_ERROR, "cannot remove %s: %s", path, strerror(errno));
    return 1;
  }
  return 0;
}

/* Creates the missing folders above the socket `path`, like mkdir -p:
 * the default path of a user other than root gets 0700, any other 0750.
 * 0, or 1 after a message naming the folder and the error. */
static int make_socket_dir(const char *path, bool is_default) {
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash == NULL || slash == dir)
    return 0; /* the current folder, or / */
  *slash = '\0';
  mode_t mode = is_default && geteuid() != 0 ? 0700 : 0750;
  for (char *p = dir + 1;; p++) {
    if (*p != '/' && *p != '\0')
      continue;
    char c = *p;
    *p = '\0';
    struct stat st;
    if (stat(dir, &st) < 0) {
      if (errno != ENOENT || mkdir(dir, mode) < 0) {
        quad_log(QUAD_LOG_ERROR, "cannot create the socket's folder %s: %s", dir, strerror(errno));
        return 1;
      }
      quad_log(QUAD_LOG_INFO, "created %s (mode %04o)", dir, (unsigned)mode);
    } else if (!S_ISDIR(st.st_mode)) {
      quad_log(QUAD_LOG_ERROR, "%s is not a folder: give --socket a path in a folder", dir);
      return 1;
    }
    *p = c;
    if (c == '\0')
      return 0;
  }
}

/* The errno bind(2) gives for path, which libuv reports as EACCES when
 * it is ENOENT. 0 when a bind succeeds now (the socket is removed). */
static int bind_errno(const char *path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return errno;
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
  int e = bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 ? errno : 0;
  if (e == 0)
    unlink(path);
  close(fd);
  return e;
}

/* Serves the socket systemd passed (quad.socket). 0, or 1 after a message. */
static int listen_passed(quad_server_t *srv, int fd, const char *path) {
  uv_pipe_init(srv->loop, &srv->unix_listener, 0);
  srv->have_unix = true;
  srv->socket_activated = true;
  int r = uv_pipe_open(&srv->unix_listener, fd);
  if (r == 0)
    r = uv_listen((uv_stream_t *)&srv->unix_listener, 128, quad_on_unix_connection);
  if (r < 0) {
    quad_log(QUAD_LOG_ERROR, "cannot listen on the socket systemd passed (%s): %s", path,
             uv_strerror(r));
    return 1;
  }
  if (strcmp(path, srv->cfg.socket_path) != 0)
    quad_log(QUAD_LOG_WARN, "serving %s, the socket systemd passed, not %s", path,
             srv->cfg.socket_path);
  char *p = strdup(path);
  if (p != NULL) {
    free(srv->cfg.socket_path);
    srv->cfg.socket_path = p;
  }
  struct stat sst;
  socket_gid = stat(path, &sst) == 0 ? sst.st_gid : getegid();
  quad_log(QUAD_LOG_INFO, "listening on unix %s (passed by systemd, mode %04o)", path,
           stat(path, &sst) == 0 ? (unsigned)(sst.st_mode & 07777) : 0u);
  return 0;
}

static int listen_unix(quad_server_t *srv) {
  char passed[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
  int fd = quad_sd_listen_fd(passed, sizeof passed);
  if (fd == -2)
    return 1;
  if (fd >= 0)
    return listen_passed(srv, fd, passed);
  const char *path = srv->cfg.socket_path;
  if (make_socket_dir(path, srv->cfg.socket_default) != 0)
    return 1;
  if (clear_stale_socket(path) != 0)
    return 1;
  uv_pipe_init(srv->loop, &srv->unix_listener, 0);
  srv->have_unix = true;
  mode_t old = umask(0117); /* the socket is born 0660 */
  int r = uv_pipe_bind(&srv->unix_listener, path);
  umask(old);
  if (r < 0) {
    int e = bind_errno(path);
    quad_log(QUAD_LOG_ERROR, "cannot bind %s: %s", path, e != 0 ? strerror(e) : uv_strerror(r));
    return 1;
  }
  srv->unix_bound = true;
  chmod(path, 0660);
  struct stat sst;
  socket_gid = stat(path, &sst) == 0 ? sst.st_gid : getegid();
  r = uv_listen((uv_stream_t *)&srv->unix_listener, 128, quad_on_unix_connection);
  if (r < 0) {
    quad_log(QUAD_LOG_ERROR, "cannot listen on %s: %s", path, uv_strerror(r));
    return 1;
  }
  quad_log(QUAD_LOG_INFO, "listening on unix %s (mode 0660)", path);
  return 0;
}

/* Whether a peer whose groups are gid and groups[0..n) is in group g. */
static bool in_group(uint32_t gid, const uint32_t *groups, size_t n, uint32_t g) {
  if (gid == g)
    return true;
  for (size_t i = 0; i < n; i++)
    if (groups[i] == g)
      return true;
  return false;
}

bool quad_peer_allowed(uint32_t uid, uint32_t gid, const uint32_t *groups, size_t ngroups,
                       char *why, size_t whylen) {
  const quad_config_t *cfg = &quad_srv->cfg;
  if (uid == 0)
    return true;
  for (unsigned i = 0; i < cfg->n_allow_uids; i++)
    if (cfg->allow_uids[i] == uid)
      return true;
  for (unsigned i = 0; i < cfg->n_allow_gids; i++)
    if (in_group(gid, groups, ngroups, cfg->allow_gids[i]))
      return true;
  bool by_default = cfg->n_allow_uids == 0 && cfg->n_allow_gids == 0;
  if (by_default && in_group(gid, groups, ngroups, (uint32_t)socket_gid))
    return true;
  if (by_default)
    snprintf(why, whylen,
             "uid %lu is not allowed: only root and members of the socket's group (gid %lu) "
             "may connect (quad --allow-uid, --allow-group)",
             (unsigned long)uid, (unsigned long)socket_gid);
  else
    snprintf(why, whylen,
             "uid %lu is not allowed: only root and the uids and groups given with "
             "--allow-uid and --allow-group may connect",
             (unsigned long)uid);
  return false;
}

int quad_parse_hostport(const char *spec, char *host, size_t hostlen, unsigned *port) {
  const char *colon = strrchr(spec, ':');
  uint64_t p;
  if (colon == NULL || colon == spec || (size_t)(colon - spec) >= hostlen ||
      !parse_num(colon + 1, 0, 65535, &p))
    return -1;
  memcpy(host, spec, (size_t)(colon - spec));
  host[colon - spec] = '\0';
  size_t hl = strlen(host);
  if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {
    memmove(host, host + 1, hl - 2);
    host[hl - 2] = '\0';
  }
  *port = (unsigned)p;
  return 0;
}

static int listen_tcp(quad_server_t *srv) {
  char host[128];
  const char *spec = srv->cfg.listen;
  unsigned port;
  if (quad_parse_hostport(spec, host, sizeof host, &port) < 0) {
    quad_log(QUAD_LOG_ERROR, "--listen '%s': expected HOST:PORT", spec);
    return 2;
  }
  struct sockaddr_storage ss;
  const char *h = host;
  if (uv_ip4_addr(h, (int)port, (struct sockaddr_in *)&ss) != 0 &&
      uv_ip6_addr(h, (int)port, (struct sockaddr_in6 *)&ss) != 0) {
    quad_log(QUAD_LOG_ERROR, "--listen '%s': '%s' is not an IP address", spec, h);
    return 2;
  }
  uv_tcp_init(srv->loop, &srv->tcp_listener);
  srv->have_tcp = true;
  int r = uv_tcp_bind(&srv->tcp_listener, (struct sockaddr *)&ss, 0);
  if (r == 0)
    r = uv_listen((uv_stream_t *)&srv->tcp_listener, 128, quad_on_tcp_connection);
  if (r < 0) {
    quad_log(QUAD_LOG_ERROR, "cannot listen on %s: %s", spec, uv_strerror(r));
    return 1;
  }
  int len = sizeof ss;
  char name[64] = "?";
  uv_tcp_getsockname(&srv->tcp_listener, (struct sockaddr *)&ss, &len);
  if (ss.ss_family == AF_INET) {
    uv_ip4_name((struct sockaddr_in *)&ss, name, sizeof name);
    port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
    quad_log(QUAD_LOG_INFO, "listening on tcp %s:%u (token required)", name, (unsigned)port);
  } else {
    uv_ip6_name((struct sockaddr_in6 *)&ss, name, sizeof name);
    port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    quad_log(QUAD_LOG_INFO, "listening on tcp [%s]:%u (token required)", name, (unsigned)port);
  }
  return 0;
}

/* --- Shutdown ------------------------------------------------------------------------ */

static void on_closed_quietly(uv_handle_t *h) {}

/* When every connection is gone: destroy what is left, close the last handles. */
static void maybe_finish(void) {
  quad_server_t *srv = quad_srv;
  if (!srv->stopping || !LIST_EMPTY(&srv->conns) || srv->nalive > 0 ||
      uv_is_closing((uv_handle_t *)&srv->wake))
    return;
  if (quad_state_save_final() > 0)
    return; /* a --state-dir write is on the worker: its end wakes us */
  if (!quad_jobs_idle()) {
    /* Every client has its answers and its socket closed, and the state is
     * saved; what is left is the worker destroying their quajects (thread
     * joins, grace periods), which the process's end does at once. */
    quad_log(QUAD_LOG_INFO, "stopped (the worker's cleanup is left to the exit)");
    if (!srv->socket_activated)
      unlink(srv->cfg.socket_path);
    fflush(stderr);
    _exit(0);
  }
  quad_objs_destroy_all();
  quad_link_shutdown();
  quad_signals_detach();
  uv_close((uv_handle_t *)&srv->stop, on_closed_quietly);
  uv_close((uv_handle_t *)&srv->wake, on_closed_quietly);
  uv_close((uv_handle_t *)&srv->deadline, on_closed_quietly);
  quad_sd_finish();
  quad_log(QUAD_LOG_INFO, "stopped");
}

static void on_wake(uv_async_t *a) {
  quad_on_wake(a);
  maybe_finish();
}

static void on_deadline(uv_timer_t *t) {
  quad_log(QUAD_LOG_WARN, "connections did not finish in time; closing them");
  quad_conns_force_close();
}

/* The signal thread took a stop signal (signals.c): the graceful stop.
 * Requests that reached a socket before it are still read and answered,
 * up to --max-inflight (quad_conns_shutdown). */
static void on_stop(uv_async_t *a) {
  quad_server_t *srv = quad_srv;
  uint64_t since = 0;
  if (srv->stopping || quad_signals_received(&since) == 0)
    return;
  srv->stopping = true;
  quad_sd_stopping();
  if (srv->have_unix)
    uv_close((uv_handle_t *)&srv->unix_listener, on_closed_quietly);
  if (srv->have_tcp)
    uv_close((uv_handle_t *)&srv->tcp_listener, on_closed_quietly);
  srv->have_unix = srv->have_tcp = false;
  quad_metrics_close();
  /* The deadline counts from the signal, not from now. */
  uv_timer_start(&srv->deadline, on_deadline,
                 since < QUAD_EXIT_DEADLINE_MS ? QUAD_EXIT_DEADLINE_MS - since : 0, 0);
  quad_conns_shutdown();
  maybe_finish();
}

/* --- Main ----------------------------------------------------------------------------- */

int main(int argc, char **argv) {
  static quad_server_t srv;
  quad_srv = &srv;
  quad_signals_block(); /* before any thread is made (signals.c note 1) */
  quad_reg_init(&srv.reg);
  quad_sd_init();
  int rc = parse_options(argc, argv, &srv.cfg);
  if (rc >= 0)
    goto out_cfg;
  quad_log_level = srv.cfg.log_level;
  qua_set_thread_nice(srv.cfg.thread_nice);
  signal(SIGPIPE, SIG_IGN);

  srv.loop = uv_default_loop();
  if (quad_link_register() < 0) {
    fprintf(stderr, "quad: cannot register the link type\n");
    rc = 1;
    goto out_cfg;
  }
  uv_async_init(srv.loop, &srv.wake, on_wake);
  uv_timer_init(srv.loop, &srv.deadline);
  uv_async_init(srv.loop, &srv.stop, on_stop);
  if (quad_signals_start(&srv.stop) < 0) {
    rc = 1;
    goto out_loop;
  }
  srv.start_ms = uv_now(srv.loop);

  rc = srv.cfg.state_dir != NULL && quad_state_open(srv.cfg.state_dir) < 0 ? 1 : 0;
  if (rc == 0)
    rc = listen_unix(&srv);
  if (rc == 0 && srv.cfg.listen != NULL)
    rc = listen_tcp(&srv);
  if (rc == 0 && srv.cfg.metrics_listen != NULL)
    rc = quad_metrics_listen(srv.cfg.metrics_listen);
  if (rc != 0) {
    /* Close what was opened and let the loop run the close callbacks. */
    srv.stopping = true;
    if (srv.have_unix)
      uv_close((uv_handle_t *)&srv.unix_listener, on_closed_quietly);
    if (srv.have_tcp)
      uv_close((uv_handle_t *)&srv.tcp_listener, on_closed_quietly);
    quad_metrics_close();
    maybe_finish();
    uv_run(srv.loop, UV_RUN_DEFAULT);
    if (srv.unix_bound && !srv.socket_activated)
      unlink(srv.cfg.socket_path);
    goto out_loop;
  }
  quad_log(QUAD_LOG_INFO, "quad %s ready (max-frame %zu, max-inflight %u, max-events %u, "
           "max-quajects-per-client %u, max-conn-queued %zu, max-queued %zu)", QUAD_VERSION,
           srv.cfg.max_frame, srv.cfg.max_inflight, srv.cfg.max_events, srv.cfg.max_quajects,
           srv.cfg.max_conn_queued, srv.cfg.max_queued);
  quad_sd_ready(srv.loop);
  uv_run(srv.loop, UV_RUN_DEFAULT);
  if (!srv.socket_activated)
    unlink(srv.cfg.socket_path);
  rc = 0;

out_loop:
  quad_m68k_shutdown();
  uv_loop_close(srv.loop);
  quad_signals_stop();
out_cfg:
  free(srv.cfg.socket_path);
  free(srv.cfg.listen);
  free(srv.cfg.metrics_listen);
  free(srv.cfg.token_file);
  free(srv.cfg.state_dir);
  return rc;
}
