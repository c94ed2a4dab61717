/* test-xlat.c -- the translator: same state as the interpreter at every boundary, self-modifying code, chaining, the cache bound, bad arguments.
 *
 * Each differential case runs one program on two CPUs, one interpreting and
 * one translating everything it runs (threshold 1), in the same pseudo-random
 * chunks of instructions (so that budgets end inside translated blocks), and
 * compares every register, the instruction count and RAM after each chunk.
 * Instruction words were assembled by hand from the M68000 Family
 * Programmer's Reference Manual (the source is in each comment). */
#include "m68k-testutil.h"
#include "machine.h"

static tm_t ti, tj; /* interpreted, translated */

static void start2(const uint16_t *code, size_t n, m68k_model_t model)
{
  tm_init(&ti, model);
  tm_code(&ti, code, n);
  tm_init(&tj, model);
  tm_code(&tj, code, n);
  CU_ASSERT_EQUAL_FATAL(m68k_jit_enable(tj.cpu, 1, NULL), 0);
}

/* Vector v's handler (TM_HANDLER + 4 v): two words. */
static void handler2(uint32_t v, uint16_t w0, uint16_t w1)
{
  tm_w16(&ti, TM_HANDLER + 4 * v, w0);
  tm_w16(&ti, TM_HANDLER + 4 * v + 2, w1);
  tm_w16(&tj, TM_HANDLER + 4 * v, w0);
  tm_w16(&tj, TM_HANDLER + 4 * v + 2, w1);
}

static bool same_state(void)
{
  for (int r = 0; r < M68K_REG_COUNT; r++)
    if (m68k_get_reg(ti.cpu, (m68k_reg_t)r) != m68k_get_reg(tj.cpu, (m68k_reg_t)r)) {
      fprintf(stderr, "\nregister %d: interpreter %08x, translated %08x\n", r,
              m68k_get_reg(ti.cpu, (m68k_reg_t)r), m68k_get_reg(tj.cpu, (m68k_reg_t)r));
      return false;
    }
  if (m68k_instructions(ti.cpu) != m68k_instructions(tj.cpu))
    return false;
  for (int n = 0; n < 8; n++) {
    uint16_t se[2];
    uint64_t m[2];
    m68k_get_fpreg(ti.cpu, n, &se[0], &m[0]);
    m68k_get_fpreg(tj.cpu, n, &se[1], &m[1]);
    if (se[0] != se[1] || m[0] != m[1]) {
      fprintf(stderr, "\nfp%d: interpreter %04x_%016llx, translated %04x_%016llx\n", n, se[0],
              (unsigned long long)m[0], se[1], (unsigned long long)m[1]);
      return false;
    }
  }
  for (int w = 0; w < 3; w++)
    if (m68k_get_fpctl(ti.cpu, w) != m68k_get_fpctl(tj.cpu, w)) {
      fprintf(stderr, "\nFPU control register %d: interpreter %08x, translated %08x\n", w,
              m68k_get_fpctl(ti.cpu, w), m68k_get_fpctl(tj.cpu, w));
      return false;
    }
  return memcmp(ti.ram, tj.ram, sizeof ti.ram) == 0;
}

/* Runs both in the same chunks (1 to 17 instructions, from seed) until
 * both stop or `max` instructions ran; calls irq(chunk) before each chunk
 * when given. Returns the chunks run. */
static unsigned run_both(uint32_t seed, uint64_t max, void (*irq)(unsigned chunk))
{
  unsigned chunk = 0;
  while (m68k_instructions(ti.cpu) < max) {
    seed = seed * 1103515245u + 12345u;
    uint64_t n = 1 + (seed >> 16) % 17;
    if (irq)
      irq(chunk);
    m68k_stop_t a = m68k_run(ti.cpu, n, NULL);
    m68k_stop_t b = m68k_run(tj.cpu, n, NULL);
    CU_ASSERT_EQUAL(a, b);
    if (!same_state()) {
      CU_FAIL("the translated CPU differs from the interpreter");
      fprintf(stderr, "after chunk %u (%llu instructions)\n", chunk,
              (unsigned long long)m68k_instructions(ti.cpu));
      break;
    }
    chunk++;
    if (a == M68K_STOP_STOPPED || a == M68K_STOP_HALTED)
      break;
  }
  return chunk;
}

/* A loop with a divide by zero each time round (its handler counts in d7)
 * and a store of each sum. */
static const uint16_t loop_code[] = {
    0x7e00,         /* 1000 moveq #0,%d7 */
    0x7600,         /* 1002 moveq #0,%d3 */
    0x7264,         /* 1004 moveq #100,%d1 */
    0x2001,         /* 1006 move.l %d1,%d0 */
    0xd480,         /* 1008 add.l %d0,%d2 */
    0x80c3,         /* 100a divu.w %d3,%d0 (zero divide) */
    0x20c2,         /* 100c move.l %d2,(%a0)+ */
    0x5381,         /* 100e subq.l #1,%d1 */
    0x66f4,         /* 1010 bne.b 1006 */
    0x4e72, 0x2700, /* 1012 stop #0x2700 */
};

/* loop_code on both, its zero-divide handler and its store pointer set. */
static void start_loop(m68k_model_t model)
{
  start2(loop_code, sizeof loop_code / 2, model);
  handler2(5, 0x5287, 0x4e73); /* addq.l #1,%d7; rte */
  tm_set_a(&ti, 0, 0x5000);
  tm_set_a(&tj, 0, 0x5000);
}

static void loop_same_at_every_chunk_boundary(void)
{
  for (uint32_t seed = 1; seed <= 8; seed++) {
    start_loop(M68K_MODEL_68030);
    run_both(seed, 100000, NULL);
    CU_ASSERT_TRUE(m68k_stopped(tj.cpu));
    CU_ASSERT_EQUAL(tm_d(&tj, 7), 100); /* every zero divide taken */
    CU_ASSERT_EQUAL(tm_d(&tj, 2), 5050);
    m68k_jit_stats_t st;
    m68k_jit_stats(tj.cpu, &st);
    CU_ASSERT(st.translated > 0 && st.insns >= st.translated);
    tm_done(&ti);
    tm_done(&tj);
  }
}

/* The same on the 68000: address-error bookkeeping and 24-bit addresses. */
static void loop_same_on_the_68000(void)
{
  start_loop(M68K_MODEL_68000);
  run_both(7, 100000, NULL);
  CU_ASSERT_EQUAL(tm_d(&tj, 2), 5050);
  tm_done(&ti);
  tm_done(&tj);
}

/* The 68030's memory stencils, and a bus error out of one (a read past
 * the end of RAM, its handler counting in d5). */
static void memory_operands_and_bus_errors_same(void)
{
  static const uint16_t code[] = {
      0x41f8, 0x5000, /* 1000 lea 0x5000.w,%a0 */
      0x7232,         /* 1004 moveq #50,%d1 */
      0x2141, 0x0008, /* 1006 move.l %d1,(8,%a0) */
      0x2028, 0x0008, /* 100a move.l (8,%a0),%d0 */
      0x2468, 0x0008, /* 100e movea.l (8,%a0),%a2 */
      0x10bc, 0x0085, /* 1012 move.b #0x85,(%a0) */
      0x4a18,         /* 1016 tst.b (%a0)+ */
      0xd480,         /* 1018 add.l %d0,%d2 */
      0x2629, 0x0000, /* 101a move.l (0,%a1),%d3 (a1 past RAM: bus error) */
      0xb5e8, 0x0008, /* 101e cmpa.l (8,%a0),%a2 */
      0xb0a8, 0x0008, /* 1022 cmp.l (8,%a0),%d0 */
      0xd3a8, 0x000c, /* 1026 add.l %d1,(12,%a0) */
      0x42a8, 0x0010, /* 102a clr.l (16,%a0) */
      0x5381,         /* 102e subq.l #1,%d1 */
      0x66d4,         /* 1030 bne.b 1006 */
      0x4e72, 0x2700, /* 1032 stop #0x2700 */
  };
  for (uint32_t seed = 1; seed <= 4; seed++) {
    start2(code, sizeof code / 2, M68K_MODEL_68030);
    handler2(2, 0x5285, 0x4e73); /* addq.l #1,%d5; rte */
    tm_set_a(&ti, 1, 0x20000);
    tm_set_a(&tj, 1, 0x20000);
    run_both(seed, 100000, NULL);
    CU_ASSERT_TRUE(m68k_stopped(tj.cpu));
    CU_ASSERT_EQUAL(tm_d(&tj, 5), 50);
    CU_ASSERT_EQUAL(tm_d(&tj, 2), 1275);
    CU_ASSERT_EQUAL(tm_a(&tj, 0), 0x5000 + 50);
    m68k_jit_stats_t st;
    m68k_jit_stats(tj.cpu, &st);
    /* All but the handler's RTE and the STOP have stencils of their own. */
    CU_ASSERT(st.specialised * 10 >= st.insns * 8);
    tm_done(&ti);
    tm_done(&tj);
  }
}

static void irq_on_off(unsigned chunk)
{
  int level = (chunk % 5 == 2) ? 3 : 0;
  m68k_set_irq(ti.cpu, level);
  m68k_set_irq(tj.cpu, level);
}

/* code on the 68030 with irq_on_off's interrupts (its handler counting
 * them in d6) in the chunks of `seed`: the same as the interpreter, to its
 * STOP, with some interrupt taken. */
static void irq_case(const uint16_t *code, size_t n, uint32_t seed)
{
  start2(code, n, M68K_MODEL_68030);
  handler2(27, 0x5286, 0x4e73); /* level 3 autovector: addq.l #1,%d6; rte */
  run_both(seed, 100000, irq_on_off);
  CU_ASSERT_TRUE(m68k_stopped(tj.cpu));
  CU_ASSERT(tm_d(&tj, 6) > 0);
  tm_done(&ti);
  tm_done(&tj);
}

/* Interrupts raised between chunks are taken at the same instruction. */
static void interrupts_taken_at_the_same_instruction(void)
{
  static const uint16_t code[] = {
      0x46fc, 0x2000, /* 1000 move.w #0x2000,%sr (interrupts on) */
      0x7200,         /* 1004 moveq #0,%d1 */
      0x5281,         /* 1006 addq.l #1,%d1 */
      0x0c81, 0x0000, 0x0fa0, /* 1008 cmpi.l #4000,%d1 */
      0x66f6,         /* 100e bne.b 1006 */
      0x4e72, 0x2700, /* 1010 stop #0x2700 */
  };
  irq_case(code, sizeof code / 2, 3);
}

/* An instruction that a handler runs in the middle of a block (ANDI to SR)
 * unmasks an interrupt raised between chunks: the block must stop right
 * after it, as the interpreter takes the interrupt there, before the ORI
 * masks it again (block entries do not look for it: xlat.c note 6). */
static void interrupts_unmasked_inside_a_block_taken_there(void)
{
  static const uint16_t code[] = {
      0x46fc, 0x2700,         /* 1000 move.w #0x2700,%sr (interrupts masked) */
      0x7200,                 /* 1004 moveq #0,%d1 */
      0x027c, 0xf8ff,         /* 1006 andi.w #0xf8ff,%sr (unmasked) */
      0x5281,                 /* 100a addq.l #1,%d1 */
      0x007c, 0x0700,         /* 100c ori.w #0x0700,%sr (masked) */
      0x5281,                 /* 1010 addq.l #1,%d1 */
      0x0c81, 0x0000, 0x07d0, /* 1012 cmpi.l #2000,%d1 */
      0x66ec,                 /* 1018 bne.b 1006 */
      0x4e72, 0x2700,         /* 101a stop #0x2700 */
  };
  irq_case(code, sizeof code / 2, 5);
}

/* Runs a loop that rewrites an instruction of its own block on the
 * translating CPU in one run (so that the store lands inside the running
 * block), then against the interpreter in chunks: d2 must end as `d2`,
 * after at least `invalidated` invalidations in the one run. */
static void self_modifying_case(const uint16_t *code, size_t n, uint32_t d2, uint64_t invalidated)
{
  start2(code, n, M68K_MODEL_68030);
  CU_ASSERT_EQUAL(m68k_run(tj.cpu, 1000, NULL), M68K_STOP_STOPPED);
  CU_ASSERT_EQUAL(tm_d(&tj, 2), d2);
  m68k_jit_stats_t st;
  m68k_jit_stats(tj.cpu, &st);
  CU_ASSERT(st.invalidated >= invalidated);
  tm_done(&ti);
  tm_done(&tj);
  for (uint32_t seed = 1; seed <= 4; seed++) {
    start2(code, n, M68K_MODEL_68030);
    run_both(seed, 1000, NULL);
    CU_ASSERT_EQUAL(tm_d(&tj, 2), d2);
    tm_done(&ti);
    tm_done(&tj);
  }
}

/* A loop that rewrites an instruction of its own block: the next time round
 * runs the new instruction, translated or not. */
static void self_modifying_code_runs_the_new_instruction(void)
{
  static const uint16_t code[] = {
      0x7400,                 /* 1000 moveq #0,%d2 */
      0x7203,                 /* 1002 moveq #3,%d1 */
      0x7001,                 /* 1004 moveq #1,%d0 (becomes moveq #5,%d0) */
      0xd480,                 /* 1006 add.l %d0,%d2 */
      0x31fc, 0x7005, 0x1004, /* 1008 move.w #0x7005,0x1004.w */
      0x5381,                 /* 100e subq.l #1,%d1 */
      0x66f2,                 /* 1010 bne.b 1004 */
      0x4e72, 0x2700,         /* 1012 stop #0x2700 */
  };
  self_modifying_case(code, sizeof code / 2, 1 + 5 + 5, 1);
}

/* The same through the 68030's MOVE.L Rs,(d16,Ar) stencil, whose inline
 * RAM path must leave stores into translated code to the core: the first
 * round stores the instruction as it is, the second changes it inside the
 * block that runs (translated at 1014 after the first round). */
static void self_modifying_store_from_a_memory_stencil(void)
{
  static const uint16_t code[] = {
      0x41f8, 0x1000,         /* 1000 lea 0x1000.w,%a0 */
      0x7400,                 /* 1004 moveq #0,%d2 */
      0x7203,                 /* 1006 moveq #3,%d1 */
      0x263c, 0x7001, 0xd480, /* 1008 move.l #0x7001d480,%d3 */
      0x283c, 0x0004, 0x0000, /* 100e move.l #0x40000,%d4 */
      0x7001,                 /* 1014 moveq #1,%d0 (becomes moveq #5,%d0) */
      0xd480,                 /* 1016 add.l %d0,%d2 */
      0x2143, 0x0014,         /* 1018 move.l %d3,(20,%a0) */
      0xd684,                 /* 101c add.l %d4,%d3 */
      0x5381,                 /* 101e subq.l #1,%d1 */
      0x66f2,                 /* 1020 bne.b 1014 */
      0x4e72, 0x2700,         /* 1022 stop #0x2700 */
  };
  self_modifying_case(code, sizeof code / 2, 1 + 1 + 5, 2);
}

/* The translator's store map (xlat.c note 14) at its edges: stores ending
 * on RAM's last byte, and a byte, word and long past it (bus errors),
 * translated as interpreted; a byte store on the page before translated
 * code invalidates nothing, and a long store that starts there and ends
 * in the code runs the rewritten instruction. */
static void set_both(int d1, uint32_t v1, int d2, uint32_t v2, int a, uint32_t va)
{
  tm_set_d(&ti, d1, v1);
  tm_set_d(&tj, d1, v1);
  tm_set_d(&ti, d2, v2);
  tm_set_d(&tj, d2, v2);
  tm_set_a(&ti, a, va);
  tm_set_a(&tj, a, va);
}

static void stores_at_the_edges_of_the_store_map(void)
{
  static const uint16_t edges[] = {
      0x2281,         /* 1000 move.l %d1,(%a1) (a1: RAM's last long) */
      0x1341, 0x0003, /* 1002 move.b %d1,(3,%a1) (RAM's last byte) */
      0x3341, 0x0002, /* 1006 move.w %d1,(2,%a1) (RAM's last word) */
      0x2341, 0x0002, /* 100a move.l %d1,(2,%a1) (two bytes past RAM: bus error) */
      0x1341, 0x0004, /* 100e move.b %d1,(4,%a1) (past RAM: bus error) */
      0x2341, 0xff00, /* 1012 move.l %d1,(-256,%a1) (the page before the last) */
      0x5281,         /* 1016 addq.l #1,%d1 */
      0x5382,         /* 1018 subq.l #1,%d2 */
      0x66e4,         /* 101a bne.b 1000 */
      0x4e72, 0x2700, /* 101c stop #0x2700 */
  };
  uint32_t last = (uint32_t)sizeof tj.ram - 4;
  for (uint32_t seed = 1; seed <= 4; seed++) {
    start2(edges, sizeof edges / 2, M68K_MODEL_68030);
    handler2(2, 0x5285, 0x4e73); /* addq.l #1,%d5; rte */
    set_both(1, 0x11223344, 2, 20, 1, last);
    run_both(seed, 100000, NULL);
    CU_ASSERT_TRUE(m68k_stopped(tj.cpu));
    CU_ASSERT_EQUAL(tm_d(&tj, 5), 2 * 20);
    CU_ASSERT_EQUAL(tm_r32(&tj, last), 0x11223344 + 19);
    tm_done(&ti);
    tm_done(&tj);
  }

  static const uint16_t before[] = {
      0x7001,         /* 1000 moveq #1,%d0 (becomes moveq #5,%d0) */
      0xd480,         /* 1002 add.l %d0,%d2 */
      0x1143, 0x0001, /* 1004 move.b %d3,(1,%a0) (0fff: the page before) */
      0x2084,         /* 1008 move.l %d4,(%a0) (0ffe-1001; a nop when d4 is 0) */
      0x5381,         /* 100a subq.l #1,%d1 */
      0x66f2,         /* 100c bne.b 1000 */
      0x4e72, 0x2700, /* 100e stop #0x2700 */
  };
  m68k_jit_stats_t st;
  /* Without the long store: the byte store stays on its side. */
  static uint16_t nolong[sizeof before / 2];
  memcpy(nolong, before, sizeof before);
  nolong[4] = 0x4e71; /* nop */
  start2(nolong, sizeof nolong / 2, M68K_MODEL_68030);
  set_both(1, 3, 3, 0x55, 0, 0x0ffe);
  CU_ASSERT_EQUAL(m68k_run(tj.cpu, 1000, NULL), M68K_STOP_STOPPED);
  CU_ASSERT_EQUAL(tm_d(&tj, 2), 3);
  CU_ASSERT_EQUAL(tj.ram[0x0fff], 0x55);
  m68k_jit_stats(tj.cpu, &st);
  CU_ASSERT_EQUAL(st.invalidated, 0);
  tm_done(&ti);
  tm_done(&tj);
  /* With it, whose last two bytes are the block's first instruction. */
  for (uint32_t seed = 0; seed <= 4; seed++) {
    start2(before, sizeof before / 2, M68K_MODEL_68030);
    set_both(1, 3, 3, 0x55, 0, 0x0ffe);
    tm_set_d(&ti, 4, 0x7005);
    tm_set_d(&tj, 4, 0x7005);
    if (seed == 0) {
      CU_ASSERT_EQUAL(m68k_run(tj.cpu, 1000, NULL), M68K_STOP_STOPPED);
      m68k_jit_stats(tj.cpu, &st);
      CU_ASSERT(st.invalidated >= 1);
    } else {
      run_both(seed, 1000, NULL);
    }
    CU_ASSERT_EQUAL(tm_d(&tj, 2), 1 + 5 + 5);
    tm_done(&ti);
    tm_done(&tj);
  }
}

/* A host write (a loader, a system call's buffer) over translated code,
 * announced with m68k_jit_invalidate, is run as written. */
static void host_write_with_invalidate_runs_the_new_code(void)
{
  static const uint16_t code[] = {
      0x7001,         /* 1000 moveq #1,%d0 */
      0x4e72, 0x2700, /* 1002 stop #0x2700 */
  };
  tm_init(&tj, M68K_MODEL_68030);
  tm_code(&tj, code, 3);
  CU_ASSERT_EQUAL_FATAL(m68k_jit_enable(tj.cpu, 1, NULL), 0);
  m68k_run(tj.cpu, 10, NULL);
  CU_ASSERT_EQUAL(tm_d(&tj, 0), 1);
  tm_w16(&tj, TM_CODE, 0x7009); /* moveq #9,%d0 */
  m68k_jit_invalidate(tj.cpu, TM_CODE, 2);
  m68k_set_stopped(tj.cpu, false);
  m68k_set_reg(tj.cpu, M68K_REG_PC, TM_CODE);
  m68k_run(tj.cpu, 10, NULL);
  CU_ASSERT_EQUAL(tm_d(&tj, 0), 9);
  m68k_jit_stats_t st;
  m68k_jit_stats(tj.cpu, &st);
  CU_ASSERT_EQUAL(st.invalidated, 1);
  tm_done(&tj);
}

/* Two CPUs sharing a translator: a store by one drops what the other
 * translated. */
