/* SPDX-License-Identifier: BSD-2-Clause */
/* A small formatted printer for the freestanding hypervisor. */
#ifndef LIB_FORMAT_H
#define LIB_FORMAT_H

#include "lib/types.h"

/*
 * Supports %% %c %s %d %i %u %x %X %p and the length modifiers l, ll, z;
 * flags '-', '0'; a field width (also '*'); precision for %s ('.N', '.*').
 * Always NUL-terminates when n > 0; returns the length the full output would
 * have had (as C99 vsnprintf).
 */
int fmt_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap);
int fmt_snprintf(char *buf, size_t n, const char *fmt, ...) PRINTF_LIKE(3, 4);

/* For parsers that explain a refusal in one line: formats it, returns -1. */
int fmt_fail(char *err, size_t n, const char *fmt, ...) PRINTF_LIKE(3, 4);

#endif
