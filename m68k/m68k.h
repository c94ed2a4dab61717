/* m68k.h -- quamachine: an interpretive 68000/68030 integer core.
 *
 * This is the public header of the m68k/ module and reads as its manual.
 * A CPU is an opaque m68k_cpu_t that executes against a bus supplied by
 * the embedder (the two-CPU machine in machine.c, or a test harness).
 * The core is single-threaded: one host thread steps every CPU of a
 * machine, so an instruction (CAS, CAS2, TAS included) is indivisible
 * with respect to the other CPUs by construction.
 */
#ifndef QUA_M68K_H
#define QUA_M68K_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define M68K_API __attribute__((visibility("default")))

typedef enum m68k_model {
  M68K_MODEL_68000 = 0,
  M68K_MODEL_68030 = 1,
} m68k_model_t;

/* Bus access, big-endian, 32-bit addresses (the 68000 drives 24 bits:
 * the core masks addresses for that model). A bus function may raise a
 * bus error by returning false; the core then takes the bus-error
 * exception. `fc` is the function code (1 user data, 2 user program,
 * 5 supervisor data, 6 supervisor program, 7 CPU space). */
typedef struct m68k_bus {
  /* Fast path: plain big-endian RAM at [ram_base, ram_base + ram_size),
   * accessed directly by the core (may be NULL). Accesses outside it go
   * through the functions below. */
  uint8_t *ram;
  uint32_t ram_base;
  uint32_t ram_size;
  void *ctx;
  bool (*read8)(void *ctx, uint32_t addr, unsigned fc, uint8_t *v);
  bool (*read16)(void *ctx, uint32_t addr, unsigned fc, uint16_t *v);
  bool (*read32)(void *ctx, uint32_t addr, unsigned fc, uint32_t *v);
  bool (*write8)(void *ctx, uint32_t addr, unsigned fc, uint8_t v);
  bool (*write16)(void *ctx, uint32_t addr, unsigned fc, uint16_t v);
  bool (*write32)(void *ctx, uint32_t addr, unsigned fc, uint32_t v);
  /* Called for the RESET instruction (may be NULL). */
  void (*reset)(void *ctx);
} m68k_bus_t;

/* Registers, for embedders and tests. */
typedef enum m68k_reg {
  M68K_REG_D0 = 0, /* D0..D7 = 0..7 */
  M68K_REG_A0 = 8, /* A0..A7 = 8..15; A7 is the live stack pointer */
  M68K_REG_PC = 16,
  M68K_REG_SR,
  M68K_REG_USP,
  M68K_REG_ISP, /* SSP on the 68000 */
  M68K_REG_MSP,
  M68K_REG_VBR,
  M68K_REG_SFC,
  M68K_REG_DFC,
  M68K_REG_CACR,
  M68K_REG_CAAR,
  M68K_REG_COUNT
} m68k_reg_t;

/* Why m68k_run() returned. */
typedef enum m68k_stop {
  M68K_STOP_NONE = 0,    /* ran the requested number of instructions */
  M68K_STOP_STOPPED,     /* STOP instruction: waiting for an interrupt */
  M68K_STOP_HALTED,      /* double bus fault: the CPU is halted */
  M68K_STOP_HOOK,        /* the trap hook asked to stop (see below) */
} m68k_stop_t;

typedef struct m68k_cpu m68k_cpu_t;

/* Creates a CPU of the given model on a bus; NULL when out of memory.
 * The CPU starts in the reset state: call m68k_reset() to fetch the
 * reset vectors, or set registers directly. */
M68K_API m68k_cpu_t *m68k_create(m68k_model_t model, const m68k_bus_t *bus);
M68K_API void m68k_destroy(m68k_cpu_t *cpu);
M68K_API m68k_model_t m68k_model(const m68k_cpu_t *cpu);

/* Reset: supervisor mode, interrupts masked, ISP and PC from vectors 0, 1. */
M68K_API void m68k_reset(m68k_cpu_t *cpu);

M68K_API uint32_t m68k_get_reg(const m68k_cpu_t *cpu, m68k_reg_t reg);
M68K_API void m68k_set_reg(m68k_cpu_t *cpu, m68k_reg_t reg, uint32_t value);

/* Executes up to `count` instructions (an exception's processing counts
 * as part of the instruction that raised it). Returns why it stopped and
 * stores the number executed in *done when done is not NULL. */
M68K_API m68k_stop_t m68k_run(m68k_cpu_t *cpu, uint64_t count, uint64_t *done);

