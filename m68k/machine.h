/* machine.h -- quamachine: the two-CPU machine, its devices and scheduler,
 * the static ELF loader and the Linux/m68k system-call layer.
 *
 * This is the public header of the machine half of the m68k/ module (the
 * CPU core is m68k.h) and reads as its manual.
 *
 * Memory map (physical = CPU address; the 68000 drives 24 address bits,
 * so every address is first masked with 0x00FFFFFF on that model):
 *
 *   [ram_base, ram_base + ram_size)   RAM, big-endian, shared by the CPUs
 *   0xFFFFF000 .. 0xFFFFFFFF          the device page (0xFFF000 on a 68000)
 *   anything else                     bus error
 *
 * Device page: 32-bit registers at the offsets below (M68K_DEV_*). A write
 * of any width to a register's address writes the value, zero-extended; a
 * read returns the register truncated to the width.
 *
 *   0x00 CONSOLE       W  the low byte is written to the console
 *   0x04 CPU_ID        R  the id (0 or 1) of the CPU that reads it
 *   0x08 NCPUS         R  number of CPUs
 *   0x0C HALT          W  stops the machine; the value is its exit code
 *   0x10 TIMER_PERIOD  RW machine-clock ticks between timer interrupts; 0
 *                         (the default) turns the timer off; a write
 *                         restarts the period from the current clock
 *   0x14 TIMER_LEVEL   RW autovectored level of the timer interrupt (1-7,
 *                         default 6)
 *   0x18 TIMER_TARGET  RW bit mask of the CPUs it interrupts (default 1)
 *   0x1C TIMER_ACK     W  clears the timer request of the writing CPU
 *   0x20 TIMER_COUNT   R  timer interrupts raised so far
 *   0x24 IPI_SEND      W  raises the inter-processor interrupt of the CPU
 *                         whose id is written
 *   0x28 IPI_LEVEL     RW autovectored level of the IPI (1-7, default 5)
 *   0x2C IPI_ACK       W  clears the IPI request of the writing CPU
 *   0x30 CLOCK         R  machine clock, low 32 bits
 *
 * Interrupt requests are level-triggered: a request stays asserted until
 * the CPU acknowledges it through the device page. A CPU's IRQ line
 * carries the highest level among its pending requests.
 *
 * The machine clock counts instructions executed by all CPUs together,
 * so time, like everything else, depends only on the inputs and the
 * schedule: same image, same inputs, same schedule => same run.
 *
 * Threading: a machine and everything reached from it belong to one host
 * thread at a time; different machines are independent.
 */
#ifndef QUA_M68K_MACHINE_H
#define QUA_M68K_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "m68k.h"

#define M68K_MACHINE_MAX_CPUS 2
#define M68K_MACHINE_DEFAULT_RAM (64u << 20)

#define M68K_DEV_BASE 0xFFFFF000u
#define M68K_DEV_CONSOLE 0x00u
#define M68K_DEV_CPU_ID 0x04u
#define M68K_DEV_NCPUS 0x08u
#define M68K_DEV_HALT 0x0Cu
#define M68K_DEV_TIMER_PERIOD 0x10u
#define M68K_DEV_TIMER_LEVEL 0x14u
#define M68K_DEV_TIMER_TARGET 0x18u
#define M68K_DEV_TIMER_ACK 0x1Cu
#define M68K_DEV_TIMER_COUNT 0x20u
#define M68K_DEV_IPI_SEND 0x24u
#define M68K_DEV_IPI_LEVEL 0x28u
#define M68K_DEV_IPI_ACK 0x2Cu
#define M68K_DEV_CLOCK 0x30u

/* Errors: negative codes from this one table (0 is success).
 * m68k_strerror() gives the sentence, m68k_err_name() the symbol. */
