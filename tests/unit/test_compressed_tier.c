/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The compressed tier (swap/compressed_tier.c) on its own: slots taken
 * and given back, a page that does not shrink to a slot and a full pool
 * turned away, a damaged slot refused (with checksums, a slot changed in
 * a way lz4 cannot see too), the oldest page moved out for a new one;
 * then behind the engine (swap_fake.h): a victim that compresses goes to
 * the tier with no I/O and its frame free, a fault brings it back without
 * I/O, a page of random bytes goes to the disk, and while the tier is full
 * its oldest pages move on to the disk through the new victims' frames;
 * a damaged page is lost, not mapped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "swap/compressed_tier.h"
#include "tests/unit/swap_test.h"

static uint8_t page[PAGE_SIZE], back[PAGE_SIZE];

static void fill_text(uint8_t *p, unsigned seed)
{
	for (unsigned i = 0; i < PAGE_SIZE; i++)
		p[i] = (uint8_t)"page of the guest, compressible "[(i + seed) %
							    32];
}

static void fill_random(uint8_t *p, uint64_t x)
{
	for (unsigned i = 0; i < PAGE_SIZE; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (uint8_t)x;
	}
}

static struct compressed_tier *new_tier(uint32_t nslots, bool verify)
{
	struct compressed_tier *t = calloc(1, sizeof(*t));
	void *storage = aligned_alloc(8, ALIGN_UP(compressed_tier_storage(
							  nslots, verify), 8));

	assert_non_null(t);
	assert_non_null(storage);
	compressed_tier_init(t, storage, nslots, verify);
	return t;
}

static void free_tier(struct compressed_tier *t)
{
	free(t->state);
	free(t);
}

static void slots(void **state)
{
	struct compressed_tier *t = new_tier(2, false);
	uint32_t a, b, c;

	(void)state;
	fill_text(page, 0);
	assert_int_equal(compressed_tier_store(t, page, 10, &a), TIER_STORED);
	assert_int_equal(a, 0);
	fill_text(page, 5);
	assert_int_equal(compressed_tier_store(t, page, 11, &b), TIER_STORED);
	assert_int_equal(b, 1);
	assert_int_equal(compressed_tier_store(t, page, 12, &c), TIER_FULL);
	assert_true(t->stats.bytes_in_use > 0 &&
		    t->stats.bytes_in_use < PAGE_SIZE / 4);
	assert_true(compressed_tier_load(t, a, back));
	fill_text(page, 0);
	assert_memory_equal(back, page, PAGE_SIZE);
	/* Slot 0 is free again; a dropped slot too. */
	compressed_tier_drop(t, b);
	assert_int_equal(t->nfree, 2);
	assert_int_equal(t->stats.bytes_in_use, 0);
	/* A slot given back cannot be loaded again. */
	assert_false(compressed_tier_load(t, a, back));
	fill_random(page, 7);
	assert_int_equal(compressed_tier_store(t, page, 12, &c), TIER_TOO_BIG);
	assert_int_equal(t->nfree, 2);
	assert_int_equal(t->stats.stores, 2);
	assert_int_equal(t->stats.loads, 1);
	assert_int_equal(t->stats.too_big, 1);
	assert_int_equal(t->stats.full, 1);
	assert_int_equal(t->stats.dropped, 1);
	free_tier(t);
}

/*
 * Text page seed, named owner, moves out the page named moved (stored with
 * seed moved - 20) from slot: page holds that one's contents after.
 */
static void expect_moved_out(struct compressed_tier *t, unsigned seed,
			     uint32_t owner, uint32_t moved, uint32_t slot)
{
	uint32_t got_slot, got_moved;

	fill_text(page, seed);
	assert_int_equal(compressed_tier_store_moving_out(t, page, owner,
							  &got_slot,
							  &got_moved),
			 TIER_MOVED_OUT);
	assert_int_equal(got_moved, moved);
	assert_int_equal(got_slot, slot);
	fill_text(back, moved - 20);
	assert_memory_equal(page, back, PAGE_SIZE);
}

