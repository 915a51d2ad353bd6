/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The policies behind the engine (swap/guest_swap.c, swap/guest_policy.c)
 * over a fake guest: an eviction policy hears of every fault, mapping,
 * eviction and swap-in of its pages, and its picks are taken only when
 * they are pages that may go; a prefetch policy's pages are read in, only
 * from swap, only while frames are plentiful; a move the page-state
 * machine does not allow is counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "swap/guest_memory_internal.h"
#include "tests/unit/counters_seen.h"
#include "tests/unit/swap_fake.h"
#include "tests/unit/swap_replay.h"
#include "tests/unit/swap_test.h"

/* CLOCK underneath, every event written down as a letter and a page. */
struct recorder {
	struct clock_policy *clock;     /* the guest's own, unless set */
	char log[256];
	/* Pages to offer before asking CLOCK (a policy gone wrong). */
	uint64_t forced[4];
	unsigned nforced;
};

static void note(struct recorder *r, char what, uint64_t page)
{
	size_t len = strlen(r->log);

	snprintf(r->log + len, sizeof(r->log) - len, "%c%llu ", what,
		 (unsigned long long)page);
}

static bool rec_pick(void *self, const struct evict_history *h,
		     uint64_t *budget, uint64_t *victim)
{
	struct recorder *r = self;

	if (r->nforced) {
		*victim = r->forced[--r->nforced];
		return true;
	}
	return clock_policy_ops.pick_victim(r->clock, h, budget, victim);
}

static void rec_fault(void *self, uint64_t page, bool swap_in)
{
	note(self, swap_in ? 'F' : 'f', page);
}

static void rec_map(void *self, uint64_t page)
{
	note(self, 'm', page);
}

static void rec_evict(void *self, uint64_t page)
{
	note(self, 'e', page);
}

static void rec_swap_in(void *self, uint64_t page)
{
	note(self, 's', page);
}

static const struct eviction_policy_ops recorder_ops = {
	.name = "recorder",
	.pick_victim = rec_pick,
	.on_fault = rec_fault,
	.on_map = rec_map,
	.on_evict = rec_evict,
	.on_swap_in = rec_swap_in,
};

static struct recorder *install_recorder(struct swap_fake *sf)
{
	struct recorder *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	sf->test = r;
	r->clock = &sf->gm.clock;
	guest_memory_use_policies(&sf->gm,
				  &(struct eviction_policy){ &recorder_ops, r },
				  NULL);
	return r;
}

static int policy_teardown(void **state)
{
	struct swap_fake *sf = *state;

	if (sf)
		free(sf->test);
	return swap_teardown(state);
}

#define policy_test(f) cmocka_unit_test_teardown(f, policy_teardown)

static void expect_log(struct recorder *r, const char *want)
{
	assert_string_equal(r->log, want);
	r->log[0] = 0;
}

/* Each event once, in the order the page lives them. */
static void test_events(void **state)
{
	struct swap_fake *sf = new_guest(state);
	struct recorder *r = install_recorder(sf);

	fill4(sf);
	expect_log(r, "m0 f0 m1 f1 m2 f2 m3 f3 ");
	evict_one(sf, 2);
	expect_log(r, "e2 ");
	swap_fake_complete_all(sf);
	expect_log(r, "");
	/* Page 4 needs page 0's frame: evicted on the spot (clean or not). */
	evict_one(sf, 0);
	swap_fake_complete_all(sf);
	swap_in(sf, 2);
	expect_log(r, "e0 F2 s2 ");
	/* Cancelled by a fault during its write: mapped again at once. */
	put(sf, 1, 0xb1);
	evict_one(sf, 1);
	assert_non_null(swap_fake_access(sf, 1, false,
					 &(enum guest_fault_result){ 0 }));
	expect_log(r, "e1 m1 f1 ");
	swap_fake_complete_all(sf);
	expect_log(r, "");
}

/* What CLOCK would do, from the engine's default and from the config. */
static void test_default_and_configured(void **state)
{
	struct swap_fake *sf = new_guest(state);
	struct recorder *r = calloc(1, sizeof(*r));
	struct clock_policy own = { .hand = 3 };
	struct guest_swap_config cfg = {
		.meta = sf->meta,
		.slots = &sf->slots,
		.io = sf->gm.io,
		.low_free = 1,
		.high_free = 1,
		.evict = { &recorder_ops, r },
		.prefetch = prefetch_none(),
	};

	sf->test = r;
	assert_non_null(r);
	r->clock = &own;
	assert_ptr_equal(sf->gm.evict.ops, &clock_policy_ops);
	assert_ptr_equal(sf->gm.evict.self, &sf->gm.clock);
	assert_ptr_equal(sf->gm.prefetch.ops, &prefetch_none_ops);
	assert_int_equal(guest_memory_enable_swap(&sf->gm, &cfg), 0);
	assert_ptr_equal(sf->gm.evict.self, r);
	fill4(sf);
	sf->gm.high_free = sf->pool.nfree + 1;
	assert_int_equal(guest_memory_evict_step(&sf->gm, 1, NULL), 1);
	assert_state(sf, 3, PAGE_WRITEBACK);
}

