/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Swap slots: which page-sized slots of the swap area hold a guest page.
 * Slots are numbered 0..nslots-1; where slot 0 lies on the device (after
 * the area's header) is the caller's business. Pure C: the caller
 * serializes access (the guest lock).
 */
#ifndef SWAP_SWAP_SLOTS_H
#define SWAP_SWAP_SLOTS_H

#include "lib/errors.h"
#include "lib/types.h"

struct swap_slots {
	uint64_t *used;         /* bitmap, 1 = in use or retired */
	uint64_t *retired_map;  /* bitmap, 1 = retired; follows used */
	uint32_t nslots;
	uint32_t nwords;
	uint32_t hint;          /* word where the next search starts */
	uint32_t in_use;        /* allocated, not retired */
	uint32_t peak;
	uint32_t retired;       /* slots never to be handed out again */
	uint64_t allocs;
	uint64_t frees;
	uint64_t full;          /* allocations refused: no free slot */
	uint64_t bad_frees;     /* frees of a free or nonexistent slot */
};

/* uint64_t words of storage swap_slots_init needs for nslots slots. */
uint64_t swap_slots_storage_words(uint32_t nslots);

/*
 * storage holds swap_slots_storage_words(nslots) words, in any state: the
 * map of used slots, then the map of retired ones.
 */
void swap_slots_init(struct swap_slots *s, uint64_t *storage, uint32_t nslots);

/*
 * Takes a free slot; false when every slot is in use. Next fit: the search
 * starts where the last one ended, so consecutive evictions get nearby slots
 * (the device sees writes that are close together) and a run of frees does
 * not make the next allocations scan the whole map.
 */
bool swap_slots_alloc(struct swap_slots *s, uint32_t *slot);

/*
 * Returns a slot: HV_OK, or HV_ERR_NOT_FOUND if it was not in use (a double
 * free, or no such slot): the map is left as it was and bad_frees counts it.
 */
enum hv_err swap_slots_free(struct swap_slots *s, uint32_t slot);

/* True for a slot allocated and not retired. */
bool swap_slots_is_used(const struct swap_slots *s, uint32_t slot);

/*
 * Takes an allocated slot out of service for good, e.g. after a write to it
 * failed: swap_slots_alloc never returns it again and swap_slots_free
 * refuses it. Returns HV_OK, or HV_ERR_NOT_FOUND (counted in bad_frees) when
 * the slot was not allocated.
 */
enum hv_err swap_slots_retire(struct swap_slots *s, uint32_t slot);

/* Slots that swap_slots_alloc can still hand out. */
static inline uint32_t swap_slots_free_count(const struct swap_slots *s)
{
	return s->nslots - s->in_use - s->retired;
}

#endif
