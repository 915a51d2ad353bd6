/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Guest swapping when I/O goes wrong or space runs out: retries, writes and
 * reads given up (a page read badly is never mapped), stale completions, a
 * full swap area reported once, and the transition counters.
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

/* Starts the write of page 0 (of fill4's pool) and returns its I/O. */
static struct swap_io start_write0(struct swap_fake *sf)
{
	fill4(sf);
	evict_one(sf, 0);
	assert_state(sf, 0, PAGE_WRITEBACK);
	assert_int_equal(sf->queued, 1);
	return sf->queue[0];
}

static void test_write_retried(void **state)
{
	struct swap_fake *sf = new_guest(state);
	struct swap_io first = start_write0(sf), again;

	assert_int_equal(swap_fake_complete(sf, 0, false), 0);
	/*
	 * The same write again, under a new id, to a fresh slot: the failed
	 * one is retired.
	 */
	assert_int_equal(sf->queued, 1);
	again = sf->queue[0];
	assert_int_equal(again.op, SWAP_IO_WRITE);
	assert_int_not_equal(again.slot, first.slot);
	assert_int_equal(page_slot(sf, 0), again.slot);
	assert_false(swap_slots_is_used(&sf->slots, first.slot));
	assert_int_equal(sf->slots.retired, 1);
	assert_int_equal(sf->gm.stats.slots_retired, 1);
	assert_int_equal(sf->slots.in_use, 1);
	assert_int_equal(again.frame_pa, first.frame_pa);
	assert_int_not_equal(again.id, first.id);
	assert_state(sf, 0, PAGE_WRITEBACK);
	assert_int_equal(sf->gm.stats.io_errors, 1);
	assert_int_equal(sf->gm.stats.io_retries, 1);
	assert_int_equal(sf->gm.stats.writes_started, 1);
	/* The first attempt's completion, reported late, is ignored. */
	assert_int_equal(guest_memory_io_done(&sf->gm, first.id, true),
			 HV_ERR_NOT_FOUND);
	assert_int_equal(sf->gm.stats.stale_completions, 1);
	assert_state(sf, 0, PAGE_WRITEBACK);
	assert_true(guest_memory_io_busy(&sf->gm, 0));

	assert_int_equal(swap_fake_complete(sf, 0, true), 0);
	assert_state(sf, 0, PAGE_SWAPPED);
	assert_int_equal(swap_fake_slot(sf, again.slot)[0], 0xa0);
	assert_int_equal(swap_fake_slot(sf, again.slot)[1], 0);
	swap_in(sf, 0);
	assert_int_equal(get(sf, 0), 0xa0);
}

static void fail_all_tries(struct swap_fake *sf)
{
	for (unsigned i = 0; i < GUEST_IO_TRIES; i++) {
		assert_int_equal(sf->queued, 1);
		assert_int_equal(swap_fake_complete(sf, 0, false), 0);
	}
	assert_int_equal(sf->queued, 0);
}

/*
 * A write that keeps failing: the page stays, mapped again, slot given
 * back, never SWAPPED.
 */
static void test_write_given_up(void **state)
{
	struct swap_fake *sf = new_guest(state);
	struct swap_io io = start_write0(sf);

	fail_all_tries(sf);
	assert_state(sf, 0, PAGE_RESIDENT);
	assert_int_equal(page_frame(sf, 0), io.frame_pa);
	assert_int_equal(get(sf, 0), 0xa0);
	assert_int_equal(page_flags(sf, 0), 0);
	assert_int_equal(sf->slots.in_use, 0);
	assert_int_equal(sf->gm.stats.write_failures, 1);
	assert_int_equal(sf->gm.stats.io_errors, GUEST_IO_TRIES);
	assert_int_equal(sf->gm.stats.io_retries, GUEST_IO_TRIES - 1);
	assert_int_equal(sf->gm.stats.swap_outs, 0);
	assert_int_equal(frame_pool_in_use(&sf->pool), 4);
	assert_int_equal(sf->gm.stats.transitions[PAGE_WRITEBACK]
			 [PAGE_SWAPPED], 0);
	/* Taken back by the guest after the first failure: no more tries. */
	evict_one(sf, 1);
	assert_int_equal(swap_fake_complete(sf, 0, false), 0);
	assert_int_equal(sf->queued, 1);
	assert_int_equal(get(sf, 1), 0xa1);
	assert_int_equal(swap_fake_complete(sf, 0, false), 0);
	assert_int_equal(sf->queued, 0);
	assert_state(sf, 1, PAGE_RESIDENT);
	assert_int_equal(page_flags(sf, 1), 0);
	assert_int_equal(sf->gm.stats.write_failures, 2);
	assert_int_equal(sf->gm.stats.io_retries, GUEST_IO_TRIES);
}