/*
 * A pick that is no candidate (pinned, not resident, past the end) is
 * passed over; the step goes on with the policy's next one.
 */
static void test_stray_picks_ignored(void **state)
{
	struct swap_fake *sf = new_guest(state);
	struct recorder *r = install_recorder(sf);
	struct guest_evict_result res;

	fill4(sf);
	assert_int_equal(guest_memory_pin(&sf->gm, 1 * PAGE_SIZE), 0);
	r->forced[r->nforced++] = 1000;
	r->forced[r->nforced++] = 9;    /* untouched */
	r->forced[r->nforced++] = 1;    /* pinned */
	r->clock->hand = 2;
	r->log[0] = 0;
	sf->gm.high_free = sf->pool.nfree + 1;
	assert_int_equal(guest_memory_evict_step(&sf->gm, 1, &res), 1);
	assert_int_equal(res.victims, 1);
	assert_int_equal(r->nforced, 0);
	assert_state(sf, 1, PAGE_RESIDENT);
	assert_state(sf, 9, PAGE_UNTOUCHED);
	assert_state(sf, 2, PAGE_WRITEBACK);
	expect_log(r, "e2 ");
}

/* A 32-page guest over 16 frames; pages 0..7 written and swapped out. */
static struct swap_fake *swapped_guest(void **state,
				       struct prefetch_sequential *seq)
{
	struct swap_fake *sf = swap_fake_new(32, 16, 40, 2, 3);
	struct prefetch_policy ahead = prefetch_sequential(seq);

	*state = sf;
	for (unsigned p = 0; p < 8; p++)
		put(sf, p, (uint8_t)(0xc0 + p));
	for (unsigned p = 0; p < 8; p++) {
		evict_one(sf, p);
		swap_fake_complete_all(sf);
		assert_state(sf, p, PAGE_SWAPPED);
	}
	guest_memory_use_policies(&sf->gm, NULL, &ahead);
	return sf;
}

static void test_prefetch_sequential(void **state)
{
	struct prefetch_sequential seq = { .pages = 3 };
	struct swap_fake *sf = swapped_guest(state, &seq);
	uint64_t reads = sf->gm.stats.reads_started;
	struct seen s = { { 0 } };

	swap_in(sf, 2);
	assert_int_equal(sf->gm.stats.prefetch_reads, 3);
	assert_int_equal(sf->gm.stats.reads_started, reads + 4);
	for (unsigned p = 3; p <= 5; p++) {
		assert_state(sf, p, PAGE_RESIDENT);
		assert_int_equal(get(sf, p), 0xc0 + p);
	}
	assert_state(sf, 6, PAGE_SWAPPED);
	/* A minor fault asks for nothing; nor does a page in memory. */
	put(sf, 20, 1);
	swap_in(sf, 6);
	assert_int_equal(sf->gm.stats.prefetch_reads, 4);
	assert_state(sf, 7, PAGE_RESIDENT);
	assert_state(sf, 8, PAGE_UNTOUCHED);
	guest_memory_each_stat(&sf->gm, record, &s);
	assert_non_null(strstr(s.text, "swap.prefetch_reads=4;"));
	assert_null(strstr(s.text, "illegal"));
}

/*
 * A page read ahead is mapped with its accessed bit clear, so the guest's
 * use tells: seen used by the daemon's scan (or wanted by a fault while
 * its read is in flight, a late hit) counts in prefetch_used; evicted
 * untouched, in prefetch_wasted. Untouched, it is passed over once, as a
 * page the guest just faulted on would be (prefetch_spared), so that a
 * read ahead is not the first victim before the guest got to it.
 */
