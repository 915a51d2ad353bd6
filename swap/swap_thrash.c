// SPDX-License-Identifier: BSD-2-Clause
/* The thrashing rule (swap/swap_thrash.h). */
#include "swap/swap_thrash.h"
#include "swap/swap_daemon.h"

enum swap_thrash_verdict swap_thrash_check(struct swap_thrash *t,
					   bool swap_full, uint64_t waited,
					   uint64_t now, uint64_t window,
					   unsigned *percent)
{
	uint64_t elapsed, vcpus;
	unsigned n = 0;

	if (!swap_full) {
		t->start = 0;
		t->windows = 0;
		return SWAP_THRASH_NOTHING;
	}
	if (!t->start) {
		t->start = now ? now : 1;
		t->waited_then = waited;
		__atomic_store_n(&t->vcpus, 0, __ATOMIC_RELAXED);
		return SWAP_THRASH_NOTHING;
	}
	elapsed = now - t->start;
	if (elapsed < window)
		return SWAP_THRASH_NOTHING;
	vcpus = __atomic_exchange_n(&t->vcpus, 0, __ATOMIC_RELAXED);
	for (; vcpus; vcpus &= vcpus - 1)
		n++;
	*percent = (unsigned)((waited - t->waited_then) * 100 /
			      (elapsed * (n ? n : 1)));
	t->start = 0;
	if (!n || *percent < SWAP_THRASH_PERCENT) {
		t->windows = 0;
		return SWAP_THRASH_NOTHING;
	}
	return ++t->windows < SWAP_THRASH_WINDOWS ? SWAP_THRASH_WINDOW_HIGH
						  : SWAP_THRASH_THRASHING;
}
