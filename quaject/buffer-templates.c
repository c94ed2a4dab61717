/* buffer-templates.c -- the buffer's write and read as templates with holes.
 *
 * The buffer's positions (buffer_pos_t), its ring, mask and capacity (bt_buf, bt_ring,
 * bt_mask, bt_cap), the quaject (bt_target) and the caller's handler for
 * "full" (write) or "empty" (read) (bt_handler_fn, bt_handler_ctx) are
 * folded in. The copying is buffer.c's, from types-internal.h. */
#include "qua.h"
#include "types-internal.h"

extern char bt_buf[], bt_ring[], bt_mask[], bt_cap[], bt_target[], bt_handler_ctx[];
extern void bt_handler_fn(void *ctx, qua_quaject_t *from, int cb, uint64_t arg);
void qua__broadcast(qua_quaject_t *q, int cb, uint64_t arg);

#define BT ((buffer_pos_t *)(uintptr_t)bt_buf), (unsigned char *)(uintptr_t)bt_ring, \
            (size_t)(uintptr_t)bt_mask, (size_t)(uintptr_t)bt_cap
#define BT_TARGET ((qua_quaject_t *)(uintptr_t)bt_target)

int bt_write(qua_site_t *s, uint64_t p, uint64_t len, uint64_t *ret) {
  bool edge;
  size_t n = buffer_write_k(BT, (const unsigned char *)(uintptr_t)p, len, &edge);
  *ret = n;
  if (__builtin_expect(edge, 0))
    qua__broadcast(BT_TARGET, BUFFER_CB_NOTEMPTY, 0);
  if (__builtin_expect(n < len, 0)) {
    bt_handler_fn(bt_handler_ctx, BT_TARGET, BUFFER_CB_FULL, len - n);
    return n == 0 ? QUA_DIVERTED : QUA_OK;
  }
  return QUA_OK;
}

int bt_read(qua_site_t *s, uint64_t p, uint64_t len, uint64_t *ret) {
  bool edge;
  size_t n = buffer_read_k(BT, (unsigned char *)(uintptr_t)p, len, &edge);
  *ret = n;
  if (__builtin_expect(edge, 0))
    qua__broadcast(BT_TARGET, BUFFER_CB_NOTFULL, 0);
  if (__builtin_expect(n == 0 && len > 0, 0)) {
    bt_handler_fn(bt_handler_ctx, BT_TARGET, BUFFER_CB_EMPTY, 0);
    return QUA_DIVERTED;
  }
  return QUA_OK;
}
