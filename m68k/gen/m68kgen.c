/* m68kgen.c -- build-time generator: opcode pattern table to 64K dispatch tables.
 *
 * Usage: m68kgen m68k-ops.tab m68k-cycles.tab out.inc
 *
 * Reads the opcode patterns of m68k-ops.tab (its header comment gives the
 * format) and writes, for cpu-ops.c to include:
 *   - one handler per distinct (template, size, EA mode, dest EA mode, arg),
 *     each a call of the inline template t_<name> with constant arguments,
 *     so the C compiler specialises the template;
 *   - m68k__handlers[], the cold handlers (see HOT_EA_MASK; index 0 is the
 *     illegal handler), hot ones as M68K_HOT_ENTRY(h);
 *   - m68k__optab_68000[65536] and m68k__optab_68030[65536], a handler
 *     index for every opcode word;
 *   - m68k__cycles[], each handler's MC68030 timing (cache case, head and
 *     tail, its effective address's component composed with its operation
 *     by m68k-timing.h), from the rows of m68k-cycles.tab (its header
 *     comment gives the format);
 *   - under M68K_GEN_EXEC, the body of the threaded interpreter: a table of
 *     label addresses and one label per hot handler that runs it and
 *     dispatches the next instruction (M68K_DISPATCH and M68K_NEXT, from
 *     cpu-ops.c), and the label that calls the cold ones.
 * An opcode matched by several patterns takes the one with the most fixed
 * bits (then the first in the file), as Musashi's generator does.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../m68k-timing.h"

#define MAX_ENTRIES 512
#define MAX_HANDLERS 8192

enum { EA_COUNT = 12 };
static const char *const ea_names[EA_COUNT] = {"EA_D", "EA_A", "EA_AI", "EA_PI", "EA_PD", "EA_DI",
                                               "EA_IX", "EA_AW", "EA_AL", "EA_PCD", "EA_PCX",
                                               "EA_IMM"};

/* EA classes: bit i set when mode i (order of ea_names) is allowed. */
static const struct {
  const char *name;
  unsigned mask;
} ea_classes[] = {
    {"ALL", 0xfff},    {"DATA", 0xffd},   {"MEM", 0xffc},    {"ALT", 0x1ff},
    {"DALT", 0x1fd},   {"MALT", 0x1fc},   {"CTRL", 0x7e4},   {"CALT", 0x1e4},
    {"CALTPD", 0x1f4}, {"CTRLPI", 0x7ec}, {"DCTRL", 0x7e5},  {"DCALT", 0x1e5},
    {"DATANI", 0x7fd}, {"DREG", 0x001},   {"AREG", 0x002},   {"ALLNI", 0x7ff},
};

typedef struct entry {
  unsigned fixed_mask, fixed_val; /* bits that must match */
  unsigned kbits;                 /* bits concatenated into the k argument */
  int has_e, has_E;
  unsigned e_mask, E_mask;
  char tmpl[64];
  int size;
  int arg; /* -1: take k from the k bits */
  int models; /* bit 0: 68000, bit 1: 68030 */
  int nfixed;
  int line;
} entry_t;

typedef struct handler {
  int entry;
  int ea, ea2, k;
} handler_t;

/* Templates named on `hot` lines. Their handlers whose addressing modes are
 * all in HOT_EA_MASK are hot: inlined into the threaded interpreter behind a
 * label of their own. Every other handler is cold: a function called through
 * m68k__handlers[] from one shared label. Few labels keep the interpreter
 * quick to compile (gcc's time grows fast with the labels of one function). */
#define MAX_INLINE 128
static char inline_names[MAX_INLINE][64];
static int ninline;
/* D, A, (A), (A)+, -(A), d16(A), d8(A,X), #imm: what compiled code uses. */
#define HOT_EA_MASK 0x87fu

/* Cycle estimates (m68k-cycles.tab): the MC68030's cache-case time, head and
 * tail per handler, composed by m68k-timing.h's rule. */
#define MAX_EATABLES 16
#define MAX_CYCROWS 160
/* One table figure: "H/T/C" (head, tail, cache case), "H+/T/C" (the head is
 * H plus the operation's head), a bare "C" (no head or tail sourced: no
 * overlap either side), or "-" (no component). */
