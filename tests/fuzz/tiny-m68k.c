/* tiny-m68k.c -- the smallest static m68k program with code, data and bss: the ELF loader's seed. */
static volatile int counter = 3;
static int zeroed[64];

void _start(void);

void _start(void) {
  for (int i = 0; i < counter; i++)
    zeroed[i] = i;
  /* exit(zeroed[2]): the Linux/m68k system call 1. */
  register long d0 __asm__("d0") = 1;
  register long d1 __asm__("d1") = zeroed[2];
  __asm__ volatile("trap #0" : : "d"(d0), "d"(d1));
  for (;;)
    ;
}