static void shared_translator_sees_the_other_cpus_store(void)
{
  static const uint16_t code[] = {
      0x7001,         /* 1000 moveq #1,%d0 */
      0x4e72, 0x2700, /* 1002 stop #0x2700 */
  };
  static const uint16_t writer[] = {
      0x31fc, 0x7007, 0x1000, /* 2000 move.w #0x7007,0x1000.w */
      0x4e72, 0x2700,         /* 2006 stop #0x2700 */
  };
  tm_init(&tj, M68K_MODEL_68030);
  tm_code(&tj, code, 3);
  for (size_t i = 0; i < 5; i++)
    tm_w16(&tj, 0x2000 + 2 * (uint32_t)i, writer[i]);
  m68k_bus_t bus = {.ram = tj.ram, .ram_base = 0, .ram_size = sizeof tj.ram};
  m68k_cpu_t *other = m68k_create(M68K_MODEL_68030, &bus);
  CU_ASSERT_PTR_NOT_NULL_FATAL(other);
  CU_ASSERT_EQUAL_FATAL(m68k_jit_enable(tj.cpu, 1, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(m68k_jit_enable(other, 1, tj.cpu), 0);
  m68k_run(tj.cpu, 10, NULL);
  CU_ASSERT_EQUAL(tm_d(&tj, 0), 1);
  m68k_set_reg(other, M68K_REG_SR, 0x2700);
  m68k_set_reg(other, M68K_REG_PC, 0x2000);
  m68k_run(other, 10, NULL);
  m68k_set_stopped(tj.cpu, false);
  m68k_set_reg(tj.cpu, M68K_REG_PC, TM_CODE);
  m68k_run(tj.cpu, 10, NULL);
  CU_ASSERT_EQUAL(tm_d(&tj, 0), 7);
  m68k_destroy(other);
  tm_done(&tj);
}

/* Blocks chain into each other, and a bound of one block flushes the
 * cache at every translation without changing a result. */
static void blocks_chain_and_the_bound_flushes(void)
{
  start_loop(M68K_MODEL_68030);
  run_both(5, 100000, NULL);
  m68k_jit_stats_t st;
  m68k_jit_stats(tj.cpu, &st);
  CU_ASSERT(st.chained > 0);
  CU_ASSERT_EQUAL(st.flushes, 0);
  tm_done(&ti);
  tm_done(&tj);

  start_loop(M68K_MODEL_68030);
  CU_ASSERT_EQUAL(m68k_jit_set_limit(tj.cpu, 1), 0);
  run_both(5, 100000, NULL);
  m68k_jit_stats(tj.cpu, &st);
  CU_ASSERT(st.flushes > 0);
  CU_ASSERT(st.live <= 1);
  CU_ASSERT_EQUAL(tm_d(&tj, 2), 5050);
  tm_done(&ti);
  tm_done(&tj);
}

/* Flags no later instruction reads are not stored (xlat.c note 8): here
 * MOVE.L's, ADD.L's, CMP.L's and TST.L's are overwritten before the BNE
 * reads them, and SUBQ.L #2,%d0's are overwritten but for X, which ADDX
 * (a handler) reads. The SR after every chunk must still be the
 * interpreter's, and d2 holds the one X that SUBQ sets. */
static void dead_flags_dropped_only_where_unread(void)
{
  static const uint16_t code[] = {
      0x7400,         /* 1000 moveq #0,%d2 */
      0x7214,         /* 1002 moveq #20,%d1 */
      0x76ff,         /* 1004 moveq #-1,%d3 */
      0x2001,         /* 1006 move.l %d1,%d0 */
      0x5580,         /* 1008 subq.l #2,%d0 (X set when d1 is 1) */
      0x7805,         /* 100a moveq #5,%d4 */
      0xd583,         /* 100c addx.l %d3,%d2 */
      0xd481,         /* 100e add.l %d1,%d2 */
      0xb284,         /* 1010 cmp.l %d4,%d1 */
      0x4a82,         /* 1012 tst.l %d2 */
      0x5381,         /* 1014 subq.l #1,%d1 */
      0x66ee,         /* 1016 bne.b 1006 */
      0x4e72, 0x2700, /* 1018 stop #0x2700 */
  };
  for (uint32_t seed = 1; seed <= 8; seed++) {
    start2(code, sizeof code / 2, M68K_MODEL_68030);
    run_both(seed, 1000, NULL);
    CU_ASSERT_TRUE(m68k_stopped(tj.cpu));
    /* 20 rounds of d1 - 1 (20 + ... + 1 - 20) and the one X: 190 + 1. */
    CU_ASSERT_EQUAL(tm_d(&tj, 2), 191);
    tm_done(&ti);
    tm_done(&tj);
  }
}

/* Calls to known addresses (the 68030's xt_call: BSR.B, BSR.W, JSR abs.W,
 * (d16,PC), abs.L) and their returns: the same state as the interpreter at
 * every chunk boundary, with the stack in plain RAM (pushed inline), in
 * the page of the code (every push through the handler, invalidating the
 * blocks there), and on the 68000 (the handler's). */
static const uint16_t call_code[] = {
    0x7400,                 /* 1000 moveq #0,%d2 */
    0x720a,                 /* 1002 moveq #10,%d1 */
    0x611a,                 /* 1004 bsr.b 1020 */
    0x6100, 0x001c,         /* 1006 bsr.w 1024 */
    0x4eb8, 0x1020,         /* 100a jsr 0x1020.w */
    0x4eba, 0x0014,         /* 100e jsr (1024,%pc) */
    0x4eb9, 0x0000, 0x1020, /* 1012 jsr 0x1020.l */
    0x5381,                 /* 1018 subq.l #1,%d1 */
    0x66e8,                 /* 101a bne.b 1004 */
    0x4e72, 0x2700,         /* 101c stop #0x2700 */
    0x5282,                 /* 1020 addq.l #1,%d2 */
    0x4e75,                 /* 1022 rts */
    0xd481,                 /* 1024 add.l %d1,%d2 */
    0x4e75,                 /* 1026 rts */
};

/* Runs code on both with the stack at sp, in chunks against the
 * interpreter from several seeds: it must stop with d2 and the stack as
 * expected, its blocks invalidated (by stores into the code's page) or not. */
static void stack_case(const uint16_t *code, size_t n, m68k_model_t model, uint32_t sp,
                       bool invalidates, uint32_t d2)
{
  for (uint32_t seed = 1; seed <= 6; seed++) {
    start2(code, n, model);
    tm_set_a(&ti, 7, sp);
    tm_set_a(&tj, 7, sp);
    run_both(seed, 10000, NULL);
    CU_ASSERT_TRUE(m68k_stopped(tj.cpu));
    CU_ASSERT_EQUAL(tm_d(&tj, 2), d2);
    CU_ASSERT_EQUAL(tm_a(&tj, 7), sp);
    m68k_jit_stats_t st;
    m68k_jit_stats(tj.cpu, &st);
    CU_ASSERT(st.translated > 0);
    CU_ASSERT_EQUAL(st.invalidated > 0, invalidates);
    tm_done(&ti);
    tm_done(&tj);
  }
}

/* PEA (d16,An) and PEA (An), each popped and added into d2. */
static const uint16_t pea_code[] = {
    0x7400,                 /* 1000 moveq #0,%d2 */
    0x720a,                 /* 1002 moveq #10,%d1 */
    0x43f8, 0x0123,         /* 1004 lea 123,%a1 */
    0x4869, 0x0004,         /* 1008 pea %a1@(4) */
    0x201f,                 /* 100c movel %sp@+,%d0 */
    0xd480,                 /* 100e addl %d0,%d2 */
    0x4851,                 /* 1010 pea %a1@ */
    0xd49f,                 /* 1012 addl %sp@+,%d2 */
    0x5381,                 /* 1014 subql #1,%d1 */
    0x66f0,                 /* 1016 bnes 1008 */
    0x4e72, 0x2700,         /* 1018 stop #9984 */
};

static void calls_and_returns_same(void)
{
  /* Each round adds 1 + d1 + 1 + d1 + 1: 10 rounds, 30 + 2 * 55. */
  size_t n = sizeof call_code / 2;
  stack_case(call_code, n, M68K_MODEL_68030, TM_STACK, false, 140);
  stack_case(call_code, n, M68K_MODEL_68030, 0x1080, true, 140); /* pushes into the code's page */
  stack_case(call_code, n, M68K_MODEL_68000, TM_STACK, false, 140);
  /* PEA's push inline, into the code's page (through the handler) and on
   * the 68000 (no stencil): 10 rounds of $127 + $123. */
  n = sizeof pea_code / 2;
  stack_case(pea_code, n, M68K_MODEL_68030, TM_STACK, false, 10 * 0x24a);
  stack_case(pea_code, n, M68K_MODEL_68030, 0x1080, true, 10 * 0x24a);
  stack_case(pea_code, n, M68K_MODEL_68000, TM_STACK, false, 10 * 0x24a);
}

/* MOVEM.L to -(SP) and from (SP)+ (the 68030's stencils; the handler's
 * on the 68000), with the stack in plain RAM and in the code's page (every
 * store through the handler, invalidating). */
static const uint16_t movem_code[] = {
    0x7400,         /* 1000 moveq #0,%d2 */
    0x720a,         /* 1002 moveq #10,%d1 */
    0x7607,         /* 1004 moveq #7,%d3 */
    0x2441,         /* 1006 movea.l %d1,%a2 */
    0x48e7, 0x7020, /* 1008 movem.l %d1-%d3/%a2,-(%sp) */
    0x7200,         /* 100c moveq #0,%d1 */
    0x7600,         /* 100e moveq #0,%d3 */
    0x95ca,         /* 1010 suba.l %a2,%a2 */
    0x4cdf, 0x040e, /* 1012 movem.l (%sp)+,%d1-%d3/%a2 */
    0xd483,         /* 1016 add.l %d3,%d2 */
    0xd48a,         /* 1018 add.l %a2,%d2 */
    0x5381,         /* 101a subq.l #1,%d1 */
    0x66e8,         /* 101c bne.b 1006 */
    0x4e72, 0x2700, /* 101e stop #0x2700 */
};

/* The longest list (every register but SP, each a different value, some
 * clobbered in between) and the shortest, so that every register must
 * come back from its own long: the unrolled stencils' first and last. */
static const uint16_t movem_all_code[] = {
    0x7400,         /* 1000 moveq #0,%d2 */
    0x7e0a,         /* 1002 moveq #10,%d7 */
    0x7001,         /* 1004 moveq #1,%d0 */
    0x7203,         /* 1006 moveq #3,%d1 */
    0x7605,         /* 1008 moveq #5,%d3 */
    0x7807,         /* 100a moveq #7,%d4 */
    0x7a0b,         /* 100c moveq #11,%d5 */
    0x7c0d,         /* 100e moveq #13,%d6 */
    0x41f8, 0x0011, /* 1010 lea 0x11,%a0 */
    0x43f8, 0x0013, /* 1014 lea 0x13,%a1 */
    0x45f8, 0x0017, /* 1018 lea 0x17,%a2 */
    0x47f8, 0x001d, /* 101c lea 0x1d,%a3 */
    0x49f8, 0x001f, /* 1020 lea 0x1f,%a4 */
    0x4bf8, 0x0025, /* 1024 lea 0x25,%a5 */
    0x4df8, 0x0029, /* 1028 lea 0x29,%a6 */
    0x48e7, 0xfffe, /* 102c movem.l %d0-%d7/%a0-%a6,-(%sp) */
    0x7000,         /* 1030 moveq #0,%d0 */
    0x7200,         /* 1032 moveq #0,%d1 */
    0x91c8,         /* 1034 suba.l %a0,%a0 */
    0x9dce,         /* 1036 suba.l %a6,%a6 */
    0x4cdf, 0x7fff, /* 1038 movem.l (%sp)+,%d0-%d7/%a0-%a6 */
    0xd480,         /* 103c add.l %d0,%d2 */
    0xd488,         /* 103e add.l %a0,%d2 */
    0xd48e,         /* 1040 add.l %a6,%d2 */
    0xd481,         /* 1042 add.l %d1,%d2 */
    0x48e7, 0x0200, /* 1044 movem.l %d6,-(%sp) */
    0x7c00,         /* 1048 moveq #0,%d6 */
    0x4cdf, 0x0040, /* 104a movem.l (%sp)+,%d6 */
    0xd486,         /* 104e add.l %d6,%d2 */
    0x5387,         /* 1050 subq.l #1,%d7 */
    0x66d8,         /* 1052 bne.b 102c */
    0x4e72, 0x2700, /* 1054 stop #0x2700 */
};

static void movem_same(void)
{
  /* 10 rounds of 7 + d1. */
  size_t n = sizeof movem_code / 2;
  stack_case(movem_code, n, M68K_MODEL_68030, TM_STACK, false, 125);
  stack_case(movem_code, n, M68K_MODEL_68030, 0x1080, true, 125); /* stores into the code's page */
  stack_case(movem_code, n, M68K_MODEL_68000, TM_STACK, false, 125);
  /* 10 rounds of d0 + a0 + a6 + d1 + d6: 1 + 0x11 + 0x29 + 3 + 13. The
   * stack's 60 bytes in the code's page end at 0x10c4, past the code. */
  n = sizeof movem_all_code / 2;
  stack_case(movem_all_code, n, M68K_MODEL_68030, TM_STACK, false, 750);
  stack_case(movem_all_code, n, M68K_MODEL_68030, 0x1100, true, 750);
  stack_case(movem_all_code, n, M68K_MODEL_68000, TM_STACK, false, 750);
}

/* A function's frame (xlat.c note 15): LEA (d16,SP),SP hands SP to the
 * MOVEM.L saving registers below it, and the MOVEM.L restoring them hands
 * it to the LEA freeing the frame, which hands it to the RTS. Each call
 * returns twice its argument, the saved registers unharmed. */
static const uint16_t frame_code[] = {
    0x7400,         /* 1000 moveq #0,%d2 */
    0x720a,         /* 1002 moveq #10,%d1 */
    0x610a,         /* 1004 bsr.b 1010 */
    0xd480,         /* 1006 add.l %d0,%d2 */
    0x5381,         /* 1008 subq.l #1,%d1 */
    0x66f8,         /* 100a bne.b 1004 */
    0x4e72, 0x2700, /* 100c stop #0x2700 */
    0x4fef, 0xfff8, /* 1010 lea -8(%sp),%sp */
    0x48e7, 0x6020, /* 1014 movem.l %d1-%d2/%a2,-(%sp) */
    0x2001,         /* 1018 move.l %d1,%d0 */
    0x7200,         /* 101a moveq #0,%d1 */
    0x7400,         /* 101c moveq #0,%d2 */
    0x95ca,         /* 101e suba.l %a2,%a2 */
    0x4cdf, 0x0406, /* 1020 movem.l (%sp)+,%d1-%d2/%a2 */
    0x4fef, 0x0008, /* 1024 lea 8(%sp),%sp */
    0xd081,         /* 1028 add.l %d1,%d0 */
    0x4e75,         /* 102a rts */
};

static void frame_same(void)
{
  /* 10 calls returning 2 * d1: 2 * 55. */
  size_t n = sizeof frame_code / 2;
  stack_case(frame_code, n, M68K_MODEL_68030, TM_STACK, false, 110);
  stack_case(frame_code, n, M68K_MODEL_68030, 0x10c0, true, 110); /* the frame in the code's page */
  stack_case(frame_code, n, M68K_MODEL_68000, TM_STACK, false, 110);
}

/* The return cache names live blocks only: the instruction an RTS returns
 * to is rewritten by the host (with m68k_jit_invalidate) after the cache
 * has learnt its block; the returns then run the new instruction. */
static void return_into_rewritten_code(void)
{
  static const uint16_t code[] = {
      0x7400,         /* 1000 moveq #0,%d2 */
      0x7214,         /* 1002 moveq #20,%d1 */
      0x610a,         /* 1004 bsr.b 1010 */
      0x5282,         /* 1006 addq.l #1,%d2 */
      0x5381,         /* 1008 subq.l #1,%d1 */
      0x66f8,         /* 100a bne.b 1004 */
      0x4e72, 0x2700, /* 100c stop #0x2700 */
      0x4e71,         /* 1010 nop */
      0x4e75,         /* 1012 rts */
  };
  for (uint32_t seed = 1; seed <= 4; seed++) {
    start2(code, sizeof code / 2, M68K_MODEL_68030);
    run_both(seed, 40, NULL);
    CU_ASSERT_FALSE(m68k_stopped(tj.cpu));
    tm_w16(&ti, 0x1006, 0x5482); /* addq.l #2,%d2 */
    tm_w16(&tj, 0x1006, 0x5482);
    m68k_jit_invalidate(tj.cpu, 0x1006, 2);
    run_both(seed, 10000, NULL);
    CU_ASSERT_TRUE(m68k_stopped(tj.cpu));
    CU_ASSERT(tm_d(&tj, 2) > 20 && tm_d(&tj, 2) < 40); /* some rounds added 2 */
    tm_done(&ti);
    tm_done(&tj);
  }
}

/* Writes n words at addr on both CPUs. */
static void both_w16(uint32_t addr, const uint16_t *w, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    tm_w16(&ti, addr + 2 * (uint32_t)i, w[i]);
    tm_w16(&tj, addr + 2 * (uint32_t)i, w[i]);
  }
}

static void both_w32(uint32_t addr, uint32_t v)
{
  tm_w32(&ti, addr, v);
  tm_w32(&tj, addr, v);
}

static void done2(void)
{
  tm_done(&ti);
  tm_done(&tj);
}

/* A branch chained to a block whose code a store then rewrites, from a
 * block in another page, which lives on: the chained exit is unlinked
 * when its target dies, so the branch reaches the new code (ADDQ #2, not
 * #1, from the 20th time round), not the old one's. The branch is a BNE
 * that is always taken: a BRA would be followed (xlat.c note 2), the
 * target's code copied into the block rather than chained. */
static void chained_exit_reaches_the_rewritten_block(void)
{
  static const uint16_t code[] = {
      0x7400,                   /* 1000 moveq #0,%d2 */
      0x7600,                   /* 1002 moveq #0,%d3 */
      0x7228,                   /* 1004 moveq #40,%d1 */
      0x41f8, 0x1200,           /* 1006 lea 1200,%a0 */
      0x5282,                   /* 100a addql #1,%d2 */
      0x0c81, 0x0000, 0x0014,   /* 100c cmpil #20,%d1 */
      0x6604,                   /* 1012 bnes 1018 */
      0x30bc, 0x5483,           /* 1014 movew #0x5483,%a0@ (addql #2,%d3) */
      0x5381,                   /* 1018 subql #1,%d1 */
      0x6704,                   /* 101a beqs 1020 */
      0x6600, 0x01e2,           /* 101c bnew 1200 (always taken) */
      0x4e72, 0x2700,           /* 1020 stop #9984 */
  };
  static const uint16_t target[] = {
      0x5283,                   /* 1200 addql #1,%d3 */
      0xd483,                   /* 1202 addl %d3,%d2 */
      0x6000, 0xfe04,           /* 1204 braw 100a */
  };
  start2(code, sizeof code / 2, M68K_MODEL_68030);
  both_w16(0x1200, target, sizeof target / 2);
  CU_ASSERT_EQUAL(m68k_run(ti.cpu, 100000, NULL), m68k_run(tj.cpu, 100000, NULL));
  CU_ASSERT_TRUE(same_state());
  CU_ASSERT_TRUE(m68k_stopped(tj.cpu));
  CU_ASSERT_EQUAL(tm_d(&tj, 3), 20 + 19 * 2);
  m68k_jit_stats_t st;
  m68k_jit_stats(tj.cpu, &st);
  CU_ASSERT(st.chained > 0 && st.invalidated > 0);
  done2();
}

/* Runs both CPUs to their STOP: in one run for seed 0 (so that whole
 * blocks run, their dead flags dropped: xlat.c note 8), else in chunks
 * from the seed (budgets ending inside blocks). */
static void run_to_stop(uint32_t seed)
{
  if (seed == 0) {
    CU_ASSERT_EQUAL(m68k_run(ti.cpu, 100000, NULL), m68k_run(tj.cpu, 100000, NULL));
    CU_ASSERT_TRUE(same_state());
  } else {
    run_both(seed, 100000, NULL);
  }
  CU_ASSERT_TRUE(m68k_stopped(tj.cpu));
}

/* Runs code on the 68030 against the interpreter from several seeds
 * (run_to_stop), setup() before each run; checks that at least `tenths` tenths of
 * the instructions translated have stencils of their own. The last run's
 * CPUs are left for the caller (done2). */
static void run_seeds(const uint16_t *code, size_t n, void (*setup)(void), unsigned tenths)
{
  for (uint32_t seed = 0; seed <= 8; seed++) {
    if (seed > 0)
      done2();
    start2(code, n, M68K_MODEL_68030);
    if (setup)
      setup();
    run_to_stop(seed);
    m68k_jit_stats_t st;
    m68k_jit_stats(tj.cpu, &st);
    CU_ASSERT(st.specialised * 10 >= st.insns * tenths);
  }
}

/* run_seeds without a setup for a loop counting D1 down to 0: D1 must
 * end 0. Ends the case (done2). */
static void run_loop_to_stop(const uint16_t *code, size_t n, unsigned tenths)
{
  run_seeds(code, n, NULL, tenths);
  CU_ASSERT_EQUAL(tm_d(&tj, 1), 0);
  done2();
}

/* LSL, LSR, ASR .L by an immediate and by a register (counts 0 to 64 mod
 * 64: 0, 32 and more included), ORI, ANDI, EORI, ADDI, SUBI .L and ADDI,
 * CMPI .B on Dn, their flags read by ADDX, Scc (handlers) or dropped where
 * the next instruction overwrites them. */
static void shifts_and_immediates_same(void)
{
  static const uint16_t code[] = {
      0x7400,                  /* 1000 moveq #0,%d2 */
      0x203c, 0x1234, 0x5678,  /* 1002 movel #305419896,%d0 */
      0x7228,                  /* 1008 moveq #40,%d1 */
      0x2600,                  /* 100a movel %d0,%d3 */
      0xe78b,                  /* 100c lsll #3,%d3 */
      0xd583,                  /* 100e addxl %d3,%d2 */
      0x2600,                  /* 1010 movel %d0,%d3 */
      0xee8b,                  /* 1012 lsrl #7,%d3 */
      0x55c4,                  /* 1014 scs %d4 */
      0xd483,                  /* 1016 addl %d3,%d2 */
      0x2600,                  /* 1018 movel %d0,%d3 */
      0xe283,                  /* 101a asrl #1,%d3 */
      0xd583,                  /* 101c addxl %d3,%d2 */
      0x2600,                  /* 101e movel %d0,%d3 */
      0xe083,                  /* 1020 asrl #8,%d3 */
      0xd483,                  /* 1022 addl %d3,%d2 */
      0x2a01,                  /* 1024 movel %d1,%d5 */
      0x2600,                  /* 1026 movel %d0,%d3 */
      0xebab,                  /* 1028 lsll %d5,%d3 */
      0xd583,                  /* 102a addxl %d3,%d2 */
      0x2600,                  /* 102c movel %d0,%d3 */
      0xeaab,                  /* 102e lsrl %d5,%d3 */
      0x55c4,                  /* 1030 scs %d4 */
      0xd483,                  /* 1032 addl %d3,%d2 */
      0x76ff,                  /* 1034 moveq #-1,%d3 */
      0xebab,                  /* 1036 lsll %d5,%d3 */
      0xd583,                  /* 1038 addxl %d3,%d2 */
      0x76ff,                  /* 103a moveq #-1,%d3 */
      0xeaab,                  /* 103c lsrl %d5,%d3 */
      0xd583,                  /* 103e addxl %d3,%d2 */
      0x7c18,                  /* 1040 moveq #24,%d6 */
      0xdc81,                  /* 1042 addl %d1,%d6 */
      0x2600,                  /* 1044 movel %d0,%d3 */
      0xeca3,                  /* 1046 asrl %d6,%d3 */
      0x55c4,                  /* 1048 scs %d4 */
      0xd583,                  /* 104a addxl %d3,%d2 */
      0xecab,                  /* 104c lsrl %d6,%d3 */
      0xd583,                  /* 104e addxl %d3,%d2 */
      0x0080, 0x8000, 0x0001,  /* 1050 oril #-2147483647,%d0 */
      0x0280, 0xffff, 0xf0ff,  /* 1056 andil #-3841,%d0 */
      0x0a80, 0x5a5a, 0x5a5a,  /* 105c eoril #1515870810,%d0 */
      0x0680, 0x1111, 0x1111,  /* 1062 addil #286331153,%d0 */
      0xd580,                  /* 1068 addxl %d0,%d2 */
      0x0480, 0x2222, 0x2223,  /* 106a subil #572662307,%d0 */
      0x59c4,                  /* 1070 svs %d4 */
      0xd580,                  /* 1072 addxl %d0,%d2 */
      0x0600, 0x007f,          /* 1074 addib #127,%d0 */
      0x59c4,                  /* 1078 svs %d4 */
      0xd584,                  /* 107a addxl %d4,%d2 */
      0x0c00, 0x0040,          /* 107c cmpib #64,%d0 */
      0x52c7,                  /* 1080 shi %d7 */
      0xd487,                  /* 1082 addl %d7,%d2 */
      0xe38a,                  /* 1084 lsll #1,%d2 */
      0xe48a,                  /* 1086 lsrl #2,%d2 */
      0x5381,                  /* 1088 subql #1,%d1 */
      0x6600, 0xff7e,          /* 108a bnew 100a <loop> */
      0x4e72, 0x2700,          /* 108e stop #9984 */
  };
  /* All but the ADDX, Scc and STOP (17 of 57) have stencils of their own. */
  run_seeds(code, sizeof code / 2, NULL, 6);
  CU_ASSERT_EQUAL(tm_d(&ti, 1), 0);
  done2();
}

/* LSL, LSR, ASR .L by a register whose NZVC no later instruction reads
 * (xlat.c note 8) still set X when the count is not 0 and leave it when it
 * is (the count 64 of the first pass), which ADDX reads. */
static void shift_by_register_without_flags_keeps_x(void)
{
  static const uint16_t code[] = {
      0x7400,                    /* 1000 moveq #0,%d2 */
      0x203c, 0x1234, 0x5678,    /* 1002 movel #305419896,%d0 */
      0x7228,                    /* 1008 moveq #40,%d1 */
      0x2c01,                    /* 100a movel %d1,%d6 */
      0x7a18,                    /* 100c moveq #24,%d5 */
      0xdc85,                    /* 100e addl %d5,%d6 */
      0x283c, 0x8000, 0x0000,    /* 1010 movel #-2147483648,%d4 */
      0xd884,                    /* 1016 addl %d4,%d4 */
      0x2600,                    /* 1018 movel %d0,%d3 */
      0xedab,                    /* 101a lsll %d6,%d3 */
      0x4a87,                    /* 101c tstl %d7 */
      0xd583,                    /* 101e addxl %d3,%d2 */
      0x2600,                    /* 1020 movel %d0,%d3 */
      0xe2a3,                    /* 1022 asrl %d1,%d3 */
      0x2803,                    /* 1024 movel %d3,%d4 */
      0xd584,                    /* 1026 addxl %d4,%d2 */
      0x76ff,                    /* 1028 moveq #-1,%d3 */
      0xecab,                    /* 102a lsrl %d6,%d3 */
      0x7800,                    /* 102c moveq #0,%d4 */
      0xd583,                    /* 102e addxl %d3,%d2 */
      0x5381,                    /* 1030 subql #1,%d1 */
      0x6600, 0xffd6,            /* 1032 bnew 100a */
      0x4e72, 0x2700,            /* 1036 stop #9984 */
  };
  run_loop_to_stop(code, sizeof code / 2, 6);
}

/* Vector 2 (bus error) to a handler that runs `first`, then returns to a5. */
static void bus_error_handler(uint16_t first)
{
  const uint16_t handler[] = {
      first,                   /* 3800 */
      0x2f4d, 0x0002,          /* 3802 movel %a5,%sp@(2) */
      0x4e73,                  /* 3806 rte */
  };
  both_w16(0x3800, handler, sizeof handler / 2);
  both_w32(2 * 4, 0x3800);
}

/* A bus error handler that counts in d5. */
static void bus_error_resumes_at_a5(void)
{
  bus_error_handler(0x5285); /* addql #1,%d5 */
}

/* The 68030's MOVE family: every size, (An)+ and -(An) (a byte on A7 by
 * 2), (d16,An), (d8,An,Xi) with word and long indexes scaled, abs.W,
 * abs.L, (d16,PC), MOVEA.W and .L, LEA (d8,An,Xi); then bus errors on a
 * memory-to-memory move's source (the frame's PC past the source's
 * extension words only), its destination, and a word read, each resumed
 * after the instruction. */
static void postincrement_and_indexed_same(void)
{
  static const uint16_t code[] = {
      0x41f8, 0x5000,          /* 1000 lea 5000,%a0 */
      0x43f8, 0x6000,          /* 1004 lea 6000,%a1 */
      0x45f8, 0x5800,          /* 1008 lea 5800,%a2 */
      0x7400,                  /* 100c moveq #0,%d2 */
      0x7218,                  /* 100e moveq #24,%d1 */
      0x203c, 0x89ab, 0xcdef,  /* 1010 movel #-1985229329,%d0 */
      0xd081,                  /* 1016 addl %d1,%d0 */
      0x20c0,                  /* 1018 movel %d0,%a0@+ */
      0x3480,                  /* 101a movew %d0,%a2@ */
      0x1300,                  /* 101c moveb %d0,%a1@- */
      0x1f01,                  /* 101e moveb %d1,%sp@- */
      0x181f,                  /* 1020 moveb %sp@+,%d4 */
      0x2628, 0xfffc,          /* 1022 movel %a0@(-4),%d3 */
      0x2652,                  /* 1026 moveal %a2@,%a3 */
      0x3852,                  /* 1028 moveaw %a2@,%a4 */
      0x3612,                  /* 102a movew %a2@,%d3 */
      0x162a, 0x0001,          /* 102c moveb %a2@(1),%d3 */
      0x5bc5,                  /* 1030 smi %d5 */
      0x2c01,                  /* 1032 movel %d1,%d6 */
      0x2e30, 0x6cf8,          /* 1034 movel %a0@(fffffffffffffff8,%d6:l:4),%d7 */
      0x2587, 0x6204,          /* 1038 movel %d7,%a2@(4,%d6:w:2) */
      0x3372, 0x6204, 0x0002,  /* 103c movew %a2@(4,%d6:w:2),%a1@(2) */
      0x2290,                  /* 1042 movel %a0@,%a1@ */
      0x2368, 0xfffc, 0x0008,  /* 1044 movel %a0@(-4),%a1@(8) */
      0x14d9,                  /* 104a moveb %a1@+,%a2@+ */
      0x3519,                  /* 104c movew %a1@+,%a2@- */
      0x2312,                  /* 104e movel %a2@,%a1@- */
      0x2638, 0x5000,          /* 1050 movel 5000,%d3 */
      0x21c3, 0x5ff0,          /* 1054 movel %d3,5ff0 */
      0x21cb, 0x5ff4,          /* 1058 movel %a3,5ff4 */
      0x2c3a, 0x0002,          /* 105c movel %pc@(1060),%d6 */
      0x4bf0, 0x6208,          /* 1060 lea %a0@(8,%d6:w:2),%a5 */
      0xd48d,                  /* 1064 addl %a5,%d2 */
      0x4bf0, 0x18fa,          /* 1066 lea %a0@(fffffffffffffffa,%d1:l),%a5 */
      0xd48d,                  /* 106a addl %a5,%d2 */
      0xd487,                  /* 106c addl %d7,%d2 */
      0xd483,                  /* 106e addl %d3,%d2 */
      0xd484,                  /* 1070 addl %d4,%d2 */
      0xd485,                  /* 1072 addl %d5,%d2 */
      0xd48b,                  /* 1074 addl %a3,%d2 */
      0xd48c,                  /* 1076 addl %a4,%d2 */
      0x5381,                  /* 1078 subql #1,%d1 */
      0x6600, 0xff9a,          /* 107a bnew 1016 */
      0x4df9, 0x0002, 0x0000,  /* 107e lea 20000,%fp */
      0x4bfa, 0x0006,          /* 1084 lea %pc@(108c <after1>),%a5 */
      0x2356, 0x0008,          /* 1088 movel %fp@,%a1@(8) */
      0x4bfa, 0x0008,          /* 108c lea %pc@(1096 <after2>),%a5 */
      0x236e, 0x0004, 0x0008,  /* 1090 movel %fp@(4),%a1@(8) */
      0x4bfa, 0x0006,          /* 1096 lea %pc@(109e <after3>),%a5 */
      0x2d91, 0x1804,          /* 109a movel %a1@,%fp@(4,%d1:l) */
      0x4bfa, 0x0006,          /* 109e lea %pc@(10a6 <after4>),%a5 */
      0x3636, 0x1808,          /* 10a2 movew %fp@(8,%d1:l),%d3 */
      0x4e72, 0x2700,          /* 10a6 stop #9984 */
  };
  run_seeds(code, sizeof code / 2, bus_error_resumes_at_a5, 8);
  CU_ASSERT_EQUAL(tm_d(&tj, 5), 4);
  done2();
}

/* The 68030's long operations on memory: OR, AND, SUB, ADD, CMP .L <ea>,Dn,
 * ADDA, SUBA, CMPA .L <ea>,An, OR, AND, SUB, ADD, EOR .L Dn,<ea>, TST.L and
 * TST.B <ea>, on (An), (An)+, -(An), (d16,An), (d8,An,Xi) and abs, their
 * flags read by ADDX and Scc (handlers); then bus errors on a read, a
 * read-modify-write and a TST, each resumed after the instruction. */
static void alu_on_memory_same(void)
{
  static const uint16_t code[] = {
      0x41f8, 0x5000,          /* 1000 lea 5000,%a0 */
      0x43f8, 0x5400,          /* 1004 lea 5400,%a1 */
      0x7400,                  /* 1008 moveq #0,%d2 */
      0x7214,                  /* 100a moveq #20,%d1 */
      0x203c, 0x7fff, 0xfff0,  /* 100c movel #2147483632,%d0 */
      0x20c0,                  /* 1012 movel %d0,%a0@+ */
      0x0680, 0x1000, 0x0001,  /* 1014 addil #268435457,%d0 */
      0x5381,                  /* 101a subql #1,%d1 */
      0x6600, 0xfff4,          /* 101c bnew 1012 */
      0x41f8, 0x5008,          /* 1020 lea 5008,%a0 */
      0x7214,                  /* 1024 moveq #20,%d1 */
      0x2c01,                  /* 1026 movel %d1,%d6 */
      0x80b0, 0x6cfc,          /* 1028 orl %a0@(fffffffffffffffc,%d6:l:4),%d0 */
      0x55c4,                  /* 102c scs %d4 */
      0xc091,                  /* 102e andl %a1@,%d0 */
      0x90a0,                  /* 1030 subl %a0@-,%d0 */
      0xd580,                  /* 1032 addxl %d0,%d2 */
      0xd098,                  /* 1034 addl %a0@+,%d0 */
      0xd580,                  /* 1036 addxl %d0,%d2 */
      0xb0b8, 0x5010,          /* 1038 cmpl 5010,%d0 */
      0x52c4,                  /* 103c shi %d4 */
      0xd484,                  /* 103e addl %d4,%d2 */
      0x2440,                  /* 1040 moveal %d0,%a2 */
      0xd5e8, 0x0004,          /* 1042 addal %a0@(4),%a2 */
      0x95f0, 0x62f8,          /* 1046 subal %a0@(fffffffffffffff8,%d6:w:2),%a2 */
      0xb5d1,                  /* 104a cmpal %a1@,%a2 */
      0x55c5,                  /* 104c scs %d5 */
      0xd485,                  /* 104e addl %d5,%d2 */
      0x8191,                  /* 1050 orl %d0,%a1@ */
      0xc5a9, 0x0004,          /* 1052 andl %d2,%a1@(4) */
      0x93a1,                  /* 1056 subl %d1,%a1@- */
      0xd584,                  /* 1058 addxl %d4,%d2 */
      0xd199,                  /* 105a addl %d0,%a1@+ */
      0xd584,                  /* 105c addxl %d4,%d2 */
      0xb5b1, 0x6c08,          /* 105e eorl %d2,%a1@(8,%d6:l:4) */
      0x5bc5,                  /* 1062 smi %d5 */
      0xd485,                  /* 1064 addl %d5,%d2 */
      0x4a91,                  /* 1066 tstl %a1@ */
      0x5ac5,                  /* 1068 spl %d5 */
      0xd485,                  /* 106a addl %d5,%d2 */
      0x4210,                  /* 106c clrb %a0@ */
      0x4a18,                  /* 106e tstb %a0@+ */
      0x57c5,                  /* 1070 seq %d5 */
      0xd485,                  /* 1072 addl %d5,%d2 */
      0x4a28, 0x0003,          /* 1074 tstb %a0@(3) */
      0x5bc5,                  /* 1078 smi %d5 */
      0xd485,                  /* 107a addl %d5,%d2 */
      0x4ab8, 0x5020,          /* 107c tstl 5020 */
      0x5bc5,                  /* 1080 smi %d5 */
      0xd48a,                  /* 1082 addl %a2,%d2 */
      0xd485,                  /* 1084 addl %d5,%d2 */
      0x5381,                  /* 1086 subql #1,%d1 */
      0x6600, 0xff9c,          /* 1088 bnew 1026 */
      0x4df9, 0x0002, 0x0000,  /* 108c lea 20000,%fp */
      0x4bfa, 0x0006,          /* 1092 lea %pc@(109a <after1>),%a5 */
      0xd4ae, 0x0004,          /* 1096 addl %fp@(4),%d2 */
      0x4bfa, 0x0006,          /* 109a lea %pc@(10a2 <after2>),%a5 */
      0xd5b6, 0x1800,          /* 109e addl %d2,%fp@(0,%d1:l) */
      0x4bfa, 0x0004,          /* 10a2 lea %pc@(10a8 <after3>),%a5 */
      0x4a96,                  /* 10a6 tstl %fp@ */
      0x4e72, 0x2700,          /* 10a8 stop #9984 */
  };
  run_seeds(code, sizeof code / 2, bus_error_resumes_at_a5, 6);
  CU_ASSERT_EQUAL(tm_d(&tj, 1), 0);
  done2();
}

/* A bus error handler that copies the stacked SR to d6. */
static void bus_error_keeps_sr_in_d6(void)
{
  bus_error_handler(0x3c17); /* movew %sp@,%d6 */
}

/* Memory stencils whose flags no later instruction reads set them only
 * where the core sees them (xlat.c note 8): a MOVE.L, MOVE.B #imm, CLR.L
 * and OR.L to memory outside RAM, each followed by an instruction that
 * overwrites its flags, stack the flags they set in the bus error's frame
 * (and X, which the ADD before the MOVE set and only a later ADDQ
 * overwrites); the same kinds in RAM, and reads whose flags are dead, run
 * inline. */
static void dead_flags_of_memory_stencils_seen_by_faults(void)
{
  static const uint16_t code[] = {
      0x49f9, 0x0002, 0x0000,    /* 1000 lea 20000,%a4 */
      0x74ff,                    /* 1006 moveq #-1,%d2 */
      0x7808,                    /* 1008 moveq #8,%d4 */
      0x223c, 0x8000, 0x0000,    /* 100a movel #-2147483648,%d1 */
      0x4bfa, 0x0008,            /* 1010 lea %pc@(101a),%a5 */
      0x7600,                    /* 1014 moveq #0,%d3 */
      0xd281,                    /* 1016 addl %d1,%d1 */
      0x2882,                    /* 1018 movel %d2,%a4@ */
      0x4a87,                    /* 101a tstl %d7 */
      0x5287,                    /* 101c addql #1,%d7 */
      0x3006,                    /* 101e movew %d6,%d0 */
      0x4bfa, 0x0008,            /* 1020 lea %pc@(102a),%a5 */
      0x7600,                    /* 1024 moveq #0,%d3 */
      0x18bc, 0x0080,            /* 1026 moveb #-128,%a4@ */
      0x4a87,                    /* 102a tstl %d7 */
      0x3206,                    /* 102c movew %d6,%d1 */
      0x4bfa, 0x0008,            /* 102e lea %pc@(1038),%a5 */
      0x7601,                    /* 1032 moveq #1,%d3 */
      0x42ac, 0x0008,            /* 1034 clrl %a4@(8) */
      0x4a87,                    /* 1038 tstl %d7 */
      0x3446,                    /* 103a moveaw %d6,%a2 */
      0x4bfa, 0x0006,            /* 103c lea %pc@(1044),%a5 */
      0x7600,                    /* 1040 moveq #0,%d3 */
      0x8594,                    /* 1042 orl %d2,%a4@ */
      0x7602,                    /* 1044 moveq #2,%d3 */
      0x41f8, 0x5000,            /* 1046 lea 5000,%a0 */
      0x20c2,                    /* 104a movel %d2,%a0@+ */
      0x4a83,                    /* 104c tstl %d3 */
      0x1a10,                    /* 104e moveb %a0@,%d5 */
      0x8790,                    /* 1050 orl %d3,%a0@ */
      0xb690,                    /* 1052 cmpl %a0@,%d3 */
      0x2a06,                    /* 1054 movel %d6,%d5 */
      0x5384,                    /* 1056 subql #1,%d4 */
      0x6600, 0xffb0,            /* 1058 bnew 100a */
      0x4e72, 0x2700,            /* 105c stop #9984 */
  };
  run_seeds(code, sizeof code / 2, bus_error_keeps_sr_in_d6, 6);
  CU_ASSERT_EQUAL(tm_d(&tj, 0) & 0x1f, 0x18);  /* X N: the move of -1 after the ADD */
  CU_ASSERT_EQUAL(tm_d(&tj, 1) & 0x1f, 0x08);  /* N: MOVE.B #$80 */
  CU_ASSERT_EQUAL(tm_a(&tj, 2) & 0x1f, 0x04);  /* Z: CLR.L */
  CU_ASSERT_EQUAL(tm_d(&tj, 6) & 0x1f, 0x04);  /* OR.L faults on its read: MOVEQ #0's flags */
  done2();
}

/* A device at 100000 (outside RAM) for reads_through_the_core_set_dead_flags:
 * each read returns the next of a sequence and raises interrupt level 1; a
 * write lowers it. */
typedef struct dev {
  tm_t *t;
  uint32_t n;
} xdev_t;

static uint32_t dev_next(xdev_t *d)
{
  m68k_set_irq(d->t->cpu, 1);
  d->n = d->n * 1103515245u + 12345u;
  return d->n ^ (d->n << 13); /* every sign, zero now and then in the low byte */
}
static bool dev_rd8(void *ctx, uint32_t a, unsigned fc, uint8_t *v)
{
  (void)fc;
  *v = (uint8_t)dev_next(ctx);
  return a >> 8 == 0x1000;
}
static bool dev_rd16(void *ctx, uint32_t a, unsigned fc, uint16_t *v)
{
  (void)fc;
  *v = (uint16_t)dev_next(ctx);
  return a >> 8 == 0x1000;
}
static bool dev_rd32(void *ctx, uint32_t a, unsigned fc, uint32_t *v)
{
  (void)fc;
  *v = dev_next(ctx);
  return a >> 8 == 0x1000;
}
static bool dev_wr32(void *ctx, uint32_t a, unsigned fc, uint32_t v)
{
  (void)fc;
  (void)v;
  m68k_set_irq(((xdev_t *)ctx)->t->cpu, 0);
  return a >> 8 == 0x1000;
}

/* t's CPU again, on a bus with the device. */
static void with_device(tm_t *t, xdev_t *d, m68k_model_t model)
{
  m68k_destroy(t->cpu);
  *d = (xdev_t){t, 1};
  m68k_bus_t bus = {.ram = t->ram, .ram_base = 0, .ram_size = sizeof t->ram, .ctx = d,
                    .read8 = dev_rd8, .read16 = dev_rd16, .read32 = dev_rd32,
                    .write32 = dev_wr32};
  t->cpu = m68k_create(model, &bus);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t->cpu);
  m68k_set_reg(t->cpu, M68K_REG_SR, 0x2700);
  m68k_set_reg(t->cpu, M68K_REG_A0 + 7, TM_STACK);
  m68k_set_reg(t->cpu, M68K_REG_PC, TM_CODE);
}

