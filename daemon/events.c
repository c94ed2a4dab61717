/* events.c -- quad's bindings: callbacks as events, callouts drained with credits.
 *
 * Design note: how a callback that fires on any thread reaches the client.
 *
 *  1. A callback binding is a qua_watch whose handler (any thread: a pump's,
 *     a clock's, or the loop during an Invoke) takes a free record index
 *     from the connection's ring (lfq get_mc), fills the record, puts the
 *     index on the ready queue (lfq put_mp), raises the connection's
 *     ev_pending flag and calls uv_async_send. It never blocks, allocates
 *     or takes a lock. The lfq release/acquire pairs order the record's
 *     contents before the loop reads them, and the loop's read before a
 *     handler reuses the index.
 *  2. The ring holds exactly --max-events records. When none is free the
 *     handler counts the event as dropped on its binding (and daemon-wide)
 *     and raises the connection's ev_dropped; the next event of that
 *     binding carries the count in `dropped`. Once the ring is empty and
 *     the output has room, a binding whose count no event carried yet gets
 *     one event with callback "dropped" that carries it, so a client that
 *     does not read costs a fixed amount of memory and always learns what
 *     it lost. Each count is taken with one exchange, so no drop is
 *     reported twice; a drop after the loop took ev_dropped raises it
 *     again.
 *  3. The loop (async callback, or a completed write) moves ready records
 *     into the connection's output while fewer than QUAD_WRITE_HIGH bytes
 *     wait for the socket; the rest waits in the ring (and then drops).
 *     A record whose binding is gone (unbound meanwhile) is discarded.
 *  4. Unbinding detaches the binding on the loop (no event of it goes out
 *     afterwards) and holds its connection; a control job (work.c) then
 *     calls qua_unwatch, which returns once the handler can no longer run,
 *     and only then is the binding freed and the hold dropped. The ring is
 *     freed only with the connection, after the last hold. So no handler
 *     touches freed memory.
 *  5. A drain binding (a queue's consumer side, or any one-word callout the
 *     client becomes the target of) has a get site on the queue, opened by
 *     the loop with a handler for "notempty" that only raises ev_pending.
 *     The loop takes items with that site while the binding has credits and
 *     the socket keeps up, one credit per item, and stops otherwise: the
 *     queue fills and its producers get "full". It resumes on notempty,
 *     on Credit, and when a write completes. Because notempty fires for
 *     every empty->not-empty transition after a get that found the queue
 *     empty, no wake-up is lost.
 *  6. For a callout of another type (a pump's sink, a counter's out, a
 *     clock's tick, a tee's outN: one word, no result), the binding makes a
 *     private queue (capacity QUAD_PROXY_CAPACITY), wires the callout to its
 *     put and drains it as in 5. A pump's sink then blocks on "full" like
 *     any producer. Callouts that want a result (a pump's source) cannot
 *     have a client as their target: ESTATE.
 *  7. A closed queue ends a drain with one event whose callback is
 *     "closed", after the last item and whatever the credits: the close
 *     broadcasts "closed" (once final: no put can land afterwards) to the
 *     drain's site, whose handler sets closed_seen and wakes the loop. With
 *     credits, the loop's get then finds QUA_ECLOSED once the queue is
 *     empty; without, it reads the queue's count (a site opened then) and
 *     sends "closed" when it is 0, which stays so. A get that returns
 *     QUA_ECLOSED (the queue was closed before the bind) ends it too.
 *  8. A drain tries a get only while may_hold is set: it is cleared before
 *     each try and set again after a get that took an item, and by the
 *     notempty handler; a "closed" broadcast lets one more try through. So
 *     an idle drain does not call get on every wake-up, and the queue's
 *     "empty" reaches its watchers once per transition to empty, as the
 *     callback's definition says, not once per wake-up. A notempty that
 *     fires between the failed get and the loop's return sets may_hold
 *     again (it was cleared before the get), so no wake-up is lost.
 *  9. When a bound quaject is destroyed (by any connection), each of its
 *     bindings gets one last event, "destroyed", after the events queued
 *     before it; then the bindings are gone (qua watch ends on it).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quad-internal.h"

#define QUAD_PROXY_CAPACITY "capacity=256"

/* --- The ring -------------------------------------------------------------------- */