/* Full: the oldest page leaves for the newest, expanded in its place. */
static void oldest_moved_out(void **state)
{
	struct compressed_tier *t = new_tier(3, true);
	uint32_t s[3], slot, moved;

	(void)state;
	for (unsigned i = 0; i < 3; i++) {
		fill_text(page, i);
		assert_int_equal(compressed_tier_store(t, page, 20 + i, &s[i]),
				 TIER_STORED);
	}
	/* The middle one is touched: it leaves, the order stays. */
	assert_true(compressed_tier_load(t, s[1], back));
	fill_text(page, 1);
	assert_int_equal(compressed_tier_store(t, page, 21, &s[1]),
			 TIER_STORED);
	/* Now 20 is the oldest, then 22, then 21. */
	fill_text(page, 9);
	assert_int_equal(compressed_tier_store(t, page, 29, &slot), TIER_FULL);
	expect_moved_out(t, 9, 29, 20, s[0]);
	expect_moved_out(t, 7, 27, 22, s[2]);
	/* What came in is held: 29 in 20's slot. */
	assert_true(compressed_tier_load(t, s[0], back));
	fill_text(page, 9);
	assert_memory_equal(back, page, PAGE_SIZE);
	/* A page that does not shrink changes nothing. */
	fill_random(page, 3);
	assert_int_equal(compressed_tier_store(t, page, 30, &slot),
			 TIER_TOO_BIG);
	assert_int_equal(compressed_tier_store_moving_out(t, page, 30, &slot,
							  &moved),
			 TIER_TOO_BIG);
	assert_int_equal(t->stats.moved_out, 2);
	assert_int_equal(t->nfree, 1);
	/* The oldest damaged: the new page is stored, the old one lost. */
	fill_text(page, 4);
	assert_int_equal(compressed_tier_store(t, page, 24, &slot),
			 TIER_STORED);
	t->arena[(size_t)s[1] * TIER_SLOT_BYTES + 3] ^= 0x20;   /* 21's */
	fill_text(page, 5);
	assert_int_equal(compressed_tier_store_moving_out(t, page, 25, &slot,
							  &moved),
			 TIER_MOVED_OUT_LOST);
	assert_int_equal(moved, 21);
	assert_true(compressed_tier_load(t, slot, back));
	fill_text(page, 5);
	assert_memory_equal(back, page, PAGE_SIZE);
	free_tier(t);
	/* An empty pool of no slots has nothing to move out. */
	t = new_tier(0, false);
	assert_int_equal(compressed_tier_store_moving_out(t, page, 1, &slot,
							  &moved), TIER_FULL);
	free_tier(t);
}

/* Pages that do not shrink, in a row: then only one in a period tried. */
static void incompressible_run_skipped(void **state)
{
	struct compressed_tier *t = new_tier(64, false);
	uint32_t slot;

	(void)state;
	for (unsigned i = 0; i < TIER_MISSES_BEFORE_SKIP; i++) {
		fill_random(page, 100 + i);
		assert_int_equal(compressed_tier_store(t, page, i, &slot),
				 TIER_TOO_BIG);
	}
	assert_int_equal(t->stats.too_big, TIER_MISSES_BEFORE_SKIP);
	/* Even a page that would shrink goes untried for the period... */
	fill_text(page, 1);
	for (unsigned i = 1; i < TIER_SKIP_PERIOD; i++)
		assert_int_equal(compressed_tier_store(t, page, 50, &slot),
				 TIER_TOO_BIG);
	assert_int_equal(t->stats.skipped, TIER_SKIP_PERIOD - 1);
	assert_int_equal(t->stats.stores, 0);
	/* ...then one is tried; it shrinks, and every page is tried again. */
	assert_int_equal(compressed_tier_store(t, page, 51, &slot),
			 TIER_STORED);
	fill_random(page, 7);
	assert_int_equal(compressed_tier_store(t, page, 52, &slot),
			 TIER_TOO_BIG);
	fill_text(page, 2);
	assert_int_equal(compressed_tier_store(t, page, 53, &slot),
			 TIER_STORED);
	assert_int_equal(t->stats.too_big, TIER_MISSES_BEFORE_SKIP + 1);
	assert_int_equal(t->stats.skipped, TIER_SKIP_PERIOD - 1);
	free_tier(t);
}

