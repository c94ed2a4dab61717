/* emit.c -- copy-and-patch: stencils copied into code, holes patched, chains laid out.
 *
 * Design notes.
 *
 * 1. Patching is driven by the hole kind table (JIT_HOLE_KIND_MAP): a field
 *    has a width, a byte order, is absolute or PC-relative, and has a range
 *    check. No per-kind code: one routine computes S + A (- P), checks the
 *    range and stores the field in the kind's byte order.
 *
 * 2. Addresses. A stencil is written at `dst` but patched for the address it
 *    will run at (`addr`): the RX view of dual-mapped code memory, or an
 *    emulated machine's address for m68k stencils. A stencil has a text part
 *    and a data part; copied whole they keep their relative layout, in a
 *    chain they are placed apart, so every address (of a field, P, or of a
 *    JIT_HOLE_TEXT/_DATA target) is computed from the part it lies in.
 *
 * 3. Chains. Link texts are laid back to back (each at 16 bytes, x86-64, or
 *    2 bytes, m68k, unless falling through), data parts after all texts at
 *    their alignment. When link i ends in a jump to its next_hole and link
 *    i+1 starts with its entry, the jump is not copied and its holes not
 *    patched: link i falls through into link i+1 (collapsing a layer).
 *    Padding between texts is filled with trapping bytes (int3, ILLEGAL).
 *    A link may also call other links of the same code (calls[]): those
 *    holes get the address of the other link's entry, wherever it lies.
 */
#include "jit-internal.h"

#include <stdio.h>
#include <string.h>

static const jit_hole_kind_info_t kind_table[JIT_HOLE_KIND_COUNT] = {
#define KIND_ROW(n, mach, type, by, be, pc, rg) {#n, mach, type, by, be, pc, rg},
  JIT_HOLE_KIND_MAP(KIND_ROW)
#undef KIND_ROW
};

const jit_hole_kind_info_t *jit_hole_kind_info(int kind)
{
  if (kind < 0 || kind >= JIT_HOLE_KIND_COUNT)
    return NULL;
  return &kind_table[kind];
}

const jit_stencil_t *jit_stencil_find(const jit_stencil_set_t *set, const char *name)
{
  for (uint32_t i = 0; set && name && i < set->nstencils; i++)
    if (!strcmp(set->stencils[i]->name, name))
      return set->stencils[i];
  return NULL;
}

/* Every synthesis looks up the same few hole names, mostly from the same
 * string constants. A small per-thread cache (no sharing, so no race) keeps
 * the id found for a (set, name pointer); a hit is confirmed against the
 * set's name, so a name kept in a buffer that has changed since is looked
 * up again. Only ids found are kept: a name a set lacks costs a scan. */
enum { HOLE_CACHE = 64 };
static _Thread_local struct {
  const jit_stencil_set_t *set;
  const char *name;
  uint32_t id;
} hole_cache[HOLE_CACHE];

int jit_hole_find(const jit_stencil_set_t *set, const char *name)
{
  if (set == NULL || name == NULL)
    return JIT_EINVAL;
  size_t k = (((uintptr_t)name >> 3) ^ ((uintptr_t)set >> 4)) & (HOLE_CACHE - 1);
  if (hole_cache[k].set == set && hole_cache[k].name == name && hole_cache[k].id < set->nholes) {
    const char *have = set->hole_names[hole_cache[k].id];
    if (have == name || !strcmp(have, name))
      return (int)hole_cache[k].id;
  }
  for (uint32_t i = 0; i < set->nholes; i++)
    if (!strcmp(set->hole_names[i], name)) {
      hole_cache[k].set = set;
      hole_cache[k].name = name;
      hole_cache[k].id = i;
      return (int)i;
    }
  return JIT_EINVAL;
}

static int fits(uint64_t v, unsigned bits, unsigned range)
{
  if (bits >= 64 || range == JIT_RANGE_NONE)
    return 1;
  int64_t sv = (int64_t)v;
  int64_t half = (int64_t)1 << (bits - 1);
  int s_ok = sv >= -half && sv < half;
  int u_ok = (v >> bits) == 0;
  switch (range) {
  case JIT_RANGE_U:
    return u_ok;
  case JIT_RANGE_S:
    return s_ok;
  default:
    return s_ok || u_ok;
  }
}

