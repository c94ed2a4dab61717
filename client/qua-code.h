/* qua-code.h -- the qua command's code listings (qua-code.c): `qua show --code`. */
#ifndef QUA_CODE_H
#define QUA_CODE_H

#include <stdio.h>

#include "quaclient.h"

/* Prints the code of im (quac_describe's machine_code) disassembled under
 * its "impl:" line: a header line, then one line per instruction, a label
 * line where a part starts, the holes patched in an instruction annotated
 * ("; hole mask=1023", "; hole next=0x... -> q.get"); generic code says so.
 * 0, or -1 when out of memory. */
int quac__code_text(FILE *f, const quac_impl_info_t *im);

/* The same as one JSON value: null for generic code, else {"machine",
 * "addr", "size", "entry", "text_end", "parts":[{entry, variant, offset}],
 * "holes":[{name, offset, size, value, pcrel, target}], "listing":[{addr,
 * offset, size, insn, holes:[index into holes]}]}. str writes a JSON
 * string. 0, or -1 when out of memory. */
int quac__code_json(FILE *f, const quac_impl_info_t *im, void (*str)(FILE *f, const char *s));

#endif /* QUA_CODE_H */
