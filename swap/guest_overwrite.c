// SPDX-License-Identifier: BSD-2-Clause
/*
 * guest_memory_overwrite (swap/guest_memory.h): a fault by a store that
 * replaces every byte of a page in swap needs none of the old bytes. The
 * page gets a fresh frame holding what the store leaves, its slot (or
 * tier slot) is freed, and no read is made: SWAPPED -> RESIDENT (or
 * COMPRESSED -> RESIDENT). The frame is filled before it is mapped, so no
 * other vCPU can see anything the store would not have written.
 */
#include "swap/guest_memory_internal.h"

static void fill_frame(void *frame, uint64_t fill)
{
	uint64_t *word = frame;

	for (unsigned i = 0; i < PAGE_SIZE / sizeof(*word); i++)
		word[i] = fill;
}

bool guest_memory_only_in_swap(const struct guest_memory *gm, uint64_t gpa)
{
	uint64_t gfn = gpa >> PAGE_SHIFT;
	enum guest_page_state s;

	if (!gm->meta || !guest_ram_contains(&gm->ram, gpa))
		return false;
	s = page_state(gm, gfn);
	if (page_meta(gm, gfn)->flags & (GPM_IO | GPM_LOST | GPM_PINNED))
		return false;
	return s == PAGE_SWAPPED || (s == PAGE_COMPRESSED && gm->tier);
}

enum guest_fault_result guest_memory_overwrite(struct guest_memory *gm,
					       uint64_t gpa, uint64_t fill)
{
	uint64_t gfn = gpa >> PAGE_SHIFT;
	struct guest_page_meta *m;
	bool from_tier;
	uint64_t hpa;

	if (!guest_memory_only_in_swap(gm, gpa))
		return GUEST_FAULT_WAIT_IO;
	gm->stats.faults++;
	if (!frame_pool_alloc(gm->pool, &hpa)) {
		gm->stats.no_frame++;
		return GUEST_FAULT_NO_FRAME;
	}
	fill_frame(frame_ptr(gm, hpa), fill);
	if (map_frame(gm, gfn, hpa)) {
		frame_pool_free(gm->pool, hpa);
		return GUEST_FAULT_INTERNAL_ERROR;
	}
	m = page_meta(gm, gfn);
	from_tier = page_state(gm, gfn) == PAGE_COMPRESSED;
	if (from_tier)
		compressed_tier_drop(gm->tier, m->frame);
	release_slot(gm, gfn);
	m->flags &= (uint8_t)~(GPM_PREFETCHED | GPM_CANCEL);
	m->prefetch_spared = 0;
	m->discarded = 0;
	m->frame = (uint32_t)(hpa >> PAGE_SHIFT);
	set_state(gm, gfn, PAGE_RESIDENT);
	gm->stats.overwrites++;
	gm->stats.overwrites_from_tier += from_tier;
	if (gm->fault_listeners)
		policies_see_fault(gm, gfn, GUEST_FAULT_RESOLVED);
	return GUEST_FAULT_RESOLVED;
}