/* Both CPUs on the device's bus, the translating one translating again,
 * and the level 1 interrupt's handler, which logs the stacked SR at a4. */
static void device_and_log_handler(void)
{
  static xdev_t di, dj;
  static const uint16_t handler[] = {
      0x38d7,                  /* 3900 movew %sp@,%a4@+ */
      0x42b9, 0x0010, 0x0000,  /* 3902 clrl 100000 (the interrupt off) */
      0x4e73,                  /* 3908 rte */
  };
  with_device(&ti, &di, M68K_MODEL_68030);
  with_device(&tj, &dj, M68K_MODEL_68030);
  CU_ASSERT_EQUAL_FATAL(m68k_jit_enable(tj.cpu, 1, NULL), 0);
  both_w16(0x3900, handler, sizeof handler / 2);
  both_w32(25 * 4, 0x3900);
}

/* PEA pushing to the device (through the core, no exception) and its
 * value popped from it: the block returns to the loop after the PEA, its
 * count taken once, in one run and in chunks (run_seeds). */
static void pea_device_setup(void)
{
  static xdev_t di, dj;
  with_device(&ti, &di, M68K_MODEL_68030);
  with_device(&tj, &dj, M68K_MODEL_68030);
  CU_ASSERT_EQUAL_FATAL(m68k_jit_enable(tj.cpu, 1, NULL), 0);
  tm_set_a(&ti, 7, 0x100080);
  tm_set_a(&tj, 7, 0x100080);
}

