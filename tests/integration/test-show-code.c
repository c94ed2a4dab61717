/* test-show-code.c -- qua show --code against a running quad (unix socket and TCP): each
 * callentry's synthesised x86-64 code disassembled, its holes annotated with the values
 * the quaject's parameters gave them. */
#include "itest.h"

#include <ctype.h>

static itest_daemon_t daemon_;
static char token_dir[64] = "/tmp/qua-itest-code-XXXXXX";
static char token_file[96];
static char hostport[32];

#define QUA(o, ...) itest_qua(o, &daemon_, __VA_ARGS__, (char *)NULL)
#define HAS(s, x) (strstr((s), (x)) != NULL)

/* The text from "impl:    ENTRY:" to the next "impl:" line (or the end), in buf. */
static const char *entry_section(const char *out, const char *entry, char *buf, size_t len) {
  char head[64];
  snprintf(head, sizeof head, "impl:    %s:", entry);
  const char *s = strstr(out, head);
  buf[0] = '\0';
  if (s == NULL)
    return NULL;
  const char *e = strstr(s + 1, "\nimpl:    ");
  size_t n = e != NULL ? (size_t)(e - s) + 1 : strlen(s);
  snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), s);
  return buf;
}

/* How many instruction lines ("    ADDRESS  MNEMONIC ...") of sec have a
 * mnemonic from the list, and how many instruction lines there are. */
static int x86_mnemonics(const char *sec, int *lines) {
  static const char *const known[] = {"mov", "movabs", "add", "sub", "and", "cmp", "test", "jmp",
                                      "je", "jne", "jae", "jb", "ja", "jbe", "call", "ret", "lea",
                                      "push", "pop", "xor", "lock", "shl", "inc", "cmpxchg",
                                      "xchg", "int3", "movzx", "sete", "nop", "endbr64", NULL};
  int hits = 0;
  *lines = 0;
  for (const char *l = sec; l != NULL && *l != '\0'; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
    unsigned long long addr;
    char mn[32];
    if (sscanf(l, "    %12llx  %31s", &addr, mn) != 2 || addr == 0)
      continue;
    (*lines)++;
    for (int k = 0; known[k] != NULL; k++)
      if (strcmp(mn, known[k]) == 0) {
        hits++;
        break;
      }
  }
  return hits;
}

/* A queue wired from a counter: its put runs code synthesised for the
 * wire's site, with its mask (capacity - 1) and capacity folded in. */
static void wired_queue_put_is_disassembled_with_its_holes(void) {
  itest_out_t o;
  char sec[8192], want[64];
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "create", "queue", "q", "capacity=1024"), 0);
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "create", "counter", "src"), 0);
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "wire", "src.out", "q.put"), 0);
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "show", "--code", "q"), 0);
  CU_ASSERT_FATAL(entry_section(o.out, "put", sec, sizeof sec) != NULL);
  CU_ASSERT(HAS(sec, "put: stencil"));
  CU_ASSERT(HAS(sec, "x86-64 code at 0x"));
  CU_ASSERT(HAS(sec, "<q.put "));
  int lines = 0, hits = x86_mnemonics(sec, &lines);
  CU_ASSERT(lines >= 5);
  CU_ASSERT(hits * 10 >= lines * 9); /* capstone's mnemonics, not bytes */
  CU_ASSERT(HAS(sec, "ret"));
  /* The holes carry the queue's parameters. */
  snprintf(want, sizeof want, "hole mask=%d", 1024 - 1);
  CU_ASSERT(HAS(sec, want));
  CU_ASSERT(HAS(sec, "hole slots=0x"));
  /* A hole sits on the line of an instruction, after its operands. */
  const char *m = strstr(sec, want);
  const char *bol = m;
  while (bol > sec && bol[-1] != '\n')
    bol--;
  CU_ASSERT(strncmp(bol, "    ", 4) == 0 && isxdigit((unsigned char)bol[4]));
  /* Nobody calls get: it runs no synthesised code, and says so. */
  CU_ASSERT_FATAL(entry_section(o.out, "get", sec, sizeof sec) != NULL);
  CU_ASSERT(HAS(sec, "get: no site"));
  CU_ASSERT(HAS(sec, "(generic C code: nothing synthesised to disassemble)"));
  /* Without --code, no listing. */
  CU_ASSERT_EQUAL(QUA(&o, "show", "q"), 0);
  CU_ASSERT(!HAS(o.out, "x86-64 code at"));
  /* Another capacity, another mask. */
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "create", "queue", "q64", "capacity=64"), 0);
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "create", "counter", "src64"), 0);
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "wire", "src64.out", "q64.put"), 0);
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "show", "--code", "q64"), 0);
  CU_ASSERT(HAS(o.out, "hole mask=63"));
  CU_ASSERT(!HAS(o.out, "hole mask=1023"));
  CU_ASSERT_EQUAL(QUA(&o, "rm", "src64", "q64"), 0);
}

/* synth=off: the same wired queue runs generic code; --code says so for every entry. */
static void generic_entries_say_so(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "create", "queue", "g", "capacity=8", "synth=off"), 0);
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "create", "counter", "gsrc"), 0);
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "wire", "gsrc.out", "g.put"), 0);
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "show", "--code", "g"), 0);
  CU_ASSERT(HAS(o.out, "put: generic"));
  CU_ASSERT(!HAS(o.out, "code at 0x"));
  CU_ASSERT(!HAS(o.out, "hole "));
  CU_ASSERT(HAS(o.out, "(generic C code: nothing synthesised to disassemble)"));
  CU_ASSERT_EQUAL(QUA(&o, "rm", "gsrc", "g"), 0);
}

