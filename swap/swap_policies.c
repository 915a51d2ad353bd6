// SPDX-License-Identifier: BSD-2-Clause
/* swap.policy and swap.prefetch, built (swap/swap_policies.h). */
#include "swap/swap_policies.h"
#include "lib/string.h"

const char *swap_evict_kind_name(enum swap_evict_kind k)
{
	switch (k) {
	case SWAP_EVICT_CLOCK:
		return "clock";
	case SWAP_EVICT_FIFO:
		return "fifo";
	case SWAP_EVICT_RANDOM:
		return "random";
	case SWAP_EVICT_AGING:
		return "aging";
	}
	return "unknown";
}

const char *swap_prefetch_kind_name(enum swap_prefetch_kind k)
{
	switch (k) {
	case SWAP_PREFETCH_NONE:
		return "none";
	case SWAP_PREFETCH_SEQUENTIAL:
		return "sequential";
	case SWAP_PREFETCH_STRIDE:
		return "stride";
	}
	return "unknown";
}

static bool build_evict(struct swap_policies *sp, enum swap_evict_kind k,
			uint64_t npages, void *(*alloc)(size_t bytes))
{
	void *storage;

	switch (k) {
	case SWAP_EVICT_CLOCK:
		sp->evict = clock_policy(&sp->clock);
		return true;
	case SWAP_EVICT_RANDOM:
		sp->evict = random_policy(&sp->random, SWAP_RANDOM_POLICY_SEED);
		return true;
	case SWAP_EVICT_FIFO:
		storage = alloc(fifo_policy_storage(npages));
		if (!storage || !fifo_policy_init(&sp->fifo, storage, npages))
			return false;
		sp->evict = fifo_policy(&sp->fifo);
		return true;
	case SWAP_EVICT_AGING:
		storage = alloc(aging_policy_storage(npages));
		if (!storage)
			return false;
		aging_policy_init(&sp->aging, storage, npages);
		sp->evict = aging_policy(&sp->aging);
		return true;
	}
	return false;
}

bool swap_policies_build(struct swap_policies *sp, const struct swap_params *p,
			 uint64_t npages, void *(*alloc)(size_t bytes))
{
	unsigned depth = MIN(MAX(p->prefetch_depth, 1u), PREFETCH_MAX_PAGES);

	memset(sp, 0, sizeof(*sp));
	if (!build_evict(sp, p->policy, npages, alloc))
		return false;
	switch (p->prefetch) {
	case SWAP_PREFETCH_NONE:
		sp->prefetch = prefetch_none();
		return true;
	case SWAP_PREFETCH_SEQUENTIAL:
		sp->sequential.pages = depth;
		sp->prefetch = prefetch_sequential(&sp->sequential);
		return true;
	case SWAP_PREFETCH_STRIDE:
		sp->stride.pages = depth;
		sp->prefetch = prefetch_stride(&sp->stride);
		return true;
	}
	return false;
}