static void pea_through_the_core_counts_once(void)
{
  run_seeds(pea_code, sizeof pea_code / 2, pea_device_setup, 0);
  CU_ASSERT_EQUAL(m68k_instructions(tj.cpu), 3 + 10 * 7 + 1);
  done2();
}

/* CMP.L, MOVE.L and TST.B reading the device, their flags dead in the
 * block (overwritten by the next instruction but one): each read goes
 * through the core and raises an interrupt, taken right after the
 * instruction, whose handler logs the stacked SR at a4: the flags there
 * must be the instruction's (xlat.c note 8), in one run and in chunks. */
static void reads_through_the_core_set_dead_flags(void)
{
  static const uint16_t code[] = {
      0x46fc, 0x2000,          /* 1000 movew #8192,%sr */
      0x47f9, 0x0010, 0x0000,  /* 1004 lea 100000,%a3 */
      0x49f8, 0x6000,          /* 100a lea 6000,%a4 */
      0x7814,                  /* 100e moveq #20,%d4 */
      0x7600,                  /* 1010 moveq #0,%d3 */
      0xb693,                  /* 1012 cmpl %a3@,%d3 */
      0x4a84,                  /* 1014 tstl %d4 */
      0x2a13,                  /* 1016 movel %a3@,%d5 */
      0xd485,                  /* 1018 addl %d5,%d2 */
      0x4a13,                  /* 101a tstb %a3@ */
      0x7001,                  /* 101c moveq #1,%d0 */
      0x5384,                  /* 101e subql #1,%d4 */
      0x6600, 0xffee,          /* 1020 bnew 1010 */
      0x4e72, 0x2700,          /* 1024 stop #9984 */
  };
  run_seeds(code, sizeof code / 2, device_and_log_handler, 6);
  CU_ASSERT_EQUAL(tm_a(&tj, 4), 0x6000 + 2 * 3 * 20); /* every read interrupted */
  done2();
}

/* MOVEs between RAM and the device, each way and both (xlat.c's move():
 * a read through the core goes on with the rest of the instruction on a
 * way of its own, a store through the core ends it): every read raises
 * the interrupt, taken right after its instruction unless the same
 * instruction's store to the device lowered it again, in one run and in
 * chunks. */
static void moves_through_the_core_same(void)
{
  static const uint16_t code[] = {
      0x46fc, 0x2000,                  /* 1000 movew #8192,%sr */
      0x47f9, 0x0010, 0x0000,          /* 1004 lea 100000,%a3 */
      0x49f8, 0x6000,                  /* 100a lea 6000,%a4 */
      0x43f8, 0x7000,                  /* 100e lea 7000,%a1 */
      0x7814,                          /* 1012 moveq #20,%d4 */
      0x22d3,                          /* 1014 movel %a3@,%a1@+ */
      0x2353, 0x0008,                  /* 1016 movel %a3@,%a1@(8) */
      0x32d3,                          /* 101a movew %a3@,%a1@+ */
      0x26a9, 0xfffa,                  /* 101c movel %a1@(-6),%a3@ */
      0x2693,                          /* 1020 movel %a3@,%a3@ */
      0x1a13,                          /* 1022 moveb %a3@,%d5 */
      0xd485,                          /* 1024 addl %d5,%d2 */
      0xd4a9, 0xfffa,                  /* 1026 addl %a1@(-6),%d2 */
      0x5384,                          /* 102a subql #1,%d4 */
      0x6600, 0xffe6,                  /* 102c bnew 1014 */
      0x4e72, 0x2700,                  /* 1030 stop #9984 */
  };
  run_seeds(code, sizeof code / 2, device_and_log_handler, 5);
  CU_ASSERT_EQUAL(tm_a(&tj, 4), 0x6000 + 2 * 4 * 20); /* four interrupts a round */
  CU_ASSERT_EQUAL(tm_a(&tj, 1), 0x7000 + 6 * 20);
  done2();
}

/* OR, AND, SUB, ADD and EOR .L Dn,<ea> (xlat.c note 17): on the device
 * ((An), (An)+ and -(An), each read raising the interrupt and its store
 * lowering it again), which the stencil leaves to the interpreter without
 * having stepped An; on RAM, inline; and onto the immediate of an
 * instruction further on in the same block, which must run changed. Then
 * MOVE.L (A0)+,(A0)+ and ADD.L into the block's own page (their stores
 * cannot go inline): left to the interpreter with A0 stepped back from
 * both operands. */
static void memory_operations_left_to_the_interpreter_same(void)
{
  static const uint16_t code[] = {
      0x46fc, 0x2000,                  /* 1000 movew #8192,%sr */
      0x47f9, 0x0010, 0x0000,          /* 1004 lea 100000,%a3 */
      0x49f8, 0x6000,                  /* 100a lea 6000,%a4 */
      0x43f8, 0x7000,                  /* 100e lea 7000,%a1 */
      0x4bfa, 0x0038,                  /* 1012 lea %pc@(104c),%a5 */
      0x2a3c, 0x0003, 0x0005,          /* 1016 movel #196613,%d5 */
      0x41f8, 0x1090,                  /* 101c lea 1090,%a0 */
      0x20bc, 0x1234, 0x5678,          /* 1020 movel #305419896,%a0@ */
      0x7814,                          /* 1026 moveq #20,%d4 */
      0xd993,                          /* 1028 addl %d4,%a3@ */
      0x244b,                          /* 102a moveal %a3,%a2 */
      0xb99a,                          /* 102c eorl %d4,%a2@+ */
      0x99a2,                          /* 102e subl %d4,%a2@- */
      0x8999,                          /* 1030 orl %d4,%a1@+ */
      0xc5a9, 0x0004,                  /* 1032 andl %d2,%a1@(4) */
      0xd48a,                          /* 1036 addl %a2,%d2 */
      0xd4a9, 0xfffc,                  /* 1038 addl %a1@(-4),%d2 */
      0xbb95,                          /* 103c eorl %d5,%a5@ */
      0x20d8,                          /* 103e movel %a0@+,%a0@+ */
      0x5188,                          /* 1040 subql #8,%a0 */
      0xd4a8, 0x0004,                  /* 1042 addl %a0@(4),%d2 */
      0xd990,                          /* 1046 addl %d4,%a0@ */
      0xd488,                          /* 1048 addl %a0,%d2 */
      0x0682, 0x1111, 0x1111,          /* 104a addil #286331153,%d2 */
      0x5384,                          /* 1050 subql #1,%d4 */
      0x6600, 0xffd4,                  /* 1052 bnew 1028 */
      0x4e72, 0x2700,                  /* 1056 stop #9984 */
  };
  run_seeds(code, sizeof code / 2, device_and_log_handler, 5);
  CU_ASSERT_EQUAL(tm_a(&tj, 2), 0x100000); /* stepped once each way */
  CU_ASSERT_EQUAL(tm_a(&tj, 1), 0x7000 + 4 * 20);
  CU_ASSERT_EQUAL(tm_a(&tj, 4), 0x6000); /* no interrupt left raised */
  m68k_jit_stats_t st;
  m68k_jit_stats(tj.cpu, &st);
  CU_ASSERT(st.invalidated > 0);
  done2();
}

/* ADD, SUB, AND .L and ADDA.L <ea>,Rn reading the device ((An)+, -(An),
 * (d16,An), (An)), left to the interpreter with An stepped back (xlat.c
 * note 17), each read's interrupt taken after its instruction; then
 * ADDA.L (A0)+,A0 from RAM, inline, whose sum must take A0 as stepped:
 * A0 moves on by 4 a round. */
static void reads_left_to_the_interpreter_same(void)
{
  static const uint16_t code[] = {
      0x46fc, 0x2000,                  /* 1000 movew #8192,%sr */
      0x47f9, 0x0010, 0x0000,          /* 1004 lea 100000,%a3 */
      0x49f8, 0x6000,                  /* 100a lea 6000,%a4 */
      0x41f8, 0x7000,                  /* 100e lea 7000,%a0 */
      0x7814,                          /* 1012 moveq #20,%d4 */
      0x244b,                          /* 1014 moveal %a3,%a2 */
      0xd49a,                          /* 1016 addl %a2@+,%d2 */
      0x94a2,                          /* 1018 subl %a2@-,%d2 */
      0xc6ab, 0x0004,                  /* 101a andl %a3@(4),%d3 */
      0xdbd2,                          /* 101e addal %a2@,%a5 */
      0x2248,                          /* 1020 moveal %a0,%a1 */
      0x2089,                          /* 1022 movel %a1,%a0@ */
      0xd1d8,                          /* 1024 addal %a0@+,%a0 */
      0x91c9,                          /* 1026 subal %a1,%a0 */
      0xd488,                          /* 1028 addl %a0,%d2 */
      0xd483,                          /* 102a addl %d3,%d2 */
      0xd48d,                          /* 102c addl %a5,%d2 */
      0x5384,                          /* 102e subql #1,%d4 */
      0x6600, 0xffe2,                  /* 1030 bnew 1014 */
      0x4e72, 0x2700,                  /* 1034 stop #9984 */
  };
  run_seeds(code, sizeof code / 2, device_and_log_handler, 5);
  CU_ASSERT_EQUAL(tm_a(&tj, 0), 0x7000 + 4 * 20);
  CU_ASSERT_EQUAL(tm_a(&tj, 2), 0x100000);
  CU_ASSERT_EQUAL(tm_a(&tj, 4), 0x6000 + 2 * 4 * 20); /* four interrupts a round */
  done2();
}

/* OR, AND, SUB, ADD, EOR .B and .W Dn,<ea> on RAM by every operand kind
 * ((An), (An)+, -(An), (d16,An), (d8,An,Xi), abs.W; (A7)+ stepping 2 for a
 * byte), their flags (C, N, V, X) read by Scc and ADDX or dropped, and
 * the bytes and words they leave summed. */
static void byte_and_word_operations_on_memory_same(void)
{
  static const uint16_t code[] = {
      0x7400,                          /* 1000 moveq #0,%d2 */
      0x203c, 0x1234, 0x5678,          /* 1002 movel #305419896,%d0 */
      0x7228,                          /* 1008 moveq #40,%d1 */
      0x41f8, 0x5000,                  /* 100a lea 5000,%a0 */
      0x43f8, 0x5100,                  /* 100e lea 5100,%a1 */
      0x7c00,                          /* 1012 moveq #0,%d6 */
      0xd110,                          /* 1014 addb %d0,%a0@ */
      0x55c4,                          /* 1016 scs %d4 */
      0xd484,                          /* 1018 addl %d4,%d2 */
      0x9358,                          /* 101a subw %d1,%a0@+ */
      0x5bc4,                          /* 101c smi %d4 */
      0xd484,                          /* 101e addl %d4,%d2 */
      0x8120,                          /* 1020 orb %d0,%a0@- */
      0xc568, 0x0004,                  /* 1022 andw %d2,%a0@(4) */
      0xb330, 0x6006,                  /* 1026 eorb %d1,%a0@(6,%d6:w) */
      0xd582,                          /* 102a addxl %d2,%d2 */
      0xd178, 0x5010,                  /* 102c addw %d0,5010 */
      0x59c4,                          /* 1030 svs %d4 */
      0xd484,                          /* 1032 addl %d4,%d2 */
      0x9311,                          /* 1034 subb %d1,%a1@ */
      0x5bc4,                          /* 1036 smi %d4 */
      0xd484,                          /* 1038 addl %d4,%d2 */
      0xd582,                          /* 103a addxl %d2,%d2 */
      0xd317,                          /* 103c addb %d1,%sp@ */
      0xd15f,                          /* 103e addw %d0,%sp@+ */
      0x558f,                          /* 1040 subql #2,%sp */
      0xd11f,                          /* 1042 addb %d0,%sp@+ */
      0x558f,                          /* 1044 subql #2,%sp */
      0x2610,                          /* 1046 movel %a0@,%d3 */
      0xd483,                          /* 1048 addl %d3,%d2 */
      0x3638, 0x5010,                  /* 104a movew 5010,%d3 */
      0xd483,                          /* 104e addl %d3,%d2 */
      0xd488,                          /* 1050 addl %a0,%d2 */
      0x5286,                          /* 1052 addql #1,%d6 */
      0xeb98,                          /* 1054 roll #5,%d0 */
      0x5381,                          /* 1056 subql #1,%d1 */
      0x6600, 0xffba,                  /* 1058 bnew 1014 */
      0x4e72, 0x2700,                  /* 105c stop #9984 */
  };
  run_loop_to_stop(code, sizeof code / 2, 8);
}

/* ADD and SUB .L, .W, .B to memory and .L from memory whose N, Z, V
 * and C a MOVEQ overwrites while ADDX reads their X (the stencils setting
 * X alone, xlat.c note 8): carries and borrows of every size, and an ADD
 * of 0, which carries nothing. */
static void x_alone_of_memory_operations_same(void)
{
  static const uint16_t code[] = {
      0x7400,                          /* 1000 moveq #0,%d2 */
      0x203c, 0x1234, 0x5678,          /* 1002 movel #305419896,%d0 */
      0x7228,                          /* 1008 moveq #40,%d1 */
      0x41f8, 0x5000,                  /* 100a lea 5000,%a0 */
      0x43f8, 0x5100,                  /* 100e lea 5100,%a1 */
      0x7a00,                          /* 1012 moveq #0,%d5 */
      0x7c00,                          /* 1014 moveq #0,%d6 */
      0xd190,                          /* 1016 addl %d0,%a0@ */
      0x7800,                          /* 1018 moveq #0,%d4 */
      0xd584,                          /* 101a addxl %d4,%d2 */
      0x91a8, 0x0008,                  /* 101c subl %d0,%a0@(8) */
      0x7800,                          /* 1020 moveq #0,%d4 */
      0xd584,                          /* 1022 addxl %d4,%d2 */
      0xdba8, 0x0004,                  /* 1024 addl %d5,%a0@(4) */
      0x7800,                          /* 1028 moveq #0,%d4 */
      0xd584,                          /* 102a addxl %d4,%d2 */
      0xd119,                          /* 102c addb %d0,%a1@+ */
      0x7800,                          /* 102e moveq #0,%d4 */
      0xd584,                          /* 1030 addxl %d4,%d2 */
      0x9171, 0x6002,                  /* 1032 subw %d0,%a1@(2,%d6:w) */
      0x7800,                          /* 1036 moveq #0,%d4 */
      0xd584,                          /* 1038 addxl %d4,%d2 */
      0xd178, 0x5010,                  /* 103a addw %d0,5010 */
      0x7800,                          /* 103e moveq #0,%d4 */
      0xd584,                          /* 1040 addxl %d4,%d2 */
      0x9321,                          /* 1042 subb %d1,%a1@- */
      0x7800,                          /* 1044 moveq #0,%d4 */
      0xd584,                          /* 1046 addxl %d4,%d2 */
      0xd690,                          /* 1048 addl %a0@,%d3 */
      0x7800,                          /* 104a moveq #0,%d4 */
      0xd584,                          /* 104c addxl %d4,%d2 */
      0x96a8, 0x0008,                  /* 104e subl %a0@(8),%d3 */
      0x7800,                          /* 1052 moveq #0,%d4 */
      0xd584,                          /* 1054 addxl %d4,%d2 */
      0xd483,                          /* 1056 addl %d3,%d2 */
      0xeb98,                          /* 1058 roll #5,%d0 */
      0xd081,                          /* 105a addl %d1,%d0 */
      0x5381,                          /* 105c subql #1,%d1 */
      0x6600, 0xffb6,                  /* 105e bnew 1016 */
      0x4e72, 0x2700,                  /* 1062 stop #9984 */
  };
  run_loop_to_stop(code, sizeof code / 2, 6);
}

/* MULS.L and MULU.L #imm,Dh:Dl (the 64-bit product): GCC's division by
 * 10, signed products of both signs, Dh = Dl (the low half kept), a zero
 * product; N and Z of all 64 bits read by Scc. */
static void long_products_same(void)
{
  static const uint16_t code[] = {
      0x7400,                          /* 1000 moveq #0,%d2 */
      0x203c, 0x1234, 0x5678,          /* 1002 movel #305419896,%d0 */
      0x7228,                          /* 1008 moveq #40,%d1 */
      0x2600,                          /* 100a movel %d0,%d3 */
      0x4c3c, 0x3404, 0xcccc, 0xcccd,  /* 100c mulul #-858993459,%d4,%d3 */
      0xe68c,                          /* 1014 lsrl #3,%d4 */
      0xd484,                          /* 1016 addl %d4,%d2 */
      0x5bc5,                          /* 1018 smi %d5 */
      0xd485,                          /* 101a addl %d5,%d2 */
      0x2600,                          /* 101c movel %d0,%d3 */
      0x4c3c, 0x3c04, 0xffff, 0xfff9,  /* 101e mulsl #-7,%d4,%d3 */
      0x5bc5,                          /* 1026 smi %d5 */
      0xd485,                          /* 1028 addl %d5,%d2 */
      0x57c5,                          /* 102a seq %d5 */
      0xd485,                          /* 102c addl %d5,%d2 */
      0xd484,                          /* 102e addl %d4,%d2 */
      0xd483,                          /* 1030 addl %d3,%d2 */
      0x2601,                          /* 1032 movel %d1,%d3 */
      0x5183,                          /* 1034 subql #8,%d3 */
      0x4c3c, 0x3c03, 0x4000, 0x0000,  /* 1036 mulsl #1073741824,%d3,%d3 */
      0x5bc5,                          /* 103e smi %d5 */
      0xd485,                          /* 1040 addl %d5,%d2 */
      0xd483,                          /* 1042 addl %d3,%d2 */
      0x2601,                          /* 1044 movel %d1,%d3 */
      0x0283, 0x0000, 0x0003,          /* 1046 andil #3,%d3 */
      0x4c3c, 0x3406, 0x8000, 0x0001,  /* 104c mulul #-2147483647,%d6,%d3 */
      0x57c5,                          /* 1054 seq %d5 */
      0xd485,                          /* 1056 addl %d5,%d2 */
      0xd486,                          /* 1058 addl %d6,%d2 */
      0xd483,                          /* 105a addl %d3,%d2 */
      0xeb98,                          /* 105c roll #5,%d0 */
      0xd081,                          /* 105e addl %d1,%d0 */
      0x5381,                          /* 1060 subql #1,%d1 */
      0x6600, 0xffa6,                  /* 1062 bnew 100a */
      0x4e72, 0x2700,                  /* 1066 stop #9984 */
  };
  run_loop_to_stop(code, sizeof code / 2, 8);
}

/* MULS.L and MULU.L <ea>,Dl (the 32-bit product) from (An), (d16,An),
 * (d8,An,Xi), (An)+, -(An), abs.W and (d16,PC): products that overflow
 * (V) and do not, their N, Z and V read by Scc or overwritten. */
static void long_products_from_memory_same(void)
{
  static const uint16_t code[] = {
      0x7400,                          /* 1000 moveq #0,%d2 */
      0x203c, 0x1234, 0x5678,          /* 1002 movel #305419896,%d0 */
      0x7228,                          /* 1008 moveq #40,%d1 */
      0x41f8, 0x5000,                  /* 100a lea 5000,%a0 */
      0x7c00,                          /* 100e moveq #0,%d6 */
      0x2080,                          /* 1010 movel %d0,%a0@ */
      0x2600,                          /* 1012 movel %d0,%d3 */
      0xee9b,                          /* 1014 rorl #7,%d3 */
      0x2143, 0x0004,                  /* 1016 movel %d3,%a0@(4) */
      0x2141, 0x0008,                  /* 101a movel %d1,%a0@(8) */
      0x2600,                          /* 101e movel %d0,%d3 */
      0x4c10, 0x3800,                  /* 1020 mulsl %a0@,%d3 */
      0x59c5,                          /* 1024 svs %d5 */
      0xd485,                          /* 1026 addl %d5,%d2 */
      0x5bc5,                          /* 1028 smi %d5 */
      0xd485,                          /* 102a addl %d5,%d2 */
      0xd483,                          /* 102c addl %d3,%d2 */
      0x2601,                          /* 102e movel %d1,%d3 */
      0x4c28, 0x3000, 0x0004,          /* 1030 mulul %a0@(4),%d3 */
      0x59c5,                          /* 1036 svs %d5 */
      0xd485,                          /* 1038 addl %d5,%d2 */
      0x57c5,                          /* 103a seq %d5 */
      0xd485,                          /* 103c addl %d5,%d2 */
      0xd483,                          /* 103e addl %d3,%d2 */
      0x2600,                          /* 1040 movel %d0,%d3 */
      0x4c30, 0x3800, 0x6808,          /* 1042 mulsl %a0@(8,%d6:l),%d3 */
      0xd483,                          /* 1048 addl %d3,%d2 */
      0x2600,                          /* 104a movel %d0,%d3 */
      0x4c18, 0x3000,                  /* 104c mulul %a0@+,%d3 */
      0x7800,                          /* 1050 moveq #0,%d4 */
      0xd483,                          /* 1052 addl %d3,%d2 */
      0x2601,                          /* 1054 movel %d1,%d3 */
      0x4c20, 0x3800,                  /* 1056 mulsl %a0@-,%d3 */
      0x5bc5,                          /* 105a smi %d5 */
      0xd485,                          /* 105c addl %d5,%d2 */
      0xd483,                          /* 105e addl %d3,%d2 */
      0x2600,                          /* 1060 movel %d0,%d3 */
      0x4c38, 0x3000, 0x5008,          /* 1062 mulul 5008,%d3 */
      0xd483,                          /* 1068 addl %d3,%d2 */
      0x2601,                          /* 106a movel %d1,%d3 */
      0x4c3a, 0x3800, 0x3f94,          /* 106c mulsl %pc@(5004),%d3 */
      0x59c5,                          /* 1072 svs %d5 */
      0xd485,                          /* 1074 addl %d5,%d2 */
      0xd483,                          /* 1076 addl %d3,%d2 */
      0xeb98,                          /* 1078 roll #5,%d0 */
      0xd081,                          /* 107a addl %d1,%d0 */
      0x5381,                          /* 107c subql #1,%d1 */
      0x6600, 0xff90,                  /* 107e bnew 1010 */
      0x4e72, 0x2700,                  /* 1082 stop #9984 */
  };
  run_loop_to_stop(code, sizeof code / 2, 8);
}

