/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The eviction policies of swap.policy (swap/policy/) behind the real
 * engine (swap/guest_*.c over swap_fake.h), on recorded access patterns
 * whose outcome the replacement literature fixes:
 *   - a loop over more pages than fit: every LRU-like policy (CLOCK,
 *     AGING) and FIFO miss on every access once the loop wraps; RANDOM
 *     keeps part of the loop and misses far less;
 *   - a hot set with a cold sweep through the rest: CLOCK and AGING keep
 *     the hot set (it is used again before the hand comes back), FIFO and
 *     RANDOM throw hot pages out with the cold ones;
 *   - uniform random accesses: no policy can do better than another
 *     (every page is as likely next), so their miss counts agree.
 * A miss is a swap-in (gm.stats.swap_ins); the fault counts are printed.
 * Then swap.protect_kernel over CLOCK: the pages marked as the kernel's
 * stay while a sweep pushes everything else through, lose the mark on a
 * user-mode fault, and still go when nothing else can.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "swap/guest_memory.h"
#include "swap/swap_policies.h"
#include "tests/unit/swap_fake.h"

#define NPAGES 64
#define NFRAMES 40
#define LOW 2
#define HIGH 4

static void *zeroed(size_t bytes)
{
	return calloc(1, bytes);
}

struct run {
	struct swap_fake *sf;
	struct swap_policies policies;
	/* The pages whose access started a swap-in, in order (a recording). */
	uint64_t recorded[4096];
	unsigned nrecorded;
};

static void start(struct run *r, enum swap_evict_kind k)
{
	struct swap_params p = { .policy = k };
	char why[128];
	uint64_t skipped;

	r->sf = swap_fake_new(NPAGES, NFRAMES, NPAGES + 8, LOW, HIGH);
	assert_true(swap_policies_build(&r->policies, &p, &r->sf->gm.ram,
					zeroed, &skipped, why, sizeof(why)));
	guest_memory_use_policies(&r->sf->gm, &r->policies.evict,
				  &r->policies.prefetch);
}

/* The daemon's part, as swap_daemon.c does it, I/O done at once. */
static void daemon_runs(struct run *r)
{
	while (guest_memory_needs_eviction(&r->sf->gm)) {
		unsigned freed = guest_memory_evict_step(&r->sf->gm, 8, NULL);

		swap_fake_complete_all(r->sf);
		if (!freed)
			break;
	}
	/* Then, as swap_daemon.c's turn does, the reads ahead refused. */
	guest_memory_resume_prefetch(&r->sf->gm);
	swap_fake_complete_all(r->sf);
}

/* One access by the guest: faults, waits and daemon steps as needed. */
static void access_page(struct run *r, uint64_t gfn, bool write)
{
	for (unsigned tries = 0; tries < 64; tries++) {
		enum guest_fault_result res = GUEST_FAULT_RESOLVED;
		uint8_t *p = swap_fake_access(r->sf, gfn, write, &res);

		if (p) {
			if (write)
				p[0] = (uint8_t)(gfn + 1);
			else
				assert_int_equal(p[0], (uint8_t)(gfn + 1));
			daemon_runs(r);
			return;
		}
		if (res == GUEST_FAULT_SWAPIN_STARTED &&
		    r->nrecorded < ARRAY_SIZE(r->recorded))
			r->recorded[r->nrecorded++] = gfn;
		if (res == GUEST_FAULT_NO_FRAME)
			guest_memory_evict_step(&r->sf->gm, 8, NULL);
		swap_fake_complete_all(r->sf);
	}
	fail_msg("page %llu never became resident",
		 (unsigned long long)gfn);
}

/* Swap-ins of a whole run; every page written first (none is zero). */
static uint64_t misses(enum swap_evict_kind k,
		       void (*pattern)(struct run *r))
{
	struct run r;
	uint64_t n;

	start(&r, k);
	for (uint64_t g = 0; g < NPAGES; g++)
		access_page(&r, g, true);
	n = r.sf->gm.stats.swap_ins;
	pattern(&r);
	n = r.sf->gm.stats.swap_ins - n;
	assert_int_equal(r.sf->gm.stats.illegal_transitions, 0);
	swap_fake_free(r.sf);
	free(r.policies.fifo.next);
	free(r.policies.aging.history);
	print_message("  %-6s %llu swap-ins\n", swap_evict_kind_name(k),
		      (unsigned long long)n);
	return n;
}