static void damaged_slots(void **state)
{
	struct compressed_tier *t = new_tier(4, true);
	uint32_t s;

	(void)state;
	fill_text(page, 3);
	assert_int_equal(compressed_tier_store(t, page, 13, &s), TIER_STORED);
	/* A literal byte changed: lz4 expands it, the checksum tells. */
	t->arena[(size_t)s * TIER_SLOT_BYTES + 3] ^= 0x20;
	assert_false(compressed_tier_load(t, s, back));
	assert_int_equal(t->stats.verify_mismatches, 1);
	/* A length cut short: not a page at all. */
	assert_int_equal(compressed_tier_store(t, page, 13, &s), TIER_STORED);
	t->len[s] = 5;
	assert_false(compressed_tier_load(t, s, back));
	assert_int_equal(t->nfree, 4);
	free_tier(t);
}

/* Engine: a guest of 32 pages over 16 frames, the tier of 8 slots. */
static struct swap_fake *guest_with_tier(void **state,
					 struct compressed_tier **tp)
{
	struct swap_fake *sf = swap_fake_new(32, 16, 40, 2, 3);

	*state = sf;
	*tp = new_tier(8, true);
	sf->gm.tier = *tp;
	return sf;
}

static void text_into_page(struct swap_fake *sf, uint64_t gfn, unsigned seed)
{
	fill_text(page, seed);
	memcpy(touch_page(sf, gfn, true), page, PAGE_SIZE);
}

static void victims_to_the_tier_and_back(void **state)
{
	struct compressed_tier *t;
	struct swap_fake *sf = guest_with_tier(state, &t);
	enum guest_fault_result r;
	unsigned submitted, nfree;
	uint8_t *p;

	text_into_page(sf, 0, 1);
	fill_random(touch_page(sf, 1, true), 11);
	submitted = sf->submitted;
	nfree = sf->pool.nfree;
	evict_one(sf, 0);
	assert_state(sf, 0, PAGE_COMPRESSED);
	assert_int_equal(sf->submitted, submitted);     /* no I/O */
	assert_int_equal(sf->pool.nfree, nfree + 1);    /* frame free */
	assert_int_equal(t->stats.stores, 1);
	/* Random bytes do not shrink: to the disk. */
	evict_one(sf, 1);
	assert_int_equal(sf->submitted, submitted + 1);
	swap_fake_complete_all(sf);
	assert_state(sf, 1, PAGE_SWAPPED);
	assert_int_equal(t->stats.too_big, 1);
	/* The fault expands page 0 at once: resolved, no read. */
	p = swap_fake_access(sf, 0, false, &r);
	assert_non_null(p);
	fill_text(page, 1);
	assert_memory_equal(p, page, PAGE_SIZE);
	assert_state(sf, 0, PAGE_RESIDENT);
	assert_int_equal(sf->submitted, submitted + 1);
	assert_int_equal(t->stats.loads, 1);
	assert_int_equal(t->nfree, 8);
	assert_int_equal(sf->gm.stats.illegal_transitions, 0);
	free_tier(t);
}