/* Doubles at 5000 for fpu_operations_same: normal values, zeros of both
 * signs, a denormal, the extremes, an infinity and a NaN. */
/* Lazy flags (xlat.c note 13): CMP.L's (on registers and on memory),
 * SUB.L's and ADD.L's (ADDQ, ADDI, SUBI too), read in the block by Bcc
 * of most conditions and by Scc, and after a block boundary by Scc, Bcc,
 * MOVE from SR (a handler) and TST (An)+ (a memory stencil setting them
 * all), across FPU operations (one a divide by zero, which the handler
 * runs), or stacked by a zero divide (the handler's begin) and by bus
 * errors on a read, on a store and on a CMP.L's own read (the memory
 * stencil's way through the core), every handler adding the stacked SR
 * into d7; a store through the core setting the flags it stores after
 * lazy ones, and X written between a lazy ADD and a store through the
 * core. The operands are pseudo-random, and every fourth round the
 * source is $80000000 (V set), every eighth the destination's own value
 * (Z set). */
static void lazy_setup(void)
{
  handler2(5, 0xde57, 0x4e73); /* addw %sp@,%d7; rte */
  bus_error_handler(0xde57);
}

static void lazy_flags_same(void)
{
  static const uint16_t code[] = {
      0x7400,                   /* 1000 moveq #0,%d2 */
      0x7e00,                   /* 1002 moveq #0,%d7 */
      0x7c00,                   /* 1004 moveq #0,%d6 */
      0x263c, 0x1234, 0x5678,   /* 1006 movel #305419896,%d3 */
      0x722f,                   /* 100c moveq #47,%d1 */
      0x41f8, 0x5000,           /* 100e lea 5000,%a0 */
      0x49f9, 0x0002, 0x0000,   /* 1012 lea 20000,%a4 */
      0x4c3c, 0x3000, 0x41c6,   /* 1018 mulul #1103515245,%d3 */
      0x4e6d,                   /* 101e */
      0x0683, 0x0000, 0x3039,   /* 1020 addil #12345,%d3 */
      0x2803,                   /* 1026 movel %d3,%d4 */
      0x4844,                   /* 1028 swap %d4 */
      0x2a01,                   /* 102a movel %d1,%d5 */
      0x0285, 0x0000, 0x0003,   /* 102c andil #3,%d5 */
      0x6606,                   /* 1032 bnes 103a */
      0x283c, 0x8000, 0x0000,   /* 1034 movel #-2147483648,%d4 */
      0x2a01,                   /* 103a movel %d1,%d5 */
      0x0285, 0x0000, 0x0007,   /* 103c andil #7,%d5 */
      0x6602,                   /* 1042 bnes 1046 */
      0x2803,                   /* 1044 movel %d3,%d4 */
      0xb684,                   /* 1046 cmpl %d4,%d3 */
      0x52c5,                   /* 1048 shi %d5 */
      0xd485,                   /* 104a addl %d5,%d2 */
      0xb684,                   /* 104c cmpl %d4,%d3 */
      0x6e02,                   /* 104e bgts 1052 */
      0x5282,                   /* 1050 addql #1,%d2 */
      0xb684,                   /* 1052 cmpl %d4,%d3 */
      0x6902,                   /* 1054 bvss 1058 */
      0x5682,                   /* 1056 addql #3,%d2 */
      0x0c83, 0x7fff, 0xffff,   /* 1058 cmpil #2147483647,%d3 */
      0x6b02,                   /* 105e bmis 1062 */
      0x5a82,                   /* 1060 addql #5,%d2 */
      0xb883,                   /* 1062 cmpl %d3,%d4 */
      0x6302,                   /* 1064 blss 1068 */
      0xd482,                   /* 1066 addl %d2,%d2 */
      0xb883,                   /* 1068 cmpl %d3,%d4 */
      0x6000, 0x0002,           /* 106a braw 106e */
      0x5fc5,                   /* 106e sle %d5 */
      0xd485,                   /* 1070 addl %d5,%d2 */
      0xb883,                   /* 1072 cmpl %d3,%d4 */
      0x6000, 0x0002,           /* 1074 braw 1078 */
      0x6d02,                   /* 1078 blts 107c */
      0x5e82,                   /* 107a addql #7,%d2 */
      0xb684,                   /* 107c cmpl %d4,%d3 */
      0x6000, 0x0002,           /* 107e braw 1082 */
      0x40c5,                   /* 1082 movew %sr,%d5 */
      0xd485,                   /* 1084 addl %d5,%d2 */
      0xb684,                   /* 1086 cmpl %d4,%d3 */
      0x6000, 0x0002,           /* 1088 braw 108c */
      0x4a18,                   /* 108c tstb %a0@+ */
      0x6602,                   /* 108e bnes 1092 */
      0x5282,                   /* 1090 addql #1,%d2 */
      0xb684,                   /* 1092 cmpl %d4,%d3 */
      0x6506,                   /* 1094 bcss 109c */
      0x4a10,                   /* 1096 tstb %a0@ */
      0x6702,                   /* 1098 beqs 109c */
      0x5482,                   /* 109a addql #2,%d2 */
      0xb684,                   /* 109c cmpl %d4,%d3 */
      0x80c6,                   /* 109e divuw %d6,%d0 */
      0x2a7c, 0x0000, 0x10ae,   /* 10a0 moveal #4270,%a5 */
      0x0c84, 0x4000, 0x0000,   /* 10a6 cmpil #1073741824,%d4 */
      0x2014,                   /* 10ac movel %a4@,%d0 */
      0x2a7c, 0x0000, 0x10ba,   /* 10ae moveal #4282,%a5 */
      0xb684,                   /* 10b4 cmpl %d4,%d3 */
      0x6e02,                   /* 10b6 bgts 10ba */
      0x2883,                   /* 10b8 movel %d3,%a4@ */
      0xb684,                   /* 10ba cmpl %d4,%d3 */
      0x4a18,                   /* 10bc tstb %a0@+ */
      0x6000, 0x0002,           /* 10be braw 10c2 */
      0x5bc5,                   /* 10c2 smi %d5 */
      0xd485,                   /* 10c4 addl %d5,%d2 */
      0xb684,                   /* 10c6 cmpl %d4,%d3 */
      0x6e02,                   /* 10c8 bgts 10cc */
      0x5282,                   /* 10ca addql #1,%d2 */
      0x2a04,                   /* 10cc movel %d4,%d5 */
      0x6000, 0x0002,           /* 10ce braw 10d2 */
      0x5bc5,                   /* 10d2 smi %d5 */
      0xd485,                   /* 10d4 addl %d5,%d2 */
      0xb883,                   /* 10d6 cmpl %d3,%d4 */
      0x6c02,                   /* 10d8 bges 10dc */
      0x1083,                   /* 10da moveb %d3,%a0@ */
      0xb684,                   /* 10dc cmpl %d4,%d3 */
      0x6404,                   /* 10de bccs 10e4 */
      0x6602,                   /* 10e0 bnes 10e4 */
      0x5282,                   /* 10e2 addql #1,%d2 */
      0xb684,                   /* 10e4 cmpl %d4,%d3 */
      0x6a04,                   /* 10e6 bpls 10ec */
      0x6802,                   /* 10e8 bvcs 10ec */
      0x5282,                   /* 10ea addql #1,%d2 */
      0xb6a8, 0x0004,           /* 10ec cmpl %a0@(4),%d3 */
      0x6202,                   /* 10f0 bhis 10f4 */
      0x5282,                   /* 10f2 addql #1,%d2 */
      0xb684,                   /* 10f4 cmpl %d4,%d3 */
      0x2a7c, 0x0000, 0x1102,   /* 10f6 moveal #4354,%a5 */
      0xb694,                   /* 10fc cmpl %a4@,%d3 */
      0x6502,                   /* 10fe bcss 1102 */
      0x5282,                   /* 1100 addql #1,%d2 */
      0xb8a8, 0xfffc,           /* 1102 cmpl %a0@(-4),%d4 */
      0x6000, 0x0002,           /* 1106 braw 110a */
      0x5cc5,                   /* 110a sge %d5 */
      0xd485,                   /* 110c addl %d5,%d2 */
      0xb684,                   /* 110e cmpl %d4,%d3 */
      0xf203, 0x4000,           /* 1110 fmovel %d3,%fp0 */
      0xf204, 0x4022,           /* 1114 faddl %d4,%fp0 */
      0xf206, 0x4020,           /* 1118 fdivl %d6,%fp0 */
      0x6202,                   /* 111c bhis 1120 */
      0x5282,                   /* 111e addql #1,%d2 */
      0xb883,                   /* 1120 cmpl %d3,%d4 */
      0xf204, 0x4080,           /* 1122 fmovel %d4,%fp1 */
      0x6000, 0x0002,           /* 1126 braw 112a */
      0x5dc5,                   /* 112a slt %d5 */
      0xd485,                   /* 112c addl %d5,%d2 */
      0x2a03,                   /* 112e movel %d3,%d5 */
      0xda84,                   /* 1130 addl %d4,%d5 */
      0x6902,                   /* 1132 bvss 1136 */
      0x5282,                   /* 1134 addql #1,%d2 */
      0x2a04,                   /* 1136 movel %d4,%d5 */
      0x5e85,                   /* 1138 addql #7,%d5 */
      0x6000, 0x0002,           /* 113a braw 113e */
      0x5bc5,                   /* 113e smi %d5 */
      0xd485,                   /* 1140 addl %d5,%d2 */
      0x2a03,                   /* 1142 movel %d3,%d5 */
      0x9a84,                   /* 1144 subl %d4,%d5 */
      0x6202,                   /* 1146 bhis 114a */
      0x5682,                   /* 1148 addql #3,%d2 */
      0x2a03,                   /* 114a movel %d3,%d5 */
      0x0485, 0x0001, 0x2345,   /* 114c subil #74565,%d5 */
      0x2a7c, 0x0000, 0x115a,   /* 1152 moveal #4442,%a5 */
      0x2014,                   /* 1158 movel %a4@,%d0 */
      0x2a04,                   /* 115a movel %d4,%d5 */
      0xda83,                   /* 115c addl %d3,%d5 */
      0x40c0,                   /* 115e movew %sr,%d0 */
      0xd480,                   /* 1160 addl %d0,%d2 */
      0x2a03,                   /* 1162 movel %d3,%d5 */
      0x0685, 0x4000, 0x0000,   /* 1164 addil #1073741824,%d5 */
      0x6000, 0x0002,           /* 116a braw 116e */
      0x55c5,                   /* 116e scs %d5 */
      0xd485,                   /* 1170 addl %d5,%d2 */
      0xb684,                   /* 1172 cmpl %d4,%d3 */
      0x6202,                   /* 1174 bhis 1178 */
      0x5282,                   /* 1176 addql #1,%d2 */
      0x2a7c, 0x0000, 0x1180,   /* 1178 moveal #4480,%a5 */
      0x2883,                   /* 117e movel %d3,%a4@ */
      0x5bc5,                   /* 1180 smi %d5 */
      0xd485,                   /* 1182 addl %d5,%d2 */
      0x2a03,                   /* 1184 movel %d3,%d5 */
      0xda84,                   /* 1186 addl %d4,%d5 */
      0x2010,                   /* 1188 movel %a0@,%d0 */
      0x5280,                   /* 118a addql #1,%d0 */
      0x2a7c, 0x0000, 0x1194,   /* 118c moveal #4500,%a5 */
      0x2884,                   /* 1192 movel %d4,%a4@ */
      0x56c5,                   /* 1194 sne %d5 */
      0xd485,                   /* 1196 addl %d5,%d2 */
      0xb684,                   /* 1198 cmpl %d4,%d3 */
      0x5381,                   /* 119a subql #1,%d1 */
      0x6600, 0xfe7a,           /* 119c bnew 1018 */
      0x4e72, 0x2700,           /* 11a0 stop #9984 */
  };
  run_seeds(code, sizeof code / 2, lazy_setup, 6);
  CU_ASSERT_EQUAL(tm_d(&tj, 1), 0);
  CU_ASSERT_NOT_EQUAL(tm_d(&tj, 7), 0);
  done2();
}

/* TST.L and TST.B on Dn, on (An) and (d16,An), and TST.B (An)+, and CMPI.B
 * #imm,Dn, with lazy flags (xlat.c note 13), read by Bcc of most
 * conditions right after them (the operands handed over in registers), by
 * a BVS past a MOVEA (no flags), and after a block boundary by Scc; the
 * values pseudo-random, every fourth 0 and every eighth $80 (a negative
 * byte). */
static void lazy_tests_same(void)
{
  static const uint16_t code[] = {
      0x7400,                          /* 1000 moveq #0,%d2 */
      0x263c, 0x1234, 0x5678,          /* 1002 movel #305419896,%d3 */
      0x722f,                          /* 1008 moveq #47,%d1 */
      0x41f8, 0x5000,                  /* 100a lea 5000,%a0 */
      0x4c3c, 0x3000, 0x41c6, 0x4e6d,  /* 100e mulul #1103515245,%d3 */
      0x0683, 0x0000, 0x3039,          /* 1016 addil #12345,%d3 */
      0x2803,                          /* 101c movel %d3,%d4 */
      0x4844,                          /* 101e swap %d4 */
      0x2a01,                          /* 1020 movel %d1,%d5 */
      0x0285, 0x0000, 0x0003,          /* 1022 andil #3,%d5 */
      0x6602,                          /* 1028 bnes 102c */
      0x7800,                          /* 102a moveq #0,%d4 */
      0x2a01,                          /* 102c movel %d1,%d5 */
      0x0285, 0x0000, 0x0007,          /* 102e andil #7,%d5 */
      0x6606,                          /* 1034 bnes 103c */
      0x283c, 0x0000, 0x0080,          /* 1036 movel #128,%d4 */
      0x2084,                          /* 103c movel %d4,%a0@ */
      0x2c04,                          /* 103e movel %d4,%d6 */
      0x4a86,                          /* 1040 tstl %d6 */
      0x6e02,                          /* 1042 bgts 1046 */
      0x5282,                          /* 1044 addql #1,%d2 */
      0x4a84,                          /* 1046 tstl %d4 */
      0x6b02,                          /* 1048 bmis 104c */
      0x5682,                          /* 104a addql #3,%d2 */
      0x4a04,                          /* 104c tstb %d4 */
      0x6d02,                          /* 104e blts 1052 */
      0x5a82,                          /* 1050 addql #5,%d2 */
      0x4a04,                          /* 1052 tstb %d4 */
      0x6202,                          /* 1054 bhis 1058 */
      0xd482,                          /* 1056 addl %d2,%d2 */
      0x4a90,                          /* 1058 tstl %a0@ */
      0x6302,                          /* 105a blss 105e */
      0x5e82,                          /* 105c addql #7,%d2 */
      0x4a28, 0x0003,                  /* 105e tstb %a0@(3) */
      0x6c02,                          /* 1062 bges 1066 */
      0x5282,                          /* 1064 addql #1,%d2 */
      0x4a28, 0x0003,                  /* 1066 tstb %a0@(3) */
      0x6702,                          /* 106a beqs 106e */
      0x5482,                          /* 106c addql #2,%d2 */
      0x4a90,                          /* 106e tstl %a0@ */
      0x6000, 0x0002,                  /* 1070 braw 1074 */
      0x5bc5,                          /* 1074 smi %d5 */
      0xd485,                          /* 1076 addl %d5,%d2 */
      0x4a04,                          /* 1078 tstb %d4 */
      0x6000, 0x0002,                  /* 107a braw 107e */
      0x5fc5,                          /* 107e sle %d5 */
      0xd485,                          /* 1080 addl %d5,%d2 */
      0x4a84,                          /* 1082 tstl %d4 */
      0x2244,                          /* 1084 moveal %d4,%a1 */
      0x6902,                          /* 1086 bvss 108a */
      0x5282,                          /* 1088 addql #1,%d2 */
      0x0c04, 0x0040,                  /* 108a cmpib #64,%d4 */
      0x6202,                          /* 108e bhis 1092 */
      0x5282,                          /* 1090 addql #1,%d2 */
      0x0c04, 0x0080,                  /* 1092 cmpib #-128,%d4 */
      0x6d02,                          /* 1096 blts 109a */
      0x5482,                          /* 1098 addql #2,%d2 */
      0x0c03, 0x00ff,                  /* 109a cmpib #-1,%d3 */
      0x6502,                          /* 109e bcss 10a2 */
      0x5682,                          /* 10a0 addql #3,%d2 */
      0x0c04, 0x007f,                  /* 10a2 cmpib #127,%d4 */
      0x6000, 0x0002,                  /* 10a6 braw 10aa */
      0x59c5,                          /* 10aa svs %d5 */
      0xd485,                          /* 10ac addl %d5,%d2 */
      0x4a18,                          /* 10ae tstb %a0@+ */
      0x6502,                          /* 10b0 bcss 10b4 */
      0x5882,                          /* 10b2 addql #4,%d2 */
      0x5381,                          /* 10b4 subql #1,%d1 */
      0x6600, 0xff56,                  /* 10b6 bnew 100e */
      0x4e72, 0x2700,                  /* 10ba stop #9984 */
  };
  run_loop_to_stop(code, sizeof code / 2, 9);
}

static void fpu_table(void)
{
  static const uint64_t table[] = {
      0x3ff0000000000000ull, /* 1 */
      0x4008000000000000ull, /* 3 */
      0x0000000000000000ull, /* +0 */
      0x8000000000000000ull, /* -0 */
      0x0004000000000001ull, /* a denormal; its high half a denormal single */
      0x7e37e43c8800759cull, /* 1e300 */
      0x7ff0000000000000ull, /* +inf */
      0x7ff8000000000000ull, /* a NaN */
      0xc004000000000000ull, /* -2.5 */
      0x01a56e1fc2f8f359ull, /* 1e-300 */
      0x401c000000000000ull, /* 7 */
      0x3fb999999999999aull, /* 0.1 */
      0x4000000000000000ull, /* 2 */
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    uint32_t a = 0x5000 + 8 * (uint32_t)i;
    both_w32(a, (uint32_t)(table[i] >> 32));
    both_w32(a + 4, (uint32_t)table[i]);
  }
  handler2(49, 0x4e73, 0x4e71); /* INEX: rte */
  bus_error_resumes_at_a5();
}

/* The FPU stencils (xlat.c note 12): FMOVE, FADD, FSUB, FMUL, FDIV, FCMP,
 * FTST from FP registers, Dn, immediates, (An), (An)+ and (d16,An) in
 * .L, .S and .D, over operands that take the fast path and operands that
 * must not (zeros, a denormal, infinities, a NaN, a divisor of zero, a
 * growing square that overflows, a shrinking one that underflows; an
 * exact product of 64 significant bits, 2/3), in the
 * default mode, then rounding toward zero, down and up, single precision,
 * and with INEX enabled (each inexact result traps); the FPSR after each
 * step, the results and the sources as loaded (a double, a single and a
 * long, denormals among them) are stored. Last, a double read from outside RAM
 * (a bus error, resumed at a5: (A2)+ must be as the interpreter leaves
 * it). */
