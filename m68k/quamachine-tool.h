/* quamachine-tool.h -- what the quamachine tool's commands share (defined in quamachine.c). */
#ifndef QUA_M68K_QUAMACHINE_TOOL_H
#define QUA_M68K_QUAMACHINE_TOOL_H

#include <stdbool.h>
#include <stdint.h>

#define QM_EXIT_USAGE 2

/* Says what is wrong with the command line of command `cmd` (NULL: the
 * tool's own), and where the usage is; returns QM_EXIT_USAGE. */
int qm_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses a decimal or 0x-hex count in [lo, hi]; false for anything else
 * (a sign, trailing characters, out of range). */
bool qm_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

#endif
