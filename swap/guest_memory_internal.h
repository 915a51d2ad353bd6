/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers shared by swap/guest_memory.c (faults, writes),
 * swap/guest_swap.c (eviction, I/O completions) and swap/guest_policy.c
 * (the policies' events). Not for other callers: every state change goes
 * through set_state here.
 */
#ifndef SWAP_GUEST_MEMORY_INTERNAL_H
#define SWAP_GUEST_MEMORY_INTERNAL_H

#include "swap/guest_memory.h"

/* The page's state; gfn must be RAM. */
static inline enum guest_page_state page_state(const struct guest_memory *gm,
					       uint64_t gfn)
{
	return (enum guest_page_state)gm->state[guest_memory_index(gm, gfn)];
}

/* The page's swap metadata; gfn must be RAM and swap on. */
static inline struct guest_page_meta *page_meta(const struct guest_memory *gm,
						uint64_t gfn)
{
	return &gm->meta[guest_memory_index(gm, gfn)];
}

/* A move that swap/page_state.h does not list: counted, reported. */
__attribute__((cold))
void illegal_transition(struct guest_memory *gm, uint64_t gfn,
			enum guest_page_state from, enum guest_page_state to);

/* What the eviction policy hears of page i's move (eviction_policy.h). */
static inline void tell_eviction_policy(const struct guest_memory *gm,
					uint64_t i,
					enum guest_page_state from,
					enum guest_page_state to)
{
	/* CLOCK hears nothing of moves: every state change skips the rest. */
	if (!gm->evict_listens)
		return;
	if (to == PAGE_RESIDENT && from == PAGE_SWAPIN)
		eviction_policy_swapped_in(&gm->evict, i);
	else if (to == PAGE_RESIDENT)
		eviction_policy_mapped(&gm->evict, i);
	else if (to == PAGE_WRITEBACK)
		eviction_policy_evicted(&gm->evict, i);
}

/*
 * The one place where a page changes state: checks the move against
 * swap/page_state.h, counts it and tells the eviction policy. i is gfn's
 * index (guest_memory_index), for a caller that has it at hand already.
 */
static inline void set_state_at(struct guest_memory *gm, uint64_t i,
				uint64_t gfn, enum guest_page_state to)
{
	enum guest_page_state from = (enum guest_page_state)gm->state[i];

	if (__builtin_expect(!guest_page_transition_ok(from, to), 0)) {
		illegal_transition(gm, gfn, from, to);
		if ((unsigned)from >= GUEST_PAGE_STATES)
			from = to;      /* a byte no state: count nothing */
	}
	gm->stats.transitions[from][to]++;
	gm->count[from]--;
	gm->count[to]++;
	gm->state[i] = (uint8_t)to;
	/* A page newly resident may be evictable: end a swap-full stall. */
	if (to == PAGE_RESIDENT)
		gm->idle_scan = 0;
	tell_eviction_policy(gm, i, from, to);
}

static inline void set_state(struct guest_memory *gm, uint64_t gfn,
			     enum guest_page_state to)
{
	set_state_at(gm, guest_memory_index(gm, gfn), gfn, to);
}

static inline uint64_t gfn_gpa(uint64_t gfn)
{
	return gfn << PAGE_SHIFT;
}

static inline uint64_t meta_frame_pa(const struct guest_page_meta *m)
{
	return (uint64_t)m->frame << PAGE_SHIFT;
}

static inline void *frame_ptr(const struct guest_memory *gm, uint64_t pa)
{
	return gm->ept->mem.phys_to_virt(gm->ept->mem.ctx, pa);
}

/*
 * Maps gfn to frame pa read/write/execute; HV_OK or ept_map's error. The
 * accessed bit starts set: the page is mapped because the guest is about
 * to use it (a fault, a swap-in, a cancelled eviction), so CLOCK must not
 * take it before one round has passed. The dirty bit starts clear, which
 * the dirty-bit rule of guest_swap.c relies on.
 */
static inline enum hv_err map_frame(struct guest_memory *gm, uint64_t gfn,
				    uint64_t pa)
{
	return ept_map(gm->ept, gfn_gpa(gfn), pa, EPT_PAGE_4K,
		       EPT_RWX | EPT_ACCESSED);
}

/*
 * A page read ahead (GPM_PREFETCHED) leaves that mark the first time the
 * guest is seen to want it (used) or when it is evicted untouched
 * (wasted).
 */
static inline void prefetch_touched(struct guest_memory *gm,
				    struct guest_page_meta *m, bool used)
{
	if (!(m->flags & GPM_PREFETCHED))
		return;
	m->flags &= (uint8_t)~GPM_PREFETCHED;
	if (used)
		gm->stats.prefetch_used++;
	else
		gm->stats.prefetch_wasted++;
}

/*
 * -> RESIDENT with the frame the page kept while unmapped (WRITEBACK, or
 * SWAPIN once read). The mapping cannot fail in practice: the page was
 * mapped before, so its tables exist. Should it fail, the page stays as it
 * was with no I/O in flight, and the next fault on it tries again.
 * HV_OK, or map_frame's error.
 */
static inline enum hv_err map_kept_frame(struct guest_memory *gm, uint64_t gfn)
{
	const struct guest_page_meta *m = page_meta(gm, gfn);
	/*
	 * A page read ahead is mapped with its accessed bit clear: only the
	 * guest's use sets it, which tells a prefetch used from one wasted.
	 */
	enum hv_err err = m->flags & GPM_PREFETCHED ?
		ept_map(gm->ept, gfn_gpa(gfn), meta_frame_pa(m), EPT_PAGE_4K,
			EPT_RWX) :
		map_frame(gm, gfn, meta_frame_pa(m));

	if (err)
		return err;
	set_state(gm, gfn, PAGE_RESIDENT);
	return HV_OK;
}

/* The page's swap copy is stale or unwanted: give its slot back. */
void release_slot(struct guest_memory *gm, uint64_t gfn);

/*
 * The dirty bit read as the page was unmapped: a valid swap copy is stale
 * then, and its slot goes (a fault may map the frame again before the
 * page leaves, and that mapping starts clean).
 */
void check_dirty(struct guest_memory *gm, uint64_t gfn, bool dirty);

/* The page's frame goes back to the pool (or the quarantine); state to. */
void drop_frame(struct guest_memory *gm, uint64_t gfn,
		enum guest_page_state to);

/*
 * A swap slot for gfn's write (res may be NULL); false when the area is
 * full (noted as such).
 */
bool take_swap_slot(struct guest_memory *gm, uint64_t gfn,
		    struct guest_evict_result *res);

/* After unmapping: no CPU uses a stale translation once this returns. */
void flush_translations(struct guest_memory *gm);

/* Hands one I/O of gfn to the caller, with a fresh id. */
void submit_io(struct guest_memory *gm, uint64_t gfn, enum swap_io_op op);

/* SWAPPED -> SWAPIN: a frame for the page and a read into it. */
enum guest_fault_result start_swapin(struct guest_memory *gm, uint64_t gfn);

/*
 * After a fault on RAM page gfn answered r: the eviction policy hears of
 * it, the prefetch policy may have more pages read (swap/guest_policy.c).
 */
void policies_see_fault(struct guest_memory *gm, uint64_t gfn,
			enum guest_fault_result r);

#endif
