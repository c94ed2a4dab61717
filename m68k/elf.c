/* elf.c -- the static m68k ELF loader: reads, checks and loads ET_EXEC images. */
#include "machine-internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define EI_NIDENT 16
#define ELF_HDR_SIZE 52u
#define PHDR_SIZE 32u
#define ELFCLASS32 1
#define ELFDATA2MSB 2
#define ET_EXEC 2
#define ET_DYN 3
#define EM_68K 4
#define PT_LOAD 1
#define PT_DYNAMIC 2
#define PT_INTERP 3
#define PT_PHDR 6
#define MAX_SEGS 64

/* Names of a few e_machine values, for "wrong machine" messages. */
static const char *machine_name(unsigned em) {
  switch (em) {
  case 2: return "SPARC";
  case 3: return "x86";
  case 4: return "m68k";
  case 8: return "MIPS";
  case 20: return "PowerPC";
  case 21: return "PowerPC64";
  case 22: return "S/390";
  case 40: return "ARM";
  case 42: return "SuperH";
  case 43: return "SPARC v9";
  case 62: return "x86-64";
  case 183: return "AArch64";
  case 243: return "RISC-V";
  default: return "unknown";
  }
}

static int fail(int rc, char *err, size_t errlen, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int fail(int rc, char *err, size_t errlen, const char *name, const char *fmt, ...) {
  if (err != NULL && errlen != 0) {
    char detail[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "%s: %s%s%s", name, m68k_strerror(rc), detail[0] ? ": " : "", detail);
  }
  return rc;
}

/* Checks the image in elf->data and fills the rest of *elf. */
static int parse(struct m68k_elf *elf, const char *name, char *err, size_t errlen) {
  const uint8_t *d = elf->data;
  size_t size = elf->size;

  if (size < 4 || memcmp(d, "\177ELF", 4) != 0)
    return fail(M68K_ENOTELF, err, errlen, name, "%s",
                size < 4 ? "too short for an ELF header" : "no ELF magic number");
  if (size < EI_NIDENT)
    return fail(M68K_ETRUNCATED, err, errlen, name, "%zu bytes, the ELF header needs %u", size,
                ELF_HDR_SIZE);
  if (d[4] != ELFCLASS32)
    return fail(M68K_EELFCLASS, err, errlen, name, "EI_CLASS is %u%s", d[4],
                d[4] == 2 ? " (64-bit)" : "");
  if (d[5] != ELFDATA2MSB)
    return fail(M68K_EELFDATA, err, errlen, name, "EI_DATA is %u%s", d[5],
                d[5] == 1 ? " (little-endian)" : "");
  if (size < ELF_HDR_SIZE)
    return fail(M68K_ETRUNCATED, err, errlen, name, "%zu bytes, the ELF header needs %u", size,
                ELF_HDR_SIZE);
  unsigned type = m68k__be16(d + 16);
  unsigned em = m68k__be16(d + 18);
  if (em != EM_68K)
    return fail(M68K_EELFMACHINE, err, errlen, name, "e_machine is %u (%s), m68k is %u", em,
                machine_name(em), EM_68K);
  if (type != ET_EXEC)
    return fail(type == ET_DYN ? M68K_EELFDYNAMIC : M68K_EELFTYPE, err, errlen, name,
                "e_type is %u%s, a static executable is ET_EXEC (2)", type,
                type == ET_DYN ? " (ET_DYN: shared object or PIE)"
                : type == 1    ? " (ET_REL: an object file)"
                               : "");
  elf->entry = m68k__be32(d + 24);
  elf->phoff = m68k__be32(d + 28);
  elf->phent = m68k__be16(d + 42);
  elf->phnum = m68k__be16(d + 44);
  if (elf->phnum == 0)
    return fail(M68K_EELFBAD, err, errlen, name, "no program headers");
  if (elf->phent != PHDR_SIZE)
    return fail(M68K_EELFBAD, err, errlen, name, "e_phentsize is %" PRIu32 ", want %u", elf->phent,
                PHDR_SIZE);
  if (elf->phnum > MAX_SEGS)
    return fail(M68K_EELFBAD, err, errlen, name, "%" PRIu32 " program headers (at most %u)",
                elf->phnum, MAX_SEGS);
  if (elf->phoff > size || size - elf->phoff < (size_t)elf->phnum * PHDR_SIZE)
    return fail(M68K_ETRUNCATED, err, errlen, name,
                "the program headers (offset %" PRIu32 ", %" PRIu32
                " entries) end past the end of the file (%zu bytes)",
                elf->phoff, elf->phnum, size);

  elf->segs = calloc(elf->phnum, sizeof *elf->segs);
  if (elf->segs == NULL)
    return fail(M68K_ENOMEM, err, errlen, name, "%s", "");
  elf->low = UINT32_MAX;
  elf->high = 0;
  for (uint32_t i = 0; i < elf->phnum; i++) {
    const uint8_t *ph = d + elf->phoff + i * PHDR_SIZE;
    uint32_t ptype = m68k__be32(ph);
    m68k__seg_t s = {
        .offset = m68k__be32(ph + 4),
        .vaddr = m68k__be32(ph + 8),
        .filesz = m68k__be32(ph + 16),
        .memsz = m68k__be32(ph + 20),
        .flags = m68k__be32(ph + 24),
    };
    if (ptype == PT_INTERP)
      return fail(M68K_EELFDYNAMIC, err, errlen, name,
                  "it has a PT_INTERP header (an interpreter)");
    if (ptype == PT_DYNAMIC)
      return fail(M68K_EELFDYNAMIC, err, errlen, name, "it has a PT_DYNAMIC header");
    if (ptype == PT_PHDR)
      elf->phdr_vaddr = s.vaddr;
    if (ptype != PT_LOAD)
      continue;
    if (s.filesz > s.memsz)
      return fail(M68K_EELFBAD, err, errlen, name, "segment %" PRIu32 ": p_filesz > p_memsz", i);
    if (s.offset > size || size - s.offset < s.filesz)
      return fail(M68K_ETRUNCATED, err, errlen, name,
                  "segment %" PRIu32 " (offset %" PRIu32 ", %" PRIu32
                  " bytes) ends past the end of the file (%zu bytes)",
                  i, s.offset, s.filesz, size);
    /* Its end, one past its last byte, must be an address too: a segment
     * holding the address space's last byte (where the machine's devices
     * are anyway) has none. */
    if (s.vaddr > UINT32_MAX - s.memsz)
      return fail(M68K_EELFBAD, err, errlen, name,
                  "segment %" PRIu32 " runs to the end of the address space or wraps around it",
                  i);
    if (s.memsz == 0)
      continue;
    if (s.vaddr < elf->low)
      elf->low = s.vaddr;
    if (s.vaddr + s.memsz > elf->high)
      elf->high = s.vaddr + s.memsz;
    /* The program headers, when a loaded segment holds them. */
    if (elf->phdr_vaddr == 0 && elf->phoff >= s.offset &&
        elf->phoff + elf->phnum * PHDR_SIZE <= (uint64_t)s.offset + s.filesz)
      elf->phdr_vaddr = s.vaddr + (elf->phoff - s.offset);
    elf->segs[elf->nsegs++] = s;
  }
  if (elf->nsegs == 0)
    return fail(M68K_EELFBAD, err, errlen, name, "no loadable (PT_LOAD) segment");
  return M68K_OK;
}

M68K_API int m68k_elf_open_mem(const void *data, size_t size, const char *name, m68k_elf_t **out,
                               char *err, size_t errlen) {
  *out = NULL;
  struct m68k_elf *elf = calloc(1, sizeof *elf);
  if (elf == NULL)
    return fail(M68K_ENOMEM, err, errlen, name, "%s", "");
  elf->data = malloc(size != 0 ? size : 1);
  if (elf->data == NULL) {
    free(elf);
    return fail(M68K_ENOMEM, err, errlen, name, "%s", "");
  }
  if (size != 0)
    memcpy(elf->data, data, size);
  elf->size = size;
  int rc = parse(elf, name, err, errlen);
  if (rc != M68K_OK) {
    m68k_elf_close(elf);
    return rc;
  }
  *out = elf;
  return M68K_OK;
}

M68K_API int m68k_elf_open(const char *path, m68k_elf_t **out, char *err, size_t errlen) {
  int rc = M68K_OK;
  uint8_t *buf = NULL;
  *out = NULL;
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return fail(M68K_EIO, err, errlen, path, "%s", strerror(errno));
  if (fseek(f, 0, SEEK_END) != 0) {
    rc = fail(M68K_EIO, err, errlen, path, "%s", strerror(errno));
    goto out;
  }
  long len = ftell(f);
  if (len < 0 || fseek(f, 0, SEEK_SET) != 0) {
    rc = fail(M68K_EIO, err, errlen, path, "%s", len < 0 ? strerror(errno) : "cannot seek");
    goto out;
  }
  if ((unsigned long)len > (1ul << 30)) {
    rc = fail(M68K_EELFBAD, err, errlen, path, "%ld bytes is too large", len);
    goto out;
  }
  buf = malloc(len != 0 ? (size_t)len : 1);
  if (buf == NULL) {
    rc = fail(M68K_ENOMEM, err, errlen, path, "%s", "");
    goto out;
  }
  if (len != 0 && fread(buf, 1, (size_t)len, f) != (size_t)len) {
    rc = fail(M68K_EIO, err, errlen, path, "%s", "short read");
    goto out;
  }
  rc = m68k_elf_open_mem(buf, (size_t)len, path, out, err, errlen);
out:
  free(buf);
  fclose(f);
  return rc;
}

M68K_API void m68k_elf_close(m68k_elf_t *elf) {
  if (elf == NULL)
    return;
  free(elf->segs);
  free(elf->data);
  free(elf);
}

M68K_API uint32_t m68k_elf_entry(const m68k_elf_t *elf) { return elf->entry; }
M68K_API uint32_t m68k_elf_low(const m68k_elf_t *elf) { return elf->low; }
M68K_API uint32_t m68k_elf_high(const m68k_elf_t *elf) { return elf->high; }

M68K_API int m68k_elf_load(m68k_machine_t *m, const m68k_elf_t *elf) {
  for (unsigned i = 0; i < elf->nsegs; i++) {
    const m68k__seg_t *s = &elf->segs[i];
    uint8_t *p = m68k_machine_ram(m, s->vaddr, s->memsz);
    if (p == NULL) {
      m68k__machine_msg(m,
                        "segment at 0x%08" PRIx32 "-0x%08" PRIx32 " lies outside RAM "
                        "(0x%08" PRIx32 "-0x%08" PRIx32 ")",
                        s->vaddr, s->vaddr + s->memsz, m->ram_base, m->ram_base + m->ram_size);
      return M68K_ENOFIT;
    }
    memcpy(p, elf->data + s->offset, s->filesz);
    memset(p + s->filesz, 0, s->memsz - s->filesz);
  }
  return M68K_OK;
}
