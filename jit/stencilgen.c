/* stencilgen.c -- build-time tool: ELF relocatable template objects in, C stencil tables out.
 *
 * Usage: stencilgen --prefix P --output out.c --header out.h obj.o...
 *
 * Design notes.
 *
 * 1. Input. Relocatable objects (ET_REL) of either ELF class and byte order,
 *    read through libelf's gelf_* calls, which translate headers, symbols and
 *    relocations to host form. Section contents are copied as raw bytes: a
 *    stencil keeps its target's byte order. All inputs must be for the same
 *    machine (x86-64 or m68k). Both SHT_RELA and SHT_REL are read; for REL
 *    the implicit addend is taken from the field and the field cleared.
 *
 * 2. Templates. Every defined global (or weak) STT_FUNC symbol is a
 *    template; its section is the stencil's main code. A stencil is the
 *    closure of sections reachable through relocations against defined
 *    symbols, starting from the main section: the main section is the text
 *    part (entry at its symbol's value); everything else it reaches joins
 *    the data part, local code (a .cold part GCC split off, a static
 *    helper) first, then read-only data (constant pools, strings, jump
 *    tables), every section at its own alignment. Code memory is
 *    executable throughout, so code runs from the data part as well; kept
 *    out of the text, a cold part no longer stands between the main
 *    section's trailing jump and the next link of a chain (note 4).
 *    Writable, uninitialised or thread-local data is refused: state
 *    belongs in holes.
 *
 * 3. Holes. A relocation against an undefined symbol is a hole named by the
 *    symbol; hole ids are shared by all stencils of one run (sorted by name)
 *    so one value array serves them all. A relocation against a defined
 *    symbol becomes a JIT_HOLE_TEXT or JIT_HOLE_DATA hole (the address of the
 *    stencil's own text or data part) with the offset folded into the
 *    addend. The relocation type must be a row of JIT_HOLE_KIND_MAP for the
 *    object's machine; anything else (GOT, TLS, PLT-via-GOT) fails the run
 *    with a message naming the template and the kind.
 *
 * 4. Tail. If the main section ends with a jump to a hole (x86-64
 *    `jmp rel32`, m68k `bra.l` or `jmp abs.l`), its offset is recorded so
 *    a chain can drop the jump and fall through.
 *
 * Exit status 0, or 1 with a message on stderr naming the object, template
 * and cause; no output file is left behind on failure.
 */
#include "jit.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef EM_68K
#define EM_68K 4
#endif

/* Names of relocation types for messages, including kinds we refuse. */
typedef struct reloc_name {
  uint16_t machine;
  uint16_t type;
  const char *name;
} reloc_name_t;

static const reloc_name_t reloc_names[] = {
  {62, 0, "R_X86_64_NONE"}, {62, 1, "R_X86_64_64"}, {62, 2, "R_X86_64_PC32"},
  {62, 3, "R_X86_64_GOT32"}, {62, 4, "R_X86_64_PLT32"}, {62, 5, "R_X86_64_COPY"},
  {62, 6, "R_X86_64_GLOB_DAT"}, {62, 7, "R_X86_64_JUMP_SLOT"}, {62, 8, "R_X86_64_RELATIVE"},
  {62, 9, "R_X86_64_GOTPCREL"}, {62, 10, "R_X86_64_32"}, {62, 11, "R_X86_64_32S"},
  {62, 12, "R_X86_64_16"}, {62, 13, "R_X86_64_PC16"}, {62, 14, "R_X86_64_8"},
  {62, 15, "R_X86_64_PC8"}, {62, 16, "R_X86_64_DTPMOD64"}, {62, 17, "R_X86_64_DTPOFF64"},
  {62, 18, "R_X86_64_TPOFF64"}, {62, 19, "R_X86_64_TLSGD"}, {62, 20, "R_X86_64_TLSLD"},
  {62, 21, "R_X86_64_DTPOFF32"}, {62, 22, "R_X86_64_GOTTPOFF"}, {62, 23, "R_X86_64_TPOFF32"},
  {62, 24, "R_X86_64_PC64"}, {62, 25, "R_X86_64_GOTOFF64"}, {62, 26, "R_X86_64_GOTPC32"},
  {62, 27, "R_X86_64_GOT64"}, {62, 28, "R_X86_64_GOTPCREL64"}, {62, 29, "R_X86_64_GOTPC64"},
  {62, 30, "R_X86_64_GOTPLT64"}, {62, 31, "R_X86_64_PLTOFF64"}, {62, 41, "R_X86_64_GOTPCRELX"},
  {62, 42, "R_X86_64_REX_GOTPCRELX"},
  {4, 0, "R_68K_NONE"}, {4, 1, "R_68K_32"}, {4, 2, "R_68K_16"}, {4, 3, "R_68K_8"},
  {4, 4, "R_68K_PC32"}, {4, 5, "R_68K_PC16"}, {4, 6, "R_68K_PC8"}, {4, 7, "R_68K_GOT32"},
  {4, 8, "R_68K_GOT16"}, {4, 9, "R_68K_GOT8"}, {4, 10, "R_68K_GOT32O"},
  {4, 11, "R_68K_GOT16O"}, {4, 12, "R_68K_GOT8O"}, {4, 13, "R_68K_PLT32"},
  {4, 14, "R_68K_PLT16"}, {4, 15, "R_68K_PLT8"}, {4, 16, "R_68K_PLT32O"},
  {4, 17, "R_68K_PLT16O"}, {4, 18, "R_68K_PLT8O"},
};

