/* header-c99.c -- the m68k module's public headers compile as C99 under -pedantic. */
#include "explore.h"
#include "quaject68k.h"

int m68k_header_c99_check(void);
int m68k_header_c99_check(void) { return M68K_QJ_TRAP + M68K_QJ_OK + M68K_LIN_MAX_OPS; }
