/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * debug.swap_verify: the paging daemon checksums every page it writes to
 * swap and checks it again where a wrong page would otherwise go unseen:
 * when it comes back from the device, and when a page whose EPT dirty bit
 * stayed clear is about to be dropped as clean. Plain C over the frames'
 * host mapping; the daemon decides what a failed check does.
 */
#ifndef SWAP_SWAP_VERIFY_H
#define SWAP_SWAP_VERIFY_H

#include "ept/ept.h"
#include "lib/guest_ram.h"
#include "lib/types.h"

struct swap_verify {
	const struct ept_memory *frames;        /* host view of the frames */
	struct guest_ram_layout ram;            /* for PTE guesses */
	/*
	 * Per guest page (by guest_ram_page_index): the checksum last written (0: none), and the same
	 * with bits 5 and 6 of every word left out (where x86 page-table
	 * entries keep their accessed and dirty flags).
	 */
	uint64_t *sums, *sums_no_ad;
};

/* Allocates the checksum tables for the pages of ram. */
void swap_verify_init(struct swap_verify *v, const struct ept_memory *frames,
		      const struct guest_ram_layout *ram);

/* Page gfn is being written to swap from the frame at frame_pa. */
void swap_verify_written(struct swap_verify *v, uint64_t gfn,
			 uint64_t frame_pa);

/*
 * Page gfn came back from slot into frame_pa: false (after one error line
 * naming the page) when it is not what was written.
 */
bool swap_verify_read(const struct swap_verify *v, uint64_t gfn,
		      uint32_t slot, uint64_t frame_pa);

/*
 * Page gfn in frame_pa is about to be dropped as clean: false (after one
 * line saying what changed) when it differs from what was written, so a
 * write reached it without setting the EPT dirty bit.
 */
bool swap_verify_clean(const struct swap_verify *v, uint64_t gfn,
		       uint64_t frame_pa);

#endif
