/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Memory and string helpers for the freestanding hypervisor. Host unit tests
 * take the C library's versions (APF_HOSTED) and only str_copy from here.
 */
#include "lib/string.h"

#ifndef APF_HOSTED

/*
 * gcc recognises a byte loop as "this is memset" and replaces it with a call
 * to memset, which here would call itself forever. Turn that pattern matching
 * off for the functions that implement those very calls.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define NO_LIBCALL_PATTERNS \
	__attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define NO_LIBCALL_PATTERNS
#endif

/*
 * REP STOS/MOVS: one instruction for a whole page, which matters most
 * under Bochs (zero-filling guest frames, copying pages and images).
 * Bochs counts every iteration of a repeated string instruction as one
 * emulated instruction (one TSC tick), so whole quadwords go eight bytes
 * an iteration: a zero fill of a page costs 512 ticks instead of 4,096.
 * Fast-string microcode makes both quick on hardware (SDM Vol. 1, 7.3.9.3).
 */
static inline bool quadwords(uintptr_t a, uintptr_t b, size_t n)
{
	return !((a | b | n) & 7);
}

void *memset(void *dst, int c, size_t n)
{
	void *d = dst;

	if (quadwords((uintptr_t)dst, 0, n)) {
		uint64_t q = 0x0101010101010101ull * (uint8_t)c;

		n /= 8;
		__asm__ volatile("rep stosq"
				 : "+D"(d), "+c"(n)
				 : "a"(q)
				 : "memory");
		return dst;
	}
	__asm__ volatile("rep stosb"
			 : "+D"(d), "+c"(n)
			 : "a"(c)
			 : "memory");
	return dst;
}

void *memcpy(void *dst, const void *src, size_t n)
{
	void *d = dst;

	if (quadwords((uintptr_t)dst, (uintptr_t)src, n)) {
		n /= 8;
		__asm__ volatile("rep movsq"
				 : "+D"(d), "+S"(src), "+c"(n)
				 :
				 : "memory");
		return dst;
	}
	__asm__ volatile("rep movsb"
			 : "+D"(d), "+S"(src), "+c"(n)
			 :
			 : "memory");
	return dst;
}

NO_LIBCALL_PATTERNS
void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d == s || n == 0)
		return dst;
	/*
	 * Copy backwards when dst starts inside src, so that no byte of src
	 * is overwritten before it is read.
	 */
	if ((uintptr_t)d > (uintptr_t)s && (uintptr_t)d - (uintptr_t)s < n) {
		while (n--)
			d[n] = s[n];
	} else {
		while (n--)
			*d++ = *s++;
	}
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++) {
		if (*x != *y)
			return *x - *y;
	}
	return 0;
}

NO_LIBCALL_PATTERNS
size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;

	while (*x && *x == *y) {
		x++;
		y++;
	}
	return *x - *y;
}

int strncmp(const char *a, const char *b, size_t n)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;

	for (; n; n--, x++, y++) {
		if (*x != *y)
			return *x - *y;
		if (!*x)
			break;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	/* As in C99 7.21.5.2, the terminating NUL can be found too. */
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

#endif /* !APF_HOSTED */

size_t str_copy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}
