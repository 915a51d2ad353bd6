/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * How a page's I/O ends: a failed write retires its slot and is retried on
 * a fresh one (or, with none left, the page stays resident); a failed read
 * is retried on the same slot; and the vCPUs waiting for the page hear of
 * the end once (swap_io_ops.page_settled), never of a retried attempt.
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

/* The write fails, its slot is retired, and no slot is left: resident. */
static void test_failed_write_no_slot_left(void **state)
{
	struct swap_fake *sf = swap_fake_new(16, 4, 1, 1, 1);
	struct guest_evict_result res;

	*state = sf;
	fill4(sf);
	evict_one(sf, 0);
	assert_int_equal(sf->queue[0].slot, 0);
	assert_int_equal(swap_fake_complete(sf, 0, false), 0);
	assert_int_equal(sf->queued, 0);
	assert_state(sf, 0, PAGE_RESIDENT);
	assert_int_equal(page_flags(sf, 0), 0);
	assert_int_equal(get(sf, 0), 0xa0);
	assert_int_equal(sf->slots.retired, 1);
	assert_int_equal(sf->slots.in_use, 0);
	assert_int_equal(sf->gm.stats.slots_retired, 1);
	assert_int_equal(sf->gm.stats.write_failures, 1);
	assert_int_equal(sf->gm.stats.io_retries, 0);
	assert_int_equal(sf->settled, 0);
	/* The retired slot is not handed out again: dirty pages stay. */
	clear_accessed(sf);
	sf->gm.clock.hand = 1;
	assert_true(sf->gm.swap_full);
	assert_int_equal(guest_memory_evict_step(&sf->gm, 4, &res), 0);
	assert_int_equal(res.victims, 0);
	assert_int_equal(sf->submitted, 1);
}

/* Every attempt on a fresh slot; all GUEST_IO_TRIES fail: resident. */
static void test_write_tries_fresh_slots(void **state)
{
	struct swap_fake *sf = new_guest(state);
	uint32_t used[GUEST_IO_TRIES];

	fill4(sf);
	evict_one(sf, 0);
	for (unsigned i = 0; i < GUEST_IO_TRIES; i++) {
		assert_int_equal(sf->queued, 1);
		used[i] = sf->queue[0].slot;
		for (unsigned j = 0; j < i; j++)
			assert_int_not_equal(used[i], used[j]);
		assert_int_equal(swap_fake_complete(sf, 0, false), 0);
		assert_false(swap_slots_is_used(&sf->slots, used[i]));
	}
	assert_int_equal(sf->queued, 0);
	assert_state(sf, 0, PAGE_RESIDENT);
	assert_int_equal(sf->slots.retired, GUEST_IO_TRIES);
	assert_int_equal(sf->gm.stats.write_failures, 1);
	assert_int_equal(swap_slots_free_count(&sf->slots),
			 8 - GUEST_IO_TRIES);
}

static void start_swapin0(struct swap_fake *sf)
{
	enum guest_fault_result r;

	fill4(sf);
	swap_out_page0(sf);
	assert_null(swap_fake_access(sf, 0, false, &r));
	assert_int_equal(r, GUEST_FAULT_SWAPIN_STARTED);
	assert_null(swap_fake_access(sf, 0, false, &r));
	assert_int_equal(r, GUEST_FAULT_WAIT_IO);
}

/* One event per swap-in, after the page is mapped. */
static void test_settled_on_swapin(void **state)
{
	struct swap_fake *sf = new_guest(state);

	start_swapin0(sf);
	assert_int_equal(sf->settled, 0);
	swap_fake_complete_all(sf);
	assert_int_equal(sf->settled, 1);
	assert_int_equal(sf->settled_gfn, 0);
	assert_true(sf->settled_resident);
	/* Another page, another event; evictions make none. */
	evict_one(sf, 2);
	swap_fake_complete_all(sf);
	assert_int_equal(sf->settled, 1);
	swap_in(sf, 2);
	assert_int_equal(sf->settled, 2);
	assert_int_equal(sf->settled_gfn, 2);
}

/* Retried reads (same slot) make no event; the end makes one. */
static void test_settled_after_read_retries(void **state)
{
	struct swap_fake *sf = new_guest(state);
	uint32_t slot;

	start_swapin0(sf);
	slot = sf->queue[0].slot;
	for (unsigned i = 1; i < GUEST_IO_TRIES; i++) {
		assert_int_equal(swap_fake_complete(sf, 0, false), 0);
		assert_int_equal(sf->queue[0].slot, slot);
		assert_int_equal(sf->settled, 0);
	}
	assert_int_equal(swap_fake_complete(sf, 0, true), 0);
	assert_int_equal(sf->settled, 1);
	assert_true(sf->settled_resident);
	assert_int_equal(get(sf, 0), 0xa0);
}

/* A read given up: one event, not resident, the page lost. */
static void test_settled_on_lost_page(void **state)
{
	struct swap_fake *sf = new_guest(state);
	enum guest_fault_result r;

	start_swapin0(sf);
	for (unsigned i = 0; i < GUEST_IO_TRIES; i++)
		assert_int_equal(swap_fake_complete(sf, 0, false), 0);
	assert_int_equal(sf->settled, 1);
	assert_int_equal(sf->settled_gfn, 0);
	assert_false(sf->settled_resident);
	assert_null(swap_fake_access(sf, 0, false, &r));
	assert_int_equal(r, GUEST_FAULT_IO_ERROR);
	assert_int_equal(sf->settled, 1);
}

/*
 * A cancelled eviction: the fault is answered at once, so nobody waits
 * for the write, and its end (failed, then not retried) sends no event;
 * nor does a write nobody cancelled.
 */
static void test_no_event_for_writes(void **state)
{
	struct swap_fake *sf = new_guest(state);
	enum guest_fault_result r = GUEST_FAULT_WAIT_IO;

	fill4(sf);
	evict_one(sf, 1);
	assert_non_null(swap_fake_access(sf, 1, true, &r));
	assert_int_equal(r, GUEST_FAULT_RESOLVED);
	assert_int_equal(swap_fake_complete(sf, 0, false), 0);
	assert_int_equal(sf->queued, 0);
	assert_int_equal(sf->settled, 0);
	assert_state(sf, 1, PAGE_RESIDENT);
	evict_one(sf, 2);
	swap_fake_complete_all(sf);
	assert_state(sf, 2, PAGE_SWAPPED);
	assert_int_equal(sf->settled, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		swap_test(test_failed_write_no_slot_left),
		swap_test(test_write_tries_fresh_slots),
		swap_test(test_settled_on_swapin),
		swap_test(test_settled_after_read_retries),
		swap_test(test_settled_on_lost_page),
		swap_test(test_no_event_for_writes),
	};

	return cmocka_run_group_tests_name("guest_swap_events", tests, NULL,
					   NULL);
}
