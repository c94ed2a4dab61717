/* test-xlat-threads.c -- translators on machines of their own in several threads at once.
 *
 * Translators share only the process's code memory and the handlers' kinds
 * (m68k/xlat.c note 7); each thread runs a loop on a CPU of its own, many
 * times over, and must get the interpreter's sum. For the ThreadSanitizer
 * build (suite concurrent). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "machine.h"
#include "qtest.h"

#define THREADS 4
#define ROUNDS 25

static const uint16_t loop_code[] = {
    0x7400,         /* 1000 moveq #0,%d2 */
    0x7264,         /* 1002 moveq #100,%d1 */
    0x2001,         /* 1004 move.l %d1,%d0 */
    0xd480,         /* 1006 add.l %d0,%d2 */
    0x20c2,         /* 1008 move.l %d2,(%a0)+ */
    0x5381,         /* 100a subq.l #1,%d1 */
    0x66f6,         /* 100c bne.b 1004 */
    0x4e72, 0x2700, /* 100e stop #0x2700 */
};

/* Returns NULL when every round summed right. */
static void *translate_rounds(void *arg)
{
  uint8_t *ram = arg;
  for (unsigned round = 0; round < ROUNDS; round++) {
    for (size_t i = 0; i < 65536; i++)
      ram[i] = 0;
    for (size_t i = 0; i < sizeof loop_code / 2; i++) {
      ram[0x1000 + 2 * i] = (uint8_t)(loop_code[i] >> 8);
      ram[0x1000 + 2 * i + 1] = (uint8_t)loop_code[i];
    }
    m68k_bus_t bus = {.ram = ram, .ram_base = 0, .ram_size = 65536};
    m68k_cpu_t *c = m68k_create(M68K_MODEL_68030, &bus);
    if (c == NULL)
      return arg;
    m68k_set_reg(c, M68K_REG_SR, 0x2700);
    m68k_set_reg(c, M68K_REG_A0 + 7, 0x8000);
    m68k_set_reg(c, M68K_REG_A0, 0x5000);
    m68k_set_reg(c, M68K_REG_PC, 0x1000);
    bool ok = m68k_jit_enable(c, 1 + round % 3, NULL) == 0 &&
              m68k_run(c, 100000, NULL) == M68K_STOP_STOPPED &&
              m68k_get_reg(c, M68K_REG_D0 + 2) == 5050;
    m68k_jit_stats_t st;
    m68k_jit_stats(c, &st);
    ok = ok && st.translated > 0;
    m68k_destroy(c);
    if (!ok)
      return arg;
  }
  return NULL;
}

static void threads_translate_their_own_machines(void)
{
  static uint8_t rams[THREADS][65536];
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; i++)
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, translate_rounds, rams[i]), 0);
  for (int i = 0; i < THREADS; i++) {
    void *bad = rams[i];
    CU_ASSERT_EQUAL(pthread_join(th[i], &bad), 0);
    CU_ASSERT_PTR_NULL(bad);
  }
}

int main(void)
{
  static const qtest_case_t cases[] = {
      {"threads_translate_their_own_machines", threads_translate_their_own_machines},
      {NULL, NULL},
  };
  return qtest_run("m68k-xlat-threads", cases);
}