/* The hole kind table, from jit.h. */
static const struct {
  const char *name;
  uint16_t machine, type;
  uint8_t bytes, big_endian, pcrel;
} kinds[] = {
#define KIND_ROW(n, mach, type, bytes, be, pcrel, range) {#n, mach, type, bytes, be, pcrel},
  JIT_HOLE_KIND_MAP(KIND_ROW)
#undef KIND_ROW
};

typedef struct sec {
  GElf_Shdr sh;
  const char *name;
  const uint8_t *data;  /* raw bytes (NULL for NOBITS) */
  size_t nrel;          /* relocations that apply to this section */
  GElf_Rela *rel;
  bool rel_implicit;    /* SHT_REL: addends live in the fields */
} sec_t;

typedef struct obj {
  const char *path;
  int fd;
  Elf *elf;
  GElf_Ehdr eh;
  size_t nsec;
  sec_t *secs;
  size_t nsym;
  GElf_Sym *syms;
  const char **symnames;
} obj_t;

/* A hole reference before hole ids are final. */
typedef struct ref {
  uint32_t offset;
  uint16_t kind;
  int hole;          /* index in the name table, or -1 text, -2 data */
  int64_t addend;
} ref_t;

typedef struct stencil {
  char *name;
  uint8_t *bytes;
  uint32_t size, code_size, data_off, entry, align, tail;
  int tail_hole;
  ref_t *refs;
  size_t nrefs;
} stencil_t;

typedef struct gen {
  const char *prefix;
  uint16_t machine;
  char **holes;
  size_t nholes;
  stencil_t *st;
  size_t nst;
} gen_t;

static const char *g_obj = "";

/* Everything the run allocates stays reachable from here until exit (a
 * short-lived tool: the OS frees it; leak checkers see it reachable). */
static gen_t gen;
static obj_t cur_obj;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
  va_list ap;
  fprintf(stderr, "stencilgen: %s: ", g_obj);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

static void *xcalloc(size_t n, size_t size)
{
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p)
    die("out of memory");
  return p;
}

static void *xrealloc(void *p, size_t n, size_t size)
{
  p = realloc(p, (n ? n : 1) * size);
  if (!p)
    die("out of memory");
  return p;
}

static char *xstrdup(const char *s)
{
  char *d = strdup(s);
  if (!d)
    die("out of memory");
  return d;
}

static const char *reloc_type_name(unsigned machine, unsigned type, char *buf, size_t n)
{
  for (size_t i = 0; i < sizeof reloc_names / sizeof reloc_names[0]; i++)
    if (reloc_names[i].machine == machine && reloc_names[i].type == type)
      return reloc_names[i].name;
  snprintf(buf, n, "relocation type %u", type);
  return buf;
}

static int kind_of(unsigned machine, unsigned type)
{
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (kinds[i].machine == machine && kinds[i].type == type)
      return (int)i;
  return -1;
}

