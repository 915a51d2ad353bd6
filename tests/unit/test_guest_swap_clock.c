/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CLOCK's fairness and cost: a page just mapped (zero fill, swap-in,
 * cancelled eviction) starts with its accessed bit set, so it is not the
 * next victim; an evict step passes a bounded number of pages and, with
 * the swap area full, stops rescanning until something changes; guest RAM
 * mapped by a 2 MiB leaf cannot be put under swap; a pinned page stays.
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

/* Mapped, accessed bit set, dirty bit clear: as ept_map left it. */
static void assert_fresh(struct swap_fake *sf, uint64_t gfn)
{
	struct ept_mapping m;

	assert_true(ept_lookup(&sf->ef->ept, gfn << PAGE_SHIFT, &m));
	assert_true(m.accessed);
	assert_false(m.dirty);
}

static void fault_back_page0(struct swap_fake *sf)
{
	assert_int_equal(guest_memory_fault(&sf->gm, 0), GUEST_FAULT_RESOLVED);
	assert_fresh(sf, 0);
}

/* Zero fill, swap-in and both kinds of cancelled eviction map with A. */
static void test_fresh_pages_spared(void **state)
{
	struct swap_fake *sf = new_guest(state);
	enum guest_fault_result r;

	for (unsigned p = 0; p < 3; p++)
		put(sf, p, (uint8_t)(0xa0 + p));
	clear_accessed(sf);
	/* Page 3 faulted in, not used yet: the hand passes over it. */
	assert_int_equal(guest_memory_fault(&sf->gm, 3 * PAGE_SIZE),
			 GUEST_FAULT_RESOLVED);
	assert_fresh(sf, 3);
	sf->gm.clock.hand = 3;
	sf->gm.high_free = 1;
	assert_int_equal(guest_memory_evict_step(&sf->gm, 1, NULL), 1);
	assert_state(sf, 3, PAGE_RESIDENT);
	assert_state(sf, 0, PAGE_WRITEBACK);
	assert_int_equal(sf->gm.stats.clock_referenced, 1);
	swap_fake_complete_all(sf);

	/* Swapped in: mapped fresh (clean: the copy stays valid). */
	assert_null(swap_fake_access(sf, 0, false, &r));
	swap_fake_complete_all(sf);
	assert_state(sf, 0, PAGE_RESIDENT);
	assert_fresh(sf, 0);

	/* Put back while its write is on, the eviction cancelled. */
	put(sf, 1, 0xb1);
	evict_one(sf, 1);
	assert_int_equal(guest_memory_fault(&sf->gm, 1 * PAGE_SIZE),
			 GUEST_FAULT_RESOLVED);
	assert_state(sf, 1, PAGE_RESIDENT);
	assert_fresh(sf, 1);
	swap_fake_complete_all(sf);
	assert_fresh(sf, 1);

	/* Put back by a fault between the unmap and the flush. */
	put(sf, 0, 0xb0);
	ept_test_and_clear_accessed(&sf->ef->ept, 0);
	sf->on_flush = fault_back_page0;
	sf->gm.clock.hand = 0;
	sf->gm.high_free = sf->pool.nfree + 1;
	assert_int_equal(guest_memory_evict_step(&sf->gm, 1, NULL), 0);
	assert_int_equal(sf->gm.stats.evictions_cancelled, 2);
}

/*
 * A 2048-page guest, all resident and dirty, over a 4-slot swap area that
 * the first step fills: no step passes more than GUEST_SCAN_BUDGET pages,
 * and once a whole turn found nothing, only GUEST_STALL_SCAN, until a page
 * becomes resident again.
 */
#define BIG 2048

static uint64_t scanned_by_step(struct swap_fake *sf)
{
	uint64_t before = sf->gm.stats.clock_scanned;
	struct guest_evict_result res;

	assert_int_equal(guest_memory_evict_step(&sf->gm, 256, &res), 0);
	assert_int_equal(res.victims, 0);
	return sf->gm.stats.clock_scanned - before;
}