static void test_prefetch_used_and_wasted(void **state)
{
	struct prefetch_sequential seq = { .pages = 3 };
	struct swap_fake *sf = swapped_guest(state, &seq);
	uint64_t high = sf->gm.high_free;
	enum guest_fault_result r;
	struct ept_mapping m;
	struct seen s = { { 0 } };

	swap_in(sf, 2);
	for (unsigned p = 3; p <= 5; p++) {
		assert_true(ept_lookup(&sf->ef->ept, (uint64_t)p << PAGE_SHIFT,
				       &m));
		assert_false(m.accessed);
		assert_true(page_flags(sf, p) & GPM_PREFETCHED);
	}
	assert_int_equal(get(sf, 3), 0xc3);
	/*
	 * One victim, the hand on page 4: 4 and 5 passed over once for
	 * having been read ahead, 2 and 3 for their accessed bits (3's use
	 * counted); after the turn 4 goes, unused.
	 */
	sf->gm.clock.hand = guest_memory_index(&sf->gm, 4);
	sf->gm.high_free = sf->pool.nfree + sf->gm.count[PAGE_WRITEBACK] + 1;
	guest_memory_evict_step(&sf->gm, 1, NULL);
	sf->gm.high_free = high;
	assert_state(sf, 3, PAGE_RESIDENT);
	/* Clean (its swap copy is valid): dropped, nothing written. */
	assert_state(sf, 4, PAGE_SWAPPED);
	assert_int_equal(sf->gm.stats.prefetch_used, 1);
	assert_int_equal(sf->gm.stats.prefetch_wasted, 1);
	assert_int_equal(sf->gm.stats.prefetch_spared, 2);
	assert_false(page_flags(sf, 3) & GPM_PREFETCHED);
	swap_fake_complete_all(sf);
	/* Page 7 read ahead of 6; the guest wants it before it is in. */
	assert_null(swap_fake_access(sf, 6, false, &r));
	assert_int_equal(r, GUEST_FAULT_SWAPIN_STARTED);
	assert_true(page_flags(sf, 7) & GPM_PREFETCHED);
	assert_null(swap_fake_access(sf, 7, false, &r));
	assert_int_equal(r, GUEST_FAULT_WAIT_IO);
	assert_int_equal(sf->gm.stats.prefetch_used, 2);
	swap_fake_complete_all(sf);
	assert_int_equal(get(sf, 7), 0xc7);
	guest_memory_each_stat(&sf->gm, record, &s);
	assert_non_null(strstr(s.text, "swap.prefetch_used=2;"));
	assert_non_null(strstr(s.text, "swap.prefetch_wasted=1;"));
}

/* Reads ahead never take the pool down to the low watermark. */
static void test_prefetch_keeps_frames(void **state)
{
	struct prefetch_sequential seq = { .pages = 6 };
	struct swap_fake *sf = swapped_guest(state, &seq);

	/* 16 frames: 4 free once pages 8..19 are in; the low mark is 2. */
	for (unsigned p = 8; p < 20; p++)
		put(sf, p, 1);
	assert_int_equal(sf->pool.nfree, 4);
	swap_in(sf, 0);
	/* One frame for page 0, one read ahead: then 2 left, the mark. */
	assert_int_equal(sf->gm.stats.prefetch_reads, 1);
	assert_int_equal(sf->pool.nfree, 2);
	assert_state(sf, 1, PAGE_RESIDENT);
	assert_state(sf, 2, PAGE_SWAPPED);
}

/*
 * Replay's pages refused at the low watermark are not lost to a fault:
 * the daemon evicts for them up to the high watermark and reads them
 * when frames are back.
 */
static void test_prefetch_replay_resumes(void **state)
{
	static const uint64_t order[] = { 0, 1, 2, 3, 4, 5, 6 };
	struct prefetch_sequential unused = { .pages = 1 };
	struct swap_fake *sf = swapped_guest(state, &unused);
	uint32_t *position = calloc(32, sizeof(*position));
	struct prefetch_replay rp;
	struct prefetch_policy ahead = prefetch_replay(&rp);
	struct seen s = { { 0 } };

	assert_non_null(position);
	assert_true(prefetch_replay_init(&rp, order, 7, position, 32, 6));
	guest_memory_use_policies(&sf->gm, NULL, &ahead);
	for (unsigned p = 8; p < 20; p++)
		put(sf, p, 1);
	clear_accessed(sf);
	sf->gm.high_free = 6;
	assert_int_equal(sf->pool.nfree, 4);
	/* Page 0 and one read ahead (page 1); 2..6 refused at the mark. */
	swap_in(sf, 0);
	assert_int_equal(sf->gm.stats.prefetch_reads, 1);
	assert_int_equal(sf->gm.stats.prefetch_refused, 5);
	assert_true(sf->gm.prefetch_starved);
	assert_true(guest_memory_needs_eviction(&sf->gm));
	for (unsigned round = 0; round < 8 && sf->gm.prefetch_starved;
	     round++) {
		guest_memory_evict_step(&sf->gm, 4, NULL);
		swap_fake_complete_all(sf);
		guest_memory_resume_prefetch(&sf->gm);
		swap_fake_complete_all(sf);
	}
	assert_false(sf->gm.prefetch_starved);
	for (unsigned p = 1; p <= 6; p++) {
		assert_state(sf, p, PAGE_RESIDENT);
		assert_int_equal(get(sf, p), 0xc0 + p);
	}
	assert_int_equal(sf->gm.stats.prefetch_reads, 6);
	assert_true(sf->gm.stats.prefetch_resumed >= 5);
	assert_false(guest_memory_needs_eviction(&sf->gm));
	guest_memory_each_stat(&sf->gm, record, &s);
	assert_non_null(strstr(s.text, "swap.prefetch_refused="));
	assert_int_equal(sf->gm.stats.illegal_transitions, 0);
	free(position);
}