static void full_tier_moves_oldest_to_disk(void **state)
{
	struct compressed_tier *t;
	struct swap_fake *sf = guest_with_tier(state, &t);
	unsigned submitted = sf->submitted, nfree;
	enum guest_fault_result r;

	for (unsigned g = 0; g < 11; g++)
		text_into_page(sf, g, g);
	for (unsigned g = 0; g < 10; g++) {
		evict_one(sf, g);
		swap_fake_complete_all(sf);
	}
	/* The last two took the slots of the first two, which were written. */
	assert_state(sf, 0, PAGE_SWAPPED);
	assert_state(sf, 1, PAGE_SWAPPED);
	for (unsigned g = 2; g < 10; g++)
		assert_state(sf, g, PAGE_COMPRESSED);
	assert_int_equal(sf->submitted, submitted + 2);
	assert_int_equal(t->stats.full, 2);
	assert_int_equal(t->stats.moved_out, 2);
	/* Page 10 moves page 2 out; it is faulted on during the write: the
	 * frame that holds it is mapped again at once, the write goes on. */
	nfree = sf->pool.nfree;
	evict_one(sf, 10);
	assert_state(sf, 10, PAGE_COMPRESSED);
	assert_state(sf, 2, PAGE_WRITEBACK);
	assert_int_equal(sf->pool.nfree, nfree);        /* the frame is 2's */
	assert_non_null(swap_fake_access(sf, 2, false, &r));
	assert_state(sf, 2, PAGE_RESIDENT);
	assert_int_equal(sf->gm.stats.writeback_mapped, 1);
	swap_fake_complete_all(sf);
	assert_state(sf, 2, PAGE_RESIDENT);
	assert_true(page_flags(sf, 2) & GPM_SWAP_VALID);
	fill_text(page, 2);
	assert_memory_equal(touch_page(sf, 2, false), page, PAGE_SIZE);
	assert_int_equal(sf->gm.stats.illegal_transitions, 0);
	for (unsigned g = 0; g < 11; g++) {
		if (g < 2)
			swap_in(sf, g);
		fill_text(page, g);
		assert_memory_equal(touch_page(sf, g, false), page, PAGE_SIZE);
	}
	assert_int_equal(t->stats.loads, 8);
	assert_int_equal(sf->gm.stats.illegal_transitions, 0);
	free_tier(t);
}

static void damaged_page_is_lost(void **state)
{
	struct compressed_tier *t;
	struct swap_fake *sf = guest_with_tier(state, &t);
	enum guest_fault_result r;

	text_into_page(sf, 4, 2);
	evict_one(sf, 4);
	assert_state(sf, 4, PAGE_COMPRESSED);
	t->arena[3] ^= 0x01;            /* slot 0, a literal byte */
	assert_null(swap_fake_access(sf, 4, false, &r));
	assert_int_equal(r, GUEST_FAULT_IO_ERROR);
	assert_state(sf, 4, PAGE_SWAPPED);
	assert_true(page_flags(sf, 4) & GPM_LOST);
	assert_int_equal(sf->gm.stats.tier_lost, 1);
	assert_int_equal(t->stats.verify_mismatches, 1);
	free_tier(t);
}

/* The tier's oldest page is damaged when a victim takes its slot: lost. */
static void damaged_oldest_is_lost(void **state)
{
	struct compressed_tier *t;
	struct swap_fake *sf = guest_with_tier(state, &t);
	unsigned submitted = sf->submitted, nfree;

	for (unsigned g = 0; g < 9; g++)
		text_into_page(sf, g, g);
	for (unsigned g = 0; g < 8; g++)
		evict_one(sf, g);
	t->arena[3] ^= 0x01;            /* slot 0: page 0's */
	nfree = sf->pool.nfree;
	evict_one(sf, 8);
	assert_state(sf, 8, PAGE_COMPRESSED);
	assert_state(sf, 0, PAGE_SWAPPED);
	assert_true(page_flags(sf, 0) & GPM_LOST);
	assert_int_equal(sf->gm.stats.tier_lost, 1);
	assert_int_equal(sf->submitted, submitted);     /* nothing written */
	assert_int_equal(sf->pool.nfree, nfree + 1);    /* the frame freed */
	fill_text(page, 8);
	assert_memory_equal(touch_page(sf, 8, false), page, PAGE_SIZE);
	assert_int_equal(sf->gm.stats.illegal_transitions, 0);
	free_tier(t);
}

static int teardown(void **state)
{
	swap_fake_free(*state);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(slots),
		cmocka_unit_test(oldest_moved_out),
		cmocka_unit_test(incompressible_run_skipped),
		cmocka_unit_test(damaged_slots),
		cmocka_unit_test_teardown(victims_to_the_tier_and_back,
					  teardown),
		cmocka_unit_test_teardown(full_tier_moves_oldest_to_disk,
					  teardown),
		cmocka_unit_test_teardown(damaged_page_is_lost, teardown),
		cmocka_unit_test_teardown(damaged_oldest_is_lost, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
