/* linux-root.c -- the guest's file system: every path resolved inside the
 * directory of --root.
 *
 * Design notes
 *
 * 1. The guest sees one directory of the host (`quamachine run --root
 *    DIR`) as its "/". Without --root it sees no files at all: a call that
 *    names a path answers EACCES (standard input, output and error, which
 *    it inherits, still work).
 *
 * 2. Every path is made absolute in the guest's terms first: a relative
 *    one is joined to the guest's working directory (kept here as a
 *    string, "/" at the start) or to the guest path of the directory
 *    descriptor it is relative to (read back from /proc/self/fd, which
 *    must lie inside the root: descriptors the guest inherited from
 *    outside answer EBADF). The kernel then resolves that path under the
 *    root descriptor with openat2(RESOLVE_IN_ROOT): ".." stops at the
 *    root and a symbolic link, absolute or relative, is taken to mean a
 *    path inside it, as chroot(2) would, with no race between checking and
 *    using. Magic links (/proc/PID/fd/N style) are refused. A kernel
 *    without openat2 (before Linux 5.6) cannot give --root: it says so.
 *
 * 3. Calls other than open name the file through a pair (descriptor,
 *    name) the host's *at calls accept. When the call follows a final
 *    symbolic link (stat, access, chdir, chmod) the whole path is opened
 *    O_PATH and the name is "" (AT_EMPTY_PATH). When it does not (lstat,
 *    readlink, unlink, rmdir, mkdir, rename, link, symlink) the parent is
 *    opened O_PATH and the name is the last component, which has no "/"
 *    and is neither "" nor "..", so the host cannot leave the parent while
 *    acting on it.
 *
 * 4. The root descriptor sits high (from 512 when the limit allows),
 *    close-on-exec, and the guest cannot close or replace it (EBADF).
 */
#include "machine-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

struct m68k__root {
  int fd;             /* O_PATH descriptor of the root (note 4) */
  char *host;         /* its real path; "" for the host's "/" */
  char cwd[PATH_MAX]; /* the guest's working directory, absolute in its terms */
};

#define ROOT_FD_FLOOR 512

