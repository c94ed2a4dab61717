/* qua-code.c -- qua show --code: a callentry's synthesised code disassembled, its holes annotated.
 *
 * quad sends the code itself (EntryImpl.machine_code: bytes, run address,
 * the templates it is made of, every field patched). x86-64 code is
 * disassembled here with capstone; m68k code arrives disassembled by the
 * project's own 68k disassembler (EntryImpl.code), one "ADDRESS  INSN"
 * line each. Both become one listing (address, length, text), and every
 * instruction whose bytes hold a patched field is annotated from the
 * holes: "; hole mask=1023", and "; -> q.get" for a call or jump into
 * another part of the same code. Nothing the daemon sent is trusted: a
 * field or a part outside the bytes is ignored.
 */
#include "qua-code.h"

#include <capstone/capstone.h>
#include <elf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* One instruction of the listing. */
typedef struct insn {
  uint64_t addr;
  uint32_t offset, len; /* in the code's bytes */
  char text[208];       /* "mov rax, qword ptr [rip + 0x10]": capstone's mnemonic and operands */
} insn_t;

typedef struct listing {
  insn_t *v;
  size_t n, cap;
} listing_t;

static insn_t *listing_add(listing_t *l) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    insn_t *v = realloc(l->v, cap * sizeof *v);
    if (v == NULL)
      return NULL;
    l->v = v;
    l->cap = cap;
  }
  memset(&l->v[l->n], 0, sizeof l->v[0]);
  return &l->v[l->n++];
}

static const char *machine_name(uint32_t m) {
  return m == EM_X86_64 ? "x86-64" : m == EM_68K ? "m68k" : "unknown";
}

/* The end of the instructions: text_end, within the bytes. */
static size_t text_end(const quac_code_t *c) {
  return c->text_end <= c->size ? c->text_end : c->size;
}

/* x86-64 with capstone. Runs of int3 (the padding between parts) are one line. */
static int listing_x86(const quac_code_t *c, listing_t *l) {
  csh h;
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
    return -1;
  cs_insn *in = cs_malloc(h);
  int rc = in != NULL ? 0 : -1;
  const uint8_t *p = c->bytes;
  size_t left = text_end(c);
  uint64_t addr = c->addr;
  while (rc == 0 && left > 0) {
    insn_t *x = listing_add(l);
    if (x == NULL) {
      rc = -1;
      break;
    }
    x->addr = addr;
    x->offset = (uint32_t)(p - c->bytes);
    size_t pads = 0;
    while (pads < left && p[pads] == 0xcc)
      pads++;
    if (pads > 1) {
      x->len = (uint32_t)pads;
      snprintf(x->text, sizeof x->text, "int3 (x%zu, padding)", pads);
    } else if (cs_disasm_iter(h, &p, &left, &addr, in)) {
      x->len = in->size;
      snprintf(x->text, sizeof x->text, "%s%s%s", in->mnemonic, in->op_str[0] ? " " : "",
               in->op_str);
      continue; /* capstone moved p, left and addr */
    } else {
      x->len = 1;
      snprintf(x->text, sizeof x->text, ".byte 0x%02x", p[0]);
    }
    p += x->len;
    left -= x->len;
    addr += x->len;
  }
  cs_free(in, 1);
  cs_close(&h);
  return rc;
}

/* m68k: the daemon's lines, "ADDRESS  INSN[  ; hole ...]"; each runs to the
 * next line's address (the last to the end of the bytes). */