typedef struct trip {
  int cc, head, tail;
  int plus, none, bare;
} trip_t;
typedef struct eatable {
  char name[16];
  trip_t v[EA_COUNT + 1]; /* the modes, then #imm with a long operand */
} eatable_t;
typedef struct cycrow {
  char tmpl[64];
  int size, arg;          /* -1: any */
  trip_t reg, mem;        /* the operation: register EA (or none), memory EA */
  int ea, eal;            /* EA table for byte/word and for long operands, -1: none */
  int dreg, dmem;         /* MOVE: the operation by destination mode, for a
                           * register and for a memory or immediate source */
  trip_t alt;             /* kind 1, 3, 4: the other outcome's operation */
  int per, kind;
} cycrow_t;
static eatable_t eatables[MAX_EATABLES];
static int neatables;
static cycrow_t cycrows[MAX_CYCROWS];
static int ncycrows;
static trip_t cyc_default = {4, 0, 0, 0, 0, 1};

static entry_t entries[MAX_ENTRIES];
static int nentries;
static handler_t handlers[MAX_HANDLERS];
static int nhandlers;
static unsigned short optab[2][65536];

static unsigned class_mask(const char *name, int line)
{
  for (size_t i = 0; i < sizeof(ea_classes) / sizeof(ea_classes[0]); i++)
    if (strcmp(ea_classes[i].name, name) == 0)
      return ea_classes[i].mask;
  fprintf(stderr, "m68kgen: line %d: unknown EA class %s\n", line, name);
  exit(1);
}

/* Mode index 0-11 of the 3-bit mode and register fields, or -1. */
static int ea_index(unsigned mode, unsigned reg)
{
  if (mode < 7)
    return (int)mode;
  if (reg <= 4)
    return 7 + (int)reg;
  return -1;
}

static void parse(FILE *f)
{
  char buf[512];
  int line = 0;
  while (fgets(buf, sizeof(buf), f)) {
    line++;
    char *p = buf;
    while (isspace((unsigned char)*p))
      p++;
    if (*p == '#' || *p == 0)
      continue;
    if (strncmp(p, "hot", 3) == 0 && isspace((unsigned char)p[3])) {
      for (char *t = strtok(p + 3, " \t\r\n"); t; t = strtok(NULL, " \t\r\n")) {
        if (ninline == MAX_INLINE) {
          fprintf(stderr, "m68kgen: line %d: too many hot templates\n", line);
          exit(1);
        }
        snprintf(inline_names[ninline++], sizeof(inline_names[0]), "%s", t);
      }
      continue;
    }
    char pat[64], tmpl[64], arg[16], models[16], ec[16] = "-", ec2[16] = "-";
    int size;
    int n = sscanf(p, "%63s %63s %d %15s %15s %15s %15s", pat, tmpl, &size, arg, models, ec, ec2);
    if (n < 5) {
      fprintf(stderr, "m68kgen: line %d: too few fields\n", line);
      exit(1);
    }
    if (nentries == MAX_ENTRIES) {
      fprintf(stderr, "m68kgen: too many entries\n");
      exit(1);
    }
    entry_t *e = &entries[nentries++];
    memset(e, 0, sizeof(*e));
    e->line = line;
    int bit = 15;
    for (char *q = pat; *q; q++) {
      if (*q == '_')
        continue;
      if (bit < 0) {
        fprintf(stderr, "m68kgen: line %d: pattern too long\n", line);
        exit(1);
      }
      unsigned m = 1u << bit;
      switch (*q) {
      case '0': e->fixed_mask |= m; e->nfixed++; break;
      case '1': e->fixed_mask |= m; e->fixed_val |= m; e->nfixed++; break;
      case 'k': e->kbits |= m; break;
      case 'e': e->has_e = 1; break;
      case 'E': e->has_E = 1; break;
      case '.': break;
      default:
        fprintf(stderr, "m68kgen: line %d: bad pattern character %c\n", line, *q);
        exit(1);
      }
      bit--;
    }
    if (bit != -1) {
      fprintf(stderr, "m68kgen: line %d: pattern too short\n", line);
      exit(1);
    }
    snprintf(e->tmpl, sizeof(e->tmpl), "%s", tmpl);
    e->size = size;
    e->arg = strcmp(arg, "k") == 0 ? -1 : atoi(arg);
    e->models = strcmp(models, "all") == 0 ? 3 : strcmp(models, "000") == 0 ? 1 : 2;
    if (e->has_e)
      e->e_mask = class_mask(ec, line);
    if (e->has_E)
      e->E_mask = class_mask(ec2, line);
  }
}

