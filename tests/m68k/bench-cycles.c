/* bench-cycles.c -- the 68000 model's clock counts against the single-step data's cycle counts, as a figure of make bench.
 *
 * Arguments: QUAMACHINE SST_DIR. Runs `quamachine sst SST_DIR` (the 68000
 * model) and reads its per-file lines "SST <file> <p>/<t> cycles <c>/<t>
 * (...)". Prints
 *   BENCH m68000_cycle_agreement <v> %        the lowest file's agreement
 *                                             (goal >= 99: every file)
 *   BENCH m68000_cycle_agreement_total <v> %  all the tests together
 * or "BENCH m68000_cycle_agreement skipped <why>" when the data are
 * missing. Exits 1 when quamachine fails to run or prints no file line.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  if (argc != 3) {
    fprintf(stderr, "usage: bench-cycles QUAMACHINE SST_DIR\n");
    return 2;
  }
  struct stat st;
  if (stat(argv[2], &st) != 0 || !S_ISDIR(st.st_mode)) {
    printf("BENCH m68000_cycle_agreement skipped the m68k-sst data are not at %s\n", argv[2]);
    return 0;
  }
  int fd[2];
  if (pipe(fd) != 0) {
    perror("bench-cycles: pipe");
    return 1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    perror("bench-cycles: fork");
    return 1;
  }
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    close(fd[1]);
    execl(argv[1], argv[1], "sst", "--cpu", "68000", argv[2], (char *)NULL);
    perror("bench-cycles: exec");
    _exit(127);
  }
  close(fd[1]);
  FILE *in = fdopen(fd[0], "r");
  if (!in) {
    perror("bench-cycles: fdopen");
    return 1;
  }
  char line[512], file[256], worst[256] = "";
  unsigned files = 0;
  unsigned long long agree = 0, total = 0;
  double lowest = 101.0;
  while (fgets(line, sizeof line, in)) {
    unsigned p, t, c, t2;
    if (sscanf(line, "SST %255s %u/%u cycles %u/%u", file, &p, &t, &c, &t2) != 5 ||
        strcmp(file, "total") == 0 || t2 == 0)
      continue;
    double pct = 100.0 * c / t2;
    if (pct < lowest) {
      lowest = pct;
      snprintf(worst, sizeof worst, "%s", file);
    }
    agree += c;
    total += t2;
    files++;
  }
  fclose(in);
  int status;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) > 1) {
    fprintf(stderr, "bench-cycles: %s sst did not run to its end\n", argv[1]);
    return 1;
  }
  if (files == 0) {
    fprintf(stderr, "bench-cycles: %s sst printed no file's cycle agreement\n", argv[1]);
    return 1;
  }
  printf("bench-cycles: %u files; the lowest agreement is %s's\n", files, worst);
  printf("BENCH m68000_cycle_agreement %.2f %%\n", lowest);
  printf("BENCH m68000_cycle_agreement_total %.2f %%\n", 100.0 * (double)agree / (double)total);
  return 0;
}