static void load_object(obj_t *o, const char *path)
{
  size_t shstrndx;
  Elf_Scn *scn = NULL;

  memset(o, 0, sizeof *o);
  o->path = path;
  g_obj = path;
  o->fd = open(path, O_RDONLY | O_CLOEXEC);
  if (o->fd < 0)
    die("cannot open: %s", strerror(errno));
  o->elf = elf_begin(o->fd, ELF_C_READ, NULL);
  if (!o->elf || elf_kind(o->elf) != ELF_K_ELF)
    die("not an ELF file");
  if (!gelf_getehdr(o->elf, &o->eh))
    die("bad ELF header: %s", elf_errmsg(-1));
  if (o->eh.e_type != ET_REL)
    die("not a relocatable object (ET_REL)");
  if (o->eh.e_machine != EM_X86_64 && o->eh.e_machine != EM_68K)
    die("unsupported machine %u (x86-64 and m68k are)", o->eh.e_machine);
  if (elf_getshdrnum(o->elf, &o->nsec) || elf_getshdrstrndx(o->elf, &shstrndx))
    die("bad section table: %s", elf_errmsg(-1));
  o->secs = xcalloc(o->nsec, sizeof *o->secs);

  while ((scn = elf_nextscn(o->elf, scn))) {
    size_t i = elf_ndxscn(scn);
    sec_t *s = &o->secs[i];
    if (!gelf_getshdr(scn, &s->sh))
      die("bad section header %zu", i);
    s->name = elf_strptr(o->elf, shstrndx, s->sh.sh_name);
    if (!s->name)
      s->name = "?";
    if (s->sh.sh_type != SHT_NOBITS && s->sh.sh_size) {
      Elf_Data *d = elf_rawdata(scn, NULL);
      if (!d || d->d_size != s->sh.sh_size)
        die("cannot read section %s", s->name);
      s->data = d->d_buf;
    }
  }

  /* Symbols. */
  scn = NULL;
  while ((scn = elf_nextscn(o->elf, scn))) {
    sec_t *s = &o->secs[elf_ndxscn(scn)];
    if (s->sh.sh_type != SHT_SYMTAB)
      continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    if (!d || !s->sh.sh_entsize)
      die("bad symbol table");
    o->nsym = s->sh.sh_size / s->sh.sh_entsize;
    o->syms = xcalloc(o->nsym, sizeof *o->syms);
    o->symnames = xcalloc(o->nsym, sizeof *o->symnames);
    for (size_t k = 0; k < o->nsym; k++) {
      if (!gelf_getsym(d, (int)k, &o->syms[k]))
        die("bad symbol %zu", k);
      o->symnames[k] = elf_strptr(o->elf, s->sh.sh_link, o->syms[k].st_name);
      if (!o->symnames[k])
        o->symnames[k] = "";
    }
  }
  if (!o->syms)
    die("no symbol table");

  /* Relocations, attached to the section they patch. */
  scn = NULL;
  while ((scn = elf_nextscn(o->elf, scn))) {
    sec_t *s = &o->secs[elf_ndxscn(scn)];
    bool rela = s->sh.sh_type == SHT_RELA;
    if (!rela && s->sh.sh_type != SHT_REL)
      continue;
    if (s->sh.sh_info == 0 || s->sh.sh_info >= o->nsec)
      continue;
    sec_t *t = &o->secs[s->sh.sh_info];
    Elf_Data *d = elf_getdata(scn, NULL);
    size_t n = s->sh.sh_entsize ? s->sh.sh_size / s->sh.sh_entsize : 0;
    if (!d)
      die("bad relocation section %s", s->name);
    t->rel = xrealloc(t->rel, t->nrel + n, sizeof *t->rel);
    for (size_t k = 0; k < n; k++) {
      GElf_Rela r;
      if (rela) {
        if (!gelf_getrela(d, (int)k, &r))
          die("bad relocation in %s", s->name);
      } else {
        GElf_Rel rl;
        if (!gelf_getrel(d, (int)k, &rl))
          die("bad relocation in %s", s->name);
        r.r_offset = rl.r_offset;
        r.r_info = rl.r_info;
        r.r_addend = 0;
        t->rel_implicit = true;
      }
      t->rel[t->nrel++] = r;
    }
  }
}