static void fpu_operations_same(void)
{
  static const uint16_t code[] = {
      0x41f8, 0x5000,            /* 1000 lea 5000,%a0 */
      0x43f8, 0x6000,            /* 1004 lea 6000,%a1 */
      0x7209,                    /* 1008 moveq #9,%d1 */
      0xf23c, 0x9000, 0x0000, 0x0000, /* 100a fmovel #0,%fpcr */
      0xf200, 0x1c00,            /* 1012 fmovex %fp7,%fp0 */
      0xf23c, 0x4400, 0x3f80, 0x0000, /* 1016 fmoves #0e1,%fp0 */
      0xf23c, 0x5580, 0x3ff8, 0x0000, 0x0000, 0x0000, /* 101e fmoved #0e1.5,%fp3 */
      0xf238, 0x5500, 0x5028,    /* 102a fmoved 5028,%fp2 */
      0xf218, 0x5480,            /* 1030 fmoved %a0@+,%fp1 */
      0xf219, 0x6880,            /* 1034 fmovex %fp1,%a1@+ */
      0xf200, 0x0422,            /* 1038 faddx %fp1,%fp0 */
      0xf210, 0x5423,            /* 103c fmuld %a0@,%fp0 */
      0xf219, 0xa800,            /* 1040 fmovel %fpsr,%a1@+ */
      0xf228, 0x55a0, 0x0008,    /* 1044 fdivd %a0@(8),%fp3 */
      0xf219, 0xa800,            /* 104a fmovel %fpsr,%a1@+ */
      0xf200, 0x05a8,            /* 104e fsubx %fp1,%fp3 */
      0xf200, 0x01b8,            /* 1052 fcmpx %fp0,%fp3 */
      0xf219, 0xa800,            /* 1056 fmovel %fpsr,%a1@+ */
      0xf200, 0x0c3a,            /* 105a ftstx %fp3 */
      0xf219, 0xa800,            /* 105e fmovel %fpsr,%a1@+ */
      0xf200, 0x0923,            /* 1062 fmulx %fp2,%fp2 */
      0xf219, 0xa800,            /* 1066 fmovel %fpsr,%a1@+ */
      0xf23c, 0x4200, 0x0000, 0x0001, /* 106a fmovel #1,%fp4 */
      0xf23c, 0x4220, 0x0000, 0x0003, /* 1072 fdivl #3,%fp4 */
      0xf23c, 0x4223, 0x0000, 0x0002, /* 107a fmull #2,%fp4 */
      0xf219, 0xa800,            /* 1082 fmovel %fpsr,%a1@+ */
      0xf201, 0x4200,            /* 1086 fmovel %d1,%fp4 */
      0xf201, 0x4220,            /* 108a fdivl %d1,%fp4 */
      0xf219, 0xa800,            /* 108e fmovel %fpsr,%a1@+ */
      0xf23c, 0x4680, 0x3dcc, 0xcccd, /* 1092 fmoves #0e0.1,%fp5 */
      0xf23c, 0x56a2, 0x3fb9, 0x9999, 0x9999, 0x999a, /* 109a faddd #0e0.1,%fp5 */
      0xf210, 0x46a8,            /* 10a6 fsubs %a0@,%fp5 */
      0xf228, 0x42a3, 0x0004,    /* 10aa fmull %a0@(4),%fp5 */
      0xf210, 0x4780,            /* 10b0 fmoves %a0@,%fp7 */
      0xf219, 0x6b80,            /* 10b4 fmovex %fp7,%a1@+ */
      0xf228, 0x4380, 0x0004,    /* 10b8 fmovel %a0@(4),%fp7 */
      0xf219, 0x6b80,            /* 10be fmovex %fp7,%a1@+ */
      0xf219, 0xa800,            /* 10c2 fmovel %fpsr,%a1@+ */
      0xf200, 0x1700,            /* 10c6 fmovex %fp5,%fp6 */
      0xf200, 0x0b20,            /* 10ca fdivx %fp2,%fp6 */
      0xf200, 0x1b23,            /* 10ce fmulx %fp6,%fp6 */
      0xf219, 0xa800,            /* 10d2 fmovel %fpsr,%a1@+ */
      0xf210, 0x5738,            /* 10d6 fcmpd %a0@,%fp6 */
      0xf219, 0xa800,            /* 10da fmovel %fpsr,%a1@+ */
      0xf219, 0x7400,            /* 10de fmoved %fp0,%a1@+ */
      0xf219, 0x6980,            /* 10e2 fmovex %fp3,%a1@+ */
      0xf219, 0x7700,            /* 10e6 fmoved %fp6,%a1@+ */
      0x51c9, 0xff44,            /* 10ea dbf %d1,1030 */
      0xf202, 0xa800,            /* 10ee fmovel %fpsr,%d2 */
      0xf203, 0xa400,            /* 10f2 fmovel %fpiar,%d3 */
      0x0684, 0x0000, 0x0010,    /* 10f6 addil #16,%d4 */
      0xf204, 0x9000,            /* 10fc fmovel %d4,%fpcr */
      0x41f8, 0x5000,            /* 1100 lea 5000,%a0 */
      0x7209,                    /* 1104 moveq #9,%d1 */
      0x0c84, 0x0000, 0x0040,    /* 1106 cmpil #64,%d4 */
      0x6300, 0xff22,            /* 110c blsw 1030 */
      0xf23c, 0x9000, 0x0000, 0x0200, /* 1110 fmovel #512,%fpcr */
      0x41f8, 0x5000,            /* 1118 lea 5000,%a0 */
      0x7209,                    /* 111c moveq #9,%d1 */
      0x0c84, 0x0000, 0x0050,    /* 111e cmpil #80,%d4 */
      0x6300, 0xff0a,            /* 1124 blsw 1030 */
      0x45f9, 0x00ff, 0xfff0,    /* 1128 lea fffff0,%a2 */
      0x4bfa, 0x0006,            /* 112e lea %pc@(1136),%a5 */
      0xf21a, 0x5780,            /* 1132 fmoved %a2@+,%fp7 */
      0xf23c, 0x9000, 0x0000, 0x0000, /* 1136 fmovel #0,%fpcr */
      0xf218, 0x5780,            /* 113e fmoved %a0@+,%fp7 */
      0x4e72, 0x2700,            /* 1142 stop #9984 */
  };
  /* The FMOVEs to and from control registers and the stores run their
   * handlers: more than half of what is translated has stencils of its own. */
  run_seeds(code, sizeof code / 2, fpu_table, 5);
  CU_ASSERT_EQUAL(tm_d(&tj, 5), 1);            /* one bus error */
  CU_ASSERT_EQUAL(m68k_get_fpctl(tj.cpu, 0), 0); /* through every pass */
  done2();
}

/* NEG.L, SWAP, EXT.W, EXT.L, EXTB.L, MULS.L and MULU.L (#imm and Dn, with
 * and without overflow) on registers, their flags read by Scc (a stencil
 * reading the flags) and ADDX, or dropped where overwritten. */
static void register_operations_same(void)
{
  static const uint16_t code[] = {
      0x7400,                  /* 1000 moveq #0,%d2 */
      0x203c, 0x1234, 0x5678,  /* 1002 movel #305419896,%d0 */
      0x721e,                  /* 1008 moveq #30,%d1 */
      0x2600,                  /* 100a movel %d0,%d3 */
      0x4483,                  /* 100c negl %d3 */
      0xd583,                  /* 100e addxl %d3,%d2 */
      0x4483,                  /* 1010 negl %d3 */
      0x5bc4,                  /* 1012 smi %d4 */
      0x4843,                  /* 1014 swap %d3 */
      0x57c5,                  /* 1016 seq %d5 */
      0xd483,                  /* 1018 addl %d3,%d2 */
      0x2600,                  /* 101a movel %d0,%d3 */
      0x4883,                  /* 101c extw %d3 */
      0x5ac4,                  /* 101e spl %d4 */
      0xd483,                  /* 1020 addl %d3,%d2 */
      0x48c3,                  /* 1022 extl %d3 */
      0x5bc5,                  /* 1024 smi %d5 */
      0xd483,                  /* 1026 addl %d3,%d2 */
      0x2600,                  /* 1028 movel %d0,%d3 */
      0x49c3,                  /* 102a extbl %d3 */
      0x57c6,                  /* 102c seq %d6 */
      0xd483,                  /* 102e addl %d3,%d2 */
      0x2600,                  /* 1030 movel %d0,%d3 */
      0x4c3c, 0x3800, 0xffff,  /* 1032 mulsl #-7919,%d3 */
      0xe111,                  /* 1038  */
      0x59c4,                  /* 103a svs %d4 */
      0xd483,                  /* 103c addl %d3,%d2 */
      0x2600,                  /* 103e movel %d0,%d3 */
      0x4c3c, 0x3000, 0x0000,  /* 1040 mulul #40503,%d3 */
      0x9e37,                  /* 1046  */
      0x59c5,                  /* 1048 svs %d5 */
      0x5bc6,                  /* 104a smi %d6 */
      0xd483,                  /* 104c addl %d3,%d2 */
      0x2e01,                  /* 104e movel %d1,%d7 */
      0x4c00, 0x7800,          /* 1050 mulsl %d0,%d7 */
      0x58c4,                  /* 1054 svc %d4 */
      0xd487,                  /* 1056 addl %d7,%d2 */
      0x4c01, 0x7000,          /* 1058 mulul %d1,%d7 */
      0x52c5,                  /* 105c shi %d5 */
      0xd487,                  /* 105e addl %d7,%d2 */
      0xd484,                  /* 1060 addl %d4,%d2 */
      0xd485,                  /* 1062 addl %d5,%d2 */
      0xd486,                  /* 1064 addl %d6,%d2 */
      0x4c3c, 0x2800, 0x0000,  /* 1066 mulsl #3,%d2 */
      0x0003,                  /* 106c  */
      0xd082,                  /* 106e addl %d2,%d0 */
      0xeb98,                  /* 1070 roll #5,%d0 */
      0x5381,                  /* 1072 subql #1,%d1 */
      0x6600, 0xff94,          /* 1074 bnew 100a */
      0x4e72, 0x2700,          /* 1078 stop #9984 */
  };
  /* All but the ADDX, ROL and STOP (3 of 50) have stencils of their own. */
  run_loop_to_stop(code, sizeof code / 2, 8);
}

/* Chains of long operations on one register (xlat.c note 15): MOVE.L into
 * D3, then ADD, LSL #, SUB, LSR #, EOR, ASR #, OR, ANDI, ORI, EORI, NEG,
 * SWAP, EXT.L, MULU.L #, MULS.L Dn, LSL and ASR by a register (counts of
 * 32 and more included), ADDQ, SUBQ, ADDI, SUBI on it, each taking the
 * value the one before left, the last's flags read by Scc (and others'
 * mid-chain: AND.L's, NEG.L's, MULS.L's); on A0: MOVEA.L, ADDA.L, SUBA.L,
 * ADDA.W, LEA (d16,A0); CLR.L then ADDQ; MOVEQ then ADD then CMPI and its
 * Bcc, MOVE then SUB and its Bcc, MOVE, SUB then CMP and its Bcc. Every
 * sum is stored, so RAM differs wherever a value went wrong. */
static void one_register_chains_same(void)
{
  static const uint16_t code[] = {
      0x7400,                          /* 1000 moveq #0,%d2 */
      0x203c, 0x1234, 0x5678,          /* 1002 movel #305419896,%d0 */
      0x7228,                          /* 1008 moveq #40,%d1 */
      0x43f8, 0x5000,                  /* 100a lea 5000,%a1 */
      0x2600,                          /* 100e movel %d0,%d3 */
      0xd681,                          /* 1010 addl %d1,%d3 */
      0xe78b,                          /* 1012 lsll #3,%d3 */
      0x9680,                          /* 1014 subl %d0,%d3 */
      0xe48b,                          /* 1016 lsrl #2,%d3 */
      0xb183,                          /* 1018 eorl %d0,%d3 */
      0xe283,                          /* 101a asrl #1,%d3 */
      0x8681,                          /* 101c orl %d1,%d3 */
      0x0283, 0x7fff, 0xffff,          /* 101e andil #2147483647,%d3 */
      0x0083, 0x0000, 0x0100,          /* 1024 oril #256,%d3 */
      0x0a83, 0x0000, 0x0055,          /* 102a eoril #85,%d3 */
      0x4483,                          /* 1030 negl %d3 */
      0x4843,                          /* 1032 swap %d3 */
      0x48c3,                          /* 1034 extl %d3 */
      0x4c3c, 0x3000, 0x0000, 0x0003,  /* 1036 mulul #3,%d3 */
      0x4c01, 0x3800,                  /* 103e mulsl %d1,%d3 */
      0xe3ab,                          /* 1042 lsll %d1,%d3 */
      0xe2a3,                          /* 1044 asrl %d1,%d3 */
      0x5a83,                          /* 1046 addql #5,%d3 */
      0x5583,                          /* 1048 subql #2,%d3 */
      0x0683, 0x0000, 0x03e8,          /* 104a addil #1000,%d3 */
      0x0483, 0x0000, 0x004d,          /* 1050 subil #77,%d3 */
      0x55c4,                          /* 1056 scs %d4 */
      0xd483,                          /* 1058 addl %d3,%d2 */
      0xd484,                          /* 105a addl %d4,%d2 */
      0x2600,                          /* 105c movel %d0,%d3 */
      0x9681,                          /* 105e subl %d1,%d3 */
      0xc680,                          /* 1060 andl %d0,%d3 */
      0x5bc4,                          /* 1062 smi %d4 */
      0xd484,                          /* 1064 addl %d4,%d2 */
      0xe2ab,                          /* 1066 lsrl %d1,%d3 */
      0x4483,                          /* 1068 negl %d3 */
      0x59c4,                          /* 106a svs %d4 */
      0xd484,                          /* 106c addl %d4,%d2 */
      0xd483,                          /* 106e addl %d3,%d2 */
      0x49c3,                          /* 1070 extbl %d3 */
      0x4c3c, 0x3800, 0xffff, 0xfff9,  /* 1072 mulsl #-7,%d3 */
      0x59c4,                          /* 107a svs %d4 */
      0xd484,                          /* 107c addl %d4,%d2 */
      0xd483,                          /* 107e addl %d3,%d2 */
      0x2043,                          /* 1080 moveal %d3,%a0 */
      0xd1c1,                          /* 1082 addal %d1,%a0 */
      0x91c0,                          /* 1084 subal %d0,%a0 */
      0xd0c1,                          /* 1086 addaw %d1,%a0 */
      0x41e8, 0x000c,                  /* 1088 lea %a0@(12),%a0 */
      0x2a08,                          /* 108c movel %a0,%d5 */
      0xd485,                          /* 108e addl %d5,%d2 */
      0x4286,                          /* 1090 clrl %d6 */
      0x5286,                          /* 1092 addql #1,%d6 */
      0xd486,                          /* 1094 addl %d6,%d2 */
      0x7e07,                          /* 1096 moveq #7,%d7 */
      0xde81,                          /* 1098 addl %d1,%d7 */
      0x0c87, 0x0000, 0x0014,          /* 109a cmpil #20,%d7 */
      0x6e02,                          /* 10a0 bgts 10a4 */
      0x5282,                          /* 10a2 addql #1,%d2 */
      0x2e02,                          /* 10a4 movel %d2,%d7 */
      0x9e81,                          /* 10a6 subl %d1,%d7 */
      0x6502,                          /* 10a8 bcss 10ac */
      0x5682,                          /* 10aa addql #3,%d2 */
      0x2e00,                          /* 10ac movel %d0,%d7 */
      0x9e83,                          /* 10ae subl %d3,%d7 */
      0xbe81,                          /* 10b0 cmpl %d1,%d7 */
      0x6302,                          /* 10b2 blss 10b6 */
      0x5a82,                          /* 10b4 addql #5,%d2 */
      0xd083,                          /* 10b6 addl %d3,%d0 */
      0xeb98,                          /* 10b8 roll #5,%d0 */
      0x22c2,                          /* 10ba movel %d2,%a1@+ */
      0x5381,                          /* 10bc subql #1,%d1 */
      0x6600, 0xff4e,                  /* 10be bnew 100e */
      0x4e72, 0x2700,                  /* 10c2 stop #9984 */
  };
  run_loop_to_stop(code, sizeof code / 2, 9);
}

/* Shifts by a data register a MOVEQ in the block set (xlat.c note 16):
 * counts 15, 1, 31 (as the immediate's), and 32, 0, 63 and 33 (not: the
 * register shift is kept), their C and X read by Scc and ADDX; a count
 * register shifted by itself, and one a MOVE overwrote after its MOVEQ.
 * Then values handed on past a link (note 15): a MOVE.L (An)+,Dn's result
 * to EOR.L, MOVE.L Dn,Dm taking Dn's, MOVEQ and SUBA.L between a value's
 * producer and its reader (pass-through), an ADD.L whose result goes to
 * MOVEA.L and on to LEA (d16,An), and byte and word loads into Dn whose
 * upper bits the value passed on must keep. */
static void known_counts_and_passed_values_same(void)
{
  static const uint16_t code[] = {
      0x7400,                          /* 1000 moveq #0,%d2 */
      0x203c, 0x1234, 0x5678,          /* 1002 movel #305419896,%d0 */
      0x7228,                          /* 1008 moveq #40,%d1 */
      0x43f8, 0x5000,                  /* 100a lea 5000,%a1 */
      0x2600,                          /* 100e movel %d0,%d3 */
      0x7c0f,                          /* 1010 moveq #15,%d6 */
      0xedab,                          /* 1012 lsll %d6,%d3 */
      0xd583,                          /* 1014 addxl %d3,%d2 */
      0x2600,                          /* 1016 movel %d0,%d3 */
      0x7a01,                          /* 1018 moveq #1,%d5 */
      0xeaab,                          /* 101a lsrl %d5,%d3 */
      0x55c4,                          /* 101c scs %d4 */
      0xd484,                          /* 101e addl %d4,%d2 */
      0x2600,                          /* 1020 movel %d0,%d3 */
      0x7a1f,                          /* 1022 moveq #31,%d5 */
      0xeaa3,                          /* 1024 asrl %d5,%d3 */
      0xd583,                          /* 1026 addxl %d3,%d2 */
      0x2600,                          /* 1028 movel %d0,%d3 */
      0x7a20,                          /* 102a moveq #32,%d5 */
      0xebab,                          /* 102c lsll %d5,%d3 */
      0x55c4,                          /* 102e scs %d4 */
      0xd484,                          /* 1030 addl %d4,%d2 */
      0xd583,                          /* 1032 addxl %d3,%d2 */
      0x2600,                          /* 1034 movel %d0,%d3 */
      0x7a00,                          /* 1036 moveq #0,%d5 */
      0xeaab,                          /* 1038 lsrl %d5,%d3 */
      0x55c4,                          /* 103a scs %d4 */
      0xd484,                          /* 103c addl %d4,%d2 */
      0xd583,                          /* 103e addxl %d3,%d2 */
      0x2600,                          /* 1040 movel %d0,%d3 */
      0x7aff,                          /* 1042 moveq #-1,%d5 */
      0xeaa3,                          /* 1044 asrl %d5,%d3 */
      0xd583,                          /* 1046 addxl %d3,%d2 */
      0x2600,                          /* 1048 movel %d0,%d3 */
      0x7a21,                          /* 104a moveq #33,%d5 */
      0xeaab,                          /* 104c lsrl %d5,%d3 */
      0xd483,                          /* 104e addl %d3,%d2 */
      0x7a09,                          /* 1050 moveq #9,%d5 */
      0xebad,                          /* 1052 lsll %d5,%d5 */
      0xd485,                          /* 1054 addl %d5,%d2 */
      0x7a07,                          /* 1056 moveq #7,%d5 */
      0x2a01,                          /* 1058 movel %d1,%d5 */
      0x2600,                          /* 105a movel %d0,%d3 */
      0xebab,                          /* 105c lsll %d5,%d3 */
      0xd483,                          /* 105e addl %d3,%d2 */
      0x7a0c,                          /* 1060 moveq #12,%d5 */
      0xb182,                          /* 1062 eorl %d0,%d2 */
      0xeaaa,                          /* 1064 lsrl %d5,%d2 */
      0x2619,                          /* 1066 movel %a1@+,%d3 */
      0xb183,                          /* 1068 eorl %d0,%d3 */
      0x2e03,                          /* 106a movel %d3,%d7 */
      0x7c0d,                          /* 106c moveq #13,%d6 */
      0xedaf,                          /* 106e lsll %d6,%d7 */
      0xde83,                          /* 1070 addl %d3,%d7 */
      0x91c8,                          /* 1072 subal %a0,%a0 */
      0xd487,                          /* 1074 addl %d7,%d2 */
      0x2302,                          /* 1076 movel %d2,%a1@- */
      0x5889,                          /* 1078 addql #4,%a1 */
      0x2602,                          /* 107a movel %d2,%d3 */
      0x7c05,                          /* 107c moveq #5,%d6 */
      0xd686,                          /* 107e addl %d6,%d3 */
      0x2043,                          /* 1080 moveal %d3,%a0 */
      0x45e8, 0x0008,                  /* 1082 lea %a0@(8),%a2 */
      0x2e0a,                          /* 1086 movel %a2,%d7 */
      0xd487,                          /* 1088 addl %d7,%d2 */
      0x1611,                          /* 108a moveb %a1@,%d3 */
      0xd483,                          /* 108c addl %d3,%d2 */
      0x3629, 0x0002,                  /* 108e movew %a1@(2),%d3 */
      0xd483,                          /* 1092 addl %d3,%d2 */
      0xd082,                          /* 1094 addl %d2,%d0 */
      0xeb98,                          /* 1096 roll #5,%d0 */
      0x5381,                          /* 1098 subql #1,%d1 */
      0x6600, 0xff72,                  /* 109a bnew 100e */
      0x4e72, 0x2700,                  /* 109e stop #9984 */
  };
  run_loop_to_stop(code, sizeof code / 2, 7);
}

/* Values handed on past stencils that write no register (xlat.c note 15):
 * MOVE.L's result past a TST.L whose flags ADD overwrites (a nop) to the
 * ADD; MOVE.L's past CMP.L, whose flags BHI reads, to MOVEA.L; and a
 * jump table's entry loaded by MOVE.W (d8,PC,D3.W),D3 past the lazy
 * flags' clearing to JMP (d8,PC,D3.W), whose targets read the CMP.L's
 * flags. */