static int eatable_find(const char *name, int line)
{
  for (int i = 0; i < neatables; i++)
    if (strcmp(eatables[i].name, name) == 0)
      return i;
  fprintf(stderr, "m68kgen: cycles line %d: unknown EA table %s\n", line, name);
  exit(1);
}

static trip_t parse_trip(const char *s, int line)
{
  trip_t t = {0, 0, 0, 0, 0, 0};
  char plus = 0;
  int n;
  if (strcmp(s, "-") == 0) {
    t.none = 1;
  } else if (sscanf(s, "%d/%d/%d%n", &t.head, &t.tail, &t.cc, &n) == 3 && s[n] == 0) {
  } else if (sscanf(s, "%d%c/%d/%d%n", &t.head, &plus, &t.tail, &t.cc, &n) == 4 && plus == '+' &&
             s[n] == 0) {
    t.plus = 1;
  } else if (sscanf(s, "%d%n", &t.cc, &n) == 1 && s[n] == 0) {
    t.head = t.tail = 0; /* the sscanf calls above may have set them */
    t.bare = 1;
  } else {
    fprintf(stderr, "m68kgen: cycles line %d: bad figure %s\n", line, s);
    exit(1);
  }
  if (t.cc < t.head || t.cc > 65535 || t.head > 255 || t.tail > 255) {
    fprintf(stderr, "m68kgen: cycles line %d: figure %s out of range\n", line, s);
    exit(1);
  }
  return t;
}

static void parse_cycles(FILE *f)
{
  char buf[512];
  int line = 0;
  while (fgets(buf, sizeof(buf), f)) {
    line++;
    char *tok[20];
    int n = 0;
    for (char *t = strtok(buf, " \t\r\n"); t && n < 20 && t[0] != '#';
         t = strtok(NULL, " \t\r\n"))
      tok[n++] = t; /* a '#' token starts a comment, at the start or after a row */
    if (n == 0)
      continue;
    if (strcmp(tok[0], "default") == 0 && n == 2) {
      cyc_default = parse_trip(tok[1], line);
    } else if (strcmp(tok[0], "ea") == 0) {
      if ((n != 2 + EA_COUNT && n != 3 + EA_COUNT) || neatables == MAX_EATABLES) {
        fprintf(stderr, "m68kgen: cycles line %d: an EA table has %d or %d values\n", line,
                EA_COUNT, EA_COUNT + 1);
        exit(1);
      }
      eatable_t *t = &eatables[neatables++];
      snprintf(t->name, sizeof(t->name), "%s", tok[1]);
      for (int i = 0; i < EA_COUNT; i++)
        t->v[i] = parse_trip(tok[2 + i], line);
      t->v[EA_COUNT] = n == 3 + EA_COUNT ? parse_trip(tok[2 + EA_COUNT], line) : t->v[EA_COUNT - 1];
    } else {
      if (ncycrows == MAX_CYCROWS || n < 3) {
        fprintf(stderr, "m68kgen: cycles line %d: bad row\n", line);
        exit(1);
      }
      cycrow_t *r = &cycrows[ncycrows++];
      memset(r, 0, sizeof(*r));
      r->size = r->arg = -1;
      r->ea = r->eal = r->dreg = r->dmem = -1;
      char *colon = strchr(tok[0], ':'), *dot = strchr(tok[0], '.');
      if (colon) {
        *colon = 0;
        r->arg = atoi(colon + 1);
      }
      if (dot) {
        *dot = 0;
        r->size = atoi(dot + 1);
      }
      snprintf(r->tmpl, sizeof(r->tmpl), "%s", tok[0]);
      r->reg = parse_trip(tok[1], line);
      r->mem = parse_trip(tok[2], line);
      int i = 3;
      if (i < n && !strchr(tok[i], '=')) {
        char *bar = strchr(tok[i], '|');
        if (bar)
          *bar = 0;
        if (strcmp(tok[i], "-") != 0)
          r->ea = eatable_find(tok[i], line);
        r->eal = bar ? eatable_find(bar + 1, line) : r->ea;
        i++;
      }
      if (i + 1 < n && !strchr(tok[i], '=')) {
        r->dreg = eatable_find(tok[i], line);
        r->dmem = eatable_find(tok[i + 1], line);
        i += 2;
      }
      for (; i < n; i++) {
        if (strncmp(tok[i], "alt=", 4) == 0) {
          r->alt = parse_trip(tok[i] + 4, line);
          r->kind = 1;
        } else if (strncmp(tok[i], "zalt=", 5) == 0) {
          r->alt = parse_trip(tok[i] + 5, line);
          r->kind = 3;
        } else if (strncmp(tok[i], "ralt=", 5) == 0) {
          r->alt = parse_trip(tok[i] + 5, line);
          r->kind = 4;
        } else if (strncmp(tok[i], "per=", 4) == 0) {
          r->per = atoi(tok[i] + 4);
          r->kind = 2;
        } else {
          fprintf(stderr, "m68kgen: cycles line %d: unknown field %s\n", line, tok[i]);
          exit(1);
        }
      }
    }
  }
}

