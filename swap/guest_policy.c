// SPDX-License-Identifier: BSD-2-Clause
/*
 * The engine's side of the policy seams (swap/policy/): what the policies
 * hear of faults, the pages a prefetch policy asks for, and the moves that
 * the page-state machine (swap/page_state.h) does not allow. Victims are
 * picked in swap/guest_swap.c, state changes told in set_state.
 */
#include "lib/console.h"
#include "swap/guest_memory_internal.h"

void illegal_transition(struct guest_memory *gm, uint64_t gfn,
			enum guest_page_state from, enum guest_page_state to)
{
	/* The first one says where; the count tells of the rest. */
	if (gm->stats.illegal_transitions++)
		return;
	hv_error("swap: gpa 0x%llx moved from %s to %s, which no rule "
		 "allows (pages.illegal_transitions counts them)",
		 (unsigned long long)gfn_gpa(gfn), guest_page_state_name(from),
		 guest_page_state_name(to));
}

/*
 * A read ahead of the guest: only of a page in swap and readable, and only
 * while the pool keeps more than its low watermark, so that a prefetch
 * never makes the daemon evict. False: refused for lack of free frames.
 */
static bool prefetch_page(struct guest_memory *gm, uint64_t page)
{
	uint64_t gfn;

	if (page >= gm->npages)
		return true;
	gfn = guest_memory_index_gfn(gm, page);
	if (page_state(gm, gfn) != PAGE_SWAPPED ||
	    (page_meta(gm, gfn)->flags & (GPM_LOST | GPM_IO)))
		return true;
	if (gm->pool->nfree <= gm->low_free)
		return false;
	if (start_swapin(gm, gfn) == GUEST_FAULT_SWAPIN_STARTED) {
		page_meta(gm, gfn)->flags |= GPM_PREFETCHED;
		page_meta(gm, gfn)->prefetch_spared = 0;
		gm->stats.prefetch_reads++;
	}
	return true;
}

/*
 * The pages a prefetch policy asked for, in its order, up to the first
 * one refused for lack of frames. A policy that takes refused pages back
 * hears where that was, and the daemon frees frames for them up to the
 * high watermark (guest_memory_needs_eviction).
 */
static void prefetch_pages(struct guest_memory *gm, const uint64_t *more,
			   unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (prefetch_page(gm, more[i]))
			continue;
		gm->stats.prefetch_refused += n - i;
		if (prefetch_policy_resumes(&gm->prefetch)) {
			prefetch_policy_refused(&gm->prefetch, i);
			gm->prefetch_starved = true;
		}
		return;
	}
}

void policies_see_fault(struct guest_memory *gm, uint64_t gfn,
			enum guest_fault_result r)
{
	uint64_t page = guest_memory_index(gm, gfn);
	bool swap_in = r == GUEST_FAULT_SWAPIN_STARTED;
	uint64_t more[PREFETCH_MAX_PAGES];
	unsigned n;

	/* Without swap there is nothing to evict or read. */
	if (!gm->meta)
		return;
	eviction_policy_fault(&gm->evict, page, swap_in);
	n = prefetch_policy_fault(&gm->prefetch, page, swap_in, more,
				  PREFETCH_MAX_PAGES);
	prefetch_pages(gm, more, n);
}

void guest_memory_resume_prefetch(struct guest_memory *gm)
{
	uint64_t more[PREFETCH_MAX_PAGES];
	unsigned n;

	if (!gm->meta || !gm->prefetch_starved ||
	    gm->pool->nfree <= gm->low_free)
		return;
	gm->prefetch_starved = false;
	n = prefetch_policy_frames(&gm->prefetch, more, PREFETCH_MAX_PAGES);
	gm->stats.prefetch_resumed += n;
	prefetch_pages(gm, more, n);
}