#define M68K_ERRNO_MAP(XX)                                                   \
  XX(NOMEM, "out of memory")                                                 \
  XX(IO, "cannot read the file")                                             \
  XX(INVAL, "invalid argument")                                              \
  XX(NOTELF, "not an ELF file")                                              \
  XX(ELFCLASS, "not a 32-bit ELF file")                                      \
  XX(ELFDATA, "not a big-endian ELF file")                                   \
  XX(ELFMACHINE, "not an m68k ELF file")                                     \
  XX(ELFTYPE, "not an executable ELF file")                                  \
  XX(ELFDYNAMIC, "dynamically linked (only static executables run)")        \
  XX(TRUNCATED, "truncated ELF file")                                        \
  XX(ELFBAD, "malformed ELF file")                                           \
  XX(NOFIT, "program does not fit in the machine's memory")                  \
  XX(TOOBIG, "arguments and environment too large for the stack")            \
  XX(SCHEDULE, "malformed schedule")                                         \
  XX(NOTYPE, "no such quaject type, variant, callentry or callback")         \
  XX(BUSY, "in use: a CPU is running that code, or a handler is registered") \
  XX(NORETURN, "the callentry did not return")                               \
  XX(ARENA, "the quaject arena in the machine's RAM is full")

typedef enum m68k_err {
  M68K_OK = 0,
#define M68K_ERR_ENUM_(name, msg) M68K_E##name,
  M68K_ERR_FIRST_ = -100,
  M68K_ERRNO_MAP(M68K_ERR_ENUM_)
#undef M68K_ERR_ENUM_
  M68K_ERR_END_
} m68k_err_t;

/* The sentence for an error code ("unknown error" for others). */
M68K_API const char *m68k_strerror(int err);
/* The symbolic name ("M68K_ENOTELF"), "M68K_OK" for 0. */
M68K_API const char *m68k_err_name(int err);

/* ---- The machine ---------------------------------------------------- */

typedef struct m68k_machine m68k_machine_t;

typedef struct m68k_machine_config {
  m68k_model_t model; /* both CPUs are of this model */
  unsigned ncpus;     /* 1 or 2 */
  uint32_t ram_base;  /* first RAM address (64 KiB aligned) */
  uint32_t ram_size;  /* bytes; 0 means M68K_MACHINE_DEFAULT_RAM */
  bool huge_pages;    /* back RAM with transparent huge pages where the
                         kernel has them: fewer TLB misses for a program
                         that roams its memory, at 2 MiB zeroed per first
                         touch instead of 4 KiB (not for machines built by
                         the thousand, as the explorer's) */
} m68k_machine_config_t;

/* Why m68k_machine_run() returned. */
typedef enum m68k_machine_status {
  M68K_MACHINE_LIMIT = 0,  /* the instruction limit was reached */
  M68K_MACHINE_EXITED,     /* halt port or exit system call: see code */
  M68K_MACHINE_SIGNALED,   /* the program died of a signal: code is it */
  M68K_MACHINE_FAULT,      /* unsupported system call or instruction, or
                              an exception with no handler: see message */
  M68K_MACHINE_DEADLOCK,   /* every CPU stopped and nothing can wake one */
  M68K_MACHINE_HALTED,     /* a CPU halted (double bus fault) */
  M68K_MACHINE_SCHEDULE_END, /* a replayed schedule ran out */
} m68k_machine_status_t;

typedef struct m68k_machine_result {
  m68k_machine_status_t status;
  int32_t code;       /* exit code (EXITED) or signal number (SIGNALED) */
  unsigned cpu;       /* the CPU that stopped the machine */
  uint32_t pc;        /* its PC then */
  uint64_t clock;     /* instructions executed by all CPUs */
  uint64_t cycles;    /* cycles all CPUs counted (m68k_machine_set_cycle_count) */
} m68k_machine_result_t;

/* Creates a machine with zeroed RAM; the CPUs are created but not reset
 * (set their registers, or call m68k_machine_start()). NULL on a bad
 * configuration (ram_base unaligned, RAM overlapping the device page or
 * wrapping, over 16 MiB - 64 KiB on the 68000) or out of memory. */
M68K_API m68k_machine_t *m68k_machine_create(const m68k_machine_config_t *cfg);
M68K_API void m68k_machine_destroy(m68k_machine_t *m);

M68K_API unsigned m68k_machine_ncpus(const m68k_machine_t *m);
M68K_API m68k_model_t m68k_machine_model(const m68k_machine_t *m);
/* The CPU with that id (NULL when out of range); owned by the machine. */
M68K_API m68k_cpu_t *m68k_machine_cpu(m68k_machine_t *m, unsigned id);

