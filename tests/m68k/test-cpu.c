/* test-cpu.c -- 68030 features of the core: bit fields, 64-bit multiply and
 * divide, memory-indirect modes, MOVEC, CHK2, the 68881 moves, exceptions and
 * their frames, interrupts and STOP. Instruction words were assembled with
 * m68k-linux-gnu-as -m68030 (the source is in each comment). */
#include "m68k-testutil.h"

#define DATA 0x5000u
#define DATA2 0x5100u

static tm_t tm;

static void start(const uint16_t *code, size_t n)
{
  tm_init(&tm, M68K_MODEL_68030);
  tm_code(&tm, code, n);
}

static void bitfield_extract_register_and_memory(void)
{
  static const uint16_t code[] = {
      0xe9c0, 0x1108, /* bfextu %d0{#4:#8},%d1 */
      0xebc0, 0x1610, /* bfexts %d0{#24:#16},%d1 */
      0xedd0, 0x2708, /* bfffo (%a0){#28:#8},%d2 */
  };
  start(code, 6);
  tm_set_d(&tm, 0, 0x123456f0u);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_d(&tm, 1), 0x23);
  CU_ASSERT_EQUAL(tm_ccr(&tm), 0);
  m68k_step(tm.cpu); /* bits 24-31 then 0-7 (wrapping): 0xf012 */
  CU_ASSERT_EQUAL(tm_d(&tm, 1), 0xfffff012u);
  CU_ASSERT_EQUAL(tm_ccr(&tm), TM_N);
  tm_w32(&tm, DATA, 0);
  tm_w32(&tm, DATA + 4, 0x10000000u);
  tm_set_a(&tm, 0, DATA);
  m68k_step(tm.cpu); /* field bits 28-35, the first one set is bit 35 */
  CU_ASSERT_EQUAL(tm_d(&tm, 2), 35);
  tm_done(&tm);
}

static void bitfield_insert_and_set_in_memory(void)
{
  static const uint16_t code[] = {
      0xefd0, 0x18a3, /* bfins %d1,(%a0){%d2:%d3} */
      0xeed0, 0x0885, /* bfset (%a0){%d2:#5} */
  };
  start(code, 4);
  tm_set_a(&tm, 0, DATA);
  tm_set_d(&tm, 1, 0xab);
  tm_set_d(&tm, 2, 12);
  tm_set_d(&tm, 3, 8);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA), 0x000ab000u);
  CU_ASSERT_EQUAL(tm_ccr(&tm), TM_N);
  tm_set_d(&tm, 2, (uint32_t)-3); /* a negative offset reaches the byte before */
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm.ram[DATA - 1], 0x07);
  CU_ASSERT_EQUAL(tm.ram[DATA], 0xc0);
  tm_done(&tm);
}

static void multiply_long_64_bit_and_overflow(void)
{
  static const uint16_t code[] = {
      0x4c00, 0x2401,                 /* mulu.l %d0,%d1:%d2 */
      0x4c3c, 0x1800, 0xffff, 0xfffb, /* muls.l #-5,%d1 */
  };
  start(code, 6);
  tm_set_d(&tm, 0, 0xffffffffu);
  tm_set_d(&tm, 2, 0xffffffffu);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_d(&tm, 1), 0xfffffffeu);
  CU_ASSERT_EQUAL(tm_d(&tm, 2), 1);
  CU_ASSERT_EQUAL(tm_ccr(&tm), TM_N);
  tm_set_d(&tm, 1, 0x40000000u);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_ccr(&tm) & TM_V, TM_V);
  tm_done(&tm);
}

static void divide_long_64_bit_and_remainder(void)
{
  static const uint16_t code[] = {
      0x4c40, 0x2401,                 /* divu.l %d0,%d1:%d2 */
      0x4c7c, 0x2802, 0xffff, 0xfff9, /* divs.l #-7,%d2 */
      0x4c43, 0x5804,                 /* divsl.l %d3,%d4:%d5 */
  };
  start(code, 8);
  tm_set_d(&tm, 0, 3);
  tm_set_d(&tm, 1, 1);
  tm_set_d(&tm, 2, 0);
  m68k_step(tm.cpu); /* 2^32 / 3 */
  CU_ASSERT_EQUAL(tm_d(&tm, 2), 0x55555555u);
  CU_ASSERT_EQUAL(tm_d(&tm, 1), 1);
  tm_set_d(&tm, 2, 100);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_d(&tm, 2), (uint32_t)-14);
  CU_ASSERT_EQUAL(tm_ccr(&tm), TM_N);
  tm_set_d(&tm, 3, 7);
  tm_set_d(&tm, 5, (uint32_t)-100);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_d(&tm, 5), (uint32_t)-14);
  CU_ASSERT_EQUAL(tm_d(&tm, 4), (uint32_t)-2);
  tm_done(&tm);
}

