/* SPDX-License-Identifier: BSD-2-Clause */
/* Byte-order helpers for file formats read from untrusted images. */
#ifndef LIB_BYTES_H
#define LIB_BYTES_H

#include "lib/types.h"

/* Little-endian fields at any alignment (the image need not be aligned). */
static inline uint64_t le_get(const uint8_t *p, uint64_t off, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = (v << 8) | p[off + n];
	return v;
}

static inline void le_put(uint8_t *p, uint64_t off, unsigned n, uint64_t v)
{
	for (unsigned i = 0; i < n; i++, v >>= 8)
		p[off + i] = (uint8_t)v;
}

#endif