static void values_passed_past_compares_same(void)
{
  static const uint16_t code[] = {
      0x7400,                          /* 1000 moveq #0,%d2 */
      0x203c, 0x1234, 0x5678,          /* 1002 movel #305419896,%d0 */
      0x7228,                          /* 1008 moveq #40,%d1 */
      0x41f8, 0x5000,                  /* 100a lea 5000,%a0 */
      0x2600,                          /* 100e movel %d0,%d3 */
      0x4a82,                          /* 1010 tstl %d2 */
      0xd681,                          /* 1012 addl %d1,%d3 */
      0x5bc4,                          /* 1014 smi %d4 */
      0xd483,                          /* 1016 addl %d3,%d2 */
      0xd484,                          /* 1018 addl %d4,%d2 */
      0x2602,                          /* 101a movel %d2,%d3 */
      0xb081,                          /* 101c cmpl %d1,%d0 */
      0x2243,                          /* 101e moveal %d3,%a1 */
      0x6200, 0x0004,                  /* 1020 bhiw 1026 */
      0x5282,                          /* 1024 addql #1,%d2 */
      0xd489,                          /* 1026 addl %a1,%d2 */
      0x2601,                          /* 1028 movel %d1,%d3 */
      0xd683,                          /* 102a addl %d3,%d3 */
      0xb082,                          /* 102c cmpl %d2,%d0 */
      0x363b, 0x3006,                  /* 102e movew %pc@(1036,%d3:w),%d3 */
      0x4efb, 0x3002,                  /* 1032 jmp %pc@(1036,%d3:w) */
      0x00a4, 0x00ac, 0x00a4, 0x00ac, 0x00a4, 0x00ac, 0x00a4, 0x00ac, /* 1036 the jump table: */
      0x00a4, 0x00ac, 0x00a4, 0x00ac, 0x00a4, 0x00ac, 0x00a4, 0x00ac, /* 10da and 10e2 by turns */
      0x00a4, 0x00ac, 0x00a4, 0x00ac, 0x00a4, 0x00ac, 0x00a4, 0x00ac,
      0x00a4, 0x00ac, 0x00a4, 0x00ac, 0x00a4, 0x00ac, 0x00a4, 0x00ac,
      0x00a4, 0x00ac, 0x00a4, 0x00ac, 0x00a4, 0x00ac, 0x00a4, 0x00ac,
      0x00a4, 0x00ac, 0x00a4, 0x00ac, 0x00a4, 0x00ac, 0x00a4, 0x00ac,
      0x00a4, 0x00ac, 0x00a4, 0x00ac, 0x00a4, 0x00ac, 0x00a4, 0x00ac,
      0x00a4, 0x00ac, 0x00a4, 0x00ac, 0x00a4, 0x00ac, 0x00a4, 0x00ac,
      0x00a4, 0x00ac, 0x00a4, 0x00ac, 0x00a4, 0x00ac, 0x00a4, 0x00ac,
      0x00a4, 0x00ac, 0x00a4, 0x00ac, 0x00a4, 0x00ac, 0x00a4, 0x00ac,
      0x00a4, 0x00ac,
      0x5682,                          /* 10da addql #3,%d2 */
      0x6300, 0x0004,                  /* 10dc blsw 10e2 */
      0x5a82,                          /* 10e0 addql #5,%d2 */
      0xd483,                          /* 10e2 addl %d3,%d2 */
      0xeb98,                          /* 10e4 roll #5,%d0 */
      0x5381,                          /* 10e6 subql #1,%d1 */
      0x6600, 0xff24,                  /* 10e8 bnew 100e */
      0x4e72, 0x2700,                  /* 10ec stop #9984 */
  };
  run_loop_to_stop(code, sizeof code / 2, 8);
}

/* (d8,An,Xi) loads into Dn whose index register the instruction before
 * set, and whose result the next one reads (xlat.c note 15): ADD.L
 * Dn,Dn then MOVE.W (A2,Dn.W),Dn; LSL.L #2 then MOVE.L, its result read by
 * ADDQ whose flags Scc reads; ORI.L then MOVE.B (A2,Dn.W),Dn then LSL;
 * SUB.L then MOVE.L (4,A2,Dn.L*4),Dn whose flags Scc reads; and a jump
 * table read with (d8,PC,Xi) and jumped through with JMP (d8,PC,Dn.W).
 * The byte and word loads' registers have their upper bits set, which
 * the value passed on must keep. */
static void indexed_values_passed_same(void)
{
  static const uint16_t code[] = {
      0x7400,                          /* 1000 moveq #0,%d2 */
      0x263c, 0x1234, 0x5678,          /* 1002 movel #305419896,%d3 */
      0x721e,                          /* 1008 moveq #30,%d1 */
      0x45f8, 0x5000,                  /* 100a lea 5000,%a2 */
      0x43f8, 0x6000,                  /* 100e lea 6000,%a1 */
      0x7e00,                          /* 1012 moveq #0,%d7 */
      0x2583, 0x7c00,                  /* 1014 movel %d3,%a2@(0,%d7:l:4) */
      0x4c3c, 0x3000, 0x41c6, 0x4e6d,  /* 1018 mulul #1103515245,%d3 */
      0x0683, 0x0000, 0x3039,          /* 1020 addil #12345,%d3 */
      0x5287,                          /* 1026 addql #1,%d7 */
      0x0c87, 0x0000, 0x0040,          /* 1028 cmpil #64,%d7 */
      0x66e4,                          /* 102e bnes 1014 */
      0x2001,                          /* 1030 movel %d1,%d0 */
      0x0280, 0x0000, 0x0007,          /* 1032 andil #7,%d0 */
      0x0080, 0x0007, 0x0000,          /* 1038 oril #458752,%d0 */
      0xd080,                          /* 103e addl %d0,%d0 */
      0x3032, 0x0000,                  /* 1040 movew %a2@(0,%d0:w),%d0 */
      0xd480,                          /* 1044 addl %d0,%d2 */
      0x2801,                          /* 1046 movel %d1,%d4 */
      0xe58c,                          /* 1048 lsll #2,%d4 */
      0x2a32, 0x4800,                  /* 104a movel %a2@(0,%d4:l),%d5 */
      0x5685,                          /* 104e addql #3,%d5 */
      0x5bc6,                          /* 1050 smi %d6 */
      0xd485,                          /* 1052 addl %d5,%d2 */
      0xd486,                          /* 1054 addl %d6,%d2 */
      0x2801,                          /* 1056 movel %d1,%d4 */
      0x0284, 0x0000, 0x003f,          /* 1058 andil #63,%d4 */
      0x0084, 0x5a5a, 0x0000,          /* 105e oril #1515847680,%d4 */
      0x1832, 0x4000,                  /* 1064 moveb %a2@(0,%d4:w),%d4 */
      0xe38c,                          /* 1068 lsll #1,%d4 */
      0xd484,                          /* 106a addl %d4,%d2 */
      0x780c,                          /* 106c moveq #12,%d4 */
      0x9881,                          /* 106e subl %d1,%d4 */
      0x2832, 0x4c04,                  /* 1070 movel %a2@(4,%d4:l:4),%d4 */
      0x56c6,                          /* 1074 sne %d6 */
      0xd484,                          /* 1076 addl %d4,%d2 */
      0xd486,                          /* 1078 addl %d6,%d2 */
      0x22c2,                          /* 107a movel %d2,%a1@+ */
      0x2001,                          /* 107c movel %d1,%d0 */
      0x0280, 0x0000, 0x0003,          /* 107e andil #3,%d0 */
      0xd080,                          /* 1084 addl %d0,%d0 */
      0x303b, 0x0806,                  /* 1086 movew %pc@(108e,%d0:l),%d0 */
      0x4efb, 0x0002,                  /* 108a jmp %pc@(108e,%d0:w) */
      0x0008,                          /* 108e .word (case 0) */
      0x000c,                          /* 1090 .word (case 1) */
      0x0010,                          /* 1092 .word (case 2) */
      0x0014,                          /* 1094 .word (case 3) */
      0x5282,                          /* 1096 addql #1,%d2 */
      0x600a,                          /* 1098 bras 10a4 */
      0x5482,                          /* 109a addql #2,%d2 */
      0x6006,                          /* 109c bras 10a4 */
      0xd482,                          /* 109e addl %d2,%d2 */
      0x6002,                          /* 10a0 bras 10a4 */
      0x5b82,                          /* 10a2 subql #5,%d2 */
      0x5381,                          /* 10a4 subql #1,%d1 */
      0x6600, 0xff88,                  /* 10a6 bnew 1030 */
      0x4e72, 0x2700,                  /* 10aa stop #9984 */
  };
  run_loop_to_stop(code, sizeof code / 2, 8);
}

/* Runs the translating CPU to its STOP in one run: it must have translated
 * `blocks` blocks of `insns` instructions, `specialised` of them with
 * stencils of their own. Ends the case (done2). */
static void run_counted(uint64_t blocks, uint64_t insns, uint64_t specialised)
{
  CU_ASSERT_EQUAL(m68k_run(tj.cpu, 100000, NULL), M68K_STOP_STOPPED);
  m68k_jit_stats_t st;
  m68k_jit_stats(tj.cpu, &st);
  CU_ASSERT_EQUAL(st.translated, blocks);
  CU_ASSERT_EQUAL(st.insns, insns);
  CU_ASSERT_EQUAL(st.specialised, specialised);
  done2();
}

/* CLR.B and CLR.W on Dn keep the rest of the register and set the flags
 * of 0 (read by Scc, or dropped where ADD.L overwrites them); MOVEA.W
 * #imm sign-extends. */
static void clears_and_movea_immediate_same(void)
{
  static const uint16_t code[] = {
      0x7264,         /* 1000 moveq #100,%d1 */
      0x203c, 0x89ab, 0xcdef, /* 1002 move.l #0x89abcdef,%d0 */
      0x2600,         /* 1008 move.l %d0,%d3 */
      0x4203,         /* 100a clr.b %d3 */
      0x5bc4,         /* 100c smi %d4 */
      0xd483,         /* 100e add.l %d3,%d2 */
      0x4243,         /* 1010 clr.w %d3 */
      0x57c5,         /* 1012 seq %d5 */
      0xd483,         /* 1014 add.l %d3,%d2 */
      0x4244,         /* 1016 clr.w %d4 (flags overwritten by the ADD) */
      0xd484,         /* 1018 add.l %d4,%d2 */
      0xd485,         /* 101a add.l %d5,%d2 */
      0x327c, 0x8001, /* 101c movea.w #-32767,%a1 */
      0x347c, 0x7ffe, /* 1020 movea.w #32766,%a2 */
      0xd3ca,         /* 1024 adda.l %a2,%a1 */
      0xd489,         /* 1026 add.l %a1,%d2 */
      0xd081,         /* 1028 add.l %d1,%d0 */
      0x5381,         /* 102a subq.l #1,%d1 */
      0x66da,         /* 102c bne.b 1008 */
      0x4e72, 0x2700, /* 102e stop #0x2700 */
  };
  run_seeds(code, sizeof code / 2, NULL, 8);
  CU_ASSERT_EQUAL(tm_a(&tj, 1), 0xffffffffu);
  CU_ASSERT_EQUAL(tm_d(&tj, 5) & 0xff, 0xff); /* seq after a clear */
  done2();
  /* In one run, the blocks at 1000 (20 instructions), 1008 (the loop's,
   * 17, which ends at its branch back: xlat.c note 19) and 102e (the
   * STOP after it): all but the MOVE.L #imm,Dn and the STOPs have stencils
   * of their own. */
  start2(code, sizeof code / 2, M68K_MODEL_68030);
  run_counted(3, 38, 38 - 3);
}

/* Vector 3 (address error) to moveq #7,%d5; stop. */
static void address_error_stops(void)
{
  static const uint16_t handler[] = {0x7a07, 0x4e72, 0x2700};
  both_w16(TM_HANDLER + 4 * 3, handler, 3);
}

/* A switch's jump table (JMP (d8,PC,Xi) through the return cache), a copy
 * between (An) and (d16,An), and a jump to an odd address at the end (the
 * address error at the fetch after it). */
/* The 68030's full extension word without memory indirection has stencils
 * of its own (xlat.c full_index): (bd,An,Xi) with a word, long or null base
 * displacement, (bd,Xi) with the base suppressed, (bd,An) and (bd) with
 * the index suppressed, as a source and a destination, in MOVE and ADD;
 * a memory indirect form stays the handler's. */
static void full_extension_words_same(void)
{
  static const uint16_t code[] = {
      0x7e0f,                         /* 1000 moveq #15,%d7 */
      0x2430, 0x1d20, 0x0100,         /* 1002 move.l (0x100,%a0,%d1.l*4),%d2 */
      0x2630, 0x13b0, 0x0000, 0x5010, /* 1008 move.l (0x5010,%d1.w*2),%d3 */
      0x2182, 0x0160, 0x0020,         /* 1010 move.l %d2,(0x20,%a0) */
      0x2830, 0x01f0, 0x0000, 0x5004, /* 1016 move.l (0x5004).l,%d4 (full format) */
      0xdab0, 0x1f10,                 /* 101e add.l (%a0,%d1.l*8),%d5 */
      0x2c30, 0x1db1, 0x0000, 0x5000, /* 1022 move.l ([0x5000,%d1.l*4]),%d6 */
      0x5281,                         /* 102a addq.l #1,%d1 */
      0x51cf, 0xffd4,                 /* 102c dbra %d7,1002 */
      0x4e72, 0x2700,                 /* 1030 stop #0x2700 */
  };
  for (uint32_t seed = 1; seed <= 4; seed++) {
    start2(code, sizeof code / 2, M68K_MODEL_68030);
    for (uint32_t a = 0x5000; a < 0x5200; a += 4) {
      tm_w32(&ti, a, a);
      tm_w32(&tj, a, a);
    }
    tm_set_a(&ti, 0, 0x5000);
    tm_set_a(&tj, 0, 0x5000);
    run_both(seed, 100000, NULL);
    CU_ASSERT_TRUE(m68k_stopped(tj.cpu));
    CU_ASSERT_EQUAL(tm_d(&tj, 1), 16);
    CU_ASSERT_EQUAL(tm_d(&tj, 2), 0x5100 + 4 * 15);
    CU_ASSERT_EQUAL(tm_d(&tj, 6), 0x5000 + 4 * 15);
    tm_done(&ti);
    tm_done(&tj);
  }
  /* In one run, the block at 1000 (10 instructions), the loop's at 1002
   * (8, up to its branch back: xlat.c note 19) and the STOP's at 1030:
   * all but the memory indirect MOVEs and the STOPs have stencils of
   * their own. */
  start2(code, sizeof code / 2, M68K_MODEL_68030);
  tm_set_a(&tj, 0, 0x5000);
  for (uint32_t a = 0x5000; a < 0x5200; a += 4)
    tm_w32(&tj, a, a);
  run_counted(3, 19, 19 - 4);
}

static void jump_tables_and_copies_same(void)
{
  static const uint16_t code[] = {
      0x7400,                  /* 1000 moveq #0,%d2 */
      0x721e,                  /* 1002 moveq #30,%d1 */
      0x43f8, 0x5000,          /* 1004 lea 5000,%a1 */
      0x45f8, 0x5400,          /* 1008 lea 5400,%a2 */
      0x2001,                  /* 100c movel %d1,%d0 */
      0x0280, 0x0000, 0x0003,  /* 100e andil #3,%d0 */
      0xd080,                  /* 1014 addl %d0,%d0 */
      0x303b, 0x0806,          /* 1016 movew %pc@(101e <table>,%d0:l),%d0 */
      0x4efb, 0x0002,          /* 101a jmp %pc@(101e <table>,%d0:w) */
      0x0008,                  /* 101e .short 0x0008 */
      0x000e,                  /* 1020 .short 0x000e */
      0x0014,                  /* 1022 .short 0x0014 */
      0x0026,                  /* 1024 .short 0x0026 */
      0x5282,                  /* 1026 addql #1,%d2 */
      0x6000, 0x001c,          /* 1028 braw 1046 <next> */
      0xd481,                  /* 102c addl %d1,%d2 */
      0x6000, 0x0016,          /* 102e braw 1046 <next> */
      0x2281,                  /* 1032 movel %d1,%a1@ */
      0x2491,                  /* 1034 movel %a1@,%a2@ */
      0x2569, 0x0004, 0x0004,  /* 1036 movel %a1@(4),%a2@(4) */
      0x2612,                  /* 103c movel %a2@,%d3 */
      0xd483,                  /* 103e addl %d3,%d2 */
      0x6000, 0x0004,          /* 1040 braw 1046 <next> */
      0xe58a,                  /* 1044 lsll #2,%d2 */
      0x5381,                  /* 1046 subql #1,%d1 */
      0x6600, 0xffc2,          /* 1048 bnew 100c <loop> */
      0x7002,                  /* 104c moveq #2,%d0 */
      0x4efb, 0x0001,          /* 104e jmp %pc@(1051 <next+0xb>,%d0:w) */
      0x4e72, 0x2700,          /* 1052 stop #9984 */
  };
  run_seeds(code, sizeof code / 2, address_error_stops, 6);
  CU_ASSERT_EQUAL(tm_d(&tj, 5), 7);
  CU_ASSERT_EQUAL(tm_d(&tj, 1), 0);
  done2();
}

/* A switch whose cases end in a BRA back to its dispatch: each block
 * follows its BRAs (xlat.c note 2), two of them in case D, into a page
 * where no block begins (1200) and through a zero divide (1300). Case D
 * rewrites the instruction at 1200 once (ADDQ #1 becomes #2), which must
 * kill every block holding a copy of it; in chunks from several seeds on
 * both models, budgets end inside followed code. */
static void followed_branches_same(void)
{
  static const uint16_t code[] = {
      0x7400,                  /* 1000 moveq #0,%d2 */
      0x7228,                  /* 1002 moveq #40,%d1 */
      0x7a00,                  /* 1004 moveq #0,%d5 */
      0x7e00,                  /* 1006 moveq #0,%d7 */
      0x43f8, 0x5000,          /* 1008 lea 0x5000.w,%a1 */
      0x6000, 0x00f2,          /* 100c bra.w 1100 <dispatch> */
      0x4e72, 0x2700,          /* 1010 stop #0x2700 */
      0x5282,                  /* 1014 addq.l #1,%d2 (case A) */
      0x6000, 0x00e8,          /* 1016 bra.w 1100 */
      0xd481,                  /* 101a add.l %d1,%d2 (case B) */
      0x6000, 0x00e2,          /* 101c bra.w 1100 */
      0xe58a,                  /* 1020 lsl.l #2,%d2 (case C) */
      0x6000, 0x02dc,          /* 1022 bra.w 1300 */
  };
  static const uint16_t dispatch[] = {
      0x5381,                  /* 1100 subq.l #1,%d1 */
      0x6b00, 0xff0c,          /* 1102 bmi.w 1010 */
      0x2001,                  /* 1106 move.l %d1,%d0 */
      0x0280, 0x0000, 0x0003,  /* 1108 andi.l #3,%d0 */
      0xd080,                  /* 110e add.l %d0,%d0 */
      0x303b, 0x0806,          /* 1110 move.w %pc@(1118,%d0:l),%d0 */
      0x4efb, 0x0002,          /* 1114 jmp %pc@(1118,%d0:w) */
      0xfefc, 0xff02, 0xff08, 0x0008, /* 1118 A, B, C, D */
      0x2282,                  /* 1120 move.l %d2,(%a1) (case D) */
      0x0c81, 0x0000, 0x0017,  /* 1122 cmpi.l #23,%d1 */
      0x6606,                  /* 1128 bne.s 1130 */
      0x31fc, 0x5482, 0x1200,  /* 112a move.w #0x5482,0x1200.w */
      0x6000, 0x00ce,          /* 1130 bra.w 1200 */
  };
  static const uint16_t far[] = {
      0x5282,                  /* 1200 addq.l #1,%d2 (becomes addq.l #2) */
      0x6000, 0xfefc,          /* 1202 bra.w 1100 */
  };
  static const uint16_t divide[] = {
      0x80c5,                  /* 1300 divu.w %d5,%d0 (zero divide) */
      0x6000, 0xfdfc,          /* 1302 bra.w 1100 */
  };
  static const m68k_model_t models[] = {M68K_MODEL_68000, M68K_MODEL_68030};
  for (size_t mi = 0; mi < 2; mi++)
    for (uint32_t seed = 0; seed <= 6; seed++) {
      start2(code, sizeof code / 2, models[mi]);
      both_w16(0x1100, dispatch, sizeof dispatch / 2);
      both_w16(0x1200, far, sizeof far / 2);
      both_w16(0x1300, divide, sizeof divide / 2);
      handler2(5, 0x5287, 0x4e73); /* addq.l #1,%d7; rte */
      run_to_stop(seed);
      CU_ASSERT_EQUAL(tm_d(&tj, 7), 10);      /* case C's zero divides */
      CU_ASSERT_EQUAL(tm_r16(&tj, 0x1200), 0x5482);
      m68k_jit_stats_t st;
      m68k_jit_stats(tj.cpu, &st);
      CU_ASSERT(st.followed >= 4);
      CU_ASSERT(st.invalidated > 0);
      done2();
    }
}

/* BRAs followed to the end of RAM (xlat.c note 2): to its last word,
 * whose MOVEQ the block takes before it stops at the end of RAM, and past
 * it, where nothing can be taken; either way the block exits at the
 * first address it could not translate, where the fetch is a bus error
 * (its handler sets d6 and stops). */
static void followed_branches_to_the_end_of_ram(void)
{
  static const uint16_t handler[] = {0x7c07, 0x4e72, 0x2700}; /* moveq #7,%d6; stop */
  static const uint16_t code[2][4] = {
      {0x7000, 0x60ff, 0x0000, 0xeffa}, /* moveq #0,%d0; bra.l 0xfffe */
      {0x7000, 0x60ff, 0x0000, 0xeffc}, /* moveq #0,%d0; bra.l 0x10000 */
  };
  for (unsigned k = 0; k < 2; k++)
    for (uint32_t seed = 0; seed <= 4; seed++) {
      start2(code[k], 4, M68K_MODEL_68030);
      both_w16(TM_HANDLER + 4 * 2, handler, 3);
      both_w16(0xfffe, (const uint16_t[]){0x7005}, 1); /* moveq #5,%d0 */
      run_to_stop(seed);
      CU_ASSERT_EQUAL(tm_d(&tj, 6), 7);
      CU_ASSERT_EQUAL(tm_d(&tj, 0), k == 0 ? 5u : 0u);
      m68k_jit_stats_t st;
      m68k_jit_stats(tj.cpu, &st);
      CU_ASSERT_EQUAL(st.followed, k == 0); /* past RAM: no span, nothing followed */
      done2();
    }
}

/* The loop register cache (xlat.c note 19). A pointer chase's table of
 * 256 longs at 0x7000 (entry i: (97 i + 13) mod 256, or `exit` at 5 when
 * it is not 0) and a byte table at 0x7800 ((7 i + 3) mod 256). */
static void chase_tables(uint32_t exit)
{
  for (uint32_t i = 0; i < 256; i++) {
    both_w32(0x7000 + 4 * i, i == 5 && exit ? exit : (97 * i + 13) & 255);
    uint16_t w = (uint16_t)((((7 * (2 * i) + 3) & 255) << 8) | ((7 * (2 * i + 1) + 3) & 255));
    if (i < 128)
      both_w16(0x7800 + 2 * i, &w, 1);
  }
}

