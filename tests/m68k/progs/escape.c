/* escape.c -- tries to reach files outside its root: each argument is opened, stat'ed and, as a
 * directory, listed; then the program climbs with chdir("..") and says where it is. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
  char buf[128];
  for (int i = 1; i < argc; i++) {
    int fd = open(argv[i], O_RDONLY);
    if (fd < 0) {
      printf("open %s: %s\n", argv[i], strerror(errno));
    } else {
      ssize_t n = read(fd, buf, sizeof buf - 1);
      buf[n > 0 ? n : 0] = '\0';
      buf[strcspn(buf, "\n")] = '\0';
      printf("open %s: %s\n", argv[i], n >= 0 ? buf : strerror(errno));
      close(fd);
    }
    struct stat st;
    if (lstat(argv[i], &st) != 0)
      printf("lstat %s: %s\n", argv[i], strerror(errno));
    else
      printf("lstat %s: %s\n", argv[i], S_ISLNK(st.st_mode) ? "link" : "not a link");
  }
  for (int i = 0; i < 6; i++)
    chdir("..");
  printf("getcwd after 6 x chdir(\"..\"): %s\n", getcwd(buf, sizeof buf) ? buf : strerror(errno));
  DIR *d = opendir(".");
  int n = 0;
  for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
    n += strcmp(e->d_name, "inside.txt") == 0;
  printf("inside.txt in the listing: %s\n", n == 1 ? "yes" : "no");
  if (d != NULL)
    closedir(d);
  return 0;
}
