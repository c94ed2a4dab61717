/* branchbench.c -- the benchmark's branchy workload: a bytecode interpreter, a quicksort and a tokenizer, repeated ROUNDS times. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* --- a stack machine's interpreter: one switch per bytecode --- */

enum { PUSH, LOAD, STORE, ADD, SUB, MUL, HALF, ODD, LT, JZ, JMP, DUP, HALT };

/* Sums the Collatz path lengths of 1..n (n is variable 0; the sum is left
 * in variable 1):
 *   v1 = 0; do { x = v0; while (1 < x) { v1++; x = odd(x) ? 3x + 1 : x / 2; } } while (--v0) */
static const int32_t collatz[] = {
    PUSH, 0, STORE, 1,                              /*  0: v1 = 0 */
    LOAD, 0, STORE, 2,                              /*  4: x = v0 */
    PUSH, 1, LOAD, 2, LT, JZ, 44,                   /*  8: while 1 < x */
    LOAD, 1, PUSH, 1, ADD, STORE, 1,                /* 15: v1++ */
    LOAD, 2, ODD, JZ, 37,                           /* 22: odd(x)? */
    LOAD, 2, PUSH, 3, MUL, PUSH, 1, ADD, JMP, 40,   /* 27: 3x + 1 */
    LOAD, 2, HALF,                                  /* 37: x / 2 */
    STORE, 2, JMP, 8,                               /* 40: x = either */
    LOAD, 0, PUSH, 1, SUB, DUP, STORE, 0, JZ, 56,   /* 44: --v0 */
    JMP, 4,                                         /* 54: again */
    HALT};                                          /* 56 */

static int32_t interpret(const int32_t *code, int32_t n) {
  int32_t stack[16], vars[4] = {n, 0, 0, 0};
  int sp = 0, pc = 0;
  for (;;) {
    int32_t op = code[pc++];
    switch (op) {
    case PUSH: stack[sp++] = code[pc++]; break;
    case LOAD: stack[sp++] = vars[code[pc++]]; break;
    case STORE: vars[code[pc++]] = stack[--sp]; break;
    case ADD: sp--; stack[sp - 1] += stack[sp]; break;
    case SUB: sp--; stack[sp - 1] -= stack[sp]; break;
    case MUL: sp--; stack[sp - 1] *= stack[sp]; break;
    case HALF: stack[sp - 1] /= 2; break;
    case ODD: stack[sp - 1] &= 1; break;
    case LT: sp--; stack[sp - 1] = stack[sp - 1] < stack[sp]; break;
    case JZ: pc = stack[--sp] == 0 ? code[pc] : pc + 1; break;
    case JMP: pc = code[pc]; break;
    case DUP: stack[sp] = stack[sp - 1]; sp++; break;
    case HALT: return vars[1];
    default: fprintf(stderr, "branchbench: bad bytecode %ld at %d\n", (long)op, pc - 1); exit(1);
    }
  }
}

/* --- a quicksort of pseudo-random keys: every comparison is data-dependent --- */

#define KEYS 6000
static int32_t keys[KEYS];

static void quicksort(int32_t *v, int n) {
  while (n > 12) {
    int32_t pivot = v[n / 2];
    int i = 0, j = n - 1;
    for (;;) {
      while (v[i] < pivot)
        i++;
      while (v[j] > pivot)
        j--;
      if (i >= j)
        break;
      int32_t t = v[i];
      v[i++] = v[j];
      v[j--] = t;
    }
    /* Recurse into the smaller side, loop on the larger. */
    if (j + 1 < n - j - 1) {
      quicksort(v, j + 1);
      v += j + 1;
      n -= j + 1;
    } else {
      quicksort(v + j + 1, n - j - 1);
      n = j + 1;
    }
  }
  for (int i = 1; i < n; i++) {
    int32_t x = v[i];
    int k = i;
    for (; k > 0 && v[k - 1] > x; k--)
      v[k] = v[k - 1];
    v[k] = x;
  }
}

static uint32_t sort_round(void) {
  uint32_t s = 2463534242u;
  for (int i = 0; i < KEYS; i++) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    keys[i] = (int32_t)(s >> 1) - 0x20000000;
  }
  quicksort(keys, KEYS);
  uint32_t h = 0;
  for (int i = 0; i < KEYS; i++) {
    if (i > 0 && keys[i - 1] > keys[i]) {
      fprintf(stderr, "branchbench: not sorted at %d\n", i);
      exit(1);
    }
    h = h * 33u + (uint32_t)keys[i];
  }
  return h;
}

/* --- a tokenizer: a state machine over pseudo-random text --- */

#define TEXT 12000
static char text[TEXT];

enum { SPACE, WORD, NUMBER, PUNCT };

/* Counts words, numbers and punctuation; returns a mix of the counts and
 * the longest word. */
static uint32_t tokenize(void) {
  static const char alphabet[] = "etaoin shrdlu 0123456789 .,;()+-*/ ETAOIN\n";
  uint32_t s = 88172645u;
  for (int i = 0; i < TEXT; i++) {
    s = s * 1103515245u + 12345u;
    text[i] = alphabet[(s >> 16) % (sizeof alphabet - 1)];
  }
  uint32_t words = 0, numbers = 0, puncts = 0, longest = 0, len = 0;
  int state = SPACE;
  for (int i = 0; i < TEXT; i++) {
    char c = text[i];
    int cls = c == ' ' || c == '\n'            ? SPACE
              : (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ? WORD
              : c >= '0' && c <= '9'           ? NUMBER
                                               : PUNCT;
    switch (state) {
    case WORD:
      if (cls == WORD || cls == NUMBER) { /* identifiers take digits */
        len++;
        continue;
      }
      longest = len > longest ? len : longest;
      break;
    case NUMBER:
      if (cls == NUMBER)
        continue;
      break;
    default:
      break;
    }
    state = cls;
    len = 1;
    words += cls == WORD;
    numbers += cls == NUMBER;
    puncts += cls == PUNCT;
  }
  return words * 1000003u ^ numbers * 10007u ^ puncts * 101u ^ longest;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 4;
  if (rounds < 0) {
    fprintf(stderr, "branchbench: ROUNDS must be >= 0\n");
    return 2;
  }
  uint32_t check = 0;
  for (int r = 0; r < rounds; r++) {
    check = check * 31u + (uint32_t)interpret(collatz, 300);
    check = check * 31u + sort_round();
    check = check * 31u + tokenize();
  }
  printf("rounds %d check %08lx\n", rounds, (unsigned long)check);
  return 0;
}