/* A read that keeps failing: the frame is never mapped, the page lost. */
static void test_read_error_never_maps(void **state)
{
	struct swap_fake *sf = new_guest(state);
	enum guest_fault_result r;
	unsigned submitted;
	uint32_t slot;

	fill4(sf);
	slot = swap_out_page0(sf);
	assert_null(swap_fake_access(sf, 0, false, &r));
	assert_int_equal(r, GUEST_FAULT_SWAPIN_STARTED);
	fail_all_tries(sf);
	assert_state(sf, 0, PAGE_SWAPPED);
	assert_null(swap_fake_touch(sf, 0, false));
	assert_int_equal(page_flags(sf, 0), GPM_SLOT | GPM_SWAP_VALID |
			 GPM_LOST);
	assert_int_equal(page_frame(sf, 0), 0);
	assert_int_equal(frame_pool_in_use(&sf->pool), 3);
	assert_int_equal(sf->gm.stats.read_failures, 1);
	assert_int_equal(sf->gm.stats.swap_ins, 0);
	/* Every later fault says so, and reads nothing. */
	submitted = sf->submitted;
	for (unsigned i = 0; i < 3; i++) {
		assert_null(swap_fake_access(sf, 0, true, &r));
		assert_int_equal(r, GUEST_FAULT_IO_ERROR);
	}
	assert_int_equal(sf->submitted, submitted);
	assert_state(sf, 0, PAGE_SWAPPED);
	/* Its slot stays taken: the data may be there, just unreadable. */
	assert_true(swap_slots_is_used(&sf->slots, slot));
	/* The frame with the failed read's garbage goes to another page
	 * zeroed. */
	assert_int_equal(get(sf, 5), 0);
	assert_int_equal(swap_fake_frame(sf, page_frame(sf, 5))[8], 0);
}

static void test_read_retried(void **state)
{
	struct swap_fake *sf = new_guest(state);
	enum guest_fault_result r;

	fill4(sf);
	swap_out_page0(sf);
	assert_null(swap_fake_access(sf, 0, false, &r));
	assert_int_equal(swap_fake_complete(sf, 0, false), 0);
	assert_state(sf, 0, PAGE_SWAPIN);
	assert_null(swap_fake_touch(sf, 0, false));
	assert_int_equal(swap_fake_complete(sf, 0, false), 0);
	assert_int_equal(swap_fake_complete(sf, 0, true), 0);
	assert_state(sf, 0, PAGE_RESIDENT);
	assert_int_equal(get(sf, 0), 0xa0);
	assert_int_equal(sf->gm.stats.io_retries, 2);
	assert_int_equal(sf->gm.stats.read_failures, 0);
	/* The count of tries starts again for the next I/O. */
	assert_int_equal(page_info(sf, 0).flags, GPM_SLOT | GPM_SWAP_VALID);
	evict_one(sf, 0);
	assert_null(swap_fake_access(sf, 0, false, &r));
	assert_int_equal(swap_fake_complete(sf, 0, false), 0);
	assert_int_equal(swap_fake_complete(sf, 0, false), 0);
	assert_int_equal(swap_fake_complete(sf, 0, true), 0);
	assert_state(sf, 0, PAGE_RESIDENT);
}

static void test_stale_ids(void **state)
{
	struct swap_fake *sf = new_guest(state);
	struct swap_io io = start_write0(sf);

	assert_int_equal(guest_memory_io_done(&sf->gm, 16ull << 16, true),
			 HV_ERR_NOT_FOUND);
	assert_int_equal(guest_memory_io_done(&sf->gm, UINT64_MAX, true),
			 HV_ERR_NOT_FOUND);
	assert_int_equal(guest_memory_io_done(&sf->gm, 1ull << 16, true),
			 HV_ERR_NOT_FOUND);
	assert_int_equal(guest_memory_io_done(&sf->gm, io.id + 1, true),
			 HV_ERR_NOT_FOUND);
	assert_int_equal(sf->gm.stats.stale_completions, 4);
	assert_state(sf, 0, PAGE_WRITEBACK);
	assert_int_equal(sf->gm.io_in_flight, 1);
	assert_int_equal(swap_fake_complete(sf, 0, true), 0);
	/* Twice: the second is stale. */
	assert_int_equal(guest_memory_io_done(&sf->gm, io.id, true),
			 HV_ERR_NOT_FOUND);
	assert_state(sf, 0, PAGE_SWAPPED);
	assert_int_equal(sf->gm.io_in_flight, 0);
	assert_int_equal(sf->gm.stats.swap_outs, 1);
}