static int intern_hole(gen_t *g, const char *name)
{
  for (size_t i = 0; i < g->nholes; i++)
    if (!strcmp(g->holes[i], name))
      return (int)i;
  g->holes = xrealloc(g->holes, g->nholes + 1, sizeof *g->holes);
  g->holes[g->nholes] = xstrdup(name);
  return (int)g->nholes++;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
  return a > 1 ? (v + a - 1) / a * a : v;
}

static int64_t read_field(const uint8_t *p, unsigned bytes, bool be)
{
  uint64_t v = 0;
  for (unsigned i = 0; i < bytes; i++)
    v |= (uint64_t)p[be ? i : bytes - 1 - i] << (8 * (bytes - 1 - i));
  if (bytes < 8 && (v >> (8 * bytes - 1)) & 1)
    v |= ~(uint64_t)0 << (8 * bytes);
  return (int64_t)v;
}

/* Find the trailing jump to a hole: the last bytes of the main section. */
static void find_tail(stencil_t *st, uint16_t machine, uint32_t main_size)
{
  st->tail = JIT_NO_TAIL;
  st->tail_hole = -1;
  for (size_t i = 0; i < st->nrefs; i++) {
    const ref_t *r = &st->refs[i];
    if (r->hole < 0)
      continue;
    if (machine == EM_X86_64 && r->offset + 4 == main_size && r->offset >= 1 &&
        st->bytes[r->offset - 1] == 0xe9 && r->addend == -4 &&
        (r->kind == JIT_HOLE_X86_64_PC32 || r->kind == JIT_HOLE_X86_64_PLT32)) {
      st->tail = r->offset - 1;
    } else if (machine == EM_68K && r->offset + 4 == main_size && r->offset >= 2 &&
               r->addend == 0 &&
               ((r->kind == JIT_HOLE_M68K_PC32 && st->bytes[r->offset - 2] == 0x60 &&
                 st->bytes[r->offset - 1] == 0xff) ||
                (r->kind == JIT_HOLE_M68K_32 && st->bytes[r->offset - 2] == 0x4e &&
                 st->bytes[r->offset - 1] == 0xf9))) {
      st->tail = r->offset - 2;
    } else {
      continue;
    }
    st->tail_hole = r->hole;
    return;
  }
}

