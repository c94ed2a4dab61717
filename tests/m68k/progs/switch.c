/* switch.c -- dense switch tables, sparse switches, function-pointer tables and a state machine. */
#include <stdio.h>

static int dense(int x) {
  switch (x) {
  case 0: return 17;
  case 1: return 4;
  case 2: return -9;
  case 3: return 100;
  case 4: return 3;
  case 5: return 55;
  case 6: return -1;
  case 7: return 8;
  case 8: return 12;
  case 9: return 77;
  default: return 0;
  }
}

static const char *sparse(int x) {
  switch (x) {
  case -1000: return "minus thousand";
  case 7: return "seven";
  case 42: return "answer";
  case 4096: return "page";
  case 65535: return "word";
  default: return "other";
  }
}

static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static int mul(int a, int b) { return a * b; }
static int mod(int a, int b) { return b ? a % b : 0; }

/* Counts numbers in a text with a small state machine. */
static int count_numbers(const char *s) {
  enum { SPACE, NUMBER, WORD } st = SPACE;
  int n = 0;
  for (; *s; s++) {
    int digit = *s >= '0' && *s <= '9';
    switch (st) {
    case SPACE:
      st = digit ? NUMBER : (*s == ' ' ? SPACE : WORD);
      n += digit;
      break;
    case NUMBER:
      st = digit ? NUMBER : (*s == ' ' ? SPACE : WORD);
      break;
    case WORD:
      st = *s == ' ' ? SPACE : WORD;
      break;
    }
  }
  return n;
}

int main(void) {
  int (*ops[])(int, int) = {add, sub, mul, mod};
  int t = 0;
  for (int i = -3; i < 40; i++)
    t = t * 3 + dense(i % 12) + ops[(unsigned)i % 4](i, 7);
  printf("dense/ops %d\n", t);
  int probes[] = {-1000, 7, 8, 42, 4096, 65535, 65536};
  for (int i = 0; i < 7; i++)
    printf("%d is %s\n", probes[i], sparse(probes[i]));
  printf("numbers %d\n", count_numbers("12 apples and 7 pears, 300 grapes x9 and 4"));
  return t & 0x7F;
}
