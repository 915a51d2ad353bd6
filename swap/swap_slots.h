/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Swap slots: which page-sized slots of the swap area hold a guest page.
 * Slots are numbered 0..nslots-1; where slot 0 lies on the device (after
 * the area's header) is the caller's business. Pure C: the caller
 * serializes access (the guest lock).
 */
#ifndef SWAP_SWAP_SLOTS_H
#define SWAP_SWAP_SLOTS_H

#include "lib/types.h"

struct swap_slots {
	uint64_t *used;         /* bitmap, 1 = in use; caller's storage */
	uint32_t nslots;
	uint32_t nwords;
	uint32_t hint;          /* word where the next search starts */
	uint32_t in_use;
	uint32_t peak;
	uint64_t allocs;
	uint64_t frees;
	uint64_t full;          /* allocations refused: no free slot */
	uint64_t bad_frees;     /* frees of a free or nonexistent slot */
};

/* uint64_t words of storage swap_slots_init needs for nslots slots. */
uint64_t swap_slots_storage_words(uint32_t nslots);

/* storage holds swap_slots_storage_words(nslots) words, in any state. */
void swap_slots_init(struct swap_slots *s, uint64_t *storage, uint32_t nslots);

/*
 * Takes a free slot; false when every slot is in use. Next fit: the search
 * starts where the last one ended, so consecutive evictions get nearby slots
 * (the device sees writes that are close together) and a run of frees does
 * not make the next allocations scan the whole map.
 */
bool swap_slots_alloc(struct swap_slots *s, uint32_t *slot);

/*
 * Returns a slot: 0, or -1 if it was not in use (a double free, or no such
 * slot): the map is left as it was and bad_frees counts it.
 */
int swap_slots_free(struct swap_slots *s, uint32_t slot);

bool swap_slots_is_used(const struct swap_slots *s, uint32_t slot);

#endif
