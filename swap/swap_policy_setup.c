// SPDX-License-Identifier: BSD-2-Clause
/*
 * swap.policy, swap.prefetch, swap.tier and swap.protect_kernel as the
 * paging daemon sets them up: memory from the hypervisor heap, the choice
 * said on the console (swap/swap_policies.h).
 */
#include "swap/swap_policies.h"
#include "lib/console.h"
#include "lib/heap.h"

static void setup_tier(struct swap_policies *sp, const struct swap_params *p,
		       bool verify)
{
	uint32_t nslots = (uint32_t)MIN(p->tier_size / TIER_SLOT_BYTES,
					UINT32_MAX);

	compressed_tier_init(&sp->tier,
			     hv_alloc(compressed_tier_storage(nslots, verify)),
			     nslots, verify);
	sp->has_tier = true;
	hv_info("swap: compressed tier (lz4): %llu MiB, %u slots of %u bytes; "
		"a page that does not shrink to one goes to the disk",
		(unsigned long long)(p->tier_size >> 20), nslots,
		(unsigned)TIER_SLOT_BYTES);
}

bool swap_policies_setup(struct swap_policies *sp, const struct swap_params *p,
			 const struct guest_ram_layout *ram, bool verify)
{
	uint64_t replay_skipped;
	char why[128];

	if (!swap_policies_build(sp, p, ram, hv_alloc, &replay_skipped, why,
				 sizeof(why))) {
		hv_error("swap: %s", why);
		return false;
	}
	if (p->prefetch == SWAP_PREFETCH_REPLAY)
		hv_info("swap: replaying a fault list of %llu pages "
			"(swap.prefetch_trace)%s",
			(unsigned long long)sp->replay.count,
			replay_skipped ? "; pages outside guest RAM left out" :
					 "");
	if (p->policy != SWAP_EVICT_CLOCK || p->prefetch != SWAP_PREFETCH_NONE)
		hv_info("swap: eviction policy %s, prefetch %s (depth %u)",
			swap_evict_kind_name(p->policy),
			swap_prefetch_kind_name(p->prefetch),
			p->prefetch == SWAP_PREFETCH_NONE ? 0 :
			MIN(MAX(p->prefetch_depth, 1u), PREFETCH_MAX_PAGES));
	if (p->tier == SWAP_TIER_LZ4)
		setup_tier(sp, p, verify);
	if (p->protect_kernel)
		hv_info("swap: pages the guest's kernel waited for are evicted "
			"last (swap.protect_kernel)");
	return true;
}
