/* files.c -- files and directories through libc in the working directory, clocks and getrandom:
 * what a program that reads and writes its own files asks of the kernel. Paths are relative, so
 * the output is the same whatever the directory is called. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static void check(const char *what, int r) {
  printf("%-22s %s\n", what, r < 0 ? strerror(errno) : "ok");
}

static int cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir, sorted, on one line. */
static void list(const char *dir) {
  char *names[64];
  int n = 0;
  DIR *d = opendir(dir);
  if (d == NULL) {
    printf("opendir %s: %s\n", dir, strerror(errno));
    return;
  }
  for (struct dirent *e; (e = readdir(d)) != NULL && n < 64;)
    names[n++] = strdup(e->d_name);
  closedir(d);
  qsort(names, (size_t)n, sizeof names[0], cmp);
  printf("ls %s:", dir);
  for (int i = 0; i < n; i++) {
    printf(" %s", names[i]);
    free(names[i]);
  }
  printf("\n");
}

static void show_stat(const char *what, const struct stat *st) {
  printf("%-22s size %lld mode %o nlink %lu %s\n", what, (long long)st->st_size,
         (unsigned)st->st_mode & 07777, (unsigned long)st->st_nlink,
         S_ISREG(st->st_mode)   ? "file"
         : S_ISDIR(st->st_mode) ? "dir"
         : S_ISLNK(st->st_mode) ? "link"
                                : "other");
}

static void files(void) {
  struct stat st;
  char buf[256];
  umask(022);
  check("mkdir d", mkdir("d", 0750));
  check("mkdir d again", mkdir("d", 0750));
  int fd = open("d/a.txt", O_CREAT | O_WRONLY | O_TRUNC, 0640);
  check("open d/a.txt", fd);
  check("write", (int)write(fd, "hello, file\nsecond line\n", 24));
  check("pwrite", (int)pwrite(fd, "HELLO", 5, 0));
  check("fstat", fstat(fd, &st));
  show_stat("  a.txt", &st);
  printf("  mtime is now: %s\n", labs((long)(st.st_mtime - time(NULL))) < 100 ? "yes" : "no");
  check("close", close(fd));
  check("close again", close(fd));
  check("stat d", stat("d", &st));
  show_stat("  d", &st);
  check("symlink", symlink("a.txt", "d/l"));
  check("lstat d/l", lstat("d/l", &st));
  show_stat("  d/l", &st);
  check("stat d/l", stat("d/l", &st));
  show_stat("  d/l ->", &st);
  ssize_t n = readlink("d/l", buf, sizeof buf);
  printf("readlink d/l           %.*s\n", n < 0 ? 0 : (int)n, buf);
  check("readlink d/a.txt", (int)readlink("d/a.txt", buf, sizeof buf));
  fd = open("d/l", O_RDONLY);
  check("open d/l", fd);
  n = read(fd, buf, 10);
  printf("read                   %zd '%.*s'\n", n, (int)(n < 0 ? 0 : n), buf);
  n = pread(fd, buf, 6, 13);
  printf("pread at 13            %zd '%.*s'\n", n, (int)(n < 0 ? 0 : n), buf);
  printf("lseek end              %lld\n", (long long)lseek(fd, 0, SEEK_END));
  printf("lseek cur              %lld\n", (long long)lseek(fd, -5, SEEK_CUR));
  printf("fcntl getfl accmode    %d\n", fcntl(fd, F_GETFL) & O_ACCMODE);
  int fd2 = dup(fd);
  printf("dup shares offset      %lld\n", (long long)lseek(fd2, 0, SEEK_CUR));
  check("dup2", dup2(fd, 20));
  check("close 20", close(20));
  close(fd2);
  close(fd);
  check("access d/a.txt R", access("d/a.txt", R_OK));
  check("access d/none", access("d/none", F_OK));
  check("open d/none", open("d/none", O_RDONLY));
  check("open O_EXCL exists", open("d/a.txt", O_CREAT | O_EXCL | O_WRONLY, 0600));
  check("rename a.txt b.txt", rename("d/a.txt", "d/b.txt"));
  check("stat dangling d/l", stat("d/l", &st));
  check("link b.txt c.txt", link("d/b.txt", "d/c.txt"));
  check("stat d/c.txt", stat("d/c.txt", &st));
  show_stat("  d/c.txt", &st);
  check("chmod 0604", chmod("d/c.txt", 0604));
  check("stat d/c.txt", stat("d/c.txt", &st));
  show_stat("  d/c.txt", &st);
  check("mkdir d/e", mkdir("d/e", 0755));
  list("d");
  check("rmdir d (not empty)", rmdir("d"));
  check("unlink d/e (a dir)", unlink("d/e"));
  check("chdir d/e", chdir("d/e"));
  if (getcwd(buf, sizeof buf) != NULL)
    printf("getcwd ends            %s\n", strrchr(buf, '/'));
  check("open ../b.txt", fd = open("../b.txt", O_RDONLY));
  close(fd);
  check("chdir ../..", chdir("../.."));
  check("chdir d/b.txt (file)", chdir("d/b.txt"));
  int dfd = open("d", O_RDONLY | O_DIRECTORY);
  check("open d O_DIRECTORY", dfd);
  check("openat dfd b.txt", fd = openat(dfd, "b.txt", O_RDONLY));
  close(fd);
  check("fstatat dfd e", fstatat(dfd, "e", &st, 0));
  show_stat("  e", &st);
  check("mkdirat dfd f", mkdirat(dfd, "f", 0700));
  check("unlinkat dfd f", unlinkat(dfd, "f", AT_REMOVEDIR));
  close(dfd);
  /* stdio */
  FILE *f = fopen("d/stdio.txt", "w+");
  check("fopen w+", f != NULL ? 0 : -1);
  if (f != NULL) {
    for (int i = 0; i < 100; i++)
      fprintf(f, "line %d %g\n", i, i * 0.25);
    printf("ftell                  %ld\n", ftell(f));
    rewind(f);
    int lines = 0;
    while (fgets(buf, sizeof buf, f) != NULL)
      lines++;
    printf("fgets lines            %d last '%s'", lines, buf);
    fclose(f);
  }
  /* clean up */
  const char *gone[] = {"d/b.txt", "d/c.txt", "d/l", "d/stdio.txt"};
  for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++)
    check(gone[i], unlink(gone[i]));
  check("rmdir d/e", rmdir("d/e"));
  check("rmdir d", rmdir("d"));
  list(".");
  int p[2];
  check("pipe", pipe(p));
  check("pipe write", (int)write(p[1], "through", 7));
  n = read(p[0], buf, sizeof buf);
  printf("pipe read              %zd '%.*s'\n", n, (int)(n < 0 ? 0 : n), buf);
  close(p[0]);
  close(p[1]);
}

