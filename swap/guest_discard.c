// SPDX-License-Identifier: BSD-2-Clause
/*
 * guest_memory_discard (swap/guest_memory.h): pages the guest reported
 * free lose whatever holds them - a frame, a swap slot, a tier slot - and
 * are UNTOUCHED again. A resident page is taken as a victim is (unmapped,
 * RESIDENT -> WRITEBACK, then one flush for the batch) and, once no CPU
 * can reach its frame, dropped without a write (WRITEBACK -> UNTOUCHED).
 */
#include "swap/guest_memory_internal.h"

/* The page holds nothing of the guest's any more. */
static void forget(struct guest_memory *gm, uint64_t gfn)
{
	struct guest_page_meta *m = page_meta(gm, gfn);

	release_slot(gm, gfn);
	m->flags &= (uint8_t)~(GPM_LOST | GPM_PREFETCHED | GPM_KERNEL |
			       GPM_CANCEL);
	m->prefetch_spared = 0;
	m->discarded = 1;
	gm->stats.discarded++;
}

/* A page without a frame of its own, or one that must stay. */
static void discard_other(struct guest_memory *gm, uint64_t gfn,
			  struct guest_discard_result *r)
{
	struct guest_page_meta *m = page_meta(gm, gfn);

	switch (page_state(gm, gfn)) {
	case PAGE_UNTOUCHED:
		r->already_free++;
		return;
	case PAGE_SWAPPED:
		forget(gm, gfn);
		set_state(gm, gfn, PAGE_UNTOUCHED);
		r->dropped++;
		return;
	case PAGE_COMPRESSED:
		compressed_tier_drop(gm->tier, m->frame);
		forget(gm, gfn);
		set_state(gm, gfn, PAGE_UNTOUCHED);
		r->dropped++;
		return;
	default:
		/* A read or write in flight, or pinned: the I/O owns it. */
		r->kept++;
	}
}

static bool unmap_for_discard(struct guest_memory *gm, uint64_t gfn)
{
	struct ept_mapping old;

	if (page_state(gm, gfn) != PAGE_RESIDENT ||
	    (page_meta(gm, gfn)->flags & (GPM_PINNED | GPM_IO)) ||
	    ept_unmap(gm->ept, gfn_gpa(gfn), EPT_PAGE_4K, &old))
		return false;
	check_dirty(gm, gfn, old.dirty);
	set_state(gm, gfn, PAGE_WRITEBACK);
	return true;
}

/* Up to GUEST_EVICT_BATCH pages from gfn on: how many were looked at. */
static uint64_t discard_batch(struct guest_memory *gm, uint64_t gfn,
			      uint64_t pages, struct guest_discard_result *r)
{
	uint64_t batch[GUEST_EVICT_BATCH];
	unsigned n = 0;
	uint64_t seen = 0;

	for (; seen < pages && n < GUEST_EVICT_BATCH; seen++) {
		uint64_t g = gfn + seen;

		if (!guest_memory_is_ram(gm, gfn_gpa(g)))
			break;
		if (unmap_for_discard(gm, g))
			batch[n++] = g;
		else
			discard_other(gm, g, r);
	}
	if (!n)
		return seen;
	flush_translations(gm);
	for (unsigned i = 0; i < n; i++) {
		if (page_state(gm, batch[i]) != PAGE_WRITEBACK) {
			r->kept++;      /* a fault took it back meanwhile */
			continue;
		}
		forget(gm, batch[i]);
		drop_frame(gm, batch[i], PAGE_UNTOUCHED);
		r->dropped++;
	}
	return seen;
}

/* Pages from gfn (not RAM) up to the next RAM page, or to the end. */
static uint64_t not_ram_run(const struct guest_memory *gm, uint64_t gfn)
{
	uint64_t high = GUEST_RAM_HIGH_BASE >> PAGE_SHIFT;

	if (gfn < high && gm->ram.high_size)
		return high - gfn;
	return UINT64_MAX;
}

void guest_memory_discard(struct guest_memory *gm, uint64_t gpa,
			  uint64_t pages, struct guest_discard_result *r)
{
	uint64_t gfn = gpa >> PAGE_SHIFT;

	/* Past the guest-physical space (52 bits): none of it is RAM. */
	if (gfn >= (1ull << 40) || pages > (1ull << 40) - gfn) {
		r->outside_ram += pages;
		return;
	}
	if (!gm->meta || gm->evicting) {
		r->kept += pages;
		return;
	}
	gm->evicting = true;
	while (pages) {
		uint64_t done = discard_batch(gm, gfn, pages, r);

		if (!done) {
			/* Not RAM: skip to where RAM goes on, if it does. */
			done = MIN(pages, not_ram_run(gm, gfn));
			r->outside_ram += done;
		}
		gfn += done;
		pages -= done;
	}
	gm->evicting = false;
}
