/* recurse.c -- recursion: Fibonacci, Ackermann, Towers of Hanoi and mutual recursion. */
#include <stdio.h>

static unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static unsigned ack(unsigned m, unsigned n) {
  if (m == 0)
    return n + 1;
  if (n == 0)
    return ack(m - 1, 1);
  return ack(m - 1, ack(m, n - 1));
}

static unsigned long hanoi(int n, int from, int to, int via, unsigned long *check) {
  if (n == 0)
    return 0;
  unsigned long moves = hanoi(n - 1, from, via, to, check);
  *check = *check * 31 + (unsigned long)(from * 3 + to);
  return moves + 1 + hanoi(n - 1, via, to, from, check);
}

static int is_odd(unsigned n);
static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }

int main(void) {
  for (unsigned i = 0; i <= 24; i += 3)
    printf("fib(%u) = %u\n", i, fib(i));
  printf("ack(2, 3) = %u, ack(3, 3) = %u\n", ack(2, 3), ack(3, 3));
  unsigned long check = 0;
  printf("hanoi(16) = %lu moves, check %lx\n", hanoi(16, 1, 3, 2, &check), check);
  printf("even(1001) = %d, odd(777) = %d\n", is_even(1001), is_odd(777));
  return (int)(fib(20) % 256);
}
