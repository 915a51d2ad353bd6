/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Today's eviction, run by run: seeded runs of swap_replay.c whose
 * victims, I/O and counters must come out exactly as they did before the
 * policy seams (swap/policy/) existed. The figures below were taken from
 * this test built against the tree before them (commit edb65dc); a change
 * to CLOCK or to the engine around it shows here first.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/swap_replay.h"

struct golden {
	unsigned npages, nframes, nslots, steps;
	uint64_t seed;
	uint64_t digest;
	uint64_t outs, ins, scanned, referenced, zero, clean, full, cancelled;
};

/* npages, nframes, nslots, steps, seed, digest; then the counters. */
static const struct golden runs[] = {
	/*
	 * (Since a fault during a write maps the frame at once, 2026-12-06;
	 * digests since swap.discarded and swap.discard_refaults joined the
	 * stat names mixed in, every count as before, 2026-12-06; and again
	 * for swap.overwrites and swap.overwrites_from_tier, 2026-12-07.)
	 */
	{ 96, 24, 128, 4000, 1, 0xbc3538c5740769c7ull,
	  508, 747, 3676, 2462, 393, 297, 0, 16 },
	{ 64, 8, 80, 3000, 7, 0xd2f212f35e997689ull,
	  680, 1240, 4255, 2435, 522, 603, 0, 15 },
	{ 120, 40, 100, 6000, 42, 0xd5b0d4f35772ed04ull,
	  469, 741, 3909, 2769, 336, 331, 0, 4 },
	/* Tight: the swap area fills once. */
	{ 64, 16, 50, 5000, 3, 0x40e9ca60eb2fef34ull,
	  639, 1030, 4454, 2940, 419, 430, 1, 24 },
};

/* Runs g; prints what came out; returns false when it is not g's. */
static bool run_one(const struct golden *g)
{
	struct swap_fake *sf = swap_fake_new(g->npages, g->nframes, g->nslots,
					     0, 0);
	const struct guest_memory_stats *st = &sf->gm.stats;
	struct replay_result res;
	struct golden got = *g;

	swap_replay(sf, g->steps, g->seed, &res);
	assert_int_equal(res.accesses, g->steps);
	got.digest = res.digest;
	got.outs = st->swap_outs;
	got.ins = st->swap_ins;
	got.scanned = st->clock_scanned;
	got.referenced = st->clock_referenced;
	got.zero = st->zero_pages_skipped;
	got.clean = st->clean_drops;
	got.full = st->swap_full_events;
	got.cancelled = st->evictions_cancelled;
	printf("\t{ %u, %u, %u, %u, %llu, 0x%016llxull,\n"
	       "\t  %llu, %llu, %llu, %llu, %llu, %llu, %llu, %llu },"
	       " /* %llu reads checked */\n",
	       g->npages, g->nframes, g->nslots, g->steps,
	       (unsigned long long)g->seed, (unsigned long long)got.digest,
	       (unsigned long long)got.outs, (unsigned long long)got.ins,
	       (unsigned long long)got.scanned,
	       (unsigned long long)got.referenced,
	       (unsigned long long)got.zero, (unsigned long long)got.clean,
	       (unsigned long long)got.full,
	       (unsigned long long)got.cancelled,
	       (unsigned long long)res.reads_checked);
	swap_fake_free(sf);
	return !memcmp(&got, g, sizeof(got));
}

static void test_runs_as_before(void **state)
{
	unsigned differ = 0;

	(void)state;
	for (unsigned i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
		differ += !run_one(&runs[i]);
	assert_int_equal(differ, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs_as_before),
	};

	return cmocka_run_group_tests_name("swap_replay", tests, NULL, NULL);
}