static void build_stencil(gen_t *g, obj_t *o, size_t symi)
{
  const GElf_Sym *fs = &o->syms[symi];
  const char *tname = o->symnames[symi];
  size_t *order = xcalloc(o->nsec, sizeof *order);
  uint64_t *where = xcalloc(o->nsec, sizeof *where);
  bool *in = xcalloc(o->nsec, sizeof *in);
  size_t norder = 0;
  stencil_t st;
  uint64_t off, data_align = 1, code_align = o->eh.e_machine == EM_68K ? 2 : 1;
  char buf[64];

  memset(&st, 0, sizeof st);
  st.name = xstrdup(tname);
  if (o->secs[fs->st_shndx].sh.sh_type != SHT_PROGBITS)
    die("template %s: its section %s holds no code (section type %u)", tname,
        o->secs[fs->st_shndx].name, (unsigned)o->secs[fs->st_shndx].sh.sh_type);
  if (fs->st_value >= o->secs[fs->st_shndx].sh.sh_size)
    die("template %s: its entry (%" PRIu64 ") is outside its section %s", tname,
        (uint64_t)fs->st_value, o->secs[fs->st_shndx].name);

  /* The closure of sections reachable from the main section. */
  order[norder++] = fs->st_shndx;
  in[fs->st_shndx] = true;
  for (size_t q = 0; q < norder; q++) {
    const sec_t *s = &o->secs[order[q]];
    for (size_t k = 0; k < s->nrel; k++) {
      size_t si = GELF_R_SYM(s->rel[k].r_info);
      if (si >= o->nsym)
        die("template %s: relocation against bad symbol %zu", tname, si);
      const GElf_Sym *sym = &o->syms[si];
      const char *sn = o->symnames[si];
      if (sym->st_shndx == SHN_UNDEF)
        continue;
      if (sym->st_shndx == SHN_COMMON)
        die("template %s: refers to common symbol %s: templates must keep state in holes",
            tname, sn);
      if (sym->st_shndx >= SHN_LORESERVE || sym->st_shndx >= o->nsec)
        die("template %s: refers to absolute or special symbol %s", tname, sn);
      if (in[sym->st_shndx])
        continue;
      const sec_t *t = &o->secs[sym->st_shndx];
      if (!(t->sh.sh_flags & SHF_ALLOC))
        die("template %s: refers to non-allocated section %s", tname, t->name);
      if (t->sh.sh_flags & SHF_TLS)
        die("template %s: refers to thread-local data in %s (symbol %s)", tname, t->name,
            *sn ? sn : t->name);
      if ((t->sh.sh_flags & SHF_WRITE) || t->sh.sh_type == SHT_NOBITS)
        die("template %s: refers to writable data in %s%s%s: templates must keep state in "
            "holes",
            tname, t->name, *sn ? ", symbol " : "", sn);
      if (t->sh.sh_type != SHT_PROGBITS)
        die("template %s: refers to section %s of unsupported type %u", tname, t->name,
            (unsigned)t->sh.sh_type);
      in[sym->st_shndx] = true;
      order[norder++] = sym->st_shndx;
    }
  }

  /* Layout: the main section is the text; then other code, then read-only
   * data. Alignments are powers of two up to a page (larger ones would
   * wrap the offsets). */
  for (size_t q = 0; q < norder; q++) {
    const sec_t *s = &o->secs[order[q]];
    uint64_t a = s->sh.sh_addralign ? s->sh.sh_addralign : 1;
    if (a > 4096 || (a & (a - 1)) != 0)
      die("template %s: section %s asks for alignment %" PRIu64 " (a power of two up to 4096 "
          "is taken)", tname, s->name, a);
    if (q > 0 && a > data_align)
      data_align = a;
  }
  st.code_size = (uint32_t)o->secs[order[0]].sh.sh_size;
  off = align_up(st.code_size, data_align);
  st.data_off = (uint32_t)off;
  for (int code = 1; code >= 0; code--)
    for (size_t q = 1; q < norder; q++) {
      const sec_t *s = &o->secs[order[q]];
      if (((s->sh.sh_flags & SHF_EXECINSTR) != 0) != code)
        continue;
      off = align_up(off, s->sh.sh_addralign);
      where[order[q]] = off;
      off += s->sh.sh_size;
    }
  if (off > 0x7fffffff)
    die("template %s: too large", tname);
  st.size = (uint32_t)off;
  if (st.size == st.data_off) /* no data: the text needs only instruction alignment */
    st.data_off = st.size = st.code_size;
  st.entry = (uint32_t)fs->st_value;
  st.align = (uint32_t)(st.size > st.data_off && data_align > code_align ? data_align : code_align);
  st.bytes = xcalloc(st.size, 1);
  for (size_t q = 0; q < norder; q++) {
    const sec_t *s = &o->secs[order[q]];
    if (s->data)
      memcpy(st.bytes + where[order[q]], s->data, s->sh.sh_size);
  }

  /* Holes. */
  for (size_t q = 0; q < norder; q++) {
    const sec_t *s = &o->secs[order[q]];
    for (size_t k = 0; k < s->nrel; k++) {
      const GElf_Rela *r = &s->rel[k];
      unsigned type = (unsigned)GELF_R_TYPE(r->r_info);
      size_t si = GELF_R_SYM(r->r_info);
      const GElf_Sym *sym = &o->syms[si];
      const char *sn = o->symnames[si];
      int kind = kind_of(o->eh.e_machine, type);
      ref_t ref;

      if (kind < 0)
        die("template %s: unsupported relocation %s against %s in %s%s", tname,
            reloc_type_name(o->eh.e_machine, type, buf, sizeof buf),
            *sn ? sn : o->secs[sym->st_shndx < o->nsec ? sym->st_shndx : 0].name, s->name,
            strstr(reloc_type_name(o->eh.e_machine, type, buf, sizeof buf), "GOT")
                ? " (a GOT relocation: compile templates with -fno-pic)"
                : "");
      if (r->r_offset + kinds[kind].bytes > s->sh.sh_size)
        die("template %s: relocation outside section %s", tname, s->name);
      ref.offset = (uint32_t)(where[order[q]] + r->r_offset);
      ref.kind = (uint16_t)kind;
      ref.addend = r->r_addend;
      if (s->rel_implicit) {
        ref.addend = read_field(st.bytes + ref.offset, kinds[kind].bytes, kinds[kind].big_endian);
        memset(st.bytes + ref.offset, 0, kinds[kind].bytes);
      }
      if (sym->st_shndx == SHN_UNDEF) {
        if (!*sn)
          die("template %s: relocation against an unnamed undefined symbol", tname);
        ref.hole = intern_hole(g, sn);
      } else {
        uint64_t target = where[sym->st_shndx] + sym->st_value;
        bool text = sym->st_shndx == order[0];
        ref.hole = text ? -1 : -2;
        /* Wrapping, as the relocation arithmetic does (a hostile object's
         * values may overflow; the layout checks refuse what is out of range). */
        ref.addend = (int64_t)((uint64_t)ref.addend + (text ? target : target - st.data_off));
      }
      st.refs = xrealloc(st.refs, st.nrefs + 1, sizeof *st.refs);
      st.refs[st.nrefs++] = ref;
    }
  }
  find_tail(&st, o->eh.e_machine, st.code_size);

  for (size_t i = 0; i < g->nst; i++)
    if (!strcmp(g->st[i].name, tname))
      die("template %s defined twice", tname);
  g->st = xrealloc(g->st, g->nst + 1, sizeof *g->st);
  g->st[g->nst++] = st;
  free(order);
  free(where);
  free(in);
}