/* Executes exactly one instruction. */
M68K_API m68k_stop_t m68k_step(m68k_cpu_t *cpu);

/* Sets the level (0-7) of the interrupt request line; autovectored.
 * Level 7 is non-maskable. */
M68K_API void m68k_set_irq(m68k_cpu_t *cpu, int level);

/* A hook called before an exception is taken, with the vector number
 * (e.g. 32+0 for TRAP #0, 10 for the A-line, 11 for the F-line, 4 for an
 * illegal instruction). It returns true when it handled the event itself
 * (the CPU then continues after the instruction, as for a Linux system
 * call emulated by the embedder), false to let the CPU take the
 * exception through the vector table. It may call m68k_request_stop(). */
typedef bool (*m68k_trap_hook_fn)(void *ctx, m68k_cpu_t *cpu, int vector);
M68K_API void m68k_set_trap_hook(m68k_cpu_t *cpu, m68k_trap_hook_fn fn, void *ctx);

/* The STOP state: whether the CPU executed STOP and waits for an
 * interrupt; setting it false resumes at the PC (for an embedder that runs
 * the CPU on its own behalf and then puts it back to sleep). */
M68K_API bool m68k_stopped(const m68k_cpu_t *cpu);
M68K_API void m68k_set_stopped(m68k_cpu_t *cpu, bool stopped);

/* Makes m68k_run() return M68K_STOP_HOOK after the current instruction. */
M68K_API void m68k_request_stop(m68k_cpu_t *cpu);

/* Instruction tracing to a FILE* (NULL turns it off). */
M68K_API void m68k_set_trace(m68k_cpu_t *cpu, void *file);

/* Disassembles the instruction at addr into buf (at most len bytes,
 * NUL-terminated) and returns its length in bytes. */
M68K_API int m68k_disassemble(const m68k_cpu_t *cpu, uint32_t addr, char *buf, size_t len);

/* Executed-instruction count since creation. */
M68K_API uint64_t m68k_instructions(const m68k_cpu_t *cpu);

/* Cycle counts. On the 68000 model, while on, the CPU adds to a counter
 * the clocks the MC68000 takes (its User's Manual, section 8: effective
 * addresses, MOVEM per register, shifts per count, MULU/MULS by the
 * source's bits, DIVU/DIVS by the division's steps, branches taken or not,
 * exception processing including address errors, interrupts and trace),
 * as the real chip does with no wait states (cycles68000.c). On the 68030
 * model it adds, for every instruction it completes, the MC68030 cycles of
 * the MC68030 User's Manual's timing model (section 11): the instruction's
 * cache-case time from m68k-cycles.tab (section 11.6's tables: instruction
 * fetches hit the instruction cache, operands take two-clock bus cycles,
 * no wait states), its effective address's component composed with its
 * operation, less the overlap of its head with the previous instruction's
 * tail (Equations 11-1 and 11-2, m68k-timing.h); Bcc and DBcc by whether
 * they branch, CAS by whether it succeeds, MOVEM by the registers it
 * moves. Cache misses, bus contention, exception processing and the 68881
 * are ignored there; an exception ends the overlap. Counting runs the CPU
 * one instruction at a time (as tracing does); off (the default) it costs
 * nothing. */
M68K_API void m68k_set_cycle_count(m68k_cpu_t *cpu, bool on);
/* Whether counting is on. */
M68K_API bool m68k_cycle_counting(const m68k_cpu_t *cpu);
/* Cycles counted since creation. */
M68K_API uint64_t m68k_cycles(const m68k_cpu_t *cpu);

/* CAS (operands 1) or CAS2 (operands 2) instructions executed since
 * creation, counted by the instructions themselves (0 for other values). */
M68K_API uint64_t m68k_cas_executed(const m68k_cpu_t *cpu, unsigned operands);

/* 68881 registers (68030 model): FP0-FP7 in extended format as a sign and
 * exponent word and a 64-bit mantissa (explicit integer bit). */
M68K_API void m68k_get_fpreg(const m68k_cpu_t *cpu, int n, uint16_t *sign_exp, uint64_t *mant);
M68K_API void m68k_set_fpreg(m68k_cpu_t *cpu, int n, uint16_t sign_exp, uint64_t mant);
/* The 68881's control registers: which 0 is FPCR, 1 FPSR, 2 FPIAR. Setting
 * keeps only the bits the 68881 implements (as FMOVE to them does). */
M68K_API uint32_t m68k_get_fpctl(const m68k_cpu_t *cpu, int which);
M68K_API void m68k_set_fpctl(m68k_cpu_t *cpu, int which, uint32_t v);