/*
 * A page that cannot be mapped again after its read (something else got
 * mapped at its address) is reported with ept_map's error, which the
 * daemon turns into a stop (it tells it from a stale id by name); the
 * page stays unmapped.
 */
static void test_map_again_fails(void **state)
{
	struct swap_fake *sf = new_guest(state);
	enum guest_fault_result r;
	struct swap_io io;

	start_write0(sf);
	assert_int_equal(swap_fake_complete(sf, 0, true), HV_OK);
	assert_state(sf, 0, PAGE_SWAPPED);
	assert_null(swap_fake_access(sf, 0, false, &r));
	assert_int_equal(r, GUEST_FAULT_SWAPIN_STARTED);
	io = sf->queue[0];
	assert_int_equal(ept_map(&sf->ef->ept, 0, io.frame_pa, EPT_PAGE_4K,
				 EPT_RWX), HV_OK);
	assert_int_equal(swap_fake_complete(sf, 0, true), HV_ERR_EXISTS);
	assert_state(sf, 0, PAGE_SWAPIN);
	assert_false(guest_memory_io_busy(&sf->gm, 0));
}

/* One slot: the second dirty victim finds the area full. */
static void test_swap_full_reported_once(void **state)
{
	struct swap_fake *sf = swap_fake_new(16, 4, 1, 1, 1);
	struct guest_evict_result res;

	*state = sf;
	fill4(sf);
	swap_out_page0(sf);
	put(sf, 4, 0xa4);
	clear_accessed(sf);
	sf->gm.clock.hand = 1;
	assert_int_equal(guest_memory_evict_step(&sf->gm, 8, &res), 0);
	assert_true(res.swap_full);
	assert_true(res.report_swap_full);
	assert_int_equal(res.aborted, 1);
	/* Put back as it was, mapped. */
	assert_state(sf, 1, PAGE_RESIDENT);
	assert_int_equal(get(sf, 1), 0xa1);
	assert_int_equal(sf->gm.stats.swap_full_events, 1);
	assert_int_equal(sf->gm.stats.evictions_aborted, 1);

	/* Still full: pages that need a write are not even unmapped. */
	clear_accessed(sf);
	assert_int_equal(guest_memory_evict_step(&sf->gm, 8, &res), 0);
	assert_int_equal(res.victims, 0);
	assert_false(res.report_swap_full);
	assert_int_equal(sf->gm.stats.swap_full_events, 1);
	/* Pages that need none still go. */
	put(sf, 2, 0);
	clear_accessed(sf);
	assert_int_equal(guest_memory_evict_step(&sf->gm, 8, &res), 1);
	assert_int_equal(res.zero_pages, 1);
	assert_state(sf, 2, PAGE_UNTOUCHED);

	/* The slot comes free (page 0 read back, then rewritten)... */
	swap_in(sf, 0);
	put(sf, 0, 0xb0);
	evict_one(sf, 0);
	assert_state(sf, 0, PAGE_WRITEBACK);
	swap_fake_complete_all(sf);
	/* ...and is taken: the next dirty victim is a new event, not
	 * reported again. */
	put(sf, 2, 0xb2);
	clear_accessed(sf);
	assert_int_equal(guest_memory_evict_step(&sf->gm, 8, &res), 0);
	assert_true(res.swap_full);
	assert_false(res.report_swap_full);
	assert_int_equal(sf->gm.stats.swap_full_events, 2);
	assert_int_equal(sf->slots.in_use, 1);
}