static void process_object(gen_t *g, const char *path)
{
  obj_t o;
  load_object(&cur_obj, path);
  o = cur_obj;
  if (g->machine && g->machine != o.eh.e_machine)
    die("machine %u differs from the other objects' %u", o.eh.e_machine, g->machine);
  g->machine = o.eh.e_machine;
  for (size_t i = 0; i < o.nsym; i++) {
    const GElf_Sym *s = &o.syms[i];
    int bind = GELF_ST_BIND(s->st_info);
    if (GELF_ST_TYPE(s->st_info) != STT_FUNC || (bind != STB_GLOBAL && bind != STB_WEAK))
      continue;
    if (s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE || s->st_shndx >= o.nsec)
      continue;
    if (!(o.secs[s->st_shndx].sh.sh_flags & SHF_EXECINSTR))
      continue;
    build_stencil(g, &o, i);
  }
  /* Section data stays referenced by the stencils only through copies. */
  for (size_t i = 0; i < o.nsec; i++)
    free(o.secs[i].rel);
  free(o.secs);
  free(o.syms);
  free(o.symnames);
  elf_end(o.elf);
  close(o.fd);
  memset(&cur_obj, 0, sizeof cur_obj);
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort hole names and renumber the references. */
static void finish_holes(gen_t *g)
{
  char **sorted = xcalloc(g->nholes, sizeof *sorted);
  int *map = xcalloc(g->nholes, sizeof *map);
  if (g->nholes > 0) /* an object without holes has no names to copy (holes is NULL) */
    memcpy(sorted, g->holes, g->nholes * sizeof *sorted);
  qsort(sorted, g->nholes, sizeof *sorted, cmp_str);
  for (size_t i = 0; i < g->nholes; i++)
    for (size_t j = 0; j < g->nholes; j++)
      if (g->holes[i] == sorted[j])
        map[i] = (int)j;
  for (size_t s = 0; s < g->nst; s++) {
    for (size_t r = 0; r < g->st[s].nrefs; r++)
      if (g->st[s].refs[r].hole >= 0)
        g->st[s].refs[r].hole = map[g->st[s].refs[r].hole];
    if (g->st[s].tail_hole >= 0)
      g->st[s].tail_hole = map[g->st[s].tail_hole];
  }
  free(g->holes);
  g->holes = sorted;
  free(map);
  if (g->nholes >= 0xfff0)
    die("too many holes");
}

static void upper(char *dst, const char *src, size_t n)
{
  size_t i = 0;
  for (; src[i] && i + 1 < n; i++)
    dst[i] = (char)(src[i] >= 'a' && src[i] <= 'z' ? src[i] - 'a' + 'A' : src[i]);
  dst[i] = 0;
}

static const char *base_name(const char *p)
{
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

static void write_header(const gen_t *g, FILE *f, const char *hpath, int argc, char **argv)
{
  char up[256];
  upper(up, g->prefix, sizeof up);
  fprintf(f, "/* %s -- stencils generated by jit/stencilgen from", base_name(hpath));
  for (int i = 0; i < argc; i++)
    fprintf(f, " %s", base_name(argv[i]));
  fprintf(f, "; do not edit. */\n");
  fprintf(f, "#ifndef %s_STENCILS_H\n#define %s_STENCILS_H\n\n#include \"jit.h\"\n\n", up, up);
  fprintf(f, "/* Hole ids: index the value array with these. */\nenum %s_hole {\n", g->prefix);
  for (size_t i = 0; i < g->nholes; i++)
    fprintf(f, "  %s_HOLE_%s = %zu,\n", up, g->holes[i], i);
  fprintf(f, "  %s_HOLE__COUNT = %zu\n};\n\n", up, g->nholes);
  fprintf(f, "extern const jit_stencil_set_t %s_set;\n", g->prefix);
  for (size_t i = 0; i < g->nst; i++)
    fprintf(f, "extern const jit_stencil_t %s_stencil_%s;\nextern const jit_template_t %s_tmpl_%s;\n",
            g->prefix, g->st[i].name, g->prefix, g->st[i].name);
  fprintf(f, "\n#endif\n");
}

static void write_source(const gen_t *g, FILE *f, const char *cpath, const char *hpath, int argc,
                         char **argv)
{
  static const char *const mname[] = {[4] = "JIT_MACHINE_M68K", [62] = "JIT_MACHINE_X86_64"};
  char up[256];
  upper(up, g->prefix, sizeof up);
  fprintf(f, "/* %s -- stencils generated by jit/stencilgen from", base_name(cpath));
  for (int i = 0; i < argc; i++)
    fprintf(f, " %s", base_name(argv[i]));
  fprintf(f, "; do not edit. */\n#include \"%s\"\n\n", base_name(hpath));
  fprintf(f, "static const char *const %s_hole_names[] = {\n", g->prefix);
  for (size_t i = 0; i < g->nholes; i++)
    fprintf(f, "  \"%s\",\n", g->holes[i]);
  fprintf(f, "  0\n};\n\n");
  for (size_t i = 0; i < g->nst; i++) {
    const stencil_t *s = &g->st[i];
    fprintf(f, "/* %s: %u bytes (code %u, data at %u), %zu holes */\n", s->name, s->size,
            s->code_size, s->data_off, s->nrefs);
    fprintf(f, "static const uint8_t %s_bytes_%s[%u] = {", g->prefix, s->name,
            s->size ? s->size : 1);
    for (uint32_t b = 0; b < s->size; b++)
      fprintf(f, "%s0x%02x,", b % 12 ? " " : "\n  ", s->bytes[b]);
    fprintf(f, "\n};\n");
    fprintf(f, "static const jit_hole_t %s_holes_%s[%zu] = {\n", g->prefix, s->name,
            s->nrefs ? s->nrefs : 1);
    for (size_t r = 0; r < s->nrefs; r++) {
      const ref_t *ref = &s->refs[r];
      char hole[300];
      if (ref->hole == -1)
        snprintf(hole, sizeof hole, "JIT_HOLE_TEXT");
      else if (ref->hole == -2)
        snprintf(hole, sizeof hole, "JIT_HOLE_DATA");
      else
        snprintf(hole, sizeof hole, "%s_HOLE_%s", up, g->holes[ref->hole]);
      fprintf(f, "  {%" PRIu32 ", JIT_HOLE_%s, %s, %" PRId64 "},\n", ref->offset,
              kinds[ref->kind].name, hole, ref->addend);
    }
    if (!s->nrefs)
      fprintf(f, "  {0, 0, 0, 0},\n");
    fprintf(f, "};\n");
    fprintf(f, "const jit_stencil_t %s_stencil_%s = {\n", g->prefix, s->name);
    fprintf(f, "  .name = \"%s\",\n  .set = &%s_set,\n", s->name, g->prefix);
    fprintf(f, "  .bytes = %s_bytes_%s,\n  .holes = %s_holes_%s,\n", g->prefix, s->name,
            g->prefix, s->name);
    fprintf(f, "  .size = %u,\n  .code_size = %u,\n  .data_off = %u,\n  .entry = %u,\n", s->size,
            s->code_size, s->data_off, s->entry);
    fprintf(f, "  .nholes = %zu,\n  .align = %u,\n", s->nrefs, s->align);
    if (s->tail == JIT_NO_TAIL)
      fprintf(f, "  .tail = JIT_NO_TAIL,\n  .tail_hole = 0,\n");
    else
      fprintf(f, "  .tail = %u,\n  .tail_hole = %s_HOLE_%s,\n", s->tail, up,
              g->holes[s->tail_hole]);
    fprintf(f, "  .machine = %s,\n};\n", mname[g->machine]);
    fprintf(f, "const jit_template_t %s_tmpl_%s = {\"%s\", &%s_stencil_%s, 0, 0};\n\n", g->prefix,
            s->name, s->name, g->prefix, s->name);
  }
  fprintf(f, "static const jit_stencil_t *const %s_stencil_list[] = {\n", g->prefix);
  for (size_t i = 0; i < g->nst; i++)
    fprintf(f, "  &%s_stencil_%s,\n", g->prefix, g->st[i].name);
  fprintf(f, "  0\n};\n\n");
  fprintf(f,
          "const jit_stencil_set_t %s_set = {\n  \"%s\", %s_hole_names, %s_stencil_list, %zu, %zu\n};\n",
          g->prefix, g->prefix, g->prefix, g->prefix, g->nholes, g->nst);
}

static void usage(void)
{
  fprintf(stderr, "usage: stencilgen --prefix P --output out.c --header out.h obj.o...\n");
  exit(2);
}

static bool valid_ident(const char *s)
{
  if (!*s || (*s >= '0' && *s <= '9'))
    return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '_'))
      return false;
  return true;
}