/* An instruction's figure: the operation `op` after the effective-address
 * component `ea` (m68k-timing.h). An unsourced figure on either side makes
 * the whole one unsourced: no overlap with its neighbours. */
static trip_t compose(trip_t ea, trip_t op)
{
  if (ea.none)
    return op;
  trip_t r = {ea.cc + op.cc, 0, 0, 0, 0, 1};
  if (ea.bare || op.bare)
    return r;
  m68k__timing_t t = m68k__timing_compose((m68k__timing_t){(unsigned)ea.cc, (unsigned)ea.head,
                                                           (unsigned)ea.tail},
                                          ea.plus, (m68k__timing_t){(unsigned)op.cc,
                                                                    (unsigned)op.head,
                                                                    (unsigned)op.tail});
  return (trip_t){(int)t.cc, (int)t.head, (int)t.tail, 0, 0, 0};
}

/* A handler's figures: the instruction's, and for kinds 1, 3 and 4 the
 * other outcome's (1: Bcc, DBcc falling through; 3: CAS failing; 4: a shift
 * by a register count); kind 2 (MOVEM) adds `per` per register. */
static void handler_cycles(const handler_t *h, trip_t *main, trip_t *alt, int *per, int *kind)
{
  const entry_t *e = &entries[h->entry];
  *main = *alt = cyc_default;
  *per = *kind = 0;
  for (int i = 0; i < ncycrows; i++) {
    const cycrow_t *r = &cycrows[i];
    if (strcmp(r->tmpl, e->tmpl) != 0 || (r->size >= 0 && r->size != e->size) ||
        (r->arg >= 0 && r->arg != h->k))
      continue;
    int reg = !e->has_e || h->ea <= 1;
    trip_t op = reg ? r->reg : r->mem;
    if (e->has_E && r->dreg >= 0)
      op = eatables[reg ? r->dreg : r->dmem].v[h->ea2];
    int t = e->size == 4 ? r->eal : r->ea;
    trip_t ea = {0, 0, 0, 0, 1, 0};
    if (e->has_e && t >= 0)
      ea = eatables[t].v[h->ea == EA_COUNT - 1 && e->size == 4 ? EA_COUNT : h->ea];
    *main = compose(ea, op);
    *alt = r->kind == 1 || r->kind == 3 || r->kind == 4 ? compose(ea, r->alt) : *main;
    *per = r->per;
    *kind = r->kind;
    return;
  }
}

static int is_hot(const handler_t *h)
{
  if (!(HOT_EA_MASK & (1u << h->ea)) || !(HOT_EA_MASK & (1u << h->ea2)))
    return 0;
  for (int i = 0; i < ninline; i++)
    if (strcmp(inline_names[i], entries[h->entry].tmpl) == 0)
      return 1;
  return 0;
}