static void store(uint8_t *p, uint64_t v, unsigned bytes, int big_endian)
{
  if (big_endian) {
    for (unsigned i = 0; i < bytes; i++)
      p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
  } else {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, bytes);
#else
    for (unsigned i = 0; i < bytes; i++)
      p[i] = (uint8_t)(v >> (8 * i));
#endif
  }
}

/* Where the parts of one copied stencil are, written and run. */
typedef struct place {
  uint8_t *dtext, *ddata;   /* NULL when only mapping (jit_chain_map) */
  uint64_t atext, adata;
  uint32_t text_len;  /* text bytes copied (the tail jump dropped when falling through) */
  int next_hole;      /* overridden hole id, or -1 */
  uint64_t next_addr;
  const jit_link_t *link;   /* its calls[] (NULL: none) */
  const uint64_t *entries;  /* the run address of every link's entry */
  uint16_t index;           /* of the link in its chain */
  uint64_t base;            /* run address of the whole code */
  jit_chain_map_t *map;     /* records each patched field, or NULL */
} place_t;

/* The value of hole `hole` when the link calls another link through it;
 * *to gets that link. */
static int call_value(const place_t *pl, uint32_t hole, uint64_t *v, int *to)
{
  for (unsigned k = 0; pl->link && k < pl->link->ncalls; k++)
    if (pl->link->calls[k].hole == hole) {
      *v = pl->entries[pl->link->calls[k].link];
      *to = pl->link->calls[k].link;
      return 1;
    }
  return 0;
}

/* Appends one patched field to the map (counted even when no room). */
static void map_patch(const place_t *pl, const jit_hole_t *h, uint64_t at, uint64_t v, int to)
{
  jit_chain_map_t *m = pl->map;
  if (m->patches && m->n < m->cap)
    m->patches[m->n] = (jit_patch_t){(uint32_t)(at - pl->base), pl->index, h->hole, h->kind,
                                     (int16_t)to, v};
  m->n++;
}

static int patch_stencil(const jit_stencil_t *s, const place_t *pl, const uint64_t *values,
                         jit_emit_error_t *err)
{
  for (uint32_t i = 0; i < s->nholes; i++) {
    const jit_hole_t *h = &s->holes[i];
    const jit_hole_kind_info_t *k;
    uint8_t *field;
    uint64_t at, v;
    int to = -1;

    if (h->kind >= JIT_HOLE_KIND_COUNT)
      return JIT_EINVAL;
    k = &kind_table[h->kind];
    if (h->offset < s->data_off) {
      if (h->offset >= pl->text_len)
        continue; /* inside the dropped tail jump */
      field = pl->dtext ? pl->dtext + h->offset : NULL;
      at = pl->atext + h->offset;
    } else {
      field = pl->ddata ? pl->ddata + (h->offset - s->data_off) : NULL;
      at = pl->adata + (h->offset - s->data_off);
    }
    if (h->hole == JIT_HOLE_TEXT)
      v = pl->atext;
    else if (h->hole == JIT_HOLE_DATA)
      v = pl->adata;
    else if ((int)h->hole == pl->next_hole) {
      v = pl->next_addr;
      to = pl->index + 1;
    } else if (!call_value(pl, h->hole, &v, &to))
      v = values[h->hole];
    if (pl->map)
      map_patch(pl, h, at, v, to);
    v += (uint64_t)h->addend;
    if (k->pcrel)
      v -= at;
    if (!fits(v, 8u * k->bytes, k->range)) {
      if (err) {
        err->stencil = s;
        err->hole = h;
        err->value = v;
        err->where = at;
      }
      return k->pcrel ? JIT_EREACH : JIT_ERANGE;
    }
    if (field)
      store(field, v, k->bytes, k->big_endian);
  }
  return JIT_OK;
}