static uint64_t rng = 88172645463325252ull;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* 48 pages in a cycle, 30 times: more than the ~36 frames in use. */
static void loop_pattern(struct run *r)
{
	for (unsigned round = 0; round < 30; round++)
		for (uint64_t g = 0; g < 48; g++)
			access_page(r, g, false);
}

/* 12 hot pages, each used between two steps of a sweep over 52. */
static void hot_and_sweep_pattern(struct run *r)
{
	rng = 88172645463325252ull;
	for (unsigned step = 0; step < 1600; step++) {
		for (unsigned h = 0; h < 3; h++)
			access_page(r, next_random() % 12, false);
		access_page(r, 12 + step % 52, false);
	}
}

static void uniform_pattern(struct run *r)
{
	rng = 88172645463325252ull;
	for (unsigned i = 0; i < 3000; i++)
		access_page(r, next_random() % NPAGES, false);
}

/* Swap-ins of the pattern under each policy, n[kind]. */
static void under_each_policy(void (*pattern)(struct run *r),
			      uint64_t n[SWAP_EVICT_AGING + 1])
{
	for (unsigned k = SWAP_EVICT_CLOCK; k <= SWAP_EVICT_AGING; k++)
		n[k] = misses((enum swap_evict_kind)k, pattern);
}

static void loop_larger_than_memory(void **state)
{
	uint64_t n[SWAP_EVICT_AGING + 1];

	(void)state;
	under_each_policy(loop_pattern, n);
	/* Past the first round, nearly every access of the others misses. */
	assert_true(n[SWAP_EVICT_FIFO] >= 29 * 48 * 9 / 10);
	assert_true(n[SWAP_EVICT_CLOCK] >= 29 * 48 * 9 / 10);
	assert_true(n[SWAP_EVICT_AGING] >= 29 * 48 * 9 / 10);
	assert_true(n[SWAP_EVICT_RANDOM] * 4 < n[SWAP_EVICT_FIFO] * 3);
	assert_true(n[SWAP_EVICT_RANDOM] * 4 < n[SWAP_EVICT_CLOCK] * 3);
	assert_true(n[SWAP_EVICT_RANDOM] * 4 < n[SWAP_EVICT_AGING] * 3);
}

static void hot_set_survives_a_sweep(void **state)
{
	uint64_t n[SWAP_EVICT_AGING + 1];
	uint64_t clock, aging;

	(void)state;
	under_each_policy(hot_and_sweep_pattern, n);
	clock = n[SWAP_EVICT_CLOCK];
	aging = n[SWAP_EVICT_AGING];
	/* The sweep's own misses (52 pages, 1600 steps) are everyone's. */
	assert_true(clock < n[SWAP_EVICT_FIFO] && aging < n[SWAP_EVICT_FIFO]);
	assert_true(clock < n[SWAP_EVICT_RANDOM] &&
		    aging < n[SWAP_EVICT_RANDOM]);
	assert_true(clock <= 1600 * 11 / 10 && aging <= 1600 * 11 / 10);
}

static void uniform_accesses_favour_none(void **state)
{
	uint64_t n[SWAP_EVICT_AGING + 1], lo = UINT64_MAX, hi = 0;

	(void)state;
	under_each_policy(uniform_pattern, n);
	for (unsigned k = SWAP_EVICT_CLOCK; k <= SWAP_EVICT_AGING; k++) {
		lo = n[k] < lo ? n[k] : lo;
		hi = n[k] > hi ? n[k] : hi;
	}
	assert_true(lo > 0);
	assert_true(hi * 100 <= lo * 120);
}

static bool resident(struct run *r, uint64_t gfn)
{
	return guest_memory_page_state(&r->sf->gm, gfn << PAGE_SHIFT) ==
	       PAGE_RESIDENT;
}

static void sweep(struct run *r, uint64_t from, unsigned times)
{
	for (unsigned t = 0; t < times; t++)
		for (uint64_t g = from; g < NPAGES; g++)
			access_page(r, g, false);
}

