/* map.c -- a small open-addressing map from non-zero uint64 keys to pointers (loop thread). */
#include <stdlib.h>

#include "quad-internal.h"

static size_t slot_of(uint64_t key, size_t cap) {
  key ^= key >> 33;
  key *= UINT64_C(0xff51afd7ed558ccd);
  key ^= key >> 33;
  return (size_t)key & (cap - 1);
}

void quad_map_init(quad_map_t *m) {
  m->keys = NULL;
  m->vals = NULL;
  m->cap = m->len = 0;
}

void quad_map_fini(quad_map_t *m) {
  free(m->keys);
  free(m->vals);
  quad_map_init(m);
}

void *quad_map_get(const quad_map_t *m, uint64_t key) {
  if (m->len == 0 || key == 0)
    return NULL;
  for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
    if (m->keys[i] == key)
      return m->vals[i];
    if (m->keys[i] == 0)
      return NULL;
  }
}

static void insert(uint64_t *keys, void **vals, size_t cap, uint64_t key, void *val) {
  size_t i = slot_of(key, cap);
  while (keys[i] != 0)
    i = (i + 1) & (cap - 1);
  keys[i] = key;
  vals[i] = val;
}

int quad_map_put(quad_map_t *m, uint64_t key, void *val) {
  if ((m->len + 1) * 4 > m->cap * 3) {
    size_t cap = m->cap ? m->cap * 2 : 16;
    uint64_t *keys = calloc(cap, sizeof *keys);
    void **vals = calloc(cap, sizeof *vals);
    if (keys == NULL || vals == NULL) {
      free(keys);
      free(vals);
      return QUA_ENOMEM;
    }
    for (size_t i = 0; i < m->cap; i++)
      if (m->keys[i] != 0)
        insert(keys, vals, cap, m->keys[i], m->vals[i]);
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
  }
  insert(m->keys, m->vals, m->cap, key, val);
  m->len++;
  return 0;
}

/* Removes with backward shift, so lookups never need tombstones. */
void *quad_map_del(quad_map_t *m, uint64_t key) {
  if (m->len == 0 || key == 0)
    return NULL;
  size_t mask = m->cap - 1, i = slot_of(key, m->cap);
  while (m->keys[i] != key) {
    if (m->keys[i] == 0)
      return NULL;
    i = (i + 1) & mask;
  }
  void *val = m->vals[i];
  for (size_t j = (i + 1) & mask; m->keys[j] != 0; j = (j + 1) & mask) {
    size_t home = slot_of(m->keys[j], m->cap);
    /* Move j back to i unless its home lies cyclically in (i, j]. */
    bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
    if (!stays) {
      m->keys[i] = m->keys[j];
      m->vals[i] = m->vals[j];
      i = j;
    }
  }
  m->keys[i] = 0;
  m->vals[i] = NULL;
  m->len--;
  return val;
}