static uint32_t pow2_at_least(uint32_t n) {
  uint32_t p = 1;
  while (p < n)
    p <<= 1;
  return p;
}

static quad_ring_t *ring_new(uint32_t n) {
  quad_ring_t *r = calloc(1, sizeof *r);
  if (r == NULL)
    return NULL;
  uint32_t cap = pow2_at_least(n);
  r->n = n;
  r->rec = calloc(n, sizeof *r->rec);
  if (r->rec == NULL)
    goto fail_rec;
  if (qua_lfq_init(&r->free, cap) < 0)
    goto fail_free;
  if (qua_lfq_init(&r->ready, cap) < 0)
    goto fail_ready;
  for (uint32_t i = 0; i < n; i++)
    qua_lfq_put_sp(&r->free, i);
  return r;

fail_ready:
  qua_lfq_fini(&r->free);
fail_free:
  free(r->rec);
fail_rec:
  free(r);
  return NULL;
}

void quad_ring_free(quad_ring_t *r) {
  if (r == NULL)
    return;
  qua_lfq_fini(&r->ready);
  qua_lfq_fini(&r->free);
  free(r->rec);
  free(r);
}

static void raise_pending(quad_conn_t *c) {
  atomic_store_explicit(&c->ev_pending, true, memory_order_release);
  uv_async_send(&quad_srv->wake);
}

/* A bound callback fired (any thread; see note 1). */
static void on_callback(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) {
  quad_binding_t *b = ctx;
  quad_ring_t *r = b->conn->ring;
  uint64_t idx;
  if (qua_lfq_get_mc(&r->free, &idx) > QUA_LFQ_EDGE) {
    atomic_fetch_add_explicit(&b->dropped, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&quad_srv->events_dropped, 1, memory_order_relaxed);
    atomic_store_explicit(&b->conn->ev_dropped, true, memory_order_release);
  } else {
    r->rec[idx].binding = b->id;
    r->rec[idx].arg = arg;
    qua_lfq_put_mp(&r->ready, idx);
  }
  raise_pending(b->conn);
}

/* A drained queue went from empty to not empty (any thread). */
static void on_notempty(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) {
  quad_binding_t *b = ctx;
  atomic_store_explicit(&b->may_hold, true, memory_order_release);
  raise_pending(b->conn);
}

/* A drained queue was closed, finally (the thread that closed it; see note 7). */
static void on_closed(void *ctx, qua_quaject_t *from, int cb, uint64_t arg) {
  quad_binding_t *b = ctx;
  atomic_store_explicit(&b->closed_seen, true, memory_order_release);
  raise_pending(b->conn);
}

/* --- Binding ---------------------------------------------------------------------- */

static quad_binding_t *binding_new(quad_conn_t *c, quad_ref_t *ref, int kind, const char *name) {
  if (c->ring == NULL && (c->ring = ring_new(quad_srv->cfg.max_events)) == NULL)
    return NULL;
  quad_binding_t *b = calloc(1, sizeof *b);
  if (b == NULL)
    return NULL;
  b->id = c->next_binding;
  b->kind = kind;
  b->conn = c;
  b->ref = ref;
  b->name = name;
  atomic_init(&b->dropped, 0);
  atomic_init(&b->closed_seen, false);
  atomic_init(&b->may_hold, true);
  if (quad_map_put(&c->bindings, b->id, b) < 0) {
    free(b);
    return NULL;
  }
  c->next_binding++;
  return b;
}

/* Makes b known to its handle; pending until quad_bind_finish. */
static void binding_link(quad_binding_t *b) {
  b->pending = true;
  b->next_in_ref = b->ref->bindings;
  b->ref->bindings = b;
}

