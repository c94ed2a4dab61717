/* fuzz.h -- what the fuzz harnesses share: the entry point libFuzzer calls, and CHECK. */
#ifndef QUA_FUZZ_H
#define QUA_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Runs one input (libFuzzer's contract: returns 0; anything wrong aborts). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property every input must keep: when it fails, the harness says which and aborts,
 * which libFuzzer reports as a crash and saves the input. */
#define CHECK(cond)                                                                  \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      fprintf(stderr, "%s:%d: %s does not hold\n", __FILE__, __LINE__, #cond);       \
      abort();                                                                       \
    }                                                                                \
  } while (0)

#endif /* QUA_FUZZ_H */