/* RAM access by CPU address, for loaders and tests. A pointer into RAM
 * for [addr, addr + len), or NULL when any of it lies outside RAM. */
M68K_API uint8_t *m68k_machine_ram(m68k_machine_t *m, uint32_t addr, uint32_t len);
M68K_API uint32_t m68k_machine_ram_base(const m68k_machine_t *m);
M68K_API uint32_t m68k_machine_ram_size(const m68k_machine_t *m);
/* Big-endian loads and stores; false when outside RAM. */
M68K_API bool m68k_machine_read32(m68k_machine_t *m, uint32_t addr, uint32_t *v);
M68K_API bool m68k_machine_write32(m68k_machine_t *m, uint32_t addr, uint32_t v);
/* Copies len bytes to RAM at addr; M68K_EINVAL when outside RAM. */
M68K_API int m68k_machine_load(m68k_machine_t *m, uint32_t addr, const void *src, size_t len);

/* Console output of the device page goes to `out` (stdout by default). */
M68K_API void m68k_machine_set_console(m68k_machine_t *m, FILE *out);

/* Starts every CPU for a freestanding image: supervisor mode, interrupts
 * masked (SR 0x2700), PC = entry, VBR 0, and each CPU its own 64 KiB
 * stack at the top of RAM (CPU 0 highest): A7 = ISP = MSP =
 * ram_base + ram_size - id * 65536. Exceptions through a vector that
 * holds 0 stop the machine with M68K_MACHINE_FAULT naming the vector. */
M68K_API void m68k_machine_start(m68k_machine_t *m, uint32_t entry);

/* Host handlers for exceptions. Before a CPU takes exception `vector`
 * (0-255: 32 + n for TRAP #n, 4 illegal instruction, ...), the machine
 * calls the handler registered for it, if any: fn(ctx, m, cpu, vector),
 * with the CPU's registers as the exception found them (for TRAP, the PC
 * is past the TRAP instruction). fn returns true when it served the
 * event (the CPU then goes on after the instruction, as after a system
 * call; fn may change registers, or call m68k_request_stop on the CPU),
 * false to let it go on as if no handler were registered: to the Linux
 * personality's or the freestanding image's handling, else through the
 * CPU's vector table. One handler per vector: registering another
 * returns M68K_EBUSY, fn NULL removes it; M68K_EINVAL for a vector out
 * of range. The quaject runtime (quaject68k.h) takes TRAP #14. */
typedef bool (*m68k_machine_exception_fn)(void *ctx, m68k_machine_t *m, unsigned cpu, int vector);
M68K_API int m68k_machine_on_exception(m68k_machine_t *m, int vector, m68k_machine_exception_fn fn,
                                       void *ctx);

/* Instruction tracing of every CPU to `out` (NULL: off). */
M68K_API void m68k_machine_set_trace(m68k_machine_t *m, FILE *out);

/* Stops runs after `max` instructions of all CPUs together (0: never). */
M68K_API void m68k_machine_set_limit(m68k_machine_t *m, uint64_t max);
/* Turns cycle counting on or off on every CPU (m68k_set_cycle_count in
 * m68k.h: the 68000's clocks, or the MC68030 estimate); a result's `cycles`
 * is then their sum. */
M68K_API void m68k_machine_set_cycle_count(m68k_machine_t *m, bool on);

/* Runs until the machine stops (halt port, exit, fault, deadlock, limit,
 * end of a replayed schedule) and fills *res. A machine that stopped
 * stays stopped: a further call returns the same result. Returns 0, or
 * M68K_EINVAL when no schedule can run (see m68k_machine_set_schedule). */
M68K_API int m68k_machine_run(m68k_machine_t *m, m68k_machine_result_t *res);

/* A sentence saying why the machine stopped, or why the last call
 * failed ("" when there is nothing to say). Owned by the machine. */
M68K_API const char *m68k_machine_message(const m68k_machine_t *m);

/* ---- Scheduling ------------------------------------------------------ */

/* A slice of a schedule: CPU `cpu` executes `count` instructions. An
 * explicit schedule is a list of slices; replaying the slices recorded by
 * a run reproduces that run exactly. Slices a CPU could not run (it was
 * stopped, waiting for an interrupt) are not recorded: they change
 * nothing. */