/* The drain now runs: among the connection's drains. */
static void drain_link(quad_binding_t *b) {
  LIST_INSERT_HEAD(&b->conn->drains, b, drain_link);
}

/* Takes b off its handle's list. */
static void binding_unlink(quad_binding_t *b) {
  for (quad_binding_t **pp = &b->ref->bindings; *pp != NULL; pp = &(*pp)->next_in_ref)
    if (*pp == b) {
      *pp = b->next_in_ref;
      break;
    }
  b->next_in_ref = NULL;
}

static void binding_forget(quad_binding_t *b) {
  quad_map_del(&b->conn->bindings, b->id);
  free(b);
}

/* A queue, host or target=m68k: its own get (no argument, a word back)
 * and a notempty to wake the drain. */
static bool drains_itself(const qua_type_t *t) {
  int e = qua_type_entry(t, "get");
  return e >= 0 && t->entries[e].arity == 0 && t->entries[e].returns &&
         qua_type_callback(t, "notempty") >= 0;
}

int quad_bind_prepare(quad_conn_t *c, quad_ref_t *r, const char *callback, const char *callout,
                      uint64_t credits, quad_binding_t **out, qua_error_t *err) {
  qua_quaject_t *q = r->obj->q;
  const qua_type_t *t = qua_quaject_type(q);
  const char *name;
  int kind = callback != NULL ? QUAD_BIND_CALLBACK : QUAD_BIND_DRAIN;
  bool proxy = false;
  if (callback != NULL) {
    int cb = qua_type_callback(t, callback);
    if (cb < 0) {
      snprintf(err->msg, sizeof err->msg, "%s has no callback '%.64s'", t->name, callback);
      return err->code = QUA_ENOCALLBACK;
    }
    name = t->callbacks[cb].name;
  } else if (strcmp(callout, "get") == 0 && drains_itself(t)) {
    name = "get";
  } else {
    const qua_type_t *queue = qua_type_find("queue");
    int k = qua_type_callout(t, callout);
    if (k < 0) {
      snprintf(err->msg, sizeof err->msg, "%s has no callout '%.64s'%s", t->name, callout,
               t == queue ? " (a queue's consumer side is \"get\")" : "");
      return err->code = QUA_ENOCALLOUT;
    }
    const qua_callout_def_t *cd = &t->callouts[k];
    if (cd->arity != 1 || cd->returns) {
      snprintf(err->msg, sizeof err->msg,
               "%s.%s %s: a client can only be the target of one-word callouts without a result",
               t->name, cd->name, cd->returns ? "wants a result" : "takes no item");
      return err->code = QUA_ESTATE;
    }
    name = cd->name;
    proxy = true;
  }
  quad_binding_t *b = binding_new(c, r, kind, name);
  if (b == NULL) {
    snprintf(err->msg, sizeof err->msg, "out of memory");
    return err->code = QUA_ENOMEM;
  }
  b->q = q;
  b->wants_proxy = proxy;
  b->credits = credits;
  binding_link(b);
  *out = b;
  return 0;
}

int quad_bind_work(quad_binding_t *b, qua_error_t *err) {
  if (b->kind == QUAD_BIND_CALLBACK)
    return qua_watch(b->q, b->name, on_callback, b, &b->watch, err);
  qua_quaject_t *target = b->q;
  int rc;
  if (b->wants_proxy) {
    const char *params[] = {QUAD_PROXY_CAPACITY};
    rc = qua_create("queue", params, 1, &b->proxy, err);
    if (rc < 0)
      return rc;
    rc = qua_wire(b->q, b->name, b->proxy, "put", err);
    if (rc < 0)
      goto fail;
    target = b->proxy;
  }
  /* A queue that cannot be closed (target=m68k) has no "closed". */
  qua_bind_t handlers[] = {
      {"notempty", on_notempty, b}, {"closed", on_closed, b}, {NULL, NULL, NULL}};
  if (qua_type_callback(qua_quaject_type(target), "closed") < 0)
    handlers[1] = (qua_bind_t){NULL, NULL, NULL};
  rc = qua_site_open(target, "get", handlers, 0, &b->get_site, err);
  if (rc < 0) {
    if (rc == QUA_ENOCALLBACK)
      snprintf(err->msg, sizeof err->msg,
               "this queue was created with notify=0: it cannot wake a drainer");
    goto fail;
  }
  /* The count the drain reads once its queue has closed (closed_and_empty),
   * opened here on the worker, so that the loop never opens a site (which
   * may resynthesise and wait for a grace period). A queue without one
   * leaves it NULL, and its drain's end cannot be told, as before. */
  if (qua_site_open(target, "count", NULL, 0, &b->count_site, NULL) < 0)
    b->count_site = NULL;
  return 0;

fail:
  if (b->proxy != NULL)
    qua_destroy(b->proxy, true, NULL);
  b->proxy = NULL;
  return rc;
}

