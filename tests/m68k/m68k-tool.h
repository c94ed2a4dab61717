/* m68k-tool.h -- running the quamachine tool from a suite and capturing what it says. */
#ifndef QUA_M68K_TOOL_H
#define QUA_M68K_TOOL_H

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CUnit/Basic.h>

typedef struct tool_run {
  char out[16384];
  char err[4096];
  int status; /* exit code, or 128 + signal */
} tool_run_t;

static inline void tool_slurp(FILE *f, char *buf, size_t len) {
  rewind(f);
  size_t n = fread(buf, 1, len - 1, f);
  buf[n] = '\0';
  fclose(f);
}

/* Runs argv[0] (the tool) with argv (NULL-terminated) and fills *r. */
static inline void tool_runv(tool_run_t *r, char *const argv[]) {
  FILE *out = tmpfile(), *err = tmpfile();
  CU_ASSERT_FATAL(out != NULL && err != NULL);
  fflush(stdout);
  pid_t pid = fork();
  CU_ASSERT_FATAL(pid >= 0);
  if (pid == 0) {
    dup2(fileno(out), 1);
    dup2(fileno(err), 2);
    execv(argv[0], argv);
    _exit(99);
  }
  int ws;
  CU_ASSERT_EQUAL_FATAL(waitpid(pid, &ws, 0), pid);
  r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
  tool_slurp(out, r->out, sizeof r->out);
  tool_slurp(err, r->err, sizeof r->err);
}

#endif /* QUA_M68K_TOOL_H */