/* Every transition is counted; the counts add up to the states. */
static void test_transition_counts(void **state)
{
	struct swap_fake *sf = new_guest(state);
	const struct guest_memory_stats *st = &sf->gm.stats;
	enum guest_fault_result r;

	fill4(sf);                      /* 4 x UNTOUCHED -> RESIDENT */
	swap_out_page0(sf);             /* RESIDENT -> WB -> SWAPPED */
	swap_in(sf, 0);                 /* SWAPPED -> SWAPIN -> RESIDENT */
	evict_one(sf, 0);               /* clean: RESIDENT -> WB -> SWAPPED */
	put(sf, 4, 0);                  /* UNTOUCHED -> RESIDENT */
	evict_one(sf, 4);               /* zero: WB -> UNTOUCHED */
	assert_null(swap_fake_access(sf, 0, false, &r));
	fail_all_tries(sf);             /* SWAPIN -> SWAPPED */

	assert_int_equal(st->transitions[PAGE_UNTOUCHED][PAGE_RESIDENT], 5);
	assert_int_equal(st->transitions[PAGE_RESIDENT][PAGE_WRITEBACK], 3);
	assert_int_equal(st->transitions[PAGE_WRITEBACK][PAGE_SWAPPED], 2);
	assert_int_equal(st->transitions[PAGE_WRITEBACK][PAGE_UNTOUCHED], 1);
	assert_int_equal(st->transitions[PAGE_WRITEBACK][PAGE_RESIDENT], 0);
	assert_int_equal(st->transitions[PAGE_SWAPPED][PAGE_SWAPIN], 2);
	assert_int_equal(st->transitions[PAGE_SWAPIN][PAGE_RESIDENT], 1);
	assert_int_equal(st->transitions[PAGE_SWAPIN][PAGE_SWAPPED], 1);
	for (unsigned s = 0; s < GUEST_PAGE_STATES; s++) {
		int64_t n = s == PAGE_UNTOUCHED ? 16 : 0;

		for (unsigned o = 0; o < GUEST_PAGE_STATES; o++)
			n += (int64_t)st->transitions[o][s] -
			     (int64_t)st->transitions[s][o];
		assert_int_equal(n, sf->gm.count[s]);
	}
	assert_int_equal(sf->gm.count[PAGE_SWAPPED], 1);
	assert_int_equal(sf->gm.count[PAGE_RESIDENT], 3);
	assert_int_equal(sf->gm.count[PAGE_UNTOUCHED], 12);
	assert_int_equal(st->clean_drops, 1);
	assert_int_equal(st->zero_pages_skipped, 1);
	assert_int_equal(st->swap_outs, 1);
	assert_int_equal(st->swap_ins, 1);
}

/* debug.isolation_secret's fill of freed frames. */
#define FREED_FILL 0x9e3779b97f4a7c15ull

static bool frame_is_fill(struct swap_fake *sf, uint64_t pa)
{
	uint64_t w;

	for (unsigned i = 0; i < PAGE_SIZE; i += sizeof(w)) {
		memcpy(&w, swap_fake_frame(sf, pa) + i, sizeof(w));
		if (w != FREED_FILL)
			return false;
	}
	return true;
}

/*
 * Every frame a page gives back holds the fill once it is free: after a
 * write, a clean drop, an all-zero drop and a read given up. A page that
 * gets such a frame sees zeroes or its own data, never the fill; a frame
 * that is not given back (a write given up) keeps the page. Off again,
 * freed frames keep what they held.
 */