static void clocks(void) {
  struct timespec a, b, res;
  struct timeval tv;
  check("clock_gettime real", clock_gettime(CLOCK_REALTIME, &a));
  printf("  after 2020           %s\n", a.tv_sec > 1577836800 ? "yes" : "no");
  check("gettimeofday", gettimeofday(&tv, NULL));
  printf("  agrees               %s\n", labs((long)(tv.tv_sec - a.tv_sec)) <= 1 ? "yes" : "no");
  printf("  time() agrees        %s\n", labs((long)(time(NULL) - a.tv_sec)) <= 1 ? "yes" : "no");
  check("clock_getres mono", clock_getres(CLOCK_MONOTONIC, &res));
  printf("  at most 1 ms         %s\n", res.tv_sec == 0 && res.tv_nsec <= 1000000 ? "yes" : "no");
  clock_gettime(CLOCK_MONOTONIC, &a);
  struct timespec req = {0, 20000000};
  check("nanosleep 20 ms", nanosleep(&req, NULL));
  clock_gettime(CLOCK_MONOTONIC, &b);
  long ns = (long)(b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec);
  printf("  slept at least 20 ms %s\n", ns >= 20000000 ? "yes" : "no");
  check("clock_gettime bad id", clock_gettime((clockid_t)12345, &a));
  unsigned char r[32];
  ssize_t n = getrandom(r, sizeof r, 0);
  int distinct = 0;
  for (int i = 1; i < 32; i++)
    distinct += r[i] != r[0];
  printf("getrandom              %zd bytes, varied %s\n", n, distinct > 8 ? "yes" : "no");
}

int main(void) {
  files();
  clocks();
  return 0;
}
