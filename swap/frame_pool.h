/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host frame pool: the 4 KiB host frames the guest may occupy
 * (host.guest_frames). Frames come from one or more physically contiguous
 * ranges handed over by boot/. Pure C: the caller serializes access.
 */
#ifndef SWAP_FRAME_POOL_H
#define SWAP_FRAME_POOL_H

#include "lib/types.h"

#define FRAME_POOL_MAX_RANGES 16

struct frame_range {
	uint64_t base;          /* host-physical, 4 KiB aligned */
	uint64_t frames;
};

struct frame_pool {
	struct frame_range ranges[FRAME_POOL_MAX_RANGES];
	unsigned nranges;
	uint64_t *free_stack;   /* caller-provided storage, capacity entries */
	uint64_t *free_bits;    /* same storage, after the stack: bit = free */
	uint64_t capacity;
	uint64_t nfree;
	uint64_t total;
	uint64_t peak_in_use;
	uint64_t allocs;
	uint64_t frees;
};

/*
 * The number of uint64_t words of storage frame_pool_init needs for a pool
 * of up to frames frames: the free stack (one word per frame) followed by a
 * bitmap of which frames are free (one bit per frame), which makes double
 * free detection O(1).
 */
uint64_t frame_pool_storage_words(uint64_t frames);

/*
 * storage must hold frame_pool_storage_words(capacity) uint64_t words;
 * capacity is the number of frames that may ever be added.
 */
void frame_pool_init(struct frame_pool *pool, uint64_t *storage,
		     uint64_t capacity);

/*
 * Adds a range; returns 0, or -1 (misaligned, empty, overlapping a range
 * already added, ending beyond 2^64, too many ranges, no room). The frames
 * of a new range are handed out lowest address first; freed frames are
 * reused first (LIFO).
 */
int frame_pool_add_range(struct frame_pool *pool, uint64_t base,
			 uint64_t frames);

/* Takes one frame; returns false when the pool is empty. */
bool frame_pool_alloc(struct frame_pool *pool, uint64_t *pa);

/*
 * Returns a frame. Returns -1 (and changes nothing) when pa is not a frame of
 * the pool or is already free (double free is detected).
 */
int frame_pool_free(struct frame_pool *pool, uint64_t pa);

/* True when pa (any byte address) lies in one of the ranges. */
bool frame_pool_contains(const struct frame_pool *pool, uint64_t pa);
uint64_t frame_pool_in_use(const struct frame_pool *pool);

#endif
