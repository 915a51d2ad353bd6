// SPDX-License-Identifier: BSD-2-Clause
/* debug.isolation_secret (boot/isolation_secret.h). */
#include "boot/isolation_secret.h"
#include "lib/console.h"
#include "lib/heap.h"
#include "swap/drivers/blockdev_faults.h"
#include "swap/swap_daemon.h"
#include "swap/swap_device.h"

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

/*
 * With swap, the secret also goes where pages pass on their way to disk and
 * back: every frame freed from now on, the swap path's own buffers, and,
 * when debug.swap_fail_* fails requests, the slots of the failed writes
 * and the frames of the failed reads (page, already full of the secret, is
 * what they get: swap/drivers/blockdev_faults.h).
 */
static void plant_for_swap(struct vm *vm, uint64_t secret, uint64_t page)
{
	unsigned buffers;
	bool torn;

	if (!vm->memory.swap || !swap_daemon_has_swap(vm->memory.swap))
		return;
	guest_memory_fill_freed_frames(&vm->memory.ram, secret);
	buffers = swap_device_fill_buffers(secret);
	torn = blockdev_faults_set_torn_page(page);
	hv_info("debug: isolation secret also in every guest frame freed from "
		"now on, in %u buffers of the swap drivers%s", buffers,
		torn ? ", and in the slots of the swap writes and the frames "
		       "of the swap reads that debug.swap_fail_* fails" : "");
}

void isolation_secret_plant(struct vm *vm, uint64_t secret)
{
	uint64_t heap_page = hv_alloc_pages_low(1);
	volatile uint64_t on_stack[8];
	uint64_t frames;

	fill_page(heap_page, secret);
	for (unsigned i = 0; i < ARRAY_SIZE(on_stack); i++)
		on_stack[i] = secret;
	frames = plant_in_free_frames(&vm->memory.pool, secret);
	hv_info("debug: isolation secret planted in a heap page at 0x%llx, "
		"in %llu free guest frames and on the boot stack at 0x%llx",
		(unsigned long long)heap_page, (unsigned long long)frames,
		(unsigned long long)(uintptr_t)on_stack);
	plant_for_swap(vm, secret, heap_page);
}
