// SPDX-License-Identifier: BSD-2-Clause
/*
 * guest_memory_discard (swap/guest_discard.c): the pages a guest reports
 * free give back what holds them - frame, slot - and are zero-filled on
 * their next touch; pages with I/O in flight or pinned stay as they are.
 * The 16-page guest over 4 frames and 8 slots of swap_test.h.
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

static struct guest_discard_result discard(struct swap_fake *sf, uint64_t gfn,
					   uint64_t pages)
{
	struct guest_discard_result r = { 0 };
	unsigned flushes = sf->flushes;

	guest_memory_discard(&sf->gm, gfn << PAGE_SHIFT, pages, &r);
	/* One flush per batch with a resident page, never more. */
	assert_true(sf->flushes - flushes <= (pages + GUEST_EVICT_BATCH - 1) /
						     GUEST_EVICT_BATCH);
	return r;
}

static void test_resident_page_dropped(void **state)
{
	struct swap_fake *sf = new_guest(state);
	uint64_t in_use;
	struct guest_discard_result r;

	put(sf, 3, 0x33);
	in_use = frame_pool_in_use(&sf->pool);
	r = discard(sf, 3, 1);
	assert_int_equal(r.dropped, 1);
	assert_int_equal(sf->flushes, 1);
	assert_state(sf, 3, PAGE_UNTOUCHED);
	assert_int_equal(frame_pool_in_use(&sf->pool), in_use - 1);
	assert_int_equal(sf->gm.stats.discarded, 1);
	/* The next touch is a zero fill, counted as a refault. */
	assert_int_equal(get(sf, 3), 0);
	assert_int_equal(sf->gm.stats.discard_refaults, 1);
	/* ... once: a later zero fill of the page is not one. */
	discard(sf, 3, 1);
	assert_int_equal(sf->gm.stats.discard_refaults, 1);
	assert_int_equal(sf->gm.stats.discarded, 2);
}

static void test_swapped_page_frees_slot(void **state)
{
	struct swap_fake *sf = new_guest(state);
	uint32_t free_slots;
	struct guest_discard_result r;

	put(sf, 0, 0x77);
	swap_out_page0(sf);
	free_slots = swap_slots_free_count(&sf->slots);
	r = discard(sf, 0, 1);
	assert_int_equal(r.dropped, 1);
	assert_int_equal(sf->flushes, 1);       /* the eviction's only */
	assert_state(sf, 0, PAGE_UNTOUCHED);
	assert_int_equal(swap_slots_free_count(&sf->slots), free_slots + 1);
	assert_int_equal(sf->gm.stats.transitions[PAGE_SWAPPED][PAGE_UNTOUCHED],
			 1);
	/* No read: a zero page comes back. */
	assert_int_equal(get(sf, 0), 0);
	assert_int_equal(sf->queued, 0);
}

static void test_resident_copy_slot_freed(void **state)
{
	struct swap_fake *sf = new_guest(state);
	uint32_t free_slots;

	/* Swapped out and read back: resident with a valid copy. */
	put(sf, 0, 0x42);
	swap_out_page0(sf);
	swap_in(sf, 0);
	assert_true(page_flags(sf, 0) & GPM_SWAP_VALID);
	free_slots = swap_slots_free_count(&sf->slots);
	assert_int_equal(discard(sf, 0, 1).dropped, 1);
	assert_int_equal(swap_slots_free_count(&sf->slots), free_slots + 1);
	assert_int_equal(page_flags(sf, 0), 0);
}

/* A vCPU faults on the page during the discard's flush. */
static void take_back_page0(struct swap_fake *sf)
{
	enum guest_fault_result r;

	sf->on_flush = NULL;
	assert_non_null(swap_fake_access(sf, 0, false, &r));
}

static void test_taken_back_dirty_copy_freed(void **state)
{
	struct swap_fake *sf = new_guest(state);

	/* Resident with a valid copy, then written: the copy is stale. */
	put(sf, 0, 0x42);
	swap_out_page0(sf);
	swap_in(sf, 0);
	put(sf, 0, 0x43);
	sf->on_flush = take_back_page0;
	assert_int_equal(discard(sf, 0, 1).kept, 1);
	assert_state(sf, 0, PAGE_RESIDENT);
	/* The dirty bit seen at the unmap freed the stale copy ... */
	assert_false(page_flags(sf, 0) & GPM_SWAP_VALID);
	/* ... so an eviction writes the page again, not a clean drop. */
	evict_one(sf, 0);
	assert_int_equal(sf->queued, 1);
	swap_fake_complete_all(sf);
	swap_in(sf, 0);
	assert_int_equal(get(sf, 0), 0x43);
}

static void test_busy_pages_kept(void **state)
{
	struct swap_fake *sf = new_guest(state);
	struct guest_discard_result r;

	make_busy_pages(sf);
	/* Page 2 pinned as well. */
	assert_int_equal(guest_memory_pin(&sf->gm, 2 << PAGE_SHIFT), 0);
	r = discard(sf, 0, 4);
	assert_int_equal(r.kept, 3);
	assert_int_equal(r.already_free, 1);
	assert_int_equal(r.dropped, 0);
	expect_busy_pages_kept(sf);
}

static void test_outside_ram_and_huge_ranges(void **state)
{
	struct swap_fake *sf = new_guest(state);
	struct guest_discard_result r;

	put(sf, 15, 0x15);
	/* The last page and 100 pages past RAM's end. */
	r = discard(sf, 15, 101);
	assert_int_equal(r.dropped, 1);
	assert_int_equal(r.outside_ram, 100);
	/* Ranges past the physical space are refused whole, at once. */
	r = discard(sf, 1ull << 40, 1ull << 40);
	assert_int_equal(r.outside_ram, 1ull << 40);
	r = discard(sf, 5, UINT64_MAX);
	assert_int_equal(r.outside_ram, UINT64_MAX);
	r = discard(sf, 16, (1ull << 39));
	assert_int_equal(r.outside_ram, 1ull << 39);
}

static void test_batches(void **state)
{
	struct swap_fake *sf = swap_fake_new(80, 80, 8, 1, 1);
	struct guest_discard_result r;

	*state = sf;
	for (unsigned p = 0; p < 70; p++)
		put(sf, p, (uint8_t)p);
	r = discard(sf, 0, 80);
	assert_int_equal(r.dropped, 70);
	assert_int_equal(r.already_free, 10);
	/* 70 resident pages: three batches of at most 32. */
	assert_int_equal(sf->flushes, 3);
	assert_int_equal(frame_pool_in_use(&sf->pool), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		swap_test(test_resident_page_dropped),
		swap_test(test_swapped_page_frees_slot),
		swap_test(test_resident_copy_slot_freed),
		swap_test(test_busy_pages_kept),
		swap_test(test_taken_back_dirty_copy_freed),
		swap_test(test_outside_ram_and_huge_ranges),
		swap_test(test_batches),
	};

	return cmocka_run_group_tests_name("guest_discard", tests, NULL, NULL);
}