static unsigned extract_k(unsigned op, unsigned kbits)
{
  unsigned k = 0;
  for (int b = 15; b >= 0; b--)
    if (kbits & (1u << b))
      k = (k << 1) | ((op >> b) & 1);
  return k;
}

#define HASH_SIZE 16384
static int hash_slots[HASH_SIZE]; /* handler index, 0 = empty */

static unsigned hash_key(const entry_t *e, int ea, int ea2, int k)
{
  unsigned h = 2166136261u;
  for (const char *p = e->tmpl; *p; p++)
    h = (h ^ (unsigned char)*p) * 16777619u;
  h = (h ^ (unsigned)e->size) * 16777619u;
  h = (h ^ (unsigned)ea) * 16777619u;
  h = (h ^ (unsigned)ea2) * 16777619u;
  h = (h ^ (unsigned)k) * 16777619u;
  return h % HASH_SIZE;
}

static int handler_for(int ei, int ea, int ea2, int k)
{
  const entry_t *b = &entries[ei];
  unsigned slot = hash_key(b, ea, ea2, k);
  for (;;) {
    int i = hash_slots[slot];
    if (i == 0)
      break;
    const handler_t *h = &handlers[i];
    const entry_t *a = &entries[h->entry];
    if (strcmp(a->tmpl, b->tmpl) == 0 && a->size == b->size && h->ea == ea && h->ea2 == ea2 &&
        h->k == k)
      return i;
    slot = (slot + 1) % HASH_SIZE;
  }
  if (nhandlers == MAX_HANDLERS) {
    fprintf(stderr, "m68kgen: too many handlers\n");
    exit(1);
  }
  handlers[nhandlers] = (handler_t){ei, ea, ea2, k};
  hash_slots[slot] = nhandlers;
  return nhandlers++;
}

static void build(void)
{
  nhandlers = 1; /* 0: illegal */
  for (unsigned op = 0; op < 65536; op++) {
    for (int model = 0; model < 2; model++) {
      int best = -1, ea = 0, ea2 = 0;
      for (int i = 0; i < nentries; i++) {
        const entry_t *e = &entries[i];
        if (!(e->models & (1 << model)) || (op & e->fixed_mask) != e->fixed_val)
          continue;
        int m1 = 0, m2 = 0;
        if (e->has_e) {
          m1 = ea_index((op >> 3) & 7, op & 7);
          if (m1 < 0 || !(e->e_mask & (1u << m1)))
            continue;
        }
        if (e->has_E) {
          m2 = ea_index((op >> 6) & 7, (op >> 9) & 7);
          if (m2 < 0 || !(e->E_mask & (1u << m2)))
            continue;
        }
        if (best < 0 || e->nfixed > entries[best].nfixed) {
          best = i;
          ea = m1;
          ea2 = m2;
        }
      }
      if (best < 0) {
        optab[model][op] = 0;
        continue;
      }
      const entry_t *e = &entries[best];
      int k = e->arg >= 0 ? e->arg : (int)extract_k(op, e->kbits);
      optab[model][op] = (unsigned short)handler_for(best, ea, ea2, k);
    }
  }
}

