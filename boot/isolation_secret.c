// SPDX-License-Identifier: BSD-2-Clause
/* debug.isolation_secret (boot/isolation_secret.h). */
#include "boot/isolation_secret.h"
#include "lib/console.h"
#include "lib/heap.h"

static void fill_page(uint64_t pa, uint64_t secret)
{
	volatile uint64_t *p = (volatile uint64_t *)(uintptr_t)pa;

	for (unsigned i = 0; i < PAGE_SIZE / sizeof(uint64_t); i++)
		p[i] = secret;
}

/*
 * Takes every free frame, fills it, gives them all back in the reverse
 * order, so the pool hands them out as it would have; its counters are
 * put back as they were, so that the guest's counts do not show this.
 */
static uint64_t plant_in_free_frames(struct frame_pool *pool, uint64_t secret)
{
	struct frame_pool before = *pool;
	uint64_t *taken = hv_alloc(pool->nfree * sizeof(uint64_t) + 1);
	uint64_t n = 0;

	while (frame_pool_alloc(pool, &taken[n])) {
		fill_page(taken[n], secret);
		n++;
	}
	for (uint64_t i = n; i-- > 0;)
		frame_pool_free(pool, taken[i]);
	pool->peak_in_use = before.peak_in_use;
	pool->allocs = before.allocs;
	pool->frees = before.frees;
	return n;
}

void isolation_secret_plant(struct vm *vm, uint64_t secret)
{
	uint64_t heap_page = hv_alloc_pages_low(1);
	volatile uint64_t on_stack[8];
	uint64_t frames;

	fill_page(heap_page, secret);
	for (unsigned i = 0; i < ARRAY_SIZE(on_stack); i++)
		on_stack[i] = secret;
	frames = plant_in_free_frames(&vm->pool, secret);
	hv_info("debug: isolation secret planted in a heap page at 0x%llx, "
		"in %llu free guest frames and on the boot stack at 0x%llx",
		(unsigned long long)heap_page, (unsigned long long)frames,
		(unsigned long long)(uintptr_t)on_stack);
}