typedef struct m68k_slice {
  uint32_t cpu;   /* a CPU id, or M68K_SLICE_IDLE */
  uint32_t count; /* instructions; for an idle slice, clock ticks */
} m68k_slice_t;

/* A recorded idle jump: every CPU was stopped and the clock moved ahead
 * `count` ticks to the next timer interrupt. */
#define M68K_SLICE_IDLE UINT32_MAX

typedef enum m68k_sched_kind {
  M68K_SCHED_QUANTUM = 0, /* each CPU in turn runs `quantum` instructions */
  M68K_SCHED_RANDOM,      /* a seeded PRNG picks the CPU and 1..max_slice */
  M68K_SCHED_REPLAY,      /* the given slices, in order */
} m68k_sched_kind_t;

typedef struct m68k_schedule {
  m68k_sched_kind_t kind;
  uint32_t quantum;      /* QUANTUM: instructions per turn (>= 1) */
  uint64_t seed;         /* RANDOM */
  uint32_t max_slice;    /* RANDOM: longest slice (>= 1; 0 means 16) */
  const m68k_slice_t *slices; /* REPLAY: copied by set_schedule */
  size_t nslices;
} m68k_schedule_t;

/* Sets how the CPUs are interleaved from now on (the default is
 * QUANTUM 1000). M68K_EINVAL for a zero quantum or a slice naming a CPU
 * the machine does not have; M68K_ENOMEM. */
M68K_API int m68k_machine_set_schedule(m68k_machine_t *m, const m68k_schedule_t *s);

/* Parses "quantum:N", "random:SEED", "random:SEED:MAX" or an inline
 * REPLAY schedule "slices:S,S,...", each slice S being "CPUxCOUNT" (CPU
 * runs COUNT instructions, e.g. "slices:0x3,1x5,0x7") or "idlexCOUNT",
 * all in decimal, as a schedule file has them one a line. Returns 0,
 * M68K_EINVAL naming nothing more, or M68K_ENOMEM. A parsed "slices:"
 * owns a malloc'ed array: release it with m68k_schedule_free(). */
M68K_API int m68k_schedule_parse(const char *spec, m68k_schedule_t *s);
/* Frees the slices of a REPLAY schedule from m68k_schedule_parse() (and
 * nothing for other kinds); *s is left without slices. */
M68K_API void m68k_schedule_free(m68k_schedule_t *s);
/* Writes slices as the "slices:..." string m68k_schedule_parse() reads
 * back. Returns 0, or M68K_ETOOBIG when it does not fit in len bytes
 * (buf then holds a truncated, NUL-terminated prefix). */
M68K_API int m68k_schedule_format(const m68k_slice_t *s, size_t n, char *buf, size_t len);

/* Runs CPU `cpu` alone for up to `count` instructions now, whatever the
 * schedule says: for explorers that choose the CPU of every step
 * themselves. The clock, the timer and recording behave as in a run.
 * Returns the instructions executed: fewer than count when the CPU
 * stopped to wait for an interrupt (m68k_machine_cpu_idle() is then true)
 * or the machine stopped (m68k_machine_run() gives the result); 0 for an
 * idle CPU, a CPU the machine does not have or a stopped machine. */
M68K_API uint64_t m68k_machine_step(m68k_machine_t *m, unsigned cpu, uint64_t count);
/* True when the machine has stopped (m68k_machine_run() would return at
 * once), and then fills *res when res is not NULL. */
M68K_API bool m68k_machine_stopped(const m68k_machine_t *m, m68k_machine_result_t *res);
/* True when the CPU executed STOP and no interrupt request can wake it. */
M68K_API bool m68k_machine_cpu_idle(const m68k_machine_t *m, unsigned cpu);

/* Starts (on) or stops recording the slices actually run. Starting
 * clears what was recorded. */
M68K_API void m68k_machine_record(m68k_machine_t *m, bool on);
/* The slices recorded so far (owned by the machine; valid until the
 * next run or record call). */
M68K_API const m68k_slice_t *m68k_machine_recorded(const m68k_machine_t *m, size_t *n);