static void test_scan_budget_swap_full(void **state)
{
	struct swap_fake *sf = swap_fake_new(BIG, BIG, 4, 1, 64);
	struct guest_evict_result res;
	uint64_t total = 0;

	*state = sf;
	for (unsigned p = 0; p < BIG; p++)
		put(sf, p, 0xc0);
	clear_accessed(sf);
	guest_memory_evict_step(&sf->gm, 256, &res);
	assert_int_equal(res.writes, 4);
	assert_true(res.swap_full);
	swap_fake_complete_all(sf);

	for (unsigned i = 0; i < 10; i++) {
		uint64_t n = scanned_by_step(sf);

		assert_true(n <= GUEST_SCAN_BUDGET);
		if (i >= 2)
			assert_true(n <= GUEST_STALL_SCAN);
		total += n;
	}
	assert_true(total <= 2 * GUEST_SCAN_BUDGET + 8 * GUEST_STALL_SCAN);
	assert_int_equal(sf->gm.stats.evict_steps_stalled, 8);

	/* A page comes back (clean): scanning resumes and finds it. */
	swap_in(sf, 0);
	assert_true(scanned_by_step(sf) > GUEST_STALL_SCAN ||
		    sf->gm.stats.clean_drops == 1);
	assert_int_equal(sf->gm.stats.evict_steps_stalled, 8);
}

/* Eviction works on 4 KiB leaves only: a 2 MiB one in RAM is refused. */
static void test_enable_refuses_2m_leaf(void **state)
{
	struct swap_fake *sf = swap_fake_new(1024, 4, 8, 1, 1);
	struct guest_swap_config cfg = {
		.meta = sf->meta,
		.slots = &sf->slots,
		.io = sf->gm.io,
		.low_free = 1,
		.high_free = 2,
	};
	struct ept *ept = &sf->ef->ept;

	*state = sf;
	sf->gm.meta = NULL;
	assert_int_equal(ept_map(ept, 0x200000, 0x40000000, EPT_PAGE_2M,
				 EPT_RWX), 0);
	assert_int_equal(guest_memory_enable_swap(&sf->gm, &cfg), -1);
	assert_null(sf->gm.meta);
	/* Past the end of RAM it is none of guest memory's business. */
	assert_int_equal(ept_unmap(ept, 0x200000, EPT_PAGE_2M, NULL), 0);
	assert_int_equal(ept_map(ept, 0x400000, 0x40000000, EPT_PAGE_2M,
				 EPT_RWX), 0);
	assert_int_equal(guest_memory_enable_swap(&sf->gm, &cfg), 0);
}

/*
 * A pinned page (a vCPU's async-PF area, its kvmclock record) is never a
 * victim, however cold; two pins need two unpins; only a resident page can
 * be pinned.
 */
static void test_pinned_page_stays(void **state)
{
	struct swap_fake *sf = new_guest(state);

	fill4(sf);
	assert_int_equal(guest_memory_pin(&sf->gm, 0x10), 0);
	assert_int_equal(guest_memory_pin(&sf->gm, 0x20), 0);
	assert_true(page_flags(sf, 0) & GPM_PINNED);
	sf->gm.clock.hand = 0;
	sf->gm.high_free = sf->pool.nfree + 1;
	assert_int_equal(guest_memory_evict_step(&sf->gm, 1, NULL), 1);
	assert_state(sf, 0, PAGE_RESIDENT);
	assert_state(sf, 1, PAGE_WRITEBACK);
	swap_fake_complete_all(sf);
	assert_int_equal(sf->gm.stats.pins_not_resident, 0);
	assert_int_equal(guest_memory_pin(&sf->gm, 1 * PAGE_SIZE), -1);
	assert_int_equal(sf->gm.stats.pins_not_resident, 1);
	assert_int_equal(guest_memory_pin(&sf->gm, sf->gm.ram_size), -1);
	assert_int_equal(sf->gm.stats.pins_not_resident, 1);

	guest_memory_unpin(&sf->gm, 0);
	assert_true(page_flags(sf, 0) & GPM_PINNED);
	guest_memory_unpin(&sf->gm, 0);
	assert_false(page_flags(sf, 0) & GPM_PINNED);
	evict_one(sf, 0);
	assert_int_equal(sf->gm.stats.pins, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		swap_test(test_fresh_pages_spared),
		swap_test(test_scan_budget_swap_full),
		swap_test(test_enable_refuses_2m_leaf),
		swap_test(test_pinned_page_stays),
	};

	return cmocka_run_group_tests_name("guest_swap_clock", tests, NULL,
					   NULL);
}