/* Translation (m68k/xlat.c). Code run `threshold` times is translated into
 * host code from stencils and run from there, with the same results, the
 * same instruction boundaries for exceptions and interrupts, and the same
 * instruction counts as the interpreter (which still runs cold code, and
 * everything while cycles are counted or instructions traced). Stores into
 * translated code, by any CPU sharing the translator or through
 * m68k_jit_invalidate(), drop the translations concerned.
 *
 * m68k_jit_enable() turns translation on for cpu, with a translator of its
 * own, or with `share`'s (CPUs on the same RAM: a store by one invalidates
 * code the other translated). Returns 0, or M68K_EINVAL (threshold 0 or
 * above 65535, no RAM window, `share` without translation or on another RAM
 * or model, or quamachine built without the stencil generator) or
 * M68K_ENOMEM (machine.h's error table). m68k_jit_disable() turns it off;
 * the translator is freed with its last CPU. */
M68K_API int m68k_jit_enable(m68k_cpu_t *cpu, unsigned threshold, m68k_cpu_t *share);
M68K_API void m68k_jit_disable(m68k_cpu_t *cpu);
/* Host writes into RAM at [addr, addr + len) drop the translations of the
 * code there (the machine calls it for its own RAM writes). */
M68K_API void m68k_jit_invalidate(m68k_cpu_t *cpu, uint32_t addr, uint32_t len);
/* The bound on translated blocks (16384 by default): reaching it flushes
 * every translation. M68K_EINVAL for 0 or without translation. */
M68K_API int m68k_jit_set_limit(m68k_cpu_t *cpu, size_t max_blocks);
/* A threshold every CPU created afterwards gets translation with (each its
 * own translator), 0 (the default) for none: for tests that run the same
 * cases with translation on and off. */
M68K_API void m68k_jit_set_default(unsigned threshold);
M68K_API unsigned m68k_jit_default(void);
/* A listener told of every block translated afterwards, by any CPU, from
 * the thread translating it before the block first runs: the guest address
 * of its first instruction, how many instructions it holds, and its host
 * code, readable and executable at [code, code + size) until the block is
 * freed. For profilers (quamachine run --jitdump). NULL stops it; l must
 * outlive its use. */
typedef struct m68k_jit_listener {
  void (*translated)(void *ctx, uint32_t pc, unsigned ninsn, const void *code, size_t size);
  void *ctx;
} m68k_jit_listener_t;
M68K_API void m68k_jit_set_listener(const m68k_jit_listener_t *l);

typedef struct m68k_jit_stats {
  uint64_t translated;   /* blocks translated */
  uint64_t insns;        /* instructions in them */
  uint64_t specialised;  /* of those, with a stencil of their own (not a handler call) */
  uint64_t chained;      /* block exits linked straight into another block */
  uint64_t followed;     /* BRAs a block went on through to their target */
  uint64_t cached;       /* loops translated with registers in host registers */
  uint64_t invalidated;  /* blocks dropped by stores into their code */
  uint64_t flushes;      /* whole-cache flushes at the bound */
  uint64_t translate_ns; /* time spent translating */
  uint64_t live;         /* blocks translated now */
} m68k_jit_stats_t;
/* The counters of cpu's translator (zeros without one). */
M68K_API void m68k_jit_stats(const m68k_cpu_t *cpu, m68k_jit_stats_t *st);
/* The counters of every translator freed so far in this process (live 0):
 * what `quamachine run --stats` prints after its machine is gone. */
M68K_API void m68k_jit_totals(m68k_jit_stats_t *st);

/* Single-step conformance tests (the m68k-sst format: SingleStepTests' m68000 data).
 * m68k_sst_run_file() runs every test of one gzip-compressed file on a fresh
 * CPU of `model` with a 16 MiB RAM, prints "SST <file> <passed>/<total>" to
 * `out` (a FILE *; NULL for silence), on the 68000 model followed by
 * "cycles <agreeing>/<total> (<percent>%)", and, when verbose, the first
 * differences of each failing test. *passed counts the tests whose state
 * agrees, *cycles_ok (68000 model; 0 on the 68030) those whose clock count
 * is the test's. Returns 0, or a negative errno when the file cannot be
 * read or is malformed. */
M68K_API int m68k_sst_run_file(const char *path, m68k_model_t model, bool verbose, void *out,
                               unsigned *passed, unsigned *total, unsigned *cycles_ok);

#endif /* QUA_M68K_H */