static void divide_by_zero_stacks_format_2_frame(void)
{
  static const uint16_t code[] = {0x4c40, 0x2401}; /* divu.l %d0,%d1:%d2 */
  start(code, 2);
  tm_set_d(&tm, 0, 0);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_pc(&tm), TM_HANDLER + 5 * 4);
  uint32_t sp = tm_a(&tm, 7);
  CU_ASSERT_EQUAL(sp, TM_STACK - 12);
  CU_ASSERT_EQUAL(tm_r16(&tm, sp), 0x2700);          /* SR */
  CU_ASSERT_EQUAL(tm_r32(&tm, sp + 2), TM_CODE + 4); /* next instruction */
  CU_ASSERT_EQUAL(tm_r16(&tm, sp + 6), 0x2014);      /* format 2, vector 5 */
  CU_ASSERT_EQUAL(tm_r32(&tm, sp + 8), TM_CODE);     /* the instruction */
  tm_done(&tm);
}

static void memory_indirect_addressing(void)
{
  static const uint16_t code[] = {
      0x2430, 0x1d26, 0x0008, 0x000c, /* move.l ([8,%a0],%d1.l*4,12),%d2 */
      0x2630, 0x1322, 0x0008, 0xfffc, /* move.l ([8,%a0,%d1.w*2],-4),%d3 */
      0x43f0, 0x1e00,                 /* lea (%a0,%d1.l*8),%a1 */
  };
  start(code, 10);
  tm_set_a(&tm, 0, DATA);
  tm_set_d(&tm, 1, 2);
  tm_w32(&tm, DATA + 8, DATA2);              /* post-indexed pointer */
  tm_w32(&tm, DATA2 + 8 + 12, 0xcafef00du);
  tm_w32(&tm, DATA + 8 + 4, DATA2 + 0x40);   /* pre-indexed pointer */
  tm_w32(&tm, DATA2 + 0x40 - 4, 0x12345678u);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_d(&tm, 2), 0xcafef00du);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_d(&tm, 3), 0x12345678u);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_a(&tm, 1), DATA + 16);
  tm_done(&tm);
}

static void movec_vbr_moves_the_vector_table(void)
{
  static const uint16_t code[] = {
      0x4e7b, 0x1801, /* movec %d1,%vbr */
      0x4e7a, 0x0801, /* movec %vbr,%d0 */
      0x4e40,         /* trap #0 */
  };
  start(code, 5);
  tm_set_d(&tm, 1, 0x6000);
  tm_w32(&tm, 0x6000 + 32 * 4, 0x7000);
  m68k_step(tm.cpu);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_d(&tm, 0), 0x6000);
  CU_ASSERT_EQUAL(m68k_get_reg(tm.cpu, M68K_REG_VBR), 0x6000);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_pc(&tm), 0x7000);
  CU_ASSERT_EQUAL(tm_r16(&tm, tm_a(&tm, 7) + 6), 0x0080); /* format 0, vector 32 */
  tm_done(&tm);
}

static void extb_and_chk2(void)
{
  static const uint16_t code[] = {
      0x49c0,         /* extb.l %d0 */
      0x04d0, 0x1800, /* chk2.l (%a0),%d1 */
      0x04d0, 0x1800, /* chk2.l (%a0),%d1 */
  };
  start(code, 5);
  tm_set_d(&tm, 0, 0x12345680u);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_d(&tm, 0), 0xffffff80u);
  tm_set_a(&tm, 0, DATA);
  tm_w32(&tm, DATA, 10);
  tm_w32(&tm, DATA + 4, 20);
  tm_set_d(&tm, 1, 20);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_pc(&tm), TM_CODE + 6);
  CU_ASSERT_EQUAL(tm_ccr(&tm) & (TM_Z | TM_C), TM_Z);
  tm_set_d(&tm, 1, 25);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_pc(&tm), TM_HANDLER + 6 * 4);
  tm_done(&tm);
}

