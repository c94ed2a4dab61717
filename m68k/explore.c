/* explore.c -- bounded-preemption enumeration (CHESS) and PCT of the two CPUs' schedules.
 *
 * Design notes (the model and the choice of re-execution are in explore.h)
 *
 * 1. A run is a sequence of steps; a step executes one instruction of one
 *    CPU. Before each step the explorer knows which CPUs can run (those
 *    not idle after their STOP) and which CPU ran last (`cur`). Choosing
 *    the other CPU while `cur` can run is a preemption.
 * 2. The schedules form a tree: at each step at most two choices. The
 *    first run takes, everywhere, the default (cur if it can run, else
 *    the lowest-numbered CPU that can). Backtracking finds the deepest
 *    step whose other choice is untried, allowed (that CPU can run) and
 *    within the bound (preemptions before the step + its own <= K), takes
 *    it, and from there on defaults again. Every step records whether its
 *    second choice was taken, so each leaf (schedule) is run exactly once
 *    and the count is the number of distinct schedules with <= K
 *    preemptions.
 * 3. The steps of the last run are kept (cpu, the CPUs able to run, cur,
 *    preemptions before); a re-run replays the kept prefix step by step,
 *    checks each chosen CPU can still run (the machine is deterministic,
 *    so it always can; anything else is reported as an internal error),
 *    and then extends it.
 * 4. A run that goes over max_steps is stopped and judged a violation (an
 *    operation made no progress): with a preemption bound, every
 *    lock-free loop terminates once the bound is spent, so this means a
 *    livelock or a corrupted structure, not a slow schedule.
 */
#include "explore.h"
#include "machine-internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The steps of one run (note 3). */
typedef struct step {
  uint8_t cpu;     /* who ran */
  uint8_t can;     /* bit i: CPU i could run */
  int8_t cur;      /* who ran the step before (-1 at the start) */
  bool tried;      /* the second choice was taken (note 2) */
  uint32_t preempt; /* preemptions before this step */
} step_t;

typedef struct run_state {
  const m68k_explore_target_t *t;
  uint64_t max_steps;
  step_t *steps;
  size_t nsteps, cap;
  m68k_explore_result_t *res;
  char *err;
  size_t errlen;
} run_state_t;

static unsigned can_run(const m68k_machine_t *m) {
  unsigned can = 0;
  for (unsigned i = 0; i < m68k_machine_ncpus(m); i++)
    if (!m68k_machine_cpu_idle(m, i))
      can |= 1u << i;
  return can;
}

static bool is_preemption(int cur, unsigned cpu, unsigned can) {
  return cur >= 0 && (unsigned)cur != cpu && (can & (1u << cur)) != 0;
}

/* The steps as slices (consecutive steps of one CPU merged), malloc'ed. */
static m68k_slice_t *to_slices(const step_t *st, size_t n, size_t *nout) {
  m68k_slice_t *s = malloc((n != 0 ? n : 1) * sizeof *s);
  size_t k = 0;
  if (s == NULL)
    return NULL;
  for (size_t i = 0; i < n; i++) {
    if (k != 0 && s[k - 1].cpu == st[i].cpu)
      s[k - 1].count++;
    else
      s[k++] = (m68k_slice_t){st[i].cpu, 1};
  }
  *nout = k;
  return s;
}

/* Chooses the CPU of step i: the policy's pick (pick >= 0) or the
 * default. Returns -1 when no CPU can run. */
typedef int (*policy_fn)(void *pctx, size_t i, int cur, unsigned can);

/* One run: replays steps[0, prefix) and extends with `policy`; judges it.
 * Returns 0, or a negative code (build failed, out of memory, internal). */