static long openat2_in(int dirfd, const char *path, int flags, mode_t mode) {
  struct open_how how = {
      .flags = (uint64_t)(unsigned)flags,
      .mode = (flags & (O_CREAT | __O_TMPFILE)) ? (uint64_t)(mode & 07777) : 0,
      .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
  };
  return syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

int m68k__root_open(m68k__root_t **out, const char *dir, char *msg, size_t msglen) {
  *out = NULL;
  m68k__root_t *r = calloc(1, sizeof *r);
  if (r == NULL) {
    snprintf(msg, msglen, "out of memory");
    return -ENOMEM;
  }
  r->fd = -1;
  int rc = 0;
  int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    rc = -errno;
    snprintf(msg, msglen, "--root %s: %s", dir, strerror(errno));
    goto fail;
  }
  r->fd = fcntl(fd, F_DUPFD_CLOEXEC, ROOT_FD_FLOOR);
  if (r->fd < 0)
    r->fd = fd;
  else
    close(fd);
  long probe = openat2_in(r->fd, "/", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
  if (probe < 0) {
    rc = -errno;
    snprintf(msg, msglen, "--root %s: %s", dir,
             errno == ENOSYS ? "this kernel has no openat2 (Linux 5.6 or later), which --root "
                               "needs to keep paths inside the directory"
                             : strerror(errno));
    goto fail;
  }
  close((int)probe);
  r->host = realpath(dir, NULL);
  if (r->host == NULL) {
    rc = -errno;
    snprintf(msg, msglen, "--root %s: %s", dir, strerror(errno));
    goto fail;
  }
  if (strcmp(r->host, "/") == 0)
    r->host[0] = '\0';
  strcpy(r->cwd, "/");
  *out = r;
  return 0;
fail:
  m68k__root_free(r);
  return rc;
}

void m68k__root_free(m68k__root_t *r) {
  if (r == NULL)
    return;
  if (r->fd >= 0)
    close(r->fd);
  free(r->host);
  free(r);
}

bool m68k__root_owns(const m68k__root_t *r, int fd) { return r != NULL && fd == r->fd; }

const char *m68k__root_cwd(const m68k__root_t *r) { return r != NULL ? r->cwd : "/"; }

/* The guest path of directory descriptor fd (note 2): 0 or -errno. */
static int fd_guest_path(const m68k__root_t *r, int fd, char *out, size_t len) {
  struct stat st;
  if (fstat(fd, &st) != 0)
    return -EBADF;
  if (!S_ISDIR(st.st_mode))
    return -ENOTDIR;
  char link[64], host[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, host, sizeof host - 1);
  if (n < 0)
    return -EBADF;
  host[n] = '\0';
  size_t hl = strlen(r->host);
  if (strncmp(host, r->host, hl) != 0 || (host[hl] != '/' && host[hl] != '\0'))
    return -EBADF; /* a directory outside the root */
  const char *rest = host[hl] != '\0' ? host + hl : "/";
  if (strlen(rest) >= len)
    return -ENAMETOOLONG;
  strcpy(out, rest);
  return 0;
}

/* path absolute in the guest's terms, relative to dirfd (AT_FDCWD: the
 * working directory): 0 or -errno (-EACCES without a root: no files). */
static int guest_abs(const m68k__root_t *r, int dirfd, const char *path, char *out, size_t len) {
  if (r == NULL)
    return -EACCES;
  if (path[0] == '\0')
    return -ENOENT;
  if (path[0] == '/') {
    if (strlen(path) >= len)
      return -ENAMETOOLONG;
    strcpy(out, path);
    return 0;
  }
  char base[PATH_MAX];
  if (dirfd == AT_FDCWD) {
    strcpy(base, r->cwd);
  } else {
    int rc = fd_guest_path(r, dirfd, base, sizeof base);
    if (rc != 0)
      return rc;
  }
  size_t bl = strlen(base);
  int n = snprintf(out, len, "%s%s%s", base, bl > 0 && base[bl - 1] == '/' ? "" : "/", path);
  return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int m68k__root_open_file(const m68k__root_t *r, int dirfd, const char *path, int flags,
                         mode_t mode) {
  char abs[PATH_MAX];
  int rc = guest_abs(r, dirfd, path, abs, sizeof abs);
  if (rc != 0)
    return rc;
  long fd = openat2_in(r->fd, abs, flags, mode);
  return fd < 0 ? -errno : (int)fd;
}

int m68k__root_at(const m68k__root_t *r, int dirfd, const char *path, bool follow,
                  m68k__gpath_t *g) {
  g->fd = -1;
  g->name = "";
  if (follow) {
    int fd = m68k__root_open_file(r, dirfd, path, O_PATH | O_CLOEXEC, 0);
    g->fd = fd < 0 ? -1 : fd;
    return fd < 0 ? fd : 0;
  }
  char abs[PATH_MAX];
  int rc = guest_abs(r, dirfd, path, abs, sizeof abs);
  if (rc != 0)
    return rc;
  /* Trailing slashes name the directory itself. */
  size_t n = strlen(abs);
  while (n > 1 && abs[n - 1] == '/')
    abs[--n] = '\0';
  char *slash = strrchr(abs, '/');
  const char *last = slash + 1;
  if (*last == '\0' || strcmp(last, ".") == 0 || strcmp(last, "..") == 0) {
    /* "/", "." or "..": the directory itself, acted on as "." */
    long fd = openat2_in(r->fd, abs, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
    if (fd < 0)
      return -errno;
    g->fd = (int)fd;
    g->name = ".";
    return 0;
  }
  if (strlen(last) >= sizeof g->last)
    return -ENAMETOOLONG;
  strcpy(g->last, last);
  *slash = '\0';
  long fd = openat2_in(r->fd, abs[0] != '\0' ? abs : "/", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
  if (fd < 0)
    return -errno;
  g->fd = (int)fd;
  g->name = g->last;
  return 0;
}

void m68k__gpath_done(m68k__gpath_t *g) {
  if (g->fd >= 0)
    close(g->fd);
  g->fd = -1;
}

int m68k__root_chdir(m68k__root_t *r, int fd) {
  char path[PATH_MAX];
  if (r == NULL)
    return -EACCES;
  int rc = fd_guest_path(r, fd, path, sizeof path);
  if (rc != 0)
    return rc;
  strcpy(r->cwd, path);
  return 0;
}