/* Schedule files: a first line "quamachine-schedule 1", then one slice a
 * line, "CPU COUNT" in decimal, or "idle COUNT" for an idle jump. Save
 * returns 0 or M68K_EIO; load returns 0, M68K_EIO, M68K_ESCHEDULE or
 * M68K_ENOMEM and gives a malloc'ed array the caller frees. */
M68K_API int m68k_schedule_save(const char *path, const m68k_slice_t *s, size_t n);
M68K_API int m68k_schedule_load(const char *path, m68k_slice_t **s, size_t *n);

/* ---- Static ELF executables ----------------------------------------- */

typedef struct m68k_elf m68k_elf_t;

/* Reads and checks a static m68k ELF executable: ELFCLASS32, big-endian,
 * EM_68K, ET_EXEC, no PT_INTERP or PT_DYNAMIC, every header and segment
 * inside the file. On failure returns a negative code and writes a
 * sentence naming the problem (and the file) to err. */
M68K_API int m68k_elf_open(const char *path, m68k_elf_t **out, char *err, size_t errlen);
/* The same, from bytes in memory (copied); `name` is used in messages. */
M68K_API int m68k_elf_open_mem(const void *data, size_t size, const char *name,
                               m68k_elf_t **out, char *err, size_t errlen);
M68K_API void m68k_elf_close(m68k_elf_t *elf);
M68K_API uint32_t m68k_elf_entry(const m68k_elf_t *elf);
/* Lowest and highest+1 addresses of the PT_LOAD segments. */
M68K_API uint32_t m68k_elf_low(const m68k_elf_t *elf);
M68K_API uint32_t m68k_elf_high(const m68k_elf_t *elf);
/* Copies the PT_LOAD segments into RAM (zero-filling their bss).
 * M68K_ENOFIT when a segment lies outside RAM (message in the machine). */
M68K_API int m68k_elf_load(m68k_machine_t *m, const m68k_elf_t *elf);

/* ---- Linux/m68k user programs --------------------------------------- */

/* Prepares CPU 0 to run `elf` (already loaded) as a Linux process: the
 * initial stack at the top of RAM as Linux builds it (argc, argv, envp,
 * auxv with AT_PHDR, AT_PHENT, AT_PHNUM, AT_PAGESZ, AT_ENTRY, AT_RANDOM,
 * AT_HWCAP, ..., 16 random bytes), user mode, PC at the entry, the heap
 * after the highest segment, and system calls (TRAP #0) served by the
 * host. Host file descriptors are the guest's. argv[0] is the program
 * name; exe_path answers readlink("/proc/self/exe"). Returns 0,
 * M68K_ETOOBIG or M68K_ENOMEM. */
M68K_API int m68k_linux_setup(m68k_machine_t *m, const m68k_elf_t *elf, const char *exe_path,
                              int argc, char *const argv[], char *const envp[]);

/* The Linux name of an m68k system call number, NULL when unknown. */
M68K_API const char *m68k_linux_syscall_name(uint32_t nr);
/* Gives the process of m68k_linux_setup() the host directory dir as its
 * "/": every path it names resolves inside dir, ".." and symbolic links
 * included. Without it the process has no files (paths answer EACCES).
 * Returns 0, or a negative code with the reason as the machine's message. */
M68K_API int m68k_linux_set_root(m68k_machine_t *m, const char *dir);

/* Loads and runs a static executable under a fresh one-CPU machine, the
 * way `quamachine run` does. */
typedef struct m68k_run_options {
  m68k_model_t model;
  uint32_t ram_size; /* 0: default */
  FILE *trace;       /* NULL: no trace */
  uint64_t limit;    /* 0: none */
  bool cycles;       /* count cycles (m68k_machine_set_cycle_count) */
  const char *root;  /* the guest's "/" (NULL: the guest has no files) */
} m68k_run_options_t;
/* Returns 0 and fills *res (and `msg` with the machine's message), or a
 * negative code with the reason in msg. */
M68K_API int m68k_linux_run(const char *path, int argc, char *const argv[], char *const envp[],
                            const m68k_run_options_t *opt, m68k_machine_result_t *res,
                            char *msg, size_t msglen);

#endif /* QUA_M68K_MACHINE_H */
