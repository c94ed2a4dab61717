/* quad-m68k.h -- quad's target=m68k quajects (m68k.c): their types, what `show` says of them. */
#ifndef QUAD_M68K_H
#define QUAD_M68K_H

#include <stdbool.h>
#include <stddef.h>

#include "qua-impl.h"

/* The m68k type of that name, or NULL. Its quajects report their type as
 * "m68k-queue", "m68k-stack", "m68k-counter"; `name` may be that, or the
 * host-like name create takes with target=m68k ("queue"). Create its
 * quajects with qua_create_with(). */
const qua_type_t *quad_m68k_type(const char *name);

/* The m68k types, NULL-terminated (none without the backend), listed by
 * ListTypes after libqua's. */
const qua_type_t *const *quad_m68k_types(void);

/* True when q is a target=m68k quaject. */
bool quad_m68k_is(const qua_quaject_t *q);

/* What entry `entry` of m68k quaject q runs ("m68k stencil put_sp_t at
 * 0x..., 60 bytes, 23 insns/call, ~70 cycles/call (mean of 9 calls)") into
 * impl; when code is not NULL, its code disassembled (malloc'ed, one
 * "ADDRESS  INSTRUCTION" a line, an instruction holding a patched hole
 * annotated "  ; hole NAME=VALUE"); when mcode is not NULL, the code itself
 * with its holes, as qua_quaject_entry_code gives host code (one block for
 * free()). 0, QUA_ENOENTRY or QUA_ENOMEM. */
int quad_m68k_entry_info(const qua_quaject_t *q, int entry, char *impl, size_t impllen,
                         char **code, qua_code_t **mcode);

/* Destroys the daemon's quamachine and the quajects' code and state in it
 * (at exit, after every quaject was destroyed). */
void quad_m68k_shutdown(void);

#endif /* QUAD_M68K_H */