int jit_emit(void *dst, uint64_t addr, const jit_stencil_t *s, const uint64_t *values,
             jit_emit_error_t *err)
{
  place_t pl;

  if (err)
    memset(err, 0, sizeof *err);
  if (!dst || !s)
    return JIT_EINVAL;
  if (err)
    err->stencil = s;
  memcpy(dst, s->bytes, s->size);
  pl.dtext = dst;
  pl.ddata = (uint8_t *)dst + s->data_off;
  pl.atext = addr;
  pl.adata = addr + s->data_off;
  pl.text_len = s->code_size;
  pl.next_hole = -1;
  pl.next_addr = 0;
  pl.link = NULL;
  pl.entries = NULL;
  pl.index = 0;
  pl.base = addr;
  pl.map = NULL;
  return patch_stencil(s, &pl, values, err);
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
  return a > 1 ? (v + a - 1) & ~(a - 1) : v;
}

static int falls_through(const jit_link_t *links, size_t n, size_t i)
{
  const jit_stencil_t *s = links[i].stencil;
  return i + 1 < n && s->tail != JIT_NO_TAIL && links[i].next_hole >= 0 &&
         s->tail_hole == (uint16_t)links[i].next_hole && links[i + 1].stencil->entry == 0;
}

static uint32_t text_align(const jit_stencil_t *s)
{
  return s->machine == JIT_MACHINE_M68K ? 2 : JIT_TEXT_ALIGN;
}

/* Where the text after link i's (at off) starts: right after its dropped
 * tail jump, or aligned after its text; the last text is not padded. */
static size_t next_text(const jit_link_t *links, size_t n, size_t i, size_t off)
{
  const jit_stencil_t *s = links[i].stencil;
  if (falls_through(links, n, i))
    return off + s->tail;
  if (i + 1 == n)
    return off + s->code_size;
  return align_up(off + s->code_size, text_align(links[i + 1].stencil));
}

/* Lay out the chain: the end of all text in *text_end, the total size
 * returned. */
static size_t layout(const jit_link_t *links, size_t n, size_t *text_end)
{
  size_t off = 0;
  for (size_t i = 0; i < n; i++)
    off = next_text(links, n, i, off);
  *text_end = off;
  for (size_t i = 0; i < n; i++) {
    const jit_stencil_t *s = links[i].stencil;
    if (s->size > s->data_off)
      off = align_up(off, s->align) + (s->size - s->data_off);
  }
  return off;
}

size_t jit_chain_size(const jit_link_t *links, size_t n)
{
  size_t end;
  for (size_t i = 0; i < n; i++)
    if (!links[i].stencil)
      return 0;
  return layout(links, n, &end);
}

static void fill_trap(uint8_t *p, size_t len, uint16_t machine)
{
  if (machine == JIT_MACHINE_M68K) {
    for (size_t i = 0; i + 1 < len; i += 2) {
      p[i] = 0x4a; /* ILLEGAL */
      p[i + 1] = 0xfc;
    }
  } else {
    memset(p, 0xcc, len); /* int3 */
  }
}

/* Lays out and patches a chain: written at d, or, when d is NULL, only
 * recorded in map (which may also be given while writing). */
