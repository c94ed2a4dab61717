/* test-fpu-control.c -- the 68881's exceptions trapped or accrued, the IEEE-aware predicates of
 * FBcc/FScc/FDBcc/FTRAPcc with BSUN, FMOVEM's lists and the control registers.
 *
 * Encodings come from m68k-linux-gnu-as -m68030 -m68881; vectors and FPSR rules from the
 * MC68881/MC68882 User's Manual (section 6) and the M68000 Family Programmer's Reference Manual.
 */
#include <stdio.h>

#include "fpu-testutil.h"

static const ft_reg_t X_ONE = {0x3fff, 0x8000000000000000ull};
static const ft_reg_t X_THREE = {0x4000, 0xc000000000000000ull};
static const ft_reg_t X_ZERO = {0, 0};
static const ft_reg_t X_HUGE = {0x7ffe, 0x8000000000000000ull};
static const ft_reg_t X_SNAN = {0x7fff, 0x8000000000000001ull};
static const ft_reg_t X_QNAN = {0x7fff, 0xc000000000000000ull};
static const ft_reg_t X_LEAST = {0x0001, 0x8000000000000001ull};
static const ft_reg_t X_HALF = {0x3ffe, 0x8000000000000000ull};

/* fmove.l %d0,%fpcr; <cmd> %fp1,%fp0; nop with FP0 = d, FP1 = s. */
static void run_trap(uint32_t fpcr, uint16_t cmd, ft_reg_t d, ft_reg_t s)
{
  const uint16_t code[] = {
      0xf200, 0x9000,                   /* fmove.l %d0,%fpcr */
      0xf200, (uint16_t)(0x0400 | cmd), /* e.g. 0xf200 0x0420: fdiv.x %fp1,%fp0 */
      0x4e71,                           /* nop */
  };
  ft_start(code, 5);
  ft_set(0, d);
  ft_set(1, s);
  tm_set_d(&ft_tm, 0, fpcr);
  ft_steps(2);
}

static uint32_t fpsr_of(void)
{
  static const uint16_t read[] = {0xf201, 0xa800}; /* fmove.l %fpsr,%d1 */
  uint32_t pc = tm_pc(&ft_tm);
  tm_w16(&ft_tm, 0x2000, read[0]);
  tm_w16(&ft_tm, 0x2002, read[1]);
  m68k_set_reg(ft_tm.cpu, M68K_REG_PC, 0x2000);
  ft_steps(1);
  m68k_set_reg(ft_tm.cpu, M68K_REG_PC, pc);
  return tm_d(&ft_tm, 1);
}

