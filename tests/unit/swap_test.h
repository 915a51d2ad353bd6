/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Short helpers for the rule-by-rule tests of guest swapping
 * (test_guest_swap*.c): a 16-page guest over 4 frames and 8 slots, whose
 * daemon keeps one frame free; pages are read and written one byte at a
 * time, the byte at offset 0. Include after cmocka.h.
 */
#ifndef TESTS_UNIT_SWAP_TEST_H
#define TESTS_UNIT_SWAP_TEST_H

#include "tests/unit/swap_fake.h"

static inline struct swap_fake *new_guest(void **state)
{
	struct swap_fake *sf = swap_fake_new(16, 4, 8, 1, 1);

	*state = sf;
	return sf;
}

static inline int swap_teardown(void **state)
{
	swap_fake_free(*state);
	return 0;
}

#define swap_test(f) cmocka_unit_test_teardown(f, swap_teardown)

/* The page's frame, after a fault if needed, which must resolve. */
static inline uint8_t *touch_page(struct swap_fake *sf, uint64_t gfn,
				  bool write)
{
	enum guest_fault_result r = GUEST_FAULT_RESOLVED;
	uint8_t *p = swap_fake_access(sf, gfn, write, &r);

	if (!p)
		fail_msg("page %llu: %s", (unsigned long long)gfn,
			 guest_fault_result_name(r));
	return p;
}

static inline void put(struct swap_fake *sf, uint64_t gfn, uint8_t v)
{
	touch_page(sf, gfn, true)[0] = v;
}

static inline uint8_t get(struct swap_fake *sf, uint64_t gfn)
{
	return touch_page(sf, gfn, false)[0];
}

static inline void assert_state(struct swap_fake *sf, uint64_t gfn,
				enum guest_page_state s)
{
	assert_string_equal(guest_page_state_name(
				    guest_memory_page_state(&sf->gm,
							    gfn << PAGE_SHIFT)),
			    guest_page_state_name(s));
}

static inline struct guest_page_info page_info(struct swap_fake *sf,
					       uint64_t gfn)
{
	struct guest_page_info info;

	assert_true(guest_memory_page_info(&sf->gm, gfn, &info));
	return info;
}

static inline uint64_t page_frame(struct swap_fake *sf, uint64_t gfn)
{
	return page_info(sf, gfn).frame_pa;
}

static inline uint32_t page_slot(struct swap_fake *sf, uint64_t gfn)
{
	struct guest_page_info info = page_info(sf, gfn);

	assert_true(info.flags & GPM_SLOT);
	return info.slot;
}

static inline unsigned page_flags(struct swap_fake *sf, uint64_t gfn)
{
	return page_info(sf, gfn).flags;
}

/* Clears every accessed bit, as if the pages had not been used lately. */
static inline void clear_accessed(struct swap_fake *sf)
{
	for (unsigned p = 0; p < sf->npages; p++)
		ept_test_and_clear_accessed(&sf->ef->ept,
					    (uint64_t)p << PAGE_SHIFT);
}

/* Pages 0..3 hold 0xa0..0xa3, not referenced: the pool is full. */
static inline void fill4(struct swap_fake *sf)
{
	for (unsigned p = 0; p < 4; p++)
		put(sf, p, (uint8_t)(0xa0 + p));
	clear_accessed(sf);
}

/*
 * One daemon step with the hand on page gfn, unreferenced, and the high
 * watermark one frame higher than what is free: gfn is the victim.
 */
static inline void evict_one(struct swap_fake *sf, uint64_t gfn)
{
	uint64_t high = sf->gm.high_free;

	sf->gm.clock.hand = guest_memory_index(&sf->gm, gfn);
	sf->gm.high_free = sf->pool.nfree + sf->gm.count[PAGE_WRITEBACK] + 1;
	ept_test_and_clear_accessed(&sf->ef->ept, gfn << PAGE_SHIFT);
	guest_memory_evict_step(&sf->gm, 1, NULL);
	sf->gm.high_free = high;
	assert_int_not_equal(guest_memory_page_state(&sf->gm,
						     gfn << PAGE_SHIFT),
			     PAGE_RESIDENT);
}

/* Page 0 out to swap, by a write or a clean drop; returns its slot. */
static inline uint32_t swap_out_page0(struct swap_fake *sf)
{
	evict_one(sf, 0);
	swap_fake_complete_all(sf);
	assert_state(sf, 0, PAGE_SWAPPED);
	return page_slot(sf, 0);
}

/* Reads page gfn back in, which must find a frame and succeed. */
static inline void swap_in(struct swap_fake *sf, uint64_t gfn)
{
	enum guest_fault_result r = GUEST_FAULT_RESOLVED;

	assert_null(swap_fake_access(sf, gfn, false, &r));
	assert_int_equal(r, GUEST_FAULT_SWAPIN_STARTED);
	swap_fake_complete_all(sf);
	assert_state(sf, gfn, PAGE_RESIDENT);
}

/*
 * Pages in every busy state: page 0 with its read in flight, page 1 with
 * its write in flight, page 2 resident, page 3 never touched.
 */
static inline void make_busy_pages(struct swap_fake *sf)
{
	enum guest_fault_result fr;

	put(sf, 0, 0x10);
	swap_out_page0(sf);
	assert_null(swap_fake_access(sf, 0, false, &fr));
	assert_int_equal(fr, GUEST_FAULT_SWAPIN_STARTED);
	put(sf, 1, 0x11);
	evict_one(sf, 1);
	assert_state(sf, 1, PAGE_WRITEBACK);
	put(sf, 2, 0x12);
}

/* ... and each of them holds what it held once the I/O is done. */
static inline void expect_busy_pages_kept(struct swap_fake *sf)
{
	swap_fake_complete_all(sf);
	assert_int_equal(get(sf, 0), 0x10);
	assert_state(sf, 1, PAGE_SWAPPED);      /* its write went on */
	swap_in(sf, 1);
	assert_int_equal(get(sf, 1), 0x11);
	assert_int_equal(get(sf, 2), 0x12);
}

#endif
