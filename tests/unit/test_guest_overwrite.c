// SPDX-License-Identifier: BSD-2-Clause
/*
 * guest_memory_overwrite (swap/guest_overwrite.c): a fault by a store
 * that overwrites the whole page takes a page on the swap device to
 * RESIDENT without a read, in a frame that already holds the store's
 * fill, and frees its slot, so that its next eviction writes it; a page
 * in any other state is left alone for the usual fault path. The
 * 16-page guest over 4 frames and 8 slots of swap_test.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/swap_fake.h"
#include "tests/unit/swap_test.h"

#define FILL 0xa5a5a5a5a5a5a5a5ull

static enum guest_fault_result overwrite(struct swap_fake *sf, uint64_t gfn)
{
	return guest_memory_overwrite(&sf->gm, gfn << PAGE_SHIFT, FILL);
}

static void test_swapped_page_filled_without_a_read(void **state)
{
	struct swap_fake *sf = new_guest(state);
	unsigned submitted;
	uint32_t free_slots;
	const uint64_t *words;

	put(sf, 0, 0x42);
	swap_out_page0(sf);
	free_slots = swap_slots_free_count(&sf->slots);
	submitted = sf->submitted;
	assert_true(guest_memory_only_in_swap(&sf->gm, 0));
	assert_int_equal(overwrite(sf, 0), GUEST_FAULT_RESOLVED);
	assert_state(sf, 0, PAGE_RESIDENT);
	assert_int_equal(sf->submitted, submitted);             /* no read */
	assert_int_equal(swap_slots_free_count(&sf->slots), free_slots + 1);
	assert_int_equal(page_flags(sf, 0), 0);
	words = (const uint64_t *)touch_page(sf, 0, false);
	for (unsigned i = 0; i < PAGE_SIZE / 8; i++)
		assert_int_equal(words[i], FILL);
	assert_int_equal(sf->gm.stats.overwrites, 1);
	assert_int_equal(sf->gm.stats.swap_ins, 0);
	assert_int_equal(sf->gm.stats.transitions[PAGE_SWAPPED][PAGE_RESIDENT],
			 1);
	assert_int_equal(sf->gm.stats.illegal_transitions, 0);
	/* No copy in swap: the next eviction writes the page ... */
	evict_one(sf, 0);
	assert_int_equal(sf->queued, 1);
	assert_int_equal(sf->queue[0].op, SWAP_IO_WRITE);
	swap_fake_complete_all(sf);
	/* ... and what comes back is the fill. */
	swap_in(sf, 0);
	assert_int_equal(get(sf, 0), 0xa5);
}

static void test_other_states_left_alone(void **state)
{
	struct swap_fake *sf = new_guest(state);
	unsigned submitted;

	make_busy_pages(sf);
	submitted = sf->submitted;
	for (uint64_t gfn = 0; gfn < 4; gfn++) {
		assert_false(guest_memory_only_in_swap(&sf->gm,
						       gfn << PAGE_SHIFT));
		assert_int_equal(overwrite(sf, gfn), GUEST_FAULT_WAIT_IO);
	}
	/* Past RAM's end: not looked up in the page states at all. */
	assert_false(guest_memory_only_in_swap(&sf->gm, 16 << PAGE_SHIFT));
	assert_false(guest_memory_only_in_swap(&sf->gm, 0x80000000ull));
	/* Outside RAM, too. */
	assert_int_equal(guest_memory_overwrite(&sf->gm, 1ull << 40, FILL),
			 GUEST_FAULT_WAIT_IO);
	assert_int_equal(sf->submitted, submitted);
	assert_state(sf, 3, PAGE_UNTOUCHED);
	assert_int_equal(sf->gm.stats.overwrites, 0);
	expect_busy_pages_kept(sf);
}

/* A page whose read failed for good stays lost: a machine check. */
static void test_lost_page_left_alone(void **state)
{
	struct swap_fake *sf = new_guest(state);
	enum guest_fault_result fr;

	put(sf, 0, 0x10);
	swap_out_page0(sf);
	assert_null(swap_fake_access(sf, 0, false, &fr));
	for (unsigned i = 0; i < GUEST_IO_TRIES; i++)
		assert_int_equal(swap_fake_complete(sf, 0, false), 0);
	assert_true(page_flags(sf, 0) & GPM_LOST);
	assert_int_equal(overwrite(sf, 0), GUEST_FAULT_WAIT_IO);
	assert_state(sf, 0, PAGE_SWAPPED);
}

/* No free frame: nothing changes, the caller goes the usual way. */
static void test_no_frame(void **state)
{
	struct swap_fake *sf = new_guest(state);
	uint32_t slot;

	put(sf, 0, 0x10);
	slot = swap_out_page0(sf);
	for (uint64_t gfn = 1; gfn < 5; gfn++)
		put(sf, gfn, (uint8_t)gfn);
	assert_int_equal(sf->pool.nfree, 0);
	assert_int_equal(overwrite(sf, 0), GUEST_FAULT_NO_FRAME);
	assert_state(sf, 0, PAGE_SWAPPED);
	assert_int_equal(page_slot(sf, 0), slot);
	assert_int_equal(sf->gm.stats.overwrites, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		swap_test(test_swapped_page_filled_without_a_read),
		swap_test(test_other_states_left_alone),
		swap_test(test_lost_page_left_alone),
		swap_test(test_no_frame),
	};

	return cmocka_run_group_tests_name("guest_overwrite", tests, NULL,
					   NULL);
}