/* Write through a temporary file so a failed run leaves no output behind. */
static FILE *open_out(const char *path, char *tmp, size_t n)
{
  FILE *f;
  snprintf(tmp, n, "%s.tmp", path);
  g_obj = path;
  f = fopen(tmp, "w");
  if (!f)
    die("cannot write: %s", strerror(errno));
  return f;
}

static void close_out(FILE *f, const char *path, const char *tmp)
{
  g_obj = path;
  if (fclose(f) != 0 || rename(tmp, path) != 0) {
    unlink(tmp);
    die("cannot write: %s", strerror(errno));
  }
}

int main(int argc, char **argv)
{
  gen_t *gp = &gen;
  const char *out_c = NULL, *out_h = NULL;
  int i;

  for (i = 1; i < argc && argv[i][0] == '-'; i++) {
    if (!strcmp(argv[i], "--prefix") && i + 1 < argc)
      gp->prefix = argv[++i];
    else if (!strcmp(argv[i], "--output") && i + 1 < argc)
      out_c = argv[++i];
    else if (!strcmp(argv[i], "--header") && i + 1 < argc)
      out_h = argv[++i];
    else
      usage();
  }
  if (!gp->prefix || !out_c || !out_h || i == argc)
    usage();
  if (!valid_ident(gp->prefix)) {
    fprintf(stderr, "stencilgen: prefix %s is not a C identifier\n", gp->prefix);
    return 2;
  }
  if (elf_version(EV_CURRENT) == EV_NONE) {
    fprintf(stderr, "stencilgen: libelf too old\n");
    return 1;
  }
  for (int k = i; k < argc; k++)
    process_object(gp, argv[k]);
  finish_holes(gp);
  for (size_t k = 0; k < gp->nholes; k++) {
    if (!valid_ident(gp->holes[k])) {
      g_obj = argv[i];
      die("hole %s is not a C identifier", gp->holes[k]);
    }
  }
  {
    char tmp[4096];
    FILE *f = open_out(out_h, tmp, sizeof tmp);
    write_header(gp, f, out_h, argc - i, argv + i);
    close_out(f, out_h, tmp);
    f = open_out(out_c, tmp, sizeof tmp);
    write_source(gp, f, out_c, out_h, argc - i, argv + i);
    close_out(f, out_c, tmp);
  }
  return 0;
}