static void test_freed_frames_filled(void **state)
{
	struct swap_fake *sf = new_guest(state);
	enum guest_fault_result r;
	uint64_t pa;

	guest_memory_fill_freed_frames(&sf->gm, FREED_FILL);
	fill4(sf);
	pa = page_frame(sf, 0);
	evict_one(sf, 0);
	assert_false(frame_is_fill(sf, pa));    /* the write reads it */
	swap_fake_complete_all(sf);
	assert_true(frame_is_fill(sf, pa));
	assert_int_equal(swap_fake_slot(sf, page_slot(sf, 0))[0], 0xa0);

	/* Read back into that frame (the pool's top): the page as it was. */
	swap_in(sf, 0);
	assert_int_equal(page_frame(sf, 0), pa);
	assert_int_equal(get(sf, 0), 0xa0);
	assert_int_equal(swap_fake_frame(sf, pa)[8], 0);

	/* Clean: dropped without a write, filled. */
	evict_one(sf, 0);
	assert_int_equal(sf->gm.stats.clean_drops, 1);
	assert_true(frame_is_fill(sf, pa));

	/* A new page on it is zero-filled; dropped as all zero, filled. */
	put(sf, 4, 0);
	assert_int_equal(page_frame(sf, 4), pa);
	assert_int_equal(swap_fake_frame(sf, pa)[8], 0);
	evict_one(sf, 4);
	assert_int_equal(sf->gm.stats.zero_pages_skipped, 1);
	assert_true(frame_is_fill(sf, pa));

	/* A read given up: the frame with its garbage is filled. */
	assert_null(swap_fake_access(sf, 0, false, &r));
	assert_int_equal(r, GUEST_FAULT_SWAPIN_STARTED);
	assert_int_equal(page_frame(sf, 0), pa);
	fail_all_tries(sf);
	assert_true(frame_is_fill(sf, pa));

	/* A write given up: the page keeps its frame, untouched. */
	pa = page_frame(sf, 1);
	evict_one(sf, 1);
	fail_all_tries(sf);
	assert_state(sf, 1, PAGE_RESIDENT);
	assert_int_equal(get(sf, 1), 0xa1);
	assert_false(frame_is_fill(sf, pa));

	/* Off: a frame freed keeps the page it held. */
	guest_memory_fill_freed_frames(&sf->gm, 0);
	pa = page_frame(sf, 2);
	evict_one(sf, 2);
	swap_fake_complete_all(sf);
	assert_state(sf, 2, PAGE_SWAPPED);
	assert_int_equal(swap_fake_frame(sf, pa)[0], 0xa2);
	assert_int_equal(sf->gm.stats.frame_free_errors, 0);
}

struct seen {
	char names[64][48];
	uint64_t values[64];
	unsigned n;
};

static void note_stat(void *ctx, const char *name, uint64_t value)
{
	struct seen *s = ctx;

	assert_true(s->n < 64);
	assert_true(strlen(name) < sizeof(s->names[0]));
	strcpy(s->names[s->n], name);
	s->values[s->n++] = value;
}

static uint64_t stat_value(const struct seen *s, const char *name)
{
	for (unsigned i = 0; i < s->n; i++)
		if (!strcmp(s->names[i], name))
			return s->values[i];
	fail_msg("no stat %s", name);
	return 0;
}

static bool has_stat(const struct seen *s, const char *name)
{
	for (unsigned i = 0; i < s->n; i++)
		if (!strcmp(s->names[i], name))
			return true;
	return false;
}

/* The counters under their stat names, transitions only when nonzero. */
static void test_stat_names(void **state)
{
	struct swap_fake *sf = new_guest(state);
	struct seen s = { .n = 0 };

	fill4(sf);
	swap_out_page0(sf);
	put(sf, 5, 0);
	guest_memory_each_stat(&sf->gm, note_stat, &s);
	assert_int_equal(stat_value(&s, "swap.outs"), 1);
	assert_int_equal(stat_value(&s, "swap.ins"), 0);
	assert_int_equal(stat_value(&s, "swap.writes_started"), 1);
	assert_int_equal(stat_value(&s, "swap.slots_in_use"), 1);
	assert_int_equal(stat_value(&s, "swap.slots_peak"), 1);
	assert_int_equal(stat_value(&s, "swap.slots_total"), 8);
	assert_int_equal(stat_value(&s, "swap.flushes"), 1);
	assert_int_equal(stat_value(&s, "pages.untouched"), 11);
	assert_int_equal(stat_value(&s, "pages.resident"), 4);
	assert_int_equal(stat_value(&s, "pages.swapped"), 1);
	assert_int_equal(stat_value(&s, "pages.untouched_to_resident"), 5);
	assert_int_equal(stat_value(&s, "pages.resident_to_writeback"), 1);
	assert_int_equal(stat_value(&s, "pages.writeback_to_swapped"), 1);
	assert_false(has_stat(&s, "pages.swapped_to_swapin"));
	assert_int_equal(s.n, 31 + 3 + 5 + 3);

	/* Nothing at all without swap. */
	s.n = 0;
	sf->gm.meta = NULL;
	guest_memory_each_stat(&sf->gm, note_stat, &s);
	assert_int_equal(s.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		swap_test(test_write_retried),
		swap_test(test_write_given_up),
		swap_test(test_read_error_never_maps),
		swap_test(test_read_retried),
		swap_test(test_stale_ids),
		swap_test(test_map_again_fails),
		swap_test(test_swap_full_reported_once),
		swap_test(test_transition_counts),
		swap_test(test_freed_frames_filled),
		swap_test(test_stat_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