static int listing_m68k(const quac_code_t *c, const char *text, listing_t *l) {
  for (const char *s = text; s != NULL && *s != '\0';) {
    const char *eol = strchr(s, '\n');
    size_t len = eol != NULL ? (size_t)(eol - s) : strlen(s);
    char *end;
    uint64_t addr = strtoull(s, &end, 16);
    if (end != s && addr >= c->addr && addr < c->addr + c->size) {
      insn_t *x = listing_add(l);
      if (x == NULL)
        return -1;
      x->addr = addr;
      x->offset = (uint32_t)(addr - c->addr);
      while (end < s + len && *end == ' ')
        end++;
      size_t n = (size_t)(s + len - end);
      const char *note = memmem(end, n, "  ; ", 4); /* the daemon's annotation: ours follow */
      if (note != NULL)
        n = (size_t)(note - end);
      snprintf(x->text, sizeof x->text, "%.*s", (int)n, end);
    }
    s = eol != NULL ? eol + 1 : NULL;
  }
  for (size_t i = 0; i < l->n; i++) {
    uint64_t next = i + 1 < l->n ? l->v[i + 1].addr : c->addr + text_end(c);
    l->v[i].len = next > l->v[i].addr ? (uint32_t)(next - l->v[i].addr) : 0;
  }
  return 0;
}

/* Whether hole h's field lies within [off, off + len) in part. */
static bool hole_in(const quac_code_hole_t *h, uint32_t off, uint32_t len, size_t size) {
  return h->size > 0 && (uint64_t)h->offset + h->size <= size && h->offset < off + len &&
         h->offset + h->size > off;
}

/* A hole's value as `show` prints it: small words in decimal, the rest in hex. */
static void print_value(FILE *f, uint64_t v) {
  if (v < 0x10000)
    fprintf(f, "%" PRIu64, v);
  else
    fprintf(f, "0x%" PRIx64, v);
}

/* The part that starts at offset off, or NULL. */
static const quac_code_part_t *part_at(const quac_code_t *c, uint32_t off) {
  for (size_t i = 0; i < c->nparts; i++)
    if (c->parts[i].offset == off)
      return &c->parts[i];
  return NULL;
}

static int make_listing(const quac_impl_info_t *im, listing_t *l) {
  const quac_code_t *c = im->machine_code;
  if (c->machine == EM_X86_64)
    return listing_x86(c, l);
  if (c->machine == EM_68K)
    return listing_m68k(c, im->code, l);
  return 1; /* a machine we cannot disassemble */
}

int quac__code_text(FILE *f, const quac_impl_info_t *im) {
  const quac_code_t *c = im->machine_code;
  if (c == NULL && im->code[0] != '\0') {
    fputs(im->code, f); /* a daemon that sends m68k code as text only */
    return 0;
  }
  if (c == NULL) {
    fprintf(f, "         (generic C code: nothing synthesised to disassemble)\n");
    return 0;
  }
  fprintf(f, "         %s code at 0x%" PRIx64 ", %zu bytes, ", machine_name(c->machine), c->addr,
          c->size);
  if (c->nparts > 0)
    fprintf(f, "%zu part%s, ", c->nparts, c->nparts == 1 ? "" : "s");
  fprintf(f, "%zu hole%s patched\n", c->nholes, c->nholes == 1 ? "" : "s");
  listing_t l = {0};
  int rc = make_listing(im, &l);
  if (rc != 0) {
    free(l.v);
    if (rc > 0)
      fprintf(f, "         (no disassembler for machine %" PRIu32 ")\n", c->machine);
    return rc < 0 ? -1 : 0;
  }
  int w = 0; /* the widest instruction, so annotations line up */
  for (size_t i = 0; i < l.n; i++) {
    int n = (int)strlen(l.v[i].text);
    w = n > w ? n : w;
  }
  w = w > 48 ? 48 : w;
  for (size_t i = 0; i < l.n; i++) {
    const insn_t *x = &l.v[i];
    const quac_code_part_t *p = part_at(c, x->offset);
    if (p != NULL)
      fprintf(f, "  <%s %s>:\n", p->entry, p->variant);
    else if (x->offset == c->entry && c->entry != 0)
      fprintf(f, "  <entry>:\n");
    bool holes = false;
    for (size_t k = 0; k < c->nholes && !holes; k++)
      holes = hole_in(&c->holes[k], x->offset, x->len, c->size);
    fprintf(f, "    %012" PRIx64 "  %-*s", x->addr, holes ? w : 0, x->text);
    const char *sep = "  ;";
    for (size_t k = 0; k < c->nholes; k++) {
      const quac_code_hole_t *h = &c->holes[k];
      if (!hole_in(h, x->offset, x->len, c->size))
        continue;
      fprintf(f, "%s hole %s=", sep, h->name);
      print_value(f, h->value);
      if (h->target[0] != '\0')
        fprintf(f, " -> %s", h->target);
      sep = ",";
    }
    fputc('\n', f);
  }
  /* Constant data after the instructions: its patched fields. */
  size_t te = text_end(c);
  if (te < c->size) {
    fprintf(f, "    %012" PRIx64 "  (data, %zu bytes)\n", c->addr + te, c->size - te);
    for (size_t k = 0; k < c->nholes; k++) {
      const quac_code_hole_t *h = &c->holes[k];
      if (hole_in(h, (uint32_t)te, (uint32_t)(c->size - te), c->size)) {
        fprintf(f, "    %012" PRIx64 "  ; hole %s=", c->addr + h->offset, h->name);
        print_value(f, h->value);
        fputc('\n', f);
      }
    }
  }
  free(l.v);
  return 0;
}