static int chain(uint8_t *d, uint64_t addr, size_t cap, const jit_link_t *links, size_t n,
                 size_t *entry, size_t *used, jit_emit_error_t *err, jit_chain_map_t *map)
{
  size_t text_end, total, toff = 0, doff, next_toff;
  uint64_t entries[JIT_CHAIN_MAX];
  int rc;

  if (err)
    memset(err, 0, sizeof *err);
  if (!links || n == 0 || n > JIT_CHAIN_MAX)
    return JIT_EINVAL;
  for (size_t i = 0; i < n; i++) {
    if (!links[i].stencil || links[i].ncalls > JIT_LINK_CALLS)
      return JIT_EINVAL;
    if (links[i].stencil->machine != links[0].stencil->machine)
      return JIT_EMACHINE;
    for (unsigned k = 0; k < links[i].ncalls; k++)
      if (links[i].calls[k].link >= n)
        return JIT_EINVAL;
  }
  total = layout(links, n, &text_end);
  if (total > cap)
    return JIT_ENOSPC;
  for (size_t i = 0, off = 0; i < n; off = next_text(links, n, i, off), i++)
    entries[i] = addr + off + links[i].stencil->entry;
  if (map) {
    map->n = 0;
    for (size_t i = 0; i < n; i++)
      map->entry[i] = (uint32_t)(entries[i] - addr);
    map->text_end = text_end;
    map->size = total;
  }

  doff = text_end;
  for (size_t i = 0; i < n; i++) {
    const jit_stencil_t *s = links[i].stencil;
    int through = falls_through(links, n, i);
    place_t pl;

    pl.text_len = through ? s->tail : s->code_size;
    next_toff = next_text(links, n, i, toff);
    pl.dtext = d ? d + toff : NULL;
    pl.atext = addr + toff;
    if (d) {
      memcpy(pl.dtext, s->bytes, pl.text_len);
      if (next_toff > toff + pl.text_len)
        fill_trap(d + toff + pl.text_len, next_toff - toff - pl.text_len, s->machine);
    }
    if (s->size > s->data_off) {
      size_t a = align_up(doff, s->align);
      if (d) {
        fill_trap(d + doff, a - doff, s->machine);
        memcpy(d + a, s->bytes + s->data_off, s->size - s->data_off);
      }
      doff = a;
    }
    pl.ddata = d ? d + doff : NULL;
    pl.adata = addr + doff;
    pl.next_hole = i + 1 < n ? links[i].next_hole : -1;
    pl.next_addr = addr + next_toff + (i + 1 < n ? links[i + 1].stencil->entry : 0);
    pl.link = &links[i];
    pl.entries = entries;
    pl.index = (uint16_t)i;
    pl.base = addr;
    pl.map = map;
    rc = patch_stencil(s, &pl, links[i].values, err);
    if (rc < 0) {
      if (err)
        err->stencil = s;
      return rc;
    }
    if (s->size > s->data_off)
      doff += s->size - s->data_off;
    toff = next_toff;
  }
  if (entry)
    *entry = links[0].stencil->entry;
  if (used)
    *used = total;
  return JIT_OK;
}

int jit_emit_chain(void *dst, uint64_t addr, size_t cap, const jit_link_t *links, size_t n,
                   size_t *entry, size_t *used, jit_emit_error_t *err)
{
  if (!dst)
    return JIT_EINVAL;
  return chain(dst, addr, cap, links, n, entry, used, err, NULL);
}

int jit_emit_chain_mapped(void *dst, uint64_t addr, size_t cap, const jit_link_t *links, size_t n,
                          size_t *entry, size_t *used, jit_emit_error_t *err, jit_chain_map_t *map)
{
  if (!dst || !map)
    return JIT_EINVAL;
  return chain(dst, addr, cap, links, n, entry, used, err, map);
}

int jit_chain_map(const jit_link_t *links, size_t n, uint64_t addr, jit_chain_map_t *map)
{
  if (!map)
    return JIT_EINVAL;
  return chain(NULL, addr, SIZE_MAX, links, n, NULL, NULL, NULL, map);
}

char *jit_emit_error_format(char *buf, size_t size, int rc, const jit_emit_error_t *err)
{
  const jit_hole_t *h = err ? err->hole : NULL;
  const jit_stencil_t *s = err ? err->stencil : NULL;
  const char *sname = s ? s->name : "?";
  const char *hname = "?";
  const jit_hole_kind_info_t *k;

  if (!buf || !size)
    return buf;
  if (!h) {
    snprintf(buf, size, "stencil %s: %s", sname, jit_strerror(rc));
    return buf;
  }
  if (h->hole == JIT_HOLE_TEXT)
    hname = "<own text>";
  else if (h->hole == JIT_HOLE_DATA)
    hname = "<own data>";
  else if (s && s->set && h->hole < s->set->nholes)
    hname = s->set->hole_names[h->hole];
  k = jit_hole_kind_info(h->kind);
  if (k && k->pcrel)
    snprintf(buf, size,
             "stencil %s: hole %s (%s) at 0x%llx: displacement 0x%llx to its target is out of "
             "reach of a %u-bit field",
             sname, hname, k->name, (unsigned long long)err->where,
             (unsigned long long)err->value, 8u * k->bytes);
  else
    snprintf(buf, size, "stencil %s: hole %s (%s) at 0x%llx: value 0x%llx does not fit a %u-bit %s field",
             sname, hname, k ? k->name : "?", (unsigned long long)err->where,
             (unsigned long long)err->value, k ? 8u * k->bytes : 0u,
             !k ? "?" : k->range == JIT_RANGE_U ? "zero-extended" : k->range == JIT_RANGE_S ? "sign-extended" : "");
  return buf;
}