static int run_one(run_state_t *rs, size_t prefix, policy_fn policy, void *pctx) {
  char why[sizeof rs->res->why];
  why[0] = '\0';
  m68k_machine_t *m = rs->t->build(rs->t->ctx, rs->err, rs->errlen);
  if (m == NULL)
    return M68K_EINVAL;
  int rc = M68K_OK;
  int cur = -1;
  uint32_t preempt = 0;
  size_t i = 0;
  bool stuck = false;
  for (;; i++) {
    unsigned can = can_run(m);
    if (can == 0)
      break;
    if (m68k_machine_stopped(m, NULL))
      break; /* a fault, say: judge says what */
    if (i == rs->max_steps) {
      stuck = true;
      break;
    }
    int cpu;
    if (i < prefix) {
      cpu = rs->steps[i].cpu;
      if ((can & (1u << cpu)) == 0) {
        snprintf(rs->err, rs->errlen,
                 "internal error: replaying step %zu, CPU %d cannot run (the run is not "
                 "deterministic)",
                 i, cpu);
        rc = M68K_ESCHEDULE;
        goto out;
      }
    } else {
      cpu = policy(pctx, i, cur, can);
      if (i == rs->cap) {
        size_t cap = rs->cap != 0 ? rs->cap * 2 : 1024;
        step_t *s = realloc(rs->steps, cap * sizeof *s);
        if (s == NULL) {
          snprintf(rs->err, rs->errlen, "out of memory");
          rc = M68K_ENOMEM;
          goto out;
        }
        rs->steps = s;
        rs->cap = cap;
      }
      rs->steps[i] = (step_t){.cpu = (uint8_t)cpu, .tried = false};
    }
    rs->steps[i].can = (uint8_t)can;
    rs->steps[i].cur = (int8_t)cur;
    rs->steps[i].preempt = preempt;
    if (is_preemption(cur, (unsigned)cpu, can))
      preempt++;
    if (m68k_machine_step(m, (unsigned)cpu, 1) != 1) {
      if (m68k_machine_stopped(m, NULL))
        break;
      snprintf(rs->err, rs->errlen, "internal error: CPU %d could run but executed nothing", cpu);
      rc = M68K_ESCHEDULE;
      goto out;
    }
    cur = cpu;
  }
  rs->nsteps = i;
  rs->res->schedules++;
  rs->res->steps += i;
  bool bad;
  if (stuck) {
    bad = true;
    snprintf(why, sizeof why, "no progress: the run did not finish in %" PRIu64 " instructions",
             rs->max_steps);
  } else {
    bad = rs->t->judge(rs->t->ctx, m, why, sizeof why);
  }
  if (bad) {
    if (rs->res->violations++ == 0) {
      rs->res->first = to_slices(rs->steps, rs->nsteps, &rs->res->nfirst);
      memcpy(rs->res->why, why, sizeof why);
    }
  }
out:
  rs->t->destroy(rs->t->ctx, m);
  return rc;
}

/* ---- CHESS --------------------------------------------------------------- */

static int default_policy(void *pctx, size_t i, int cur, unsigned can) {
  (void)pctx;
  (void)i;
  if (cur >= 0 && (can & (1u << cur)) != 0)
    return cur;
  return (can & 1u) != 0 ? 0 : 1;
}

int m68k_explore_chess(const m68k_explore_target_t *t, const m68k_explore_options_t *opt,
                       m68k_explore_result_t *res, char *err, size_t errlen) {
  memset(res, 0, sizeof *res);
  run_state_t rs = {.t = t,
                    .max_steps = opt->max_steps != 0 ? opt->max_steps : M68K_EXPLORE_MAX_STEPS,
                    .res = res,
                    .err = err,
                    .errlen = errlen};
  int rc = run_one(&rs, 0, default_policy, NULL);
  while (rc == M68K_OK) {
    /* Note 2: the deepest step with an allowed, untried second choice. */
    size_t i = rs.nsteps;
    bool found = false;
    while (i-- > 0) {
      step_t *s = &rs.steps[i];
      unsigned other = 1u - s->cpu;
      if (s->tried || (s->can & (1u << other)) == 0)
        continue;
      if (s->preempt + (is_preemption(s->cur, other, s->can) ? 1u : 0u) > opt->preemptions)
        continue;
      s->cpu = (uint8_t)other;
      s->tried = true;
      found = true;
      break;
    }
    if (!found)
      break;
    if (opt->max_schedules != 0 && res->schedules >= opt->max_schedules) {
      snprintf(err, errlen, "stopped after %" PRIu64 " schedules (the bound)", res->schedules);
      rc = M68K_ETOOBIG;
      break;
    }
    rc = run_one(&rs, i + 1, default_policy, NULL);
  }
  free(rs.steps);
  return rc;
}

/* ---- PCT ------------------------------------------------------------------- */

#define PCT_MAX_DEPTH 64

typedef struct pct {
  unsigned prio[M68K_MACHINE_MAX_CPUS]; /* higher runs first */
  uint64_t change[PCT_MAX_DEPTH];       /* change[j]: step of the (j+1)-th change point */
  unsigned nchange;
} pct_t;

static int pct_policy(void *pctx, size_t i, int cur, unsigned can) {
  pct_t *p = pctx;
  /* At change point j the CPU that ran last drops to priority j, below
   * every initial priority (those are >= depth). */
  for (unsigned j = 0; j < p->nchange; j++)
    if (p->change[j] == i && cur >= 0)
      p->prio[cur] = j;
  int best = -1;
  for (unsigned c = 0; c < M68K_MACHINE_MAX_CPUS; c++)
    if ((can & (1u << c)) != 0 && (best < 0 || p->prio[c] > p->prio[best]))
      best = (int)c;
  return best;
}

