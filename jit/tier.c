/* tier.c -- the tier interface, tier 1 (copy-and-patch stencils), and libjit's error table. */
#include "jit-internal.h"

#include <stdlib.h>
#include <time.h>

/* --- Errors ------------------------------------------------------------- */

static const struct {
  int code;
  const char *name, *msg;
} jit_errors[] = {
  {JIT_OK, "JIT_OK", "success"},
#define JIT__ERR_ROW(name, num, msg) {JIT_##name, "JIT_" #name, msg},
  JIT_ERRNO_MAP(JIT__ERR_ROW)
#undef JIT__ERR_ROW
};

const char *jit_strerror(int err)
{
  for (size_t i = 0; i < sizeof jit_errors / sizeof jit_errors[0]; i++)
    if (jit_errors[i].code == err)
      return jit_errors[i].msg;
  return "unknown error";
}

const char *jit_err_name(int err)
{
  for (size_t i = 0; i < sizeof jit_errors / sizeof jit_errors[0]; i++)
    if (jit_errors[i].code == err)
      return jit_errors[i].name;
  return "JIT_EUNKNOWN";
}

uint64_t jit__now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* --- Tier 1: stencils ---------------------------------------------------- */

/* Links for up to this many parts live on the stack. */
#define STENCIL_STACK_LINKS 16

/* The links of the parts' stencils (links has room for n); JIT_ENOTIER
 * when a part has none. */
static int parts_links(const jit_part_t *parts, size_t n, jit_link_t *links)
{
  for (size_t i = 0; i < n; i++) {
    if (!parts[i].tmpl || !parts[i].tmpl->stencil)
      return JIT_ENOTIER;
    links[i].stencil = parts[i].tmpl->stencil;
    links[i].values = parts[i].values;
    links[i].next_hole = parts[i].next_hole;
    links[i].ncalls = parts[i].ncalls;
    for (unsigned k = 0; k < parts[i].ncalls && k < JIT_LINK_CALLS; k++) {
      links[i].calls[k].hole = parts[i].calls[k].hole;
      links[i].calls[k].link = parts[i].calls[k].part;
    }
  }
  return JIT_OK;
}

static int stencil_compile(const jit_tier_t *tier, jit_codemem_t *cm, const jit_part_t *parts,
                           size_t n, jit_code_t **out, size_t *entry, jit_emit_error_t *err)
{
  jit_link_t stack[STENCIL_STACK_LINKS], *links = stack;
  jit_code_t *code = NULL;
  size_t size, used;
  int rc;

  (void)tier;
  if (!cm || !parts || !n || !out || !entry)
    return JIT_EINVAL;
  *out = NULL;
  if (n > STENCIL_STACK_LINKS) {
    links = malloc(n * sizeof *links);
    if (!links)
      return JIT_ENOMEM;
  }
  rc = parts_links(parts, n, links);
  if (rc < 0)
    goto out;
  rc = JIT_EINVAL;
  size = jit_chain_size(links, n);
  if (!size)
    goto out;
  rc = jit_code_alloc(cm, size, &code);
  if (rc < 0)
    goto out;
  rc = jit_emit_chain(jit_code_rw(code), (uint64_t)(uintptr_t)jit_code_rx(code), size, links, n,
                      entry, &used, err);
  if (rc < 0) {
    jit_code_free(code);
    goto out;
  }
  jit_code_commit(code);
  *out = code;
out:
  if (links != stack)
    free(links);
  return rc;
}

int jit_parts_map(const jit_part_t *parts, size_t n, uint64_t addr, jit_chain_map_t *map)
{
  jit_link_t links[JIT_CHAIN_MAX];
  int rc;

  if (!parts || !n || n > JIT_CHAIN_MAX)
    return JIT_EINVAL;
  rc = parts_links(parts, n, links);
  return rc < 0 ? rc : jit_chain_map(links, n, addr, map);
}

static void stencil_release(const jit_tier_t *tier, jit_code_t *code, int now)
{
  (void)tier;
  if (now)
    jit_code_free(code);
  else
    jit_code_retire_sync(code);
}

const jit_tier_t jit_tier_stencil = {
  .name = "stencil",
  .compile = stencil_compile,
  .release = stencil_release,
  .ctx = NULL,
};

int jit_compile(const jit_tier_t *tier, jit_codemem_t *cm, const jit_part_t *parts, size_t n,
                jit_code_t **out, size_t *entry, uint64_t *ns, jit_emit_error_t *err)
{
  uint64_t t0 = jit__now_ns();
  int rc;
  if (!tier || !tier->compile)
    return JIT_EINVAL;
  rc = tier->compile(tier, cm, parts, n, out, entry, err);
  if (ns)
    *ns = jit__now_ns() - t0;
  return rc;
}