static void kernel_pages_go_last(void **state)
{
	struct run r;

	(void)state;
	start(&r, SWAP_EVICT_CLOCK);
	r.sf->gm.protect_kernel = true;
	for (uint64_t g = 0; g < NPAGES; g++)
		access_page(&r, g, true);
	/* Pages 0..7 are the kernel's (it waited for them): in, and kept. */
	for (uint64_t g = 0; g < 8; g++) {
		access_page(&r, g, false);
		guest_memory_note_fault_mode(&r.sf->gm, g << PAGE_SHIFT, true);
	}
	assert_int_equal(r.sf->gm.stats.kernel_marked, 8);
	sweep(&r, 8, 4);
	for (uint64_t g = 0; g < 8; g++)
		assert_true(resident(&r, g));
	assert_true(r.sf->gm.stats.kernel_spared > 0);
	assert_int_equal(r.sf->gm.stats.kernel_evicted, 0);
	/* A user-mode fault on page 0: an ordinary page again. */
	guest_memory_note_fault_mode(&r.sf->gm, 0, false);
	sweep(&r, 8, 2);
	assert_false(resident(&r, 0));
	assert_true(resident(&r, 1));
	/* Every page the kernel's: they go all the same, nothing stalls. */
	for (uint64_t g = 0; g < NPAGES; g++)
		guest_memory_note_fault_mode(&r.sf->gm, g << PAGE_SHIFT, true);
	sweep(&r, 0, 2);
	assert_true(r.sf->gm.stats.kernel_evicted > 0);
	assert_int_equal(r.sf->gm.stats.illegal_transitions, 0);
	swap_fake_free(r.sf);
}

/* A run of the hot-and-sweep pattern, the pages all written first. */
static uint64_t demand_swap_ins(struct run *r)
{
	uint64_t before;

	for (uint64_t g = 0; g < NPAGES; g++)
		access_page(r, g, true);
	r->nrecorded = 0;
	before = r->sf->gm.stats.reads_started;
	hot_and_sweep_pattern(r);
	return r->sf->gm.stats.reads_started - before -
	       r->sf->gm.stats.prefetch_reads;
}

/*
 * REPLAY (REAP's idea): a run records its swap-in faults, the list goes
 * through the same text tools/apftrace --extract-faults writes, and the
 * same run again with the list read ahead takes far fewer demand faults.
 * A page past the end of RAM in the list is left out.
 */
static void replay_of_a_recorded_run(void **state)
{
	static char text[64 * 1024];
	struct swap_params p = { .policy = SWAP_EVICT_CLOCK,
				 .prefetch = SWAP_PREFETCH_REPLAY,
				 .prefetch_depth = 8 };
	struct run *plain = calloc(1, sizeof(*plain));
	struct run *again = calloc(1, sizeof(*again));
	uint64_t first, second, skipped;
	size_t len;
	char why[128];

	(void)state;
	assert_non_null(plain);
	assert_non_null(again);
	/*
	 * Both runs keep 16 frames free (the daemon's high watermark): room
	 * for what is read ahead, as a restored VM has.
	 */
	plain->sf = swap_fake_new(NPAGES, NFRAMES, NPAGES + 8, LOW, 16);
	first = demand_swap_ins(plain);
	len = (size_t)snprintf(text, sizeof(text), "apfvisor-faults 1\n%x\n",
			       NPAGES + 5);
	for (unsigned i = 0; i < plain->nrecorded; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"%llx\n",
					(unsigned long long)plain->recorded[i]);
	p.replay_list = text;
	p.replay_list_len = len;
	again->sf = swap_fake_new(NPAGES, NFRAMES, NPAGES + 8, LOW, 16);
	assert_true(swap_policies_build(&again->policies, &p, &again->sf->gm.ram,
					zeroed, &skipped, why, sizeof(why)));
	assert_int_equal(skipped, 1);
	assert_int_equal(again->policies.replay.count, plain->nrecorded);
	guest_memory_use_policies(&again->sf->gm, &again->policies.evict,
				  &again->policies.prefetch);
	second = demand_swap_ins(again);
	print_message("  replay: %llu demand swap-ins, recorded run %llu; "
		      "%llu read ahead, %llu used\n",
		      (unsigned long long)second, (unsigned long long)first,
		      (unsigned long long)again->sf->gm.stats.prefetch_reads,
		      (unsigned long long)again->sf->gm.stats.prefetch_used);
	/* 1,734 and 327 (630 before refused reads were asked again). */
	assert_true(second * 4 < first);
	assert_true(again->sf->gm.stats.prefetch_used * 4 >=
		    again->sf->gm.stats.prefetch_reads * 3);
	swap_fake_free(plain->sf);
	swap_fake_free(again->sf);
	free(again->policies.replay.position);
	free((void *)again->policies.replay.order);
	free(plain);
	free(again);
}

#define T(f) cmocka_unit_test(f)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(loop_larger_than_memory),
		T(hot_set_survives_a_sweep),
		T(uniform_accesses_favour_none),
		T(kernel_pages_go_last),
		T(replay_of_a_recorded_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