static void fmovem_saves_and_restores_extended_registers(void)
{
  static const uint16_t code[] = {
      0xf23c, 0x4000, 0x0000, 0x0005, /* fmove.l #5,%fp0 */
      0xf227, 0xe007,                 /* fmovem.x %fp0-%fp2,-(%a7) */
      0xf210, 0x7400,                 /* fmove.d %fp0,(%a0) */
      0xf23c, 0x4000, 0x0000, 0x0000, /* fmove.l #0,%fp0 */
      0xf21f, 0xd0e0,                 /* fmovem.x (%a7)+,%fp0-%fp2 */
  };
  start(code, 14);
  tm_set_a(&tm, 0, DATA);
  m68k_step(tm.cpu);
  m68k_step(tm.cpu);
  uint32_t sp = tm_a(&tm, 7);
  CU_ASSERT_EQUAL(sp, TM_STACK - 36);
  CU_ASSERT_EQUAL(tm_r32(&tm, sp), 0x40010000u); /* FP0 = 5.0 at the lowest address */
  CU_ASSERT_EQUAL(tm_r32(&tm, sp + 4), 0xa0000000u);
  CU_ASSERT_EQUAL(tm_r32(&tm, sp + 8), 0);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA), 0x40140000u);
  CU_ASSERT_EQUAL(tm_r32(&tm, DATA + 4), 0);
  m68k_step(tm.cpu);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_a(&tm, 7), TM_STACK);
  uint16_t se;
  uint64_t mant;
  m68k_get_fpreg(tm.cpu, 0, &se, &mant);
  CU_ASSERT_EQUAL(se, 0x4001);
  CU_ASSERT_EQUAL(mant, 0xa000000000000000ull);
  tm_done(&tm);
}

static void fpu_undefined_opmode_raises_line_f(void)
{
  static const uint16_t code[] = {0xf200, 0x0005}; /* opmode 0x05: none on the 68881 */
  start(code, 2);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_pc(&tm), TM_HANDLER + 11 * 4);
  tm_done(&tm);
}

static void unaligned_access_68030_ok_68000_address_error(void)
{
  static const uint16_t code[] = {0x2010}; /* move.l (%a0),%d0 */
  start(code, 1);
  tm_set_a(&tm, 0, DATA + 1);
  tm_w32(&tm, DATA, 0x00112233u);
  tm_w32(&tm, DATA + 4, 0x44556677u);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_d(&tm, 0), 0x11223344u);
  tm_done(&tm);

  tm_init(&tm, M68K_MODEL_68000);
  tm_code(&tm, code, 1);
  tm_set_a(&tm, 0, DATA + 1);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_pc(&tm), TM_HANDLER + 3 * 4);
  uint32_t sp = tm_a(&tm, 7);
  CU_ASSERT_EQUAL(sp, TM_STACK - 14);                /* the 7-word group 0 frame */
  CU_ASSERT_EQUAL(tm_r16(&tm, sp) & 0x1f, 0x15);     /* read, supervisor data */
  CU_ASSERT_EQUAL(tm_r32(&tm, sp + 2), DATA + 1);    /* access address */
  CU_ASSERT_EQUAL(tm_r16(&tm, sp + 6), 0x2010);      /* IR */
  CU_ASSERT_EQUAL(tm_r16(&tm, sp + 8), 0x2700);      /* SR */
  tm_done(&tm);
}

