/* quad-state.h -- quad --state-dir (state.c): the graph written ahead, queues' rings in files, contents saved at exit. */
#ifndef QUAD_STATE_H
#define QUAD_STATE_H

#include <stddef.h>

/* The file format and the guarantees are described at the top of state.c.
 * Everything here is called on the loop thread. */

/* At start, before the socket accepts clients: opens DIR (made 0700 when
 * missing; refused unless owned by quad's user, closed to group and others,
 * and writable), locks it against a second quad, and recreates the
 * quajects, names, owners, wires (and contents, after an orderly exit; the
 * contents of their old ring files otherwise) of its newest generation.
 * From then on every queue, buffer, counter and m68k quaject made keeps its
 * storage in a file of DIR (qua_set_storage). 0, or -1 after logging why
 * (the files are left as they were, but a refused ring file, renamed
 * NAME.bad: state.c, R6). */
int quad_state_open(const char *dir);

/* After a change to the published graph (create with a name, publish,
 * unpublish, destroy, wire, unwire, close) made by connection c: when the
 * saved graph differs from the last one submitted, a new generation is
 * written by a job on quad's worker, and c's output (its reply to the
 * change, and what follows) is held until that write is on disk; c
 * decodes nothing more meanwhile (state.c, W1-W4). With c NULL (at start)
 * it is written at once. A no-op without --state-dir. A failed write is
 * logged and retried at the next change; the previous generation stays
 * the good one. */
typedef struct quad_conn quad_conn_t;
void quad_state_changed(quad_conn_t *c);

/* The orderly exit (SIGTERM, SIGINT), after every connection closed and
 * before the quajects are destroyed: stops the active quajects (their
 * callouts are unwired) and writes the graph with the contents of queues,
 * buffers, stacks and counters. A no-op without --state-dir. 1 when a
 * change's write is still on the worker (nothing done: call again when it
 * ends; it wakes the loop), else 0. */
int quad_state_save_final(void);

/* The create parameters ("key=value", target= excluded) packed for
 * quad_obj.params: each string and its NUL, then one more NUL. malloc'ed;
 * NULL when out of memory. */
char *quad_state_params(const char *const *params, size_t n);

#endif /* QUAD_STATE_H */