static void emit(FILE *o)
{
  fprintf(o, "/* m68k-ops-gen.inc -- generated by m68kgen from m68k-ops.tab; do not edit. */\n\n");
  /* Included twice by cpu-ops.c: first for the handlers and tables, then
   * with M68K_GEN_EXEC defined inside the threaded interpreter, for its
   * label table and one label per hot handler (cpu-ops.c design note 4). */
  fprintf(o, "#ifndef M68K_GEN_EXEC\n");
  int nhot = 0;
  for (int i = 1; i < nhandlers; i++) {
    const handler_t *h = &handlers[i];
    const entry_t *e = &entries[h->entry];
    int hot = is_hot(h);
    nhot += hot;
    fprintf(o,
            "%s void h%d(m68k_cpu_t *c, uint32_t op) /* line %d */\n"
            "{ t_%s(c, op, %d, %s, %s, %d); }\n",
            hot ? "M68K_HOT" : "M68K_COLD", i, e->line, e->tmpl, e->size, ea_names[h->ea],
            ea_names[h->ea2], h->k);
  }
  fprintf(o, "\n/* %d handlers, %d hot. Cold ones are called through this table (hot\n"
             " * ones too when M68K_THREADED is 0). */\n",
          nhandlers, nhot);
  fprintf(o, "static void (*const m68k__handlers[%d])(m68k_cpu_t *, uint32_t) = {\n  h_illegal,\n",
          nhandlers);
  for (int i = 1; i < nhandlers; i++) {
    if (is_hot(&handlers[i]))
      fprintf(o, "  M68K_HOT_ENTRY(h%d),\n", i);
    else
      fprintf(o, "  h%d,\n", i);
  }
  fprintf(o, "};\n");
  /* The translator (xlat.c) calls any handler out of line from its
   * stencils, and ends a block after one whose template changes the flow. */
  fprintf(o, "\n/* Every handler out of line, and its template, for the translator. */\n"
             "const m68k__handler_fn m68k__handler_fns[%d] = {\n  h_illegal,\n", nhandlers);
  for (int i = 1; i < nhandlers; i++)
    fprintf(o, "  h%d,\n", i);
  fprintf(o, "};\nconst char *const m68k__handler_tmpl[%d] = {\n  \"illegal\",\n", nhandlers);
  for (int i = 1; i < nhandlers; i++)
    fprintf(o, "  \"%s\",\n", entries[handlers[i].entry].tmpl);
  fprintf(o, "};\n");
  fprintf(o, "\n/* MC68030 timing per handler (m68k-cycles.tab): cache case, head, tail;\n"
             " * the other outcome's; per register; kind. */\n"
             "const m68k__cycles_t m68k__cycles[%d] = {\n  {%d, %d, %d, %d, %d, %d, 0, 0},\n",
          nhandlers, cyc_default.cc, cyc_default.head, cyc_default.tail, cyc_default.cc,
          cyc_default.head, cyc_default.tail);
  for (int i = 1; i < nhandlers; i++) {
    trip_t m, a;
    int per, kind;
    handler_cycles(&handlers[i], &m, &a, &per, &kind);
    fprintf(o, "  {%d, %d, %d, %d, %d, %d, %d, %d},\n", m.cc, m.head, m.tail, a.cc, a.head, a.tail,
            per, kind);
  }
  fprintf(o, "};\n");
  static const char *const names[2] = {"m68k__optab_68000", "m68k__optab_68030"};
  for (int m = 0; m < 2; m++) {
    fprintf(o, "\nconst uint16_t %s[65536] = {", names[m]);
    for (unsigned op = 0; op < 65536; op++)
      fprintf(o, "%s%u,", (op % 16) ? "" : "\n", optab[m][op]);
    fprintf(o, "\n};\n");
  }
  fprintf(o, "\n#else /* M68K_GEN_EXEC */\n");
  fprintf(o, "static const void *const m68k__labels[%d] = {\n  &&Lcold,\n", nhandlers);
  for (int i = 1; i < nhandlers; i++)
    fprintf(o, is_hot(&handlers[i]) ? "  &&L%d,\n" : "  &&Lcold, /* h%d */\n", i);
  fprintf(o, "};\nM68K_DISPATCH();\nLcold: m68k__handlers[idx](c, op); M68K_NEXT();\n");
  for (int i = 1; i < nhandlers; i++)
    if (is_hot(&handlers[i]))
      fprintf(o, "L%d: h%d(c, op); M68K_NEXT();\n", i, i);
  fprintf(o, "#endif /* M68K_GEN_EXEC */\n");
}

int main(int argc, char **argv)
{
  if (argc != 4) {
    fprintf(stderr, "usage: m68kgen TABLE CYCLES OUT\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "r");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  parse(f);
  fclose(f);
  f = fopen(argv[2], "r");
  if (!f) {
    perror(argv[2]);
    return 1;
  }
  parse_cycles(f);
  fclose(f);
  build();
  FILE *o = fopen(argv[3], "w");
  if (!o) {
    perror(argv[3]);
    return 1;
  }
  emit(o);
  if (fclose(o) != 0) {
    perror(argv[3]);
    return 1;
  }
  return 0;
}