static void chase_setup(void)
{
  chase_tables(0);
}

/* Loops whose blocks keep registers in host registers: a sieve's marking
 * (MOVE.B #1,(A4) and two ADDAs, unrolled), run three times: first to its
 * end, where code after its branch back reads the cached A1 and A4, then
 * twice out of its middle by the BHI (the second time through the exit
 * chained the first) to code that reads A4; a pointer chase (D0 the
 * index and the destination of one MOVE, and the source of an ADD); a
 * byte chase (the upper bytes of D3 kept from the slot); and a loop where
 * A1 is written by an ADDA, which has cached variants, and a MOVEA, which
 * has none: A1 stays in the CPU there, D1 alone is cached. Run whole and
 * in chunks from several seeds, so that budgets end inside the loops and
 * they are entered again through their fill. */
static void loop_registers_cached_same(void)
{
  static const uint16_t code[] = {
      0x7003,                  /* 1000 moveq #3,%d0 */
      0x2c3c, 0x0000, 0x0400,  /* 1002 move.l #0x400,%d6 */
      0x7e03,                  /* 1008 moveq #3,%d7 */
      0x49f8, 0x6000,          /* 100a lea 0x6000.w,%a4 */
      0x93c9,                  /* 100e suba.l %a1,%a1 */
      0x18bc, 0x0001,          /* 1010 move.b #1,(%a4) */
      0xd3c0,                  /* 1014 adda.l %d0,%a1 */
      0xd9c0,                  /* 1016 adda.l %d0,%a4 */
      0xb3c6,                  /* 1018 cmpa.l %d6,%a1 */
      0x6210,                  /* 101a bhi.s 102c */
      0x18bc, 0x0001,          /* 101c move.b #1,(%a4) */
      0xd3c0,                  /* 1020 adda.l %d0,%a1 */
      0xd9c0,                  /* 1022 adda.l %d0,%a4 */
      0xb3c6,                  /* 1024 cmpa.l %d6,%a1 */
      0x63e8,                  /* 1026 bls.s 1010 */
      0x2a09,                  /* 1028 move.l %a1,%d5 */
      0xda8c,                  /* 102a add.l %a4,%d5 */
      0xddcc,                  /* 102c adda.l %a4,%a6 */
      0x5586,                  /* 102e subq.l #2,%d6 */
      0x5387,                  /* 1030 subq.l #1,%d7 */
      0x66d6,                  /* 1032 bne.s 100a */
      0x45f8, 0x7000,          /* 1034 lea 0x7000.w,%a2 */
      0x7000,                  /* 1038 moveq #0,%d0 */
      0x7400,                  /* 103a moveq #0,%d2 */
      0x223c, 0x0000, 0x012c,  /* 103c move.l #300,%d1 */
      0x2032, 0x0c00,          /* 1042 move.l (%a2,%d0.l*4),%d0 */
      0xd480,                  /* 1046 add.l %d0,%d2 */
      0x5381,                  /* 1048 subq.l #1,%d1 */
      0x66f6,                  /* 104a bne.s 1042 */
      0x47f8, 0x7800,          /* 104c lea 0x7800.w,%a3 */
      0x263c, 0x1234, 0x0010,  /* 1050 move.l #0x12340010,%d3 */
      0x7232,                  /* 1056 moveq #50,%d1 */
      0x1633, 0x3000,          /* 1058 move.b (%a3,%d3.w),%d3 */
      0xd883,                  /* 105c add.l %d3,%d4 */
      0x5381,                  /* 105e subq.l #1,%d1 */
      0x66f6,                  /* 1060 bne.s 1058 */
      0x7214,                  /* 1062 moveq #20,%d1 */
      0x93c9,                  /* 1064 suba.l %a1,%a1 */
      0xd3c1,                  /* 1066 adda.l %d1,%a1 */
      0x2a49,                  /* 1068 movea.l %a1,%a5 */
      0xdbfc, 0x0000, 0x0003,  /* 106a adda.l #3,%a5 */
      0x224d,                  /* 1070 movea.l %a5,%a1 */
      0x5381,                  /* 1072 subq.l #1,%d1 */
      0x66f0,                  /* 1074 bne.s 1066 */
      0x4e72, 0x2700,          /* 1076 stop #0x2700 */
  };
  for (uint32_t seed = 0; seed <= 8; seed++) {
    start2(code, sizeof code / 2, M68K_MODEL_68030);
    chase_setup();
    run_to_stop(seed);
    CU_ASSERT_EQUAL(tm_d(&tj, 5), 1026 + 0x6402);       /* after the first run's end */
    CU_ASSERT_EQUAL(tm_a(&tj, 6), 0x6402 + 2 * 0x63ff); /* A4 after each run */
    CU_ASSERT_EQUAL(tm_r16(&tj, 0x6000 + 0x3fe), 0x0001); /* 0x3ff = 3 * 341 */
    CU_ASSERT_EQUAL(tm_d(&tj, 3) & 0xffffff00u, 0x12340000u);
    CU_ASSERT_EQUAL(tm_a(&tj, 1), 20 * 21 / 2 + 3 * 20);
    m68k_jit_stats_t st;
    m68k_jit_stats(tj.cpu, &st);
    CU_ASSERT(st.cached >= 4);
    done2();
  }
}

/* A cached loop among memory operands that step their address
 * registers (MOVE.L (A0)+,(A1)+, ADD.L (A2)+,D2, TST.B (A3)+), which
 * stay in the CPU, with a branch out of its middle (BEQ over an ADDQ,
 * taken at each zero byte: twice in a row, then once more) to a block
 * that branches back into the loop's entry. */
static void cached_loop_among_memory_operands_same(void)
{
  static const uint16_t code[] = {
      0x41f8, 0x7000,          /* 1000 lea 0x7000.w,%a0 */
      0x43f8, 0x6000,          /* 1004 lea 0x6000.w,%a1 */
      0x45f8, 0x7000,          /* 1008 lea 0x7000.w,%a2 */
      0x47f8, 0x7800,          /* 100c lea 0x7800.w,%a3 */
      0x7400,                  /* 1010 moveq #0,%d2 */
      0x7a00,                  /* 1012 moveq #0,%d5 */
      0x7c00,                  /* 1014 moveq #0,%d6 */
      0x223c, 0x0000, 0x0100,  /* 1016 move.l #256,%d1 */
      0x22d8,                  /* 101c move.l (%a0)+,(%a1)+ */
      0xd49a,                  /* 101e add.l (%a2)+,%d2 */
      0x4a1b,                  /* 1020 tst.b (%a3)+ */
      0x6702,                  /* 1022 beq.s 1026 */
      0x5285,                  /* 1024 addq.l #1,%d5 */
      0x5486,                  /* 1026 addq.l #2,%d6 */
      0x5381,                  /* 1028 subq.l #1,%d1 */
      0x66f0,                  /* 102a bne.s 101c */
      0x4e72, 0x2700,          /* 102c stop #0x2700 */
  };
  for (uint32_t seed = 0; seed <= 8; seed++) {
    start2(code, sizeof code / 2, M68K_MODEL_68030);
    chase_setup();
    both_w16(0x780a, (const uint16_t[]){0}, 1); /* bytes 10 and 11; 219 is 0 already */
    run_to_stop(seed);
    CU_ASSERT_EQUAL(tm_d(&tj, 5), 256 - 3);
    CU_ASSERT_EQUAL(tm_d(&tj, 6), 2 * 256);
    CU_ASSERT_EQUAL(tm_d(&tj, 2), 255 * 256 / 2);
    CU_ASSERT_EQUAL(tm_r32(&tj, 0x6000 + 4 * 255), tm_r32(&tj, 0x7000 + 4 * 255));
    m68k_jit_stats_t st;
    m68k_jit_stats(tj.cpu, &st);
    CU_ASSERT(st.cached >= 1);
    done2();
  }
}

/* The same on the 68000, a loop on registers alone (ADDQ, ADD, EOR, SUBQ
 * and BNE: every one cached), and on both models the same closed by a
 * BRA. */
static void loop_registers_cached_on_the_68000(void)
{
  static const uint16_t code[] = {
      0x7000,         /* 1000 moveq #0,%d0 */
      0x7400,         /* 1002 moveq #0,%d2 */
      0x7264,         /* 1004 moveq #100,%d1 */
      0x5680,         /* 1006 addq.l #3,%d0 */
      0xd480,         /* 1008 add.l %d0,%d2 */
      0xb580,         /* 100a eor.l %d2,%d0 */
      0x5381,         /* 100c subq.l #1,%d1 */
      0x66f6,         /* 100e bne.s 1006 */
      0x4e72, 0x2700, /* 1010 stop #0x2700 */
  };
  /* The same loop closed by a BRA back, which ends its block: no spill
   * after it, one on the BEQ out. */
  static const uint16_t bra[] = {
      0x7000,         /* 1000 moveq #0,%d0 */
      0x7400,         /* 1002 moveq #0,%d2 */
      0x7264,         /* 1004 moveq #100,%d1 */
      0x5680,         /* 1006 addq.l #3,%d0 */
      0xd480,         /* 1008 add.l %d0,%d2 */
      0xb580,         /* 100a eor.l %d2,%d0 */
      0x5381,         /* 100c subq.l #1,%d1 */
      0x6702,         /* 100e beq.s 1012 */
      0x60f4,         /* 1010 bra.s 1006 */
      0x4e72, 0x2700, /* 1012 stop #0x2700 */
  };
  static const m68k_model_t models[] = {M68K_MODEL_68000, M68K_MODEL_68030};
  for (size_t k = 0; k < 3; k++)
    for (uint32_t seed = 0; seed <= 6; seed++) {
      start2(k ? bra : code, k ? sizeof bra / 2 : sizeof code / 2, models[k > 1]);
      run_to_stop(seed);
      CU_ASSERT_EQUAL(tm_d(&tj, 1), 0);
      m68k_jit_stats_t st;
      m68k_jit_stats(tj.cpu, &st);
      CU_ASSERT(st.cached >= 1);
      done2();
    }
}

/* A pointer chase stored through A0 at its end, and a bus error handler
 * (at 101e) that copies D0 and D1 to D6 and D7 and stops. */
static const uint16_t chase_code[] = {
    0x45f8, 0x7000,         /* 1000 lea 0x7000.w,%a2 */
    0x7000,                 /* 1004 moveq #0,%d0 */
    0x7400,                 /* 1006 moveq #0,%d2 */
    0x223c, 0x0000, 0x012c, /* 1008 move.l #300,%d1 */
    0x2032, 0x0c00,         /* 100e move.l (%a2,%d0.l*4),%d0 */
    0xd480,                 /* 1012 add.l %d0,%d2 */
    0x5381,                 /* 1014 subq.l #1,%d1 */
    0x66f6,                 /* 1016 bne.s 100e */
    0x2082,                 /* 1018 move.l %d2,(%a0) */
    0x4e72, 0x2700,         /* 101a stop #0x2700 */
    0x2c00,                 /* 101e move.l %d0,%d6 */
    0x2e01,                 /* 1020 move.l %d1,%d7 */
    0x4e72, 0x2700,         /* 1022 stop #0x2700 */
};

/* A bus error inside a cached loop: the chase reaches an entry past RAM
 * (0x4000: 0x7000 + 4 * 0x4000 is 0x17000), and the handler sees D0 and D1
 * as the interpreter has them. */
static void bus_error_in_a_cached_loop(void)
{
  for (uint32_t seed = 0; seed <= 6; seed++) {
    start2(chase_code, sizeof chase_code / 2, M68K_MODEL_68030);
    chase_tables(0x4000);
    both_w32(TM_HANDLER + 4 * 2, 0x60000000u | (uint16_t)(0x101e - (TM_HANDLER + 4 * 2 + 2)));
    run_to_stop(seed);
    CU_ASSERT_EQUAL(tm_d(&tj, 6), 0x4000);
    CU_ASSERT(tm_d(&tj, 7) > 0 && tm_d(&tj, 7) < 300);
    done2();
  }
}

/* A cached loop (D1 and icount in host registers) whose MOVE stores into
 * its own code's page, after the code: the store cannot go inline, so
 * the block returns for the interpreter to run the MOVE, which must find
 * D1 and icount written back, and the store kills the block. */
static void cached_loop_leaves_a_store_to_the_interpreter(void)
{
  static const uint16_t code[] = {
      0x41f8, 0x10f0, /* 1000 lea 0x10f0.w,%a0 */
      0x7400,         /* 1004 moveq #0,%d2 */
      0x7228,         /* 1006 moveq #40,%d1 */
      0x5682,         /* 1008 addq.l #3,%d2 */
      0x2082,         /* 100a move.l %d2,(%a0) */
      0x5381,         /* 100c subq.l #1,%d1 */
      0x66f8,         /* 100e bne.s 1008 */
      0x4e72, 0x2700, /* 1010 stop #0x2700 */
  };
  for (uint32_t seed = 0; seed <= 6; seed++) {
    start2(code, sizeof code / 2, M68K_MODEL_68030);
    run_to_stop(seed);
    CU_ASSERT_EQUAL(tm_r32(&tj, 0x10f0), 3 * 40);
    m68k_jit_stats_t st;
    m68k_jit_stats(tj.cpu, &st);
    CU_ASSERT(st.cached >= 1 && st.invalidated >= 1);
    done2();
  }
}

/* Two CPUs sharing one translator take turns in the same cached loop
 * with their own registers, against two interpreting CPUs sharing their
 * RAM in the same way: each CPU's fill loads its own registers. */
static void cached_loop_shared_by_two_cpus(void)
{
  tm_t *ts[2] = {&ti, &tj};
  m68k_cpu_t *second[2];
  for (int k = 0; k < 2; k++) {
    tm_init(ts[k], M68K_MODEL_68030);
    tm_code(ts[k], chase_code, sizeof chase_code / 2);
    m68k_bus_t bus = {.ram = ts[k]->ram, .ram_base = 0, .ram_size = sizeof ts[k]->ram};
    second[k] = m68k_create(M68K_MODEL_68030, &bus);
    CU_ASSERT_PTR_NOT_NULL_FATAL(second[k]);
    m68k_set_reg(second[k], M68K_REG_SR, 0x2700);
    m68k_set_reg(second[k], M68K_REG_A0 + 7, 0x9000);
    m68k_set_reg(second[k], M68K_REG_A0 + 2, 0x7000);
    m68k_set_reg(second[k], M68K_REG_D0, 7);
    m68k_set_reg(second[k], M68K_REG_D0 + 1, 200);
    m68k_set_reg(second[k], M68K_REG_A0, 0x5004);
    m68k_set_reg(second[k], M68K_REG_PC, 0x100e);
    tm_set_a(ts[k], 0, 0x5000);
  }
  chase_setup();
  CU_ASSERT_EQUAL_FATAL(m68k_jit_enable(tj.cpu, 1, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(m68k_jit_enable(second[1], 1, tj.cpu), 0);
  uint32_t seed = 5;
  for (unsigned chunk = 0; chunk < 400; chunk++) {
    seed = seed * 1103515245u + 12345u;
    uint64_t n = 1 + (seed >> 16) % 29;
    for (int k = 0; k < 2; k++) {
      m68k_run(ts[k]->cpu, n, NULL);
      m68k_run(second[k], n + 3, NULL);
    }
    for (int r = 0; r < M68K_REG_COUNT; r++)
      if (m68k_get_reg(second[0], (m68k_reg_t)r) != m68k_get_reg(second[1], (m68k_reg_t)r)) {
        CU_FAIL("the second translated CPU differs from its interpreter");
        chunk = 400;
        break;
      }
    if (!same_state()) {
      CU_FAIL("the first translated CPU differs from its interpreter");
      break;
    }
  }
  CU_ASSERT_TRUE(m68k_stopped(tj.cpu) && m68k_stopped(second[1]));
  CU_ASSERT_NOT_EQUAL(tm_r32(&tj, 0x5000), 0);
  CU_ASSERT_NOT_EQUAL(tm_r32(&tj, 0x5004), 0);
  m68k_jit_stats_t st;
  m68k_jit_stats(tj.cpu, &st);
  CU_ASSERT(st.cached >= 1);
  for (int k = 0; k < 2; k++)
    m68k_destroy(second[k]);
  done2();
}

static void bad_arguments_are_refused(void)
{
  tm_init(&tj, M68K_MODEL_68030);
  m68k_bus_t none = {0};
  m68k_cpu_t *noram = m68k_create(M68K_MODEL_68030, &none);
  m68k_cpu_t *other = m68k_create(M68K_MODEL_68000, &(m68k_bus_t){.ram = tj.ram, .ram_size = 65536});
  CU_ASSERT_EQUAL(m68k_jit_enable(tj.cpu, 0, NULL), M68K_EINVAL);
  CU_ASSERT_EQUAL(m68k_jit_enable(tj.cpu, 65536, NULL), M68K_EINVAL);
  CU_ASSERT_EQUAL(m68k_jit_enable(tj.cpu, 65535, NULL), 0);
  CU_ASSERT_EQUAL(m68k_jit_enable(noram, 1, NULL), M68K_EINVAL);
  CU_ASSERT_EQUAL(m68k_jit_enable(other, 1, noram), M68K_EINVAL);  /* no translator */
  CU_ASSERT_EQUAL(m68k_jit_enable(other, 1, tj.cpu), M68K_EINVAL); /* another model */
  CU_ASSERT_EQUAL(m68k_jit_set_limit(tj.cpu, 0), M68K_EINVAL);
  CU_ASSERT_EQUAL(m68k_jit_set_limit(other, 10), M68K_EINVAL);
  m68k_jit_disable(tj.cpu);
  m68k_jit_stats_t st;
  m68k_jit_stats(tj.cpu, &st);
  CU_ASSERT_EQUAL(st.translated, 0);
  m68k_destroy(noram);
  m68k_destroy(other);
  tm_done(&tj);
}

int main(void)
{
  static const tm_case_t cases[] = {
      {"loop_same_at_every_chunk_boundary", loop_same_at_every_chunk_boundary},
      {"loop_same_on_the_68000", loop_same_on_the_68000},
      {"memory_operands_and_bus_errors_same", memory_operands_and_bus_errors_same},
      {"interrupts_taken_at_the_same_instruction", interrupts_taken_at_the_same_instruction},
      {"interrupts_unmasked_inside_a_block_taken_there",
       interrupts_unmasked_inside_a_block_taken_there},
      {"self_modifying_code_runs_the_new_instruction", self_modifying_code_runs_the_new_instruction},
      {"self_modifying_store_from_a_memory_stencil", self_modifying_store_from_a_memory_stencil},
      {"stores_at_the_edges_of_the_store_map", stores_at_the_edges_of_the_store_map},
      {"host_write_with_invalidate_runs_the_new_code", host_write_with_invalidate_runs_the_new_code},
      {"shared_translator_sees_the_other_cpus_store", shared_translator_sees_the_other_cpus_store},
      {"blocks_chain_and_the_bound_flushes", blocks_chain_and_the_bound_flushes},
      {"chained_exit_reaches_the_rewritten_block", chained_exit_reaches_the_rewritten_block},
      {"dead_flags_dropped_only_where_unread", dead_flags_dropped_only_where_unread},
      {"calls_and_returns_same", calls_and_returns_same},
      {"return_into_rewritten_code", return_into_rewritten_code},
      {"movem_same", movem_same},
      {"frame_same", frame_same},
      {"shifts_and_immediates_same", shifts_and_immediates_same},
      {"shift_by_register_without_flags_keeps_x", shift_by_register_without_flags_keeps_x},
      {"postincrement_and_indexed_same", postincrement_and_indexed_same},
      {"jump_tables_and_copies_same", jump_tables_and_copies_same},
      {"full_extension_words_same", full_extension_words_same},
      {"alu_on_memory_same", alu_on_memory_same},
      {"register_operations_same", register_operations_same},
      {"one_register_chains_same", one_register_chains_same},
      {"indexed_values_passed_same", indexed_values_passed_same},
      {"values_passed_past_compares_same", values_passed_past_compares_same},
      {"known_counts_and_passed_values_same", known_counts_and_passed_values_same},
      {"moves_through_the_core_same", moves_through_the_core_same},
      {"memory_operations_left_to_the_interpreter_same", memory_operations_left_to_the_interpreter_same},
      {"reads_left_to_the_interpreter_same", reads_left_to_the_interpreter_same},
      {"byte_and_word_operations_on_memory_same", byte_and_word_operations_on_memory_same},
      {"x_alone_of_memory_operations_same", x_alone_of_memory_operations_same},
      {"long_products_same", long_products_same},
      {"long_products_from_memory_same", long_products_from_memory_same},
      {"clears_and_movea_immediate_same", clears_and_movea_immediate_same},
      {"lazy_flags_same", lazy_flags_same},
      {"lazy_tests_same", lazy_tests_same},
      {"fpu_operations_same", fpu_operations_same},
      {"dead_flags_of_memory_stencils_seen_by_faults", dead_flags_of_memory_stencils_seen_by_faults},
      {"reads_through_the_core_set_dead_flags", reads_through_the_core_set_dead_flags},
      {"pea_through_the_core_counts_once", pea_through_the_core_counts_once},
      {"followed_branches_same", followed_branches_same},
      {"followed_branches_to_the_end_of_ram", followed_branches_to_the_end_of_ram},
      {"loop_registers_cached_same", loop_registers_cached_same},
      {"cached_loop_among_memory_operands_same", cached_loop_among_memory_operands_same},
      {"loop_registers_cached_on_the_68000", loop_registers_cached_on_the_68000},
      {"bus_error_in_a_cached_loop", bus_error_in_a_cached_loop},
      {"cached_loop_leaves_a_store_to_the_interpreter",
       cached_loop_leaves_a_store_to_the_interpreter},
      {"cached_loop_shared_by_two_cpus", cached_loop_shared_by_two_cpus},
      {"bad_arguments_are_refused", bad_arguments_are_refused},
  };
  return tm_run_suite("xlat", cases, sizeof(cases) / sizeof(cases[0]));
}
