/* sst.c -- runs the SingleStepTests m68000 conformance data (m68k-sst format).
 *
 * Each test loads registers and memory, runs one instruction from pc - 4
 * (the data's pc is the 68000 prefetch address, 4 bytes past the opcode),
 * and compares D0-D7, A0-A6, USP, SSP, SR, pc - 4 and every listed memory
 * word (the state); on the 68000 model it also counts the instruction's
 * clocks (cycles68000.c) and compares them with the test's `c` line (the
 * cycles), apart from the state. The prefetch words pf0/pf1 are not
 * compared.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "m68k-internal.h"

#define SST_RAM (16u << 20)
#define SST_LINE (1 << 16)
#define SST_NREG 21
#define SST_MAXMEM 512

typedef struct sst_mem {
  uint32_t addr;
  uint16_t val;
} sst_mem_t;

typedef struct sst_test {
  char name[128];
  uint32_t in[SST_NREG], out[SST_NREG];
  sst_mem_t min[SST_MAXMEM], mout[SST_MAXMEM];
  int nmin, nmout;
  unsigned cycles; /* the `c` line's bus-cycle count */
} sst_test_t;

static const char *const reg_names[SST_NREG] = {
    "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "a0",  "a1",  "a2",
    "a3", "a4", "a5", "a6", "usp", "ssp", "sr", "pc", "pf0", "pf1"};

static int parse_regs(const char *s, uint32_t *r)
{
  for (int i = 0; i < SST_NREG; i++) {
    char *end;
    unsigned long v = strtoul(s, &end, 16);
    if (end == s)
      return -EINVAL;
    r[i] = (uint32_t)v;
    s = end;
  }
  return 0;
}

static int parse_mem(const char *s, sst_mem_t *m, int *n)
{
  *n = 0;
  for (;;) {
    while (*s == ' ')
      s++;
    if (*s == 0 || *s == '\n')
      return 0;
    char *end;
    unsigned long a = strtoul(s, &end, 16);
    if (end == s || *end != '=')
      return -EINVAL;
    s = end + 1;
    unsigned long v = strtoul(s, &end, 16);
    if (end == s)
      return -EINVAL;
    s = end;
    if (*n == SST_MAXMEM)
      return -E2BIG;
    m[*n].addr = (uint32_t)a & 0xfffffe;
    m[*n].val = (uint16_t)v;
    (*n)++;
  }
}

static void poke16(uint8_t *ram, uint32_t a, uint16_t v)
{
  ram[a & 0xffffff] = (uint8_t)(v >> 8);
  ram[(a + 1) & 0xffffff] = (uint8_t)v;
}

static uint16_t peek16(const uint8_t *ram, uint32_t a)
{
  return (uint16_t)((ram[a & 0xffffff] << 8) | ram[(a + 1) & 0xffffff]);
}

/* Runs one test; returns true when its state passes, and sets *cycles_ok
 * when the 68000 model's clock count is the test's. */
