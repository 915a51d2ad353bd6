/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Which resident page goes next: the seam between the swap engine
 * (swap/guest_swap.c, which unmaps, flushes, writes and frees) and a
 * replacement policy (CLOCK today, swap/policy/clock_policy.c).
 *
 * A policy sees pages by index, 0 to npages - 1 (the order of the engine's
 * per-page arrays, guest_memory_index), never a page's state or metadata:
 * what it knows comes from the engine's history (the EPT accessed and
 * dirty bits, through struct evict_history) and from the events below.
 * Linux's reclaim has the same split: the LRU lists decide, shrink_folio_list
 * does the work (mm/vmscan.c).
 *
 * The engine calls, with the guest lock held:
 *   pick_victim   once per victim it wants, during an evict step
 *   on_fault      after each guest fault on a RAM page
 *   on_map        a page became resident without a read: its first touch,
 *                 or an eviction undone (cancelled by a fault, or the page
 *                 put back: no free slot, or its write failed)
 *   on_evict      a page the policy picked left the guest's reach
 *                 (unmapped; it may still come back through on_map)
 *   on_swap_in    a page was read back from swap and mapped
 * Any event may be NULL: not wanted.
 */
#ifndef SWAP_POLICY_EVICTION_POLICY_H
#define SWAP_POLICY_EVICTION_POLICY_H

#include "lib/types.h"

/* The hardware's record of one page, as inspect found it. */
struct page_history {
	bool accessed;          /* EPT accessed bit: used since last cleared */
	bool dirty;             /* EPT dirty bit: written since mapped clean */
};

/* What the engine lets a policy look at and change while it picks. */
struct evict_history {
	uint64_t npages;
	/*
	 * Looks at page: true when it could be evicted now (resident,
	 * mapped, not pinned, and not held back by a full swap area), with
	 * its bits in *h; false: not a candidate, leave it.
	 */
	bool (*inspect)(void *ctx, uint64_t page, struct page_history *h);
	/*
	 * Clears the page's accessed bit; true when it was set. The bit
	 * cleared reaches the vCPUs' TLBs with the batch's flush, so the
	 * next look sees only accesses made after it.
	 */
	bool (*clear_accessed)(void *ctx, uint64_t page);
	void *ctx;
};

struct eviction_policy_ops {
	const char *name;
	/*
	 * The next victim in *victim, a page inspect called a candidate;
	 * false when none was found. Every page looked at, candidate or
	 * not, takes one from *budget, and none is looked at once it is 0:
	 * the engine bounds the time a step holds the guest lock this way.
	 */
	bool (*pick_victim)(void *self, const struct evict_history *h,
			    uint64_t *budget, uint64_t *victim);
	/* swap_in: the fault started a read of the page (a major fault). */
	void (*on_fault)(void *self, uint64_t page, bool swap_in);
	void (*on_map)(void *self, uint64_t page);
	void (*on_evict)(void *self, uint64_t page);
	void (*on_swap_in)(void *self, uint64_t page);
};

/* One policy: its operations and its own state. */
struct eviction_policy {
	const struct eviction_policy_ops *ops;
	void *self;
};

static inline bool eviction_policy_pick(const struct eviction_policy *p,
					const struct evict_history *h,
					uint64_t *budget, uint64_t *victim)
{
	return p->ops->pick_victim(p->self, h, budget, victim);
}

/* True when the policy wants to hear of maps, evictions or swap-ins. */
static inline bool eviction_policy_listens(const struct eviction_policy *p)
{
	return p->ops->on_map || p->ops->on_evict || p->ops->on_swap_in;
}

static inline void eviction_policy_fault(const struct eviction_policy *p,
					 uint64_t page, bool swap_in)
{
	if (p->ops->on_fault)
		p->ops->on_fault(p->self, page, swap_in);
}

static inline void eviction_policy_mapped(const struct eviction_policy *p,
					  uint64_t page)
{
	if (p->ops->on_map)
		p->ops->on_map(p->self, page);
}

static inline void eviction_policy_evicted(const struct eviction_policy *p,
					   uint64_t page)
{
	if (p->ops->on_evict)
		p->ops->on_evict(p->self, page);
}

static inline void eviction_policy_swapped_in(const struct eviction_policy *p,
					      uint64_t page)
{
	if (p->ops->on_swap_in)
		p->ops->on_swap_in(p->self, page);
}

#endif
