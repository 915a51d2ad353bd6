// SPDX-License-Identifier: BSD-2-Clause
/* Random replacement (random_policy.h). */
#include "swap/policy/random_policy.h"

static uint64_t next_random(struct random_policy *r)
{
	r->state ^= r->state << 13;
	r->state ^= r->state >> 7;
	r->state ^= r->state << 17;
	return r->state;
}

static bool random_pick(void *self, const struct evict_history *h,
			uint64_t *budget, uint64_t *victim)
{
	struct random_policy *r = self;
	struct page_history seen;

	while (*budget && h->npages) {
		uint64_t page = next_random(r) % h->npages;

		(*budget)--;
		if (h->inspect(h->ctx, page, &seen)) {
			*victim = page;
			return true;
		}
	}
	return false;
}

const struct eviction_policy_ops random_policy_ops = {
	.name = "random",
	.pick_victim = random_pick,
};