int quac__code_json(FILE *f, const quac_impl_info_t *im, void (*str)(FILE *f, const char *s)) {
  const quac_code_t *c = im->machine_code;
  if (c == NULL) {
    fprintf(f, "null");
    return 0;
  }
  listing_t l = {0};
  int rc = make_listing(im, &l);
  if (rc < 0) {
    free(l.v);
    fprintf(f, "null");
    return -1;
  }
  fprintf(f, "{\"machine\":");
  str(f, machine_name(c->machine));
  fprintf(f, ",\"addr\":%" PRIu64 ",\"size\":%zu,\"entry\":%" PRIu32 ",\"text_end\":%zu,\"parts\":[",
          c->addr, c->size, c->entry, text_end(c));
  for (size_t i = 0; i < c->nparts; i++) {
    fprintf(f, "%s{\"entry\":", i ? "," : "");
    str(f, c->parts[i].entry);
    fprintf(f, ",\"variant\":");
    str(f, c->parts[i].variant);
    fprintf(f, ",\"offset\":%" PRIu32 "}", c->parts[i].offset);
  }
  fprintf(f, "],\"holes\":[");
  for (size_t k = 0; k < c->nholes; k++) {
    const quac_code_hole_t *h = &c->holes[k];
    fprintf(f, "%s{\"name\":", k ? "," : "");
    str(f, h->name);
    fprintf(f, ",\"offset\":%" PRIu32 ",\"size\":%" PRIu32 ",\"value\":%" PRIu64
               ",\"pcrel\":%s,\"target\":",
            h->offset, h->size, h->value, h->pcrel ? "true" : "false");
    if (h->target[0] != '\0')
      str(f, h->target);
    else
      fprintf(f, "null");
    fprintf(f, "}");
  }
  fprintf(f, "],\"listing\":");
  if (rc > 0)
    fprintf(f, "null"); /* no disassembler for the machine */
  else {
    fprintf(f, "[");
    for (size_t i = 0; i < l.n; i++) {
      const insn_t *x = &l.v[i];
      fprintf(f, "%s{\"addr\":%" PRIu64 ",\"offset\":%" PRIu32 ",\"size\":%" PRIu32 ",\"insn\":",
              i ? "," : "", x->addr, x->offset, x->len);
      str(f, x->text);
      fprintf(f, ",\"holes\":[");
      bool first = true;
      for (size_t k = 0; k < c->nholes; k++)
        if (hole_in(&c->holes[k], x->offset, x->len, c->size)) {
          fprintf(f, "%s%zu", first ? "" : ",", k);
          first = false;
        }
      fprintf(f, "]}");
    }
    fprintf(f, "]");
  }
  fprintf(f, "}");
  free(l.v);
  return 0;
}