/* Nothing is read ahead of a lost page, nor past the end of RAM. */
static void test_prefetch_skips(void **state)
{
	struct prefetch_sequential seq = { .pages = 2 };
	struct swap_fake *sf = swapped_guest(state, &seq);
	enum guest_fault_result r;

	/* Page 4's read fails for good: lost, never read ahead. */
	assert_null(swap_fake_access(sf, 4, false, &r));
	assert_int_equal(r, GUEST_FAULT_SWAPIN_STARTED);
	assert_int_equal(sf->gm.stats.prefetch_reads, 2);
	for (unsigned i = 0; i < GUEST_IO_TRIES; i++)
		assert_int_equal(swap_fake_complete(
					 sf, (unsigned)swap_fake_find(sf, 4),
					 false), 0);
	swap_fake_complete_all(sf);
	assert_true(page_flags(sf, 4) & GPM_LOST);
	swap_in(sf, 3);
	assert_int_equal(sf->gm.stats.prefetch_reads, 2);
	/* The last page: nothing past it. */
	put(sf, 31, 9);
	evict_one(sf, 31);
	swap_fake_complete_all(sf);
	swap_in(sf, 31);
	assert_int_equal(sf->gm.stats.prefetch_reads, 2);
}

/*
 * A seeded run of swap_replay.c with pages read ahead (and room for them:
 * the daemon keeps 8 frames free): every byte still reads back as written,
 * and the run differs from the one without.
 */
static void test_prefetch_replay(void **state)
{
	struct swap_fake *sf = swap_fake_new(96, 24, 128, 2, 8);
	struct prefetch_sequential seq = { .pages = 4 };
	struct prefetch_policy reads_ahead = prefetch_sequential(&seq);
	struct replay_result plain, ahead;
	uint64_t major;

	*state = sf;
	swap_replay(sf, 4000, 1, &plain);
	major = sf->gm.stats.reads_started;
	swap_fake_free(sf);
	sf = swap_fake_new(96, 24, 128, 2, 8);
	*state = sf;
	guest_memory_use_policies(&sf->gm, NULL, &reads_ahead);
	swap_replay(sf, 4000, 1, &ahead);
	assert_true(sf->gm.stats.prefetch_reads > 0);
	assert_true(ahead.reads_checked > 0);
	assert_int_not_equal(ahead.digest, plain.digest);
	assert_int_equal(sf->gm.stats.illegal_transitions, 0);
	/* Random accesses gain nothing from reading ahead; reads do add up. */
	assert_true(sf->gm.stats.reads_started > major);
}

/* A move the machine does not allow is made, counted, and reported. */
static void test_illegal_transition_counted(void **state)
{
	struct swap_fake *sf = new_guest(state);
	struct seen s = { { 0 } };

	set_state(&sf->gm, 5, PAGE_WRITEBACK);
	set_state(&sf->gm, 5, PAGE_UNTOUCHED);
	assert_int_equal(sf->gm.stats.illegal_transitions, 1);
	set_state(&sf->gm, 6, PAGE_SWAPPED);
	set_state(&sf->gm, 6, PAGE_SWAPIN);
	set_state(&sf->gm, 6, PAGE_UNTOUCHED);
	assert_int_equal(sf->gm.stats.illegal_transitions, 3);
	assert_int_equal(sf->gm.count[PAGE_UNTOUCHED], 16);
	guest_memory_each_stat(&sf->gm, record, &s);
	assert_non_null(strstr(s.text, "pages.illegal_transitions=3;"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		policy_test(test_events),
		policy_test(test_default_and_configured),
		policy_test(test_stray_picks_ignored),
		swap_test(test_prefetch_sequential),
		swap_test(test_prefetch_used_and_wasted),
		swap_test(test_prefetch_keeps_frames),
		swap_test(test_prefetch_skips),
		swap_test(test_prefetch_replay_resumes),
		swap_test(test_prefetch_replay),
		swap_test(test_illegal_transition_counted),
	};

	return cmocka_run_group_tests_name("guest_policy", tests, NULL, NULL);
}
