/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The compressed tier (swap/compressed_tier.c) on its own: slots taken
 * and given back, a page that does not shrink to a slot and a full pool
 * turned away, a damaged slot refused (with checksums, a slot changed in
 * a way lz4 cannot see too); then behind the engine (swap_fake.h): a
 * victim that compresses goes to the tier with no I/O and its frame free,
 * a fault brings it back without I/O, a page of random bytes and every
 * page while the tier is full go to the disk, a damaged page is lost, not
 * mapped.
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
	assert_int_equal(compressed_tier_store(t, page, &a), TIER_STORED);
	assert_int_equal(a, 0);
	fill_text(page, 5);
	assert_int_equal(compressed_tier_store(t, page, &b), TIER_STORED);
	assert_int_equal(b, 1);
	assert_int_equal(compressed_tier_store(t, page, &c), TIER_FULL);
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
	assert_int_equal(compressed_tier_store(t, page, &c), TIER_TOO_BIG);
	assert_int_equal(t->nfree, 2);
	assert_int_equal(t->stats.stores, 2);
	assert_int_equal(t->stats.loads, 1);
	assert_int_equal(t->stats.too_big, 1);
	assert_int_equal(t->stats.full, 1);
	assert_int_equal(t->stats.dropped, 1);
	free_tier(t);
}

static void damaged_slots(void **state)
{
	struct compressed_tier *t = new_tier(4, true);
	uint32_t s;

	(void)state;
	fill_text(page, 3);
	assert_int_equal(compressed_tier_store(t, page, &s), TIER_STORED);
	/* A literal byte changed: lz4 expands it, the checksum tells. */
	t->arena[(size_t)s * TIER_SLOT_BYTES + 3] ^= 0x20;
	assert_false(compressed_tier_load(t, s, back));
	assert_int_equal(t->stats.verify_mismatches, 1);
	/* A length cut short: not a page at all. */
	assert_int_equal(compressed_tier_store(t, page, &s), TIER_STORED);
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

static void full_tier_sends_to_disk(void **state)
{
	struct compressed_tier *t;
	struct swap_fake *sf = guest_with_tier(state, &t);
	unsigned submitted = sf->submitted;

	for (unsigned g = 0; g < 10; g++)
		text_into_page(sf, g, g);
	for (unsigned g = 0; g < 10; g++) {
		evict_one(sf, g);
		swap_fake_complete_all(sf);
	}
	/* Eight in the tier, the last two written. */
	for (unsigned g = 0; g < 8; g++)
		assert_state(sf, g, PAGE_COMPRESSED);
	assert_state(sf, 8, PAGE_SWAPPED);
	assert_state(sf, 9, PAGE_SWAPPED);
	assert_int_equal(sf->submitted, submitted + 2);
	assert_int_equal(t->stats.full, 2);
	for (unsigned g = 0; g < 10; g++) {
		if (g >= 8)
			swap_in(sf, g);
		fill_text(page, g);
		assert_memory_equal(touch_page(sf, g, false), page, PAGE_SIZE);
	}
	assert_int_equal(t->stats.loads, 8);
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

static int teardown(void **state)
{
	swap_fake_free(*state);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(slots),
		cmocka_unit_test(damaged_slots),
		cmocka_unit_test_teardown(victims_to_the_tier_and_back,
					  teardown),
		cmocka_unit_test_teardown(full_tier_sends_to_disk, teardown),
		cmocka_unit_test_teardown(damaged_page_is_lost, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
