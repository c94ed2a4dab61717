/* work.c -- control work off the loop: blocking libqua calls run on a worker, one job at a time.
 *
 * Design note: why the loop never waits, and why one worker is enough.
 *
 *  1. Control operations (create, destroy, wire, unwire, close, unbind, and
 *     a closing connection's cleanup) wait for grace periods, join threads
 *     and resynthesise code, all under libqua's control lock. The loop
 *     thread never makes them: a method submits a job whose `work` makes
 *     the libqua calls on a worker (uv_queue_work), and whose `done` runs
 *     on the loop afterwards to record the outcome and reply.
 *  2. Jobs run one at a time, in the order they were submitted, daemon
 *     wide. libqua serialises control operations under one lock anyway, so
 *     a second worker would only wait for that lock; one worker gives the
 *     order below for free. --state-dir's writes (state.c) have a lane of
 *     their own, with the same rules: they touch only their files, never
 *     libqua, so control jobs do not wait for the disk, nor writes for the
 *     control lock.
 *  3. The daemon's own state (objects, handles, bindings, names, counts)
 *     belongs to the loop and is changed at submission: a destroy removes
 *     the object and every handle on it before its job is queued (without
 *     force, once a job of its own found nothing wired into it; the object
 *     takes no wire and no other Destroy meanwhile), a create reserves its
 *     counts. So the loop's view runs ahead of libqua's, and a
 *     job's work meets libqua in the state of every job before it: a
 *     quaject a job names was reachable when it was submitted, and a job
 *     that frees it (submitted later, after the loop forgot it) runs later.
 *     `work` touches only libqua and the job's own memory; what it frees
 *     that the loop allocated (bindings) is freed in `done`.
 *  4. A job may hold connections alive (quad_conn_hold): a request's
 *     connection, and the connections whose bindings a teardown unbinds,
 *     since their handlers write into those connections' rings until the
 *     unwatch returns. A held connection whose socket closed is freed when
 *     the last hold goes.
 *  5. A request job makes its connection busy: the connection decodes no
 *     further request until the job's reply is out (session.c resumes it),
 *     so one connection's requests keep their order while the others go on.
 *  6. On SIGTERM the loop answers what it read, closes every socket, and
 *     then exits without waiting for jobs that only destroy what closed
 *     connections owned (the process's end does that at once); with no job
 *     left it destroys what remains itself. The exit deadline bounds it,
 *     kept by the signal thread (signals.c).
 *  7. No exception is left. Links are made and destroyed by jobs like
 *     any quaject, LinkOpen is a request job, and the sites a link's peer
 *     lets go of close in a job (link.c note 9); only their libuv handles
 *     are the loop's, started in Create's done and closed once the
 *     destroy's job ran. Destroy's not-wired check asks libqua
 *     (qua_wired_in) in a job (dispatch.c, "Destroy"). A drain's count
 *     site is opened in its bind job (events.c). List, Describe and a
 *     metrics scrape's state lines are jobs (dispatch.c, "Listings";
 *     metrics.c note 2). --state-dir's graph read asks whether a queue is
 *     closed and where a callout is wired without a lock
 *     (qua_queue_is_closed, qua_wired_to_id). What the loop still asks
 *     libqua takes no lock: calls through open sites, broadcasts, a
 *     quaject's id and type. The exit (note 6) destroys what is left on
 *     the loop, once no job is left and every connection is closed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "quad-internal.h"

/* Each lane: its queue and the job its worker runs. */
static struct lane {
  quad_job_t *head, **tail;
  quad_job_t *running;
} lanes[QUAD_LANES] = {{NULL, &lanes[0].head, NULL}, {NULL, &lanes[1].head, NULL}};

static void start_next(struct lane *l);

static void on_work(uv_work_t *req) {
  quad_job_t *j = req->data;
  j->work(j);
}

static void after_work(uv_work_t *req, int status) {
  quad_job_t *j = req->data;
  struct lane *l = &lanes[j->lane];
  l->running = NULL;
  quad_conn_t *c = j->c;
  bool request = j->request;
  /* Cancelled only if the loop is torn down, which waits for us. */
  (void)status;
  j->done(j); /* replies and frees j */
  if (c != NULL) {
    if (request)
      quad_conn_resume(c);
    quad_conn_unhold(c);
  }
  start_next(l);
  if (l->running == NULL && quad_srv->stopping)
    uv_async_send(&quad_srv->wake); /* maybe_finish re-checks */
}

static void start_next(struct lane *l) {
  if (l->running != NULL || l->head == NULL)
    return;
  quad_job_t *j = l->head;
  l->head = j->next;
  if (l->head == NULL)
    l->tail = &l->head;
  l->running = j;
  j->req.data = j;
  int r = uv_queue_work(quad_srv->loop, &j->req, on_work, after_work);
  if (r < 0) {
    /* libuv refused the work (it cannot, short of a broken loop): do it
     * here rather than lose it. */
    quad_log(QUAD_LOG_ERROR, "uv_queue_work: %s: control work runs on the loop",
             uv_strerror(r));
    on_work(&j->req);
    after_work(&j->req, 0);
  }
}

void quad_job_submit(quad_job_t *j, quad_conn_t *c, bool request) {
  quad_job_submit_to(j, c, request, QUAD_LANE_CONTROL);
}

void quad_job_submit_to(quad_job_t *j, quad_conn_t *c, bool request, int lane) {
  struct lane *l = &lanes[lane];
  j->lane = lane;
  j->c = c;
  j->request = request;
  j->next = NULL;
  if (c != NULL) {
    quad_conn_hold(c);
    if (request)
      c->busy++; /* a done may submit another request job (state.c) */
  }
  *l->tail = j;
  l->tail = &j->next;
  start_next(l);
}

bool quad_jobs_idle(void) {
  for (int i = 0; i < QUAD_LANES; i++)
    if (lanes[i].running != NULL || lanes[i].head != NULL)
      return false;
  return true;
}