int m68k_explore_pct(const m68k_explore_target_t *t, uint64_t seed, uint64_t runs, unsigned depth,
                     uint64_t max_steps, m68k_explore_result_t *res, char *err, size_t errlen) {
  memset(res, 0, sizeof *res);
  if (depth == 0 || depth > PCT_MAX_DEPTH) {
    snprintf(err, errlen, "PCT depth %u out of range (1..%d)", depth, PCT_MAX_DEPTH);
    return M68K_EINVAL;
  }
  run_state_t rs = {.t = t,
                    .max_steps = max_steps != 0 ? max_steps : M68K_EXPLORE_MAX_STEPS,
                    .res = res,
                    .err = err,
                    .errlen = errlen};
  /* k, the number of steps, from a preemption-free run (not counted). */
  m68k_explore_result_t probe = {0};
  rs.res = &probe;
  int rc = run_one(&rs, 0, default_policy, NULL);
  free(probe.first);
  rs.res = res;
  uint64_t k = rs.nsteps != 0 ? rs.nsteps : 1;
  for (uint64_t r = 0; rc == M68K_OK && r < runs; r++) {
    uint64_t rng = seed ^ (r * 0xD1B54A32D192ED03ull);
    pct_t p = {.nchange = depth - 1};
    unsigned first = (unsigned)(m68k__splitmix64(&rng) & 1u);
    p.prio[first] = depth + 1;
    p.prio[1 - first] = depth;
    for (unsigned j = 0; j < p.nchange; j++)
      p.change[j] = 1 + m68k__splitmix64(&rng) % k;
    rc = run_one(&rs, 0, pct_policy, &p);
  }
  free(rs.steps);
  return rc;
}

/* ---- Replay ------------------------------------------------------------------ */

int m68k_explore_replay(const m68k_explore_target_t *t, const m68k_slice_t *s, size_t n,
                        bool *violation, char *why, size_t whylen, char *err, size_t errlen) {
  m68k_machine_t *m = t->build(t->ctx, err, errlen);
  if (m == NULL)
    return M68K_EINVAL;
  int rc = M68K_OK;
  m68k_schedule_t sch = {.kind = M68K_SCHED_REPLAY, .slices = s, .nslices = n};
  if (m68k_machine_set_schedule(m, &sch) != M68K_OK) {
    snprintf(err, errlen, "the schedule names a CPU the machine does not have");
    rc = M68K_ESCHEDULE;
    goto out;
  }
  m68k_machine_record(m, true);
  m68k_machine_result_t mr;
  m68k_machine_run(m, &mr);
  size_t nrec;
  const m68k_slice_t *rec = m68k_machine_recorded(m, &nrec);
  bool all_ran = nrec == n && memcmp(rec, s, n * sizeof *s) == 0;
  if (mr.status == M68K_MACHINE_SCHEDULE_END && (!all_ran || can_run(m) != 0)) {
    snprintf(err, errlen, "the schedule is not a complete run of this program: %s",
             all_ran ? "the CPUs had not finished when it ran out" : m68k_machine_message(m));
    rc = M68K_ESCHEDULE;
    goto out;
  }
  why[0] = '\0';
  *violation = t->judge(t->ctx, m, why, whylen);
out:
  t->destroy(t->ctx, m);
  return rc;
}

void m68k_explore_result_free(m68k_explore_result_t *res) {
  free(res->first);
  res->first = NULL;
  res->nfirst = 0;
}

/* ---- The driver (explore-cmd.c note 2) ------------------------------------------ */

/* A5 = operation table, A3 = log, A4 = CLOCK, D7 = operations (>= 1).
 * The entries' convention (quaject68k.h): the argument in d1, d0-d4 and
 * a0-a2 the callee's, so the driver keeps its own in a3-a5 and d7. */
static const uint16_t driver[] = {
    0x26D4,         /* 00 loop: move.l (a4),(a3)+   invocation time */
    0x222D, 0x0004, /* 02 move.l 4(a5),d1           the argument */
    0x2055,         /* 06 movea.l (a5),a0           the entry */
    0x508D,         /* 08 addq.l #8,a5 */
    0x4E90,         /* 0a jsr (a0) */
    0x26D4,         /* 0c move.l (a4),(a3)+         response time */
    0x26C0,         /* 0e move.l d0,(a3)+           status */
    0x26C1,         /* 10 move.l d1,(a3)+           value */
    0x5387,         /* 12 subq.l #1,d7 */
    0x66EA,         /* 14 bne.s loop */
    0x4E72, 0x2700, /* 16 done: stop #$2700 */
    0x60FA,         /* 1a bra.s done */
};

const uint16_t *m68k__explore_driver(size_t *nwords) {
  *nwords = sizeof driver / sizeof driver[0];
  return driver;
}