int quad_bind_finish(quad_binding_t *b, int status) {
  if (b->ref == NULL)
    return QUA_EHANDLE; /* detached meanwhile: its teardown releases and frees it */
  b->pending = false;
  if (status < 0) {
    binding_unlink(b);
    binding_forget(b);
    return status;
  }
  if (b->kind == QUAD_BIND_DRAIN)
    drain_link(b);
  return 0;
}

void quad_binding_detach(quad_binding_t *b) {
  quad_conn_t *c = b->conn;
  binding_unlink(b);
  if (b->kind == QUAD_BIND_DRAIN && !b->pending)
    LIST_REMOVE(b, drain_link);
  quad_map_del(&c->bindings, b->id);
  b->ref = NULL;
  quad_conn_hold(c); /* its handlers write into c's ring until released */
}

void quad_binding_release(quad_binding_t *b) {
  if (b->watch != NULL)
    qua_unwatch(b->watch); /* the handler no longer runs */
  if (b->get_site != NULL)
    qua_site_close(b->get_site);
  if (b->count_site != NULL)
    qua_site_close(b->count_site);
  if (b->proxy != NULL)
    qua_destroy(b->proxy, true, NULL); /* unwires the callout feeding it */
}

void quad_binding_free(quad_binding_t *b) {
  quad_conn_unhold(b->conn);
  free(b);
}

/* --- Delivery --------------------------------------------------------------------- */

/* Appends one event of binding b: `callback` is b->name but for the
 * "closed" that ends a drain. */
static void send_event(quad_conn_t *c, quad_binding_t *b, const char *callback, uint64_t arg,
                       uint64_t dropped) {
  Qua__V1__Event ev = QUA__V1__EVENT__INIT;
  ev.binding = b->id;
  ev.handle = b->ref->handle;
  ev.callback = (char *)callback;
  ev.arg = arg;
  ev.seq = ++b->seq;
  ev.dropped = dropped;
  if (quap_event_append(&c->out, &ev) > 0)
    quad_srv->events_sent++;
}

/* Ends a drain of a closed queue: the last event of the binding. */
static void send_closed(quad_conn_t *c, quad_binding_t *b) {
  send_event(c, b, "closed", 0, 0);
  b->closed_sent = true;
}

/* True when a queue that broadcast "closed" holds no item (note 7): then
 * it never will again. False when that cannot be told (no count site). */
static bool closed_and_empty(quad_binding_t *b) {
  if (!atomic_load_explicit(&b->closed_seen, memory_order_acquire))
    return false;
  if (b->count_site == NULL)
    return false; /* its queue has no count (quad_bind_work) */
  uint64_t n = 1;
  return qua_call(b->count_site, 0, 0, &n) == QUA_OK && n == 0;
}

/* Takes items for a drain while credits and the socket allow; ends it
 * with "closed" once its queue is closed and empty. */