/* Code made of several templates labels each with its callentry, and a
 * call into another template names the callentry it enters: a tee wired
 * to two queues, behind another tee's output (a wire: a lasting site). */
static void chains_name_the_callentries_they_enter(void) {
  itest_out_t o;
  char sec[12000];
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "create", "tee", "t", "n=2"), 0);
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "create", "queue", "qa", "capacity=16"), 0);
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "create", "queue", "qb", "capacity=32"), 0);
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "wire", "t.out0", "qa.put"), 0);
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "wire", "t.out1", "qb.put"), 0);
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "create", "tee", "top", "n=1"), 0);
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "wire", "top.out0", "t.put"), 0);
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "show", "--code", "t"), 0);
  CU_ASSERT_FATAL(entry_section(o.out, "put", sec, sizeof sec) != NULL);
  CU_ASSERT(HAS(sec, "put: chain stencil"));
  CU_ASSERT(HAS(sec, "3 parts"));
  const char *tee = strstr(sec, "  <t.put tee>:\n"), *a = strstr(sec, "  <qa.put spsc>:\n"),
             *b = strstr(sec, "  <qb.put spsc>:\n");
  CU_ASSERT(tee != NULL && a != NULL && b != NULL);
  /* The call into each queue's code names it, on a call instruction. */
  const char *ca = strstr(sec, " -> qa.put\n"), *cb = strstr(sec, " -> qb.put\n");
  CU_ASSERT_FATAL(ca != NULL && cb != NULL);
  for (const char *c = ca; c != NULL; c = c == ca ? cb : NULL) {
    const char *bol = c;
    while (bol > sec && bol[-1] != '\n')
      bol--;
    CU_ASSERT(strncmp(bol + 18, "call ", 5) == 0 || strncmp(bol + 18, "jmp ", 4) == 0);
  }
  /* Each queue's part carries its own mask. */
  CU_ASSERT(a != NULL && HAS(a, "hole mask=15"));
  CU_ASSERT(b != NULL && HAS(b, "hole mask=31"));
  CU_ASSERT_EQUAL(QUA(&o, "rm", "top", "t", "qa", "qb"), 0);
}

/* --json: machine_code with the holes and the listing, as numbers. */
static void json_carries_code_holes_and_listing(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "--json", "show", "--code", "q"), 0);
  CU_ASSERT(HAS(o.out, "\"machine_code\":{\"machine\":\"x86-64\""));
  CU_ASSERT(HAS(o.out, "{\"name\":\"mask\","));
  const char *m = strstr(o.out, "{\"name\":\"mask\",");
  CU_ASSERT_FATAL(m != NULL);
  CU_ASSERT(HAS(m, "\"value\":1023,"));
  CU_ASSERT(HAS(o.out, "\"listing\":[{\"addr\":"));
  CU_ASSERT(HAS(o.out, "\"insn\":\"ret\""));
  CU_ASSERT(HAS(o.out, "\"machine_code\":null")); /* get: generic */
  /* Without --code: no machine_code at all. */
  CU_ASSERT_EQUAL_FATAL(QUA(&o, "--json", "show", "q"), 0);
  CU_ASSERT(!HAS(o.out, "machine_code"));
}

/* The code travels over qua.v1: the same listing over TCP. */
static void over_tcp_too(void) {
  itest_out_t o;
  CU_ASSERT_EQUAL_FATAL(itest_qua(&o, NULL, "--connect", hostport, "--token-file", token_file,
                                  "show", "--code", "q", (char *)NULL),
                        0);
  CU_ASSERT(HAS(o.out, "x86-64 code at 0x"));
  CU_ASSERT(HAS(o.out, "hole mask=1023"));
  CU_ASSERT_EQUAL(QUA(&o, "rm", "src", "q"), 0);
}

int main(int argc, char **argv) {
  if (itest_init(argc, argv) < 0 || mkdtemp(token_dir) == NULL)
    return 1;
  snprintf(token_file, sizeof token_file, "%s/token", token_dir);
  FILE *f = fopen(token_file, "w");
  if (f == NULL || fputs("show-code-token\n", f) < 0 || fclose(f) != 0)
    return 1;
  chmod(token_file, 0600);
  srand((unsigned)getpid() ^ (unsigned)time(NULL));
  int started = -1;
  for (int attempt = 0; attempt < 5 && started < 0; attempt++) {
    snprintf(hostport, sizeof hostport, "127.0.0.1:%u", 20000 + (unsigned)rand() % 40000);
    started = itest_start(&daemon_, "--listen", hostport, "--token-file", token_file, (char *)NULL);
  }
  int rc = 1;
  if (started == 0) {
    static const qtest_case_t cases[] = {
        {"wired_queue_put_is_disassembled_with_its_holes",
         wired_queue_put_is_disassembled_with_its_holes},
        {"generic_entries_say_so", generic_entries_say_so},
        {"chains_name_the_callentries_they_enter", chains_name_the_callentries_they_enter},
        {"json_carries_code_holes_and_listing", json_carries_code_holes_and_listing},
        {"over_tcp_too", over_tcp_too},
        {NULL, NULL},
    };
    rc = itest_run_and_stop(&daemon_, "integration-show-code", cases);
  }
  unlink(token_file);
  rmdir(token_dir);
  return rc;
}