static void autovectored_interrupt_and_stop(void)
{
  static const uint16_t code[] = {0x4e72, 0x2000}; /* stop #0x2000 */
  start(code, 2);
  CU_ASSERT_EQUAL(m68k_run(tm.cpu, 10, NULL), M68K_STOP_STOPPED);
  CU_ASSERT_EQUAL(tm_pc(&tm), TM_CODE + 4);
  uint64_t done = 99;
  CU_ASSERT_EQUAL(m68k_run(tm.cpu, 10, &done), M68K_STOP_STOPPED);
  CU_ASSERT_EQUAL(done, 0);
  m68k_set_irq(tm.cpu, 3);
  tm_w16(&tm, TM_HANDLER + 27 * 4, 0x4e71); /* nop in the level 3 handler */
  CU_ASSERT_EQUAL(m68k_run(tm.cpu, 1, NULL), M68K_STOP_NONE);
  CU_ASSERT_EQUAL(tm_pc(&tm), TM_HANDLER + 27 * 4 + 2);
  CU_ASSERT_EQUAL((m68k_get_reg(tm.cpu, M68K_REG_SR) >> 8) & 7, 3);
  uint32_t sp = tm_a(&tm, 7);
  CU_ASSERT_EQUAL(tm_r32(&tm, sp + 2), TM_CODE + 4);
  CU_ASSERT_EQUAL(tm_r16(&tm, sp + 6), 27 * 4);
  tm_done(&tm);
}

static void privileged_instruction_in_user_mode_traps(void)
{
  static const uint16_t code[] = {0x4e72, 0x2000}; /* stop #0x2000 */
  start(code, 2);
  m68k_set_reg(tm.cpu, M68K_REG_USP, 0x7000);
  m68k_set_reg(tm.cpu, M68K_REG_SR, 0x0000);
  m68k_step(tm.cpu);
  CU_ASSERT_EQUAL(tm_pc(&tm), TM_HANDLER + 8 * 4);
  CU_ASSERT_EQUAL(m68k_get_reg(tm.cpu, M68K_REG_USP), 0x7000);
  CU_ASSERT_EQUAL(tm_a(&tm, 7), TM_STACK - 8);
  tm_done(&tm);
}

static bool hook_trap0(void *ctx, m68k_cpu_t *cpu, int vector)
{
  (void)cpu;
  *(int *)ctx = vector;
  return vector == 32;
}

static void trap_hook_handles_trap_0(void)
{
  static const uint16_t code[] = {0x4e40, 0x7005}; /* trap #0; moveq #5,%d0 */
  start(code, 2);
  int seen = -1;
  m68k_set_trap_hook(tm.cpu, hook_trap0, &seen);
  CU_ASSERT_EQUAL(m68k_run(tm.cpu, 2, NULL), M68K_STOP_NONE);
  CU_ASSERT_EQUAL(seen, 32);
  CU_ASSERT_EQUAL(tm_d(&tm, 0), 5);
  CU_ASSERT_EQUAL(tm_a(&tm, 7), TM_STACK);
  CU_ASSERT_EQUAL(m68k_instructions(tm.cpu), 2);
  tm_done(&tm);
}

static void disassembler_names_instructions(void)
{
  static const uint16_t code[] = {0x0efc, 0x8080, 0x90c1, 0x4e75};
  start(code, 4);
  char buf[96];
  CU_ASSERT_EQUAL(m68k_disassemble(tm.cpu, TM_CODE, buf, sizeof(buf)), 6);
  CU_ASSERT_STRING_EQUAL(buf, "cas2.l d0:d1,d2:d3,(a0):(a1)");
  CU_ASSERT_EQUAL(m68k_disassemble(tm.cpu, TM_CODE + 6, buf, sizeof(buf)), 2);
  CU_ASSERT_STRING_EQUAL(buf, "rts");
  tm_done(&tm);
}

/* The 68881's instructions, their lengths and operands as GNU objdump
 * reads the same words (in Motorola syntax). The translator takes an
 * instruction's length from here. */