static void drain(quad_conn_t *c, quad_binding_t *b) {
  if (b->closed_sent)
    return;
  while (b->credits > 0 && quad_conn_writable(c)) {
    uint64_t item = 0;
    /* Note 8: no get while the queue is known to be empty (and open). */
    if (!atomic_exchange_explicit(&b->may_hold, false, memory_order_acq_rel) &&
        !atomic_load_explicit(&b->closed_seen, memory_order_acquire))
      return;
    int r = qua_call(b->get_site, 0, 0, &item);
    if (r == QUA_ECLOSED) {
      send_closed(c, b);
      return;
    }
    if (r != QUA_OK)
      return; /* empty: notempty or closed will wake us */
    atomic_store_explicit(&b->may_hold, true, memory_order_relaxed);
    b->credits--;
    send_event(c, b, b->name, item, 0);
  }
  if (b->credits == 0 && quad_conn_writable(c) && closed_and_empty(b))
    send_closed(c, b);
}

void quad_bindings_end(quad_ref_t *r) {
  quad_conn_t *c = r->conn;
  if (r->bindings == NULL || c->state >= QUAD_CLOSING)
    return;
  quad_events_pump(c, true); /* what fired before goes first */
  for (quad_binding_t *b = r->bindings; b != NULL; b = b->next_in_ref)
    if (!b->closed_sent && !b->pending) /* a pending Bind is answered EHANDLE instead */
      send_event(c, b, "destroyed", 0, 0);
  raise_pending(c); /* the loop flushes c on its next wake-up */
}

void quad_credit(quad_binding_t *b, uint64_t credits) {
  b->credits = credits > UINT64_MAX - b->credits ? UINT64_MAX : b->credits + credits;
  drain(b->conn, b); /* the request's dispatch flushes after it */
}

void quad_events_pump(quad_conn_t *c, bool all) {
  /* While busy, a Bind may be on the worker: its events wait for its reply
   * (quad_conn_resume pumps). */
  if (c->state >= QUAD_CLOSING || (c->busy > 0 && !all))
    return;
  quad_ring_t *r = c->ring;
  if (r != NULL) {
    uint64_t idx;
    while ((all || quad_conn_writable(c)) && qua_lfq_get_sc(&r->ready, &idx) <= QUA_LFQ_EDGE) {
      quad_evrec_t rec = r->rec[idx];
      qua_lfq_put_sp(&r->free, idx);
      quad_binding_t *b = quad_map_get(&c->bindings, rec.binding);
      if (b == NULL)
        continue; /* unbound meanwhile */
      uint64_t dropped = atomic_exchange_explicit(&b->dropped, 0, memory_order_relaxed);
      send_event(c, b, b->name, rec.arg, dropped);
    }
    /* Note 2: counts no event carried, once the ring is empty. */
    if (qua_lfq_count(&r->ready) == 0 && (all || quad_conn_writable(c)) &&
        atomic_exchange_explicit(&c->ev_dropped, false, memory_order_acquire))
      for (size_t i = 0; i < c->bindings.cap; i++) {
        quad_binding_t *b = c->bindings.keys[i] != 0 ? c->bindings.vals[i] : NULL;
        uint64_t n = b != NULL ? atomic_exchange_explicit(&b->dropped, 0, memory_order_relaxed) : 0;
        if (n > 0)
          send_event(c, b, "dropped", 0, n);
      }
  }
  /* Items still in a queue are not queued events: drains always wait for the socket. */
  quad_binding_t *b;
  LIST_FOREACH(b, &c->drains, drain_link)
    drain(c, b);
}

void quad_on_wake(uv_async_t *a) {
  quad_link_on_wake();
  for (quad_conn_t *c = LIST_FIRST(&quad_srv->conns), *next; c != NULL; c = next) {
    next = LIST_NEXT(c, link); /* a failed write closes c and unlinks it */
    /* Acquire: a handler's record (put before its release of the flag) is
     * visible below; a record put after this exchange raises the flag and
     * wakes the loop again. */
    if (!atomic_load_explicit(&c->ev_pending, memory_order_relaxed) ||
        !atomic_exchange_explicit(&c->ev_pending, false, memory_order_acq_rel))
      continue;
    quad_events_pump(c, false);
    quad_conn_flush(c);
  }
}
