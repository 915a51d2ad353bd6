// SPDX-License-Identifier: BSD-2-Clause
/* The prefetch policies of swap/policy/prefetch_policy.h. */
#include "swap/policy/prefetch_policy.h"

const struct prefetch_policy_ops prefetch_none_ops = {
	.name = "none",
};

static unsigned sequential_fault(void *self, uint64_t page, bool swap_in,
				 uint64_t *more, unsigned room)
{
	const struct prefetch_sequential *s = self;
	unsigned n = MIN(MIN(s->pages, room), PREFETCH_MAX_PAGES);

	if (!swap_in)
		return 0;
	for (unsigned i = 0; i < n; i++)
		more[i] = page + 1 + i;
	return n;
}

const struct prefetch_policy_ops prefetch_sequential_ops = {
	.name = "sequential",
	.on_fault = sequential_fault,
};