static void enabled_exceptions_trap_through_their_vectors(void)
{
  static const struct {
    const char *what;
    uint32_t enable;
    uint16_t cmd;
    const ft_reg_t *d, *s;
    int vector;
    int written; /* the destination gets the default result */
  } cases[] = {
      {"1/0 DZ", FT_DZ, 0x20, &X_ONE, &X_ZERO, 50, 0},
      {"0/0 OPERR", FT_OPERR, 0x20, &X_ZERO, &X_ZERO, 52, 0},
      {"huge*huge OVFL", FT_OVFL, 0x23, &X_HUGE, &X_HUGE, 53, 1},
      {"least*0.5 UNFL", FT_UNFL, 0x23, &X_LEAST, &X_HALF, 51, 1},
      {"1/3 INEX2", FT_INEX2, 0x20, &X_ONE, &X_THREE, 49, 1},
      {"SNaN+1 SNAN", FT_SNAN, 0x22, &X_ONE, &X_SNAN, 54, 0},
      /* Several at once: the highest priority is taken (OVFL before INEX). */
      {"huge*huge OVFL+INEX", FT_OVFL | FT_INEX2, 0x23, &X_HUGE, &X_HUGE, 53, 1},
      {"SNaN OPERR+SNAN", FT_OPERR | FT_SNAN, 0x22, &X_ONE, &X_SNAN, 54, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    run_trap(cases[i].enable, cases[i].cmd, *cases[i].d, *cases[i].s);
    uint32_t want_pc = TM_HANDLER + 4 * (uint32_t)cases[i].vector;
    CU_ASSERT_EQUAL(tm_pc(&ft_tm), want_pc);
    if (tm_pc(&ft_tm) != want_pc)
      fprintf(stderr, "\n  %s: PC %#x, want %#x\n", cases[i].what, tm_pc(&ft_tm), want_pc);
    /* Format 0 frame: SR, the next instruction's PC, vector offset. */
    uint32_t sp = tm_a(&ft_tm, 7);
    CU_ASSERT_EQUAL(sp, TM_STACK - 8);
    CU_ASSERT_EQUAL(tm_r32(&ft_tm, sp + 2), TM_CODE + 8);
    CU_ASSERT_EQUAL(tm_r16(&ft_tm, sp + 6), (uint16_t)(cases[i].vector * 4));
    ft_reg_t r = ft_get(0);
    CU_ASSERT_EQUAL(r.se == cases[i].d->se && r.mant == cases[i].d->mant, !cases[i].written);
    /* FPIAR: the instruction that raised it. */
    static const uint16_t fpiar[] = {0xf205, 0xa400}; /* fmove.l %fpiar,%d5 */
    tm_w16(&ft_tm, 0x2000, fpiar[0]);
    tm_w16(&ft_tm, 0x2002, fpiar[1]);
    m68k_set_reg(ft_tm.cpu, M68K_REG_PC, 0x2000);
    ft_steps(1);
    CU_ASSERT_EQUAL(tm_d(&ft_tm, 5), TM_CODE + 4);
    tm_done(&ft_tm);
  }
}

static void disabled_exceptions_only_accrue(void)
{
  static const uint16_t code[] = {
      0xf200, 0x0420, /* fdiv.x %fp1,%fp0 */
      0xf200, 0x0d20, /* fdiv.x %fp3,%fp2 */
  };
  ft_start(code, 4);
  ft_set(0, X_ONE);
  ft_set(1, X_ZERO);
  ft_set(2, X_ONE);
  ft_set(3, X_THREE);
  ft_steps(1);
  CU_ASSERT_EQUAL(tm_pc(&ft_tm), TM_CODE + 4);
  CU_ASSERT_EQUAL(fpsr_of() & 0xfff8, FT_DZ | FT_A_DZ);
  ft_steps(1);
  CU_ASSERT_EQUAL(tm_pc(&ft_tm), TM_CODE + 8);
  /* The exception byte is this instruction's; the accrued byte keeps DZ. */
  CU_ASSERT_EQUAL(fpsr_of() & 0xfff8, FT_INEX2 | FT_A_DZ | FT_A_INEX);
  tm_done(&ft_tm);
}

/* Predicates as the manual defines them: the relations (greater, less,
 * equal, unordered) each one is true for. */
enum { GT = 1, LT = 2, EQ = 4, UN = 8 };
static const uint8_t predicate_true[16] = {
    0,                 /* F */
    EQ,                /* EQ */
    GT,                /* OGT */
    GT | EQ,           /* OGE */
    LT,                /* OLT */
    LT | EQ,           /* OLE */
    GT | LT,           /* OGL */
    GT | LT | EQ,      /* OR */
    UN,                /* UN */
    UN | EQ,           /* UEQ */
    UN | GT,           /* UGT */
    UN | GT | EQ,      /* UGE */
    UN | LT,           /* ULT */
    UN | LT | EQ,      /* ULE */
    UN | GT | LT,      /* NE */
    UN | GT | LT | EQ, /* T */
};

static void fscc_evaluates_all_32_predicates_with_bsun_on_the_signalling_ones(void)
{
  static const struct {
    uint8_t rel;
    uint32_t cc;
  } states[] = {{GT, 0}, {LT, FT_CC_N}, {EQ, FT_CC_Z}, {UN, FT_CC_NAN}};
  for (unsigned p = 0; p < 32; p++) {
    for (size_t s = 0; s < 4; s++) {
      const uint16_t code[] = {
          0xf200, 0x8800,              /* fmove.l %d0,%fpsr */
          0xf243, (uint16_t)p,         /* e.g. 0xf243 0x0012: fsgt %d3 */
      };
      ft_start(code, 4);
      tm_set_d(&ft_tm, 0, states[s].cc);
      tm_set_d(&ft_tm, 3, 0x12345678u);
      ft_steps(2);
      bool want = predicate_true[p & 15] & states[s].rel;
      CU_ASSERT_EQUAL(tm_d(&ft_tm, 3), want ? 0x123456ffu : 0x12345600u);
      if (tm_d(&ft_tm, 3) != (want ? 0x123456ffu : 0x12345600u))
        fprintf(stderr, "\n  predicate %u, relation %u: %#x\n", p, states[s].rel, tm_d(&ft_tm, 3));
      bool bsun = (p & 16) && states[s].rel == UN;
      uint32_t fpsr = fpsr_of();
      CU_ASSERT_EQUAL(!!(fpsr & FT_BSUN), bsun);
      CU_ASSERT_EQUAL(!!(fpsr & FT_A_IOP), bsun);
      tm_done(&ft_tm);
    }
  }
}

static void fbcc_branches_and_bsun_traps_before_the_branch(void)
{
  static const uint16_t code[] = {
      0xf200, 0x9000,         /* fmove.l %d0,%fpcr */
      0xf200, 0x0438,         /* fcmp.x %fp1,%fp0 */
      0xf292, 0x0004, 0x4e71, /* fbgt L; nop; L: */
      0xf282, 0x0004, 0x4e71, /* fbogt L; nop; L: */
  };
  ft_start(code, sizeof code / 2);
  ft_set(0, X_THREE);
  ft_set(1, X_ONE);
  ft_steps(3); /* 3 > 1: taken */
  CU_ASSERT_EQUAL(tm_pc(&ft_tm), TM_CODE + 8 + 2 + 4);
  tm_done(&ft_tm);
  ft_start(code, sizeof code / 2);
  ft_set(0, X_QNAN); /* unordered: neither taken, fbgt sets BSUN */
  ft_set(1, X_ONE);
  ft_steps(3);
  CU_ASSERT_EQUAL(tm_pc(&ft_tm), TM_CODE + 12);
  CU_ASSERT(fpsr_of() & FT_BSUN);
  ft_steps(2);
  CU_ASSERT_EQUAL(tm_pc(&ft_tm), TM_CODE + 18);
  tm_done(&ft_tm);
  ft_start(code, sizeof code / 2); /* BSUN enabled: vector 48 at the FBcc */
  ft_set(0, X_QNAN);
  ft_set(1, X_ONE);
  tm_set_d(&ft_tm, 0, FT_BSUN);
  ft_steps(3);
  CU_ASSERT_EQUAL(tm_pc(&ft_tm), TM_HANDLER + 48 * 4);
  CU_ASSERT_EQUAL(tm_r32(&ft_tm, tm_a(&ft_tm, 7) + 2), TM_CODE + 8);
  tm_done(&ft_tm);
}

static void fdbcc_counts_down_until_the_condition_holds(void)
{
  static const uint16_t code[] = {
      0xf200, 0x8800,         /* fmove.l %d0,%fpsr */
      0xf24c, 0x0001, 0xfffc, /* L: fdbeq %d4,L */
  };
  ft_start(code, 5);
  tm_set_d(&ft_tm, 4, 0xabcd0002u);
  ft_steps(1);
  ft_steps(1);
  CU_ASSERT_EQUAL(tm_d(&ft_tm, 4), 0xabcd0001u);
  CU_ASSERT_EQUAL(tm_pc(&ft_tm), TM_CODE + 4);
  ft_steps(2);
  CU_ASSERT_EQUAL(tm_d(&ft_tm, 4), 0xabcdffffu);
  CU_ASSERT_EQUAL(tm_pc(&ft_tm), TM_CODE + 10);
  tm_done(&ft_tm);
  ft_start(code, 5); /* Z set: the condition holds, no count */
  tm_set_d(&ft_tm, 0, FT_CC_Z);
  tm_set_d(&ft_tm, 4, 5);
  ft_steps(2);
  CU_ASSERT_EQUAL(tm_d(&ft_tm, 4), 5);
  CU_ASSERT_EQUAL(tm_pc(&ft_tm), TM_CODE + 10);
  tm_done(&ft_tm);
}

static void ftrapcc_traps_when_the_condition_holds(void)
{
  static const uint16_t code[] = {
      0xf200, 0x8800,         /* fmove.l %d0,%fpsr */
      0xf27a, 0x000e, 0x0001, /* ftrapne.w #1 */
      0xf27c, 0x0001,         /* ftrapeq */
  };
  ft_start(code, 7);
  tm_set_d(&ft_tm, 0, FT_CC_Z);
  ft_steps(2);
  CU_ASSERT_EQUAL(tm_pc(&ft_tm), TM_CODE + 10);
  ft_steps(1);
  CU_ASSERT_EQUAL(tm_pc(&ft_tm), TM_HANDLER + 7 * 4);
  uint32_t sp = tm_a(&ft_tm, 7);
  CU_ASSERT_EQUAL(tm_r32(&ft_tm, sp + 2), TM_CODE + 14);        /* next instruction */
  CU_ASSERT_EQUAL(tm_r16(&ft_tm, sp + 6), 0x2000 | 7 * 4);      /* format 2 */
  CU_ASSERT_EQUAL(tm_r32(&ft_tm, sp + 8), TM_CODE + 10);        /* the FTRAPcc */
  tm_done(&ft_tm);
}

static void fmovem_moves_dynamic_lists_and_control_registers(void)
{
  static const uint16_t code[] = {
      0xf227, 0xe820,         /* fmovem.x %d2,-(%a7) */
      0xf21f, 0xd820,         /* fmovem.x (%a7)+,%d2 */
      0xf227, 0xbc00,         /* fmovem.l %fpcr/%fpsr/%fpiar,-(%a7) */
      0xf21f, 0x9c00,         /* fmovem.l (%a7)+,%fpcr/%fpsr/%fpiar */
  };
  ft_start(code, 8);
  ft_set(0, X_ONE);
  ft_set(2, X_THREE);
  tm_set_d(&ft_tm, 2, 0x05); /* -(An): bit i is FPi, so FP0 and FP2 */
  ft_steps(1);
  uint32_t sp = tm_a(&ft_tm, 7);
  CU_ASSERT_EQUAL(sp, TM_STACK - 24);
  CU_ASSERT_EQUAL(tm_r32(&ft_tm, sp), 0x3fff0000u); /* FP0 lowest */
  CU_ASSERT_EQUAL(tm_r32(&ft_tm, sp + 12), 0x40000000u);
  CU_ASSERT_EQUAL(tm_r32(&ft_tm, sp + 16), 0xc0000000u);
  ft_set(0, X_ZERO);
  ft_set(2, X_ZERO);
  tm_set_d(&ft_tm, 2, 0xa0); /* (An)+: bit 7 is FP0, so FP0 and FP2 */
  ft_steps(1);
  CU_ASSERT_EQUAL(tm_a(&ft_tm, 7), TM_STACK);
  FT_ASSERT_REG(0, X_ONE.se, X_ONE.mant);
  FT_ASSERT_REG(2, X_THREE.se, X_THREE.mant);
  /* Control registers: FPCR lowest; unimplemented bits read as zero. */
  static const uint16_t set[] = {0xf200, 0x9000, 0xf200, 0x8800}; /* fmove.l %d0,%fpcr/%fpsr */
  tm_w16(&ft_tm, 0x2000, set[0]);
  tm_w16(&ft_tm, 0x2002, set[1]);
  tm_w16(&ft_tm, 0x2004, set[2]);
  tm_w16(&ft_tm, 0x2006, set[3]);
  m68k_set_reg(ft_tm.cpu, M68K_REG_PC, 0x2000);
  tm_set_d(&ft_tm, 0, 0xffffffffu);
  ft_steps(2);
  m68k_set_reg(ft_tm.cpu, M68K_REG_PC, TM_CODE + 8);
  ft_steps(1);
  sp = tm_a(&ft_tm, 7);
  CU_ASSERT_EQUAL(sp, TM_STACK - 12);
  CU_ASSERT_EQUAL(tm_r32(&ft_tm, sp), 0x0000fff0u);
  CU_ASSERT_EQUAL(tm_r32(&ft_tm, sp + 4), 0x0ffffff8u);
  tm_w32(&ft_tm, sp, 0x00000030u); /* round toward plus infinity */
  tm_w32(&ft_tm, sp + 4, 0);
  tm_w32(&ft_tm, sp + 8, 0x1234u);
  ft_steps(1);
  CU_ASSERT_EQUAL(tm_a(&ft_tm, 7), TM_STACK);
  uint32_t fpsr = fpsr_of();
  CU_ASSERT_EQUAL(fpsr, 0);
  tm_done(&ft_tm);
}

int main(void)
{
  static const tm_case_t cases[] = {
      {"enabled_exceptions_trap_through_their_vectors",
       enabled_exceptions_trap_through_their_vectors},
      {"disabled_exceptions_only_accrue", disabled_exceptions_only_accrue},
      {"fscc_evaluates_all_32_predicates_with_bsun_on_the_signalling_ones",
       fscc_evaluates_all_32_predicates_with_bsun_on_the_signalling_ones},
      {"fbcc_branches_and_bsun_traps_before_the_branch",
       fbcc_branches_and_bsun_traps_before_the_branch},
      {"fdbcc_counts_down_until_the_condition_holds", fdbcc_counts_down_until_the_condition_holds},
      {"ftrapcc_traps_when_the_condition_holds", ftrapcc_traps_when_the_condition_holds},
      {"fmovem_moves_dynamic_lists_and_control_registers",
       fmovem_moves_dynamic_lists_and_control_registers},
  };
  return tm_run_suite("m68k-fpu-control", cases, sizeof cases / sizeof cases[0]);
}
