/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host frame pool. Free frames sit on a stack (LIFO: a frame just freed
 * is likely still in the cache when it is zeroed for its next user). A bitmap
 * with one bit per frame says which frames are free, so that a double free
 * or a stray address is caught in constant time instead of by a search of
 * the stack; a frame is numbered by its position across the ranges.
 */
#include "swap/frame_pool.h"

#define BITS_PER_WORD 64

uint64_t frame_pool_storage_words(uint64_t frames)
{
	return frames + (frames + BITS_PER_WORD - 1) / BITS_PER_WORD;
}

void frame_pool_init(struct frame_pool *pool, uint64_t *storage,
		     uint64_t capacity)
{
	*pool = (struct frame_pool){
		.free_stack = storage,
		.free_bits = storage + capacity,
		.capacity = capacity,
	};
}

static bool bit_test(const struct frame_pool *pool, uint64_t i)
{
	return pool->free_bits[i / BITS_PER_WORD] & BIT(i % BITS_PER_WORD);
}

static void bit_set(struct frame_pool *pool, uint64_t i, bool free)
{
	if (free)
		pool->free_bits[i / BITS_PER_WORD] |= BIT(i % BITS_PER_WORD);
	else
		pool->free_bits[i / BITS_PER_WORD] &= ~BIT(i % BITS_PER_WORD);
}

/*
 * Sets *index to the number of the frame holding pa, counting across the
 * ranges in the order they were added; false when pa is not in the pool.
 * The bitmap needs no clearing at init: a bit is only read for a frame of a
 * range, and adding the range set it.
 */
static bool frame_index(const struct frame_pool *pool, uint64_t pa,
			uint64_t *index)
{
	uint64_t first = 0;

	for (unsigned i = 0; i < pool->nranges; i++) {
		const struct frame_range *r = &pool->ranges[i];

		if (pa >= r->base && (pa - r->base) / PAGE_SIZE < r->frames) {
			*index = first + (pa - r->base) / PAGE_SIZE;
			return true;
		}
		first += r->frames;
	}
	return false;
}

static bool overlaps(const struct frame_pool *pool, uint64_t base,
		     uint64_t frames)
{
	uint64_t end = base + frames * PAGE_SIZE;

	for (unsigned i = 0; i < pool->nranges; i++) {
		const struct frame_range *r = &pool->ranges[i];

		if (base < r->base + r->frames * PAGE_SIZE && r->base < end)
			return true;
	}
	return false;
}

static void push(struct frame_pool *pool, uint64_t pa, uint64_t index)
{
	pool->free_stack[pool->nfree++] = pa;
	bit_set(pool, index, true);
}

int frame_pool_add_range(struct frame_pool *pool, uint64_t base,
			 uint64_t frames)
{
	if (!IS_ALIGNED(base, PAGE_SIZE) || !frames ||
	    pool->nranges == FRAME_POOL_MAX_RANGES ||
	    frames > pool->capacity - pool->total ||
	    frames > (UINT64_MAX - base) / PAGE_SIZE ||
	    overlaps(pool, base, frames))
		return -1;

	pool->ranges[pool->nranges++] = (struct frame_range){ base, frames };
	/* Highest first, so that the lowest address is on top of the stack. */
	for (uint64_t i = frames; i-- > 0;)
		push(pool, base + i * PAGE_SIZE, pool->total + i);
	pool->total += frames;
	return 0;
}

bool frame_pool_alloc(struct frame_pool *pool, uint64_t *pa)
{
	uint64_t index, in_use;

	if (!pool->nfree)
		return false;
	*pa = pool->free_stack[--pool->nfree];
	/* Always found: only frames of the ranges are ever pushed. */
	if (frame_index(pool, *pa, &index))
		bit_set(pool, index, false);

	pool->allocs++;
	in_use = frame_pool_in_use(pool);
	if (in_use > pool->peak_in_use)
		pool->peak_in_use = in_use;
	return true;
}

int frame_pool_free(struct frame_pool *pool, uint64_t pa)
{
	uint64_t index;

	if (!IS_ALIGNED(pa, PAGE_SIZE) || !frame_index(pool, pa, &index) ||
	    bit_test(pool, index))
		return -1;
	push(pool, pa, index);
	pool->frees++;
	return 0;
}

bool frame_pool_contains(const struct frame_pool *pool, uint64_t pa)
{
	uint64_t index;

	return frame_index(pool, pa, &index);
}

uint64_t frame_pool_in_use(const struct frame_pool *pool)
{
	return pool->total - pool->nfree;
}
