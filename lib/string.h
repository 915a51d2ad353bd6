/* SPDX-License-Identifier: BSD-2-Clause */
/* Memory and string helpers. Host unit tests use the C library's. */
#ifndef LIB_STRING_H
#define LIB_STRING_H

#include "lib/types.h"

#ifdef APF_HOSTED
#include <string.h>
#else
void *memset(void *dst, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
#endif

/* Copies at most size-1 bytes and always NUL-terminates; returns strlen(src). */
size_t str_copy(char *dst, const char *src, size_t size);

#endif