static bool run_test(const sst_test_t *t, uint8_t *ram, m68k_model_t model, FILE *out,
                     bool verbose, const char *file, bool *cycles_ok)
{
  *cycles_ok = false;
  for (int i = 0; i < t->nmin; i++)
    poke16(ram, t->min[i].addr, t->min[i].val);
  m68k_bus_t bus = {.ram = ram, .ram_base = 0, .ram_size = SST_RAM};
  m68k_cpu_t *c = m68k_create(model, &bus);
  bool ok = false;
  if (!c)
    goto cleanup;
  m68k_set_reg(c, M68K_REG_SR, t->in[17]);
  for (int i = 0; i < 15; i++)
    m68k_set_reg(c, (m68k_reg_t)i, t->in[i]);
  m68k_set_reg(c, M68K_REG_USP, t->in[15]);
  m68k_set_reg(c, M68K_REG_ISP, t->in[16]);
  m68k_set_reg(c, M68K_REG_PC, t->in[18] - 4);
  /* Cycle counting runs in the interpreter (xlat.c note 6): with
   * translation on, the case runs translated and only its state is checked;
   * the interpreted run checks the clocks. */
  bool count = model == M68K_MODEL_68000 && m68k_jit_default() == 0;
  if (count)
    m68k_set_cycle_count(c, true);
  m68k_step(c);
  if (count) {
    uint64_t have = m68k_cycles(c);
    *cycles_ok = have == t->cycles;
    if (!*cycles_ok && verbose && out)
      fprintf(out, "  %s %s: cycles got %llu want %u\n", file, t->name, (unsigned long long)have,
              t->cycles);
  }
  uint32_t got[SST_NREG];
  for (int i = 0; i < 15; i++)
    got[i] = m68k_get_reg(c, (m68k_reg_t)i);
  got[15] = m68k_get_reg(c, M68K_REG_USP);
  got[16] = m68k_get_reg(c, M68K_REG_ISP);
  got[17] = m68k_get_reg(c, M68K_REG_SR);
  /* After STOP the 68000 has not prefetched: its pc is the architectural
   * one. */
  got[18] = m68k_get_reg(c, M68K_REG_PC) + (c->stopped ? 0 : 4);
  ok = true;
  int shown = 0;
  for (int i = 0; i < 19; i++) {
    uint32_t want = t->out[i], have = got[i];
    if (i == 18 || i == 15 || i == 16) {
      want &= 0xffffff;
      have &= 0xffffff;
    }
    if (want != have) {
      if (verbose && out && shown++ < 6)
        fprintf(out, "  %s %s: %s got %x want %x\n", file, t->name, reg_names[i], have, want);
      ok = false;
    }
  }
  for (int i = 0; i < t->nmout; i++) {
    uint16_t have = peek16(ram, t->mout[i].addr);
    if (have != t->mout[i].val) {
      if (verbose && out && shown++ < 6)
        fprintf(out, "  %s %s: mem %06x got %04x want %04x\n", file, t->name, t->mout[i].addr,
                have, t->mout[i].val);
      ok = false;
    }
  }
  /* With translation on, a case must have run translated code unless its
   * trace bit is set (tracing runs in the interpreter, xlat.c note 6): a
   * silent fall-back would repeat the interpreted run. */
  if (m68k_jit_default() != 0 && !(t->in[17] & 0x8000)) {
    m68k_jit_stats_t st;
    m68k_jit_stats(c, &st);
    if (st.translated == 0) {
      if (verbose && out)
        fprintf(out, "  %s %s: not translated\n", file, t->name);
      ok = false;
    }
  }
  m68k_destroy(c);
cleanup:
  for (int i = 0; i < t->nmin; i++)
    poke16(ram, t->min[i].addr, 0);
  for (int i = 0; i < t->nmout; i++)
    poke16(ram, t->mout[i].addr, 0);
  return ok;
}

int m68k_sst_run_file(const char *path, m68k_model_t model, bool verbose, void *outp,
                      unsigned *passed, unsigned *total, unsigned *cycles_ok)
{
  FILE *out = outp;
  int rc = 0;
  unsigned np = 0, nt = 0, nc = 0;
  char *line = NULL;
  sst_test_t *t = NULL;
  uint8_t *ram = NULL;
  gzFile gz = gzopen(path, "rb");
  if (!gz) {
    rc = errno ? -errno : -ENOENT;
    goto done;
  }
  line = malloc(SST_LINE);
  t = calloc(1, sizeof(*t));
  ram = calloc(1, SST_RAM);
  if (!line || !t || !ram) {
    rc = -ENOMEM;
    goto done;
  }
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  int have = 0; /* bit mask of the lines seen: t i m f n */
  while (gzgets(gz, line, SST_LINE)) {
    switch (line[0]) {
    case 't': {
      size_t n = strcspn(line + 2, "\n");
      if (n >= sizeof(t->name))
        n = sizeof(t->name) - 1;
      memcpy(t->name, line + 2, n);
      t->name[n] = 0;
      have = 1;
      break;
    }
    case 'i': rc = parse_regs(line + 2, t->in); have |= 2; break;
    case 'm': rc = parse_mem(line + 1, t->min, &t->nmin); have |= 4; break;
    case 'f': rc = parse_regs(line + 2, t->out); have |= 8; break;
    case 'n': rc = parse_mem(line + 1, t->mout, &t->nmout); have |= 16; break;
    case 'c': {
      char *end;
      unsigned long cyc = strtoul(line + 2, &end, 10);
      if (have != 31 || end == line + 2 || cyc > 1000000) {
        rc = -EINVAL;
        break;
      }
      t->cycles = (unsigned)cyc;
      nt++;
      bool cok;
      if (run_test(t, ram, model, out, verbose, base, &cok))
        np++;
      nc += cok;
      have = 0;
      break;
    }
    default: break;
    }
    if (rc < 0)
      goto done;
  }
  if (out && model == M68K_MODEL_68000)
    fprintf(out, "SST %s %u/%u cycles %u/%u (%.1f%%)\n", base, np, nt, nc, nt,
            nt ? 100.0 * nc / nt : 0.0);
  else if (out)
    fprintf(out, "SST %s %u/%u\n", base, np, nt);
done:
  if (gz)
    gzclose(gz);
  free(ram);
  free(t);
  free(line);
  if (passed)
    *passed = np;
  if (total)
    *total = nt;
  if (cycles_ok)
    *cycles_ok = nc;
  return rc;
}
