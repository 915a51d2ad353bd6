// SPDX-License-Identifier: BSD-2-Clause
/* swap.policy and swap.prefetch, built (swap/swap_policies.h). */
#include "swap/swap_policies.h"
#include "swap/policy/fault_list.h"
#include "lib/format.h"
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
	case SWAP_PREFETCH_REPLAY:
		return "replay";
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

/* replay: the fault list parsed, its pages turned into page indexes. */
static bool build_replay(struct swap_policies *sp, const struct swap_params *p,
			 const struct guest_ram_layout *ram, unsigned depth,
			 void *(*alloc)(size_t bytes), uint64_t *skipped,
			 char *err, size_t err_len)
{
	uint64_t npages = guest_ram_pages(ram), kept = 0;
	size_t room = fault_list_max_pages(p->replay_list_len);
	uint64_t *order;
	uint32_t *position;
	long n;

	if (!p->replay_list) {
		fmt_snprintf(err, err_len, "swap.prefetch = replay needs "
			     "swap.prefetch_trace");
		return false;
	}
	order = alloc(room * sizeof(*order));
	position = alloc(npages * sizeof(*position));
	if (!order || !position) {
		fmt_snprintf(err, err_len, "no memory for the fault list");
		return false;
	}
	n = fault_list_parse(p->replay_list, p->replay_list_len, order, room,
			     err, err_len);
	if (n < 0)
		return false;
	for (long i = 0; i < n; i++) {
		uint64_t gfn = order[i];

		if (gfn > (UINT64_MAX >> PAGE_SHIFT) ||
		    !guest_ram_contains(ram, gfn << PAGE_SHIFT))
			continue;
		order[kept++] = guest_ram_page_index(ram, gfn);
	}
	*skipped = (uint64_t)n - kept;
	if (!prefetch_replay_init(&sp->replay, order, kept, position, npages,
				  depth)) {
		fmt_snprintf(err, err_len, "the fault list is too long");
		return false;
	}
	sp->prefetch = prefetch_replay(&sp->replay);
	return true;
}

bool swap_policies_build(struct swap_policies *sp, const struct swap_params *p,
			 const struct guest_ram_layout *ram,
			 void *(*alloc)(size_t bytes), uint64_t *replay_skipped,
			 char *err, size_t err_len)
{
	unsigned depth = MIN(MAX(p->prefetch_depth, 1u), PREFETCH_MAX_PAGES);
	uint64_t npages = guest_ram_pages(ram);

	memset(sp, 0, sizeof(*sp));
	*replay_skipped = 0;
	if (!build_evict(sp, p->policy, npages, alloc)) {
		fmt_snprintf(err, err_len, "the %s eviction policy cannot be set "
			     "up for a guest of %llu pages",
			     swap_evict_kind_name(p->policy),
			     (unsigned long long)npages);
		return false;
	}
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
	case SWAP_PREFETCH_REPLAY:
		return build_replay(sp, p, ram, depth, alloc, replay_skipped, err,
				    err_len);
	}
	fmt_snprintf(err, err_len, "unknown swap.prefetch");
	return false;
}
