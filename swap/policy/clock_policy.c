// SPDX-License-Identifier: BSD-2-Clause
/* CLOCK over the engine's accessed bits (swap/policy/clock_policy.h). */
#include "swap/policy/clock_policy.h"

/*
 * While the swap area is full, inspect turns down a page that would need a
 * write before its accessed bit is looked at: however cold, it cannot go,
 * and its bit is left for a later round.
 */
static bool clock_pick(void *self, const struct evict_history *h,
		       uint64_t *budget, uint64_t *victim)
{
	struct clock_policy *c = self;

	while (*budget) {
		uint64_t page = c->hand;
		struct page_history seen;

		c->hand = c->hand + 1 >= h->npages ? 0 : c->hand + 1;
		(*budget)--;
		if (!h->inspect(h->ctx, page, &seen))
			continue;
		if (seen.accessed && h->clear_accessed(h->ctx, page))
			continue;
		*victim = page;
		return true;
	}
	return false;
}

const struct eviction_policy_ops clock_policy_ops = {
	.name = "clock",
	.pick_victim = clock_pick,
};