static void disassembler_names_fpu_instructions(void)
{
  static const uint16_t code[] = {
      0xf218, 0x5480,                                 /* 1000 fmoved %a0@+,%fp1 */
      0xf23c, 0x5580, 0x3ff8, 0x0000, 0x0000, 0x0000, /* 1004 fmoved #0e1.5,%fp3 */
      0xf228, 0x55a0, 0x0008,                         /* 1010 fdivd %a0@(8),%fp3 */
      0xf200, 0x0422,                                 /* 1016 faddx %fp1,%fp0 */
      0xf219, 0xa800,                                 /* 101a fmovel %fpsr,%a1@+ */
      0xf23c, 0x9000, 0x0000, 0x0200,                 /* 101e fmovel #512,%fpcr */
      0xf227, 0xe007,                                 /* 1026 fmovemx %fp0-%fp2,%sp@- */
      0xf21f, 0xd0e0,                                 /* 102a fmovemx %sp@+,%fp0-%fp2 */
      0xf28e, 0x0008,                                 /* 102e fbne 1038 */
      0xf2d2, 0x0001, 0x2343,                         /* 1032 fbgtl 13377 */
      0xf240, 0x0001,                                 /* 1038 fseq %d0 */
      0xf219, 0x6880,                                 /* 103c fmovex %fp1,%a1@+ */
      0xf200, 0x05b2,                                 /* 1040 fsincosx %fp1,%fp2,%fp3 */
      0xf200, 0x5cb2,                                 /* 1044 fmovecrx #50,%fp1 */
      0xf23c, 0x4400, 0x3f80, 0x0000,                 /* 1048 fmoves #0e1,%fp0 */
  };
  static const struct {
    int len;
    const char *text;
  } want[] = {
      {4, "fmove.d (a0)+,fp1"},          {12, "fmove.d #$3ff8000000000000,fp3"},
      {6, "fdiv.d (8,a0),fp3"},          {4, "fadd.x fp1,fp0"},
      {4, "fmove.l fpsr,(a1)+"},         {8, "fmove.l #$200,fpcr"},
      {4, "fmovem.x fp0/fp1/fp2,-(a7)"}, {4, "fmovem.x (a7)+,fp0/fp1/fp2"},
      {4, "fbne $1038"},                 {6, "fbgt $13377"},
      {4, "fseq d0"},                    {4, "fmove.x fp1,(a1)+"},
      {4, "fsincos.x fp1,fp2:fp3"},      {4, "fmovecr #$32,fp1"},
      {8, "fmove.s #$3f800000,fp0"},
  };
  start(code, sizeof code / 2);
  char buf[96];
  uint32_t at = TM_CODE;
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    int len = m68k_disassemble(tm.cpu, at, buf, sizeof buf);
    if (len != want[i].len || strcmp(buf, want[i].text) != 0)
      fprintf(stderr, "\n%x: %d \"%s\", want %d \"%s\"\n", at, len, buf, want[i].len,
              want[i].text);
    CU_ASSERT_EQUAL(len, want[i].len);
    CU_ASSERT_STRING_EQUAL(buf, want[i].text);
    at += (uint32_t)len;
  }
  tm_done(&tm);
  /* The 68000 has no FPU: an F-line word is one word of data. */
  tm_init(&tm, M68K_MODEL_68000);
  tm_code(&tm, code, 2);
  CU_ASSERT_EQUAL(m68k_disassemble(tm.cpu, TM_CODE, buf, sizeof buf), 2);
  CU_ASSERT_STRING_EQUAL(buf, "dc.w $f218");
  tm_done(&tm);
}

int main(void)
{
  static const tm_case_t cases[] = {
      {"bitfield_extract_register_and_memory", bitfield_extract_register_and_memory},
      {"disassembler_names_fpu_instructions", disassembler_names_fpu_instructions},
      {"bitfield_insert_and_set_in_memory", bitfield_insert_and_set_in_memory},
      {"multiply_long_64_bit_and_overflow", multiply_long_64_bit_and_overflow},
      {"divide_long_64_bit_and_remainder", divide_long_64_bit_and_remainder},
      {"divide_by_zero_stacks_format_2_frame", divide_by_zero_stacks_format_2_frame},
      {"memory_indirect_addressing", memory_indirect_addressing},
      {"movec_vbr_moves_the_vector_table", movec_vbr_moves_the_vector_table},
      {"extb_and_chk2", extb_and_chk2},
      {"fmovem_saves_and_restores_extended_registers", fmovem_saves_and_restores_extended_registers},
      {"fpu_undefined_opmode_raises_line_f", fpu_undefined_opmode_raises_line_f},
      {"unaligned_access_68030_ok_68000_address_error", unaligned_access_68030_ok_68000_address_error},
      {"autovectored_interrupt_and_stop", autovectored_interrupt_and_stop},
      {"privileged_instruction_in_user_mode_traps", privileged_instruction_in_user_mode_traps},
      {"trap_hook_handles_trap_0", trap_hook_handles_trap_0},
      {"disassembler_names_instructions", disassembler_names_instructions},
  };
  return tm_run_suite("cpu", cases, sizeof(cases) / sizeof(cases[0]));
}
