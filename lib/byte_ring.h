/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A ring of bytes over a buffer its owner provides: first in, first out.
 * No locking: the owner serializes (the console's lock for the serial
 * console's ring, arch/x86/serial.c).
 */
#ifndef LIB_BYTE_RING_H
#define LIB_BYTE_RING_H

#include "lib/types.h"

struct byte_ring {
	char *buf;
	size_t size;            /* bytes of buf */
	size_t head;            /* the oldest byte */
	size_t count;           /* bytes held */
};

static inline void byte_ring_init(struct byte_ring *r, char *buf,
				  size_t size)
{
	r->buf = buf;
	r->size = size;
	r->head = 0;
	r->count = 0;
}

static inline bool byte_ring_full(const struct byte_ring *r)
{
	return r->count == r->size;
}

/* False when the ring is full (the byte is not taken). */
static inline bool byte_ring_push(struct byte_ring *r, char c)
{
	if (byte_ring_full(r))
		return false;
	r->buf[(r->head + r->count) % r->size] = c;
	r->count++;
	return true;
}

/* The oldest byte (0-255), or -1 when the ring is empty. */
static inline int byte_ring_pop(struct byte_ring *r)
{
	uint8_t c;

	if (!r->count)
		return -1;
	c = (uint8_t)r->buf[r->head];
	r->head = (r->head + 1) % r->size;
	r->count--;
	return c;
}

#endif
