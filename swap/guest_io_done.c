// SPDX-License-Identifier: BSD-2-Clause
/*
 * guest_memory_io_done (swap/guest_memory.h): a write or read of a guest
 * page has ended, well or not. A write that worked leaves the page
 * SWAPPED (or, if the guest took it back meanwhile, RESIDENT with the
 * copy kept unless the hypervisor wrote it); a failed one is tried again
 * on a fresh slot, the failed slot retired. A read that worked maps the
 * page; a failed one is tried again from the same slot, then the page is
 * lost. The vCPUs waiting for the page hear of it (page_settled).
 */
#include "swap/guest_memory_internal.h"

/* The vCPUs waiting for gfn's I/O may retry (swap_io_ops.page_settled). */
static void settled(struct guest_memory *gm, uint64_t gfn, bool resident)
{
	if (gm->io.page_settled)
		gm->io.page_settled(gm->io.ctx, gfn, resident);
}

/* A slot a write failed on: never handed out again. */
static void retire_slot(struct guest_memory *gm, struct guest_page_meta *m)
{
	swap_slots_retire(gm->slots, m->slot);
	m->flags &= (uint8_t)~(GPM_SLOT | GPM_SWAP_VALID);
	gm->stats.slots_retired++;
}

/*
 * A write has ended (ok or given up): the page leaves WRITEBACK, for swap
 * or, given up, back to the guest.
 */
static enum hv_err write_done(struct guest_memory *gm, uint64_t gfn, bool ok)
{
	struct guest_page_meta *m = page_meta(gm, gfn);

	m->tries = 0;
	if (ok) {
		m->flags |= GPM_SWAP_VALID;
		drop_frame(gm, gfn, PAGE_SWAPPED);
		gm->stats.swap_outs++;
		return HV_OK;
	}
	release_slot(gm, gfn);
	gm->stats.write_failures++;
	return map_kept_frame(gm, gfn);
}

/*
 * The write of a page the guest took back while it was in flight
 * (fault_writeback) has ended; the page stays resident. The slot keeps the
 * copy if the write held and the hypervisor did not write the page since
 * (GPM_CANCEL); a write by the guest shows in the dirty bit, which frees
 * the copy later (check_dirty). A failed slot is retired without a retry:
 * the next eviction writes the page afresh.
 */
static void written_while_mapped(struct guest_memory *gm, uint64_t gfn,
				 bool ok)
{
	struct guest_page_meta *m = page_meta(gm, gfn);

	m->tries = 0;
	if (!ok) {
		retire_slot(gm, m);
		gm->stats.write_failures++;
	} else if (m->flags & GPM_CANCEL) {
		m->flags |= GPM_SWAP_VALID;
	} else {
		release_slot(gm, gfn);
	}
	m->flags &= (uint8_t)~GPM_CANCEL;
}

/*
 * A write failed. The slot may have a bad sector: it is retired, never to
 * be handed out again, and the write goes to a fresh slot. The frame still
 * holds the page (unmapped since the flush, nothing can change it).
 */
static enum hv_err write_failed(struct guest_memory *gm, uint64_t gfn)
{
	struct guest_page_meta *m = page_meta(gm, gfn);

	retire_slot(gm, m);
	if (++m->tries < GUEST_IO_TRIES && take_swap_slot(gm, gfn, NULL)) {
		gm->stats.io_retries++;
		submit_io(gm, gfn, SWAP_IO_WRITE);
		return HV_OK;
	}
	return write_done(gm, gfn, false);
}

/*
 * A read has ended. A page whose read failed is never mapped: its frame
 * may hold part of the slot, or nothing. It stays SWAPPED, marked lost,
 * and every fault on it answers GUEST_FAULT_IO_ERROR.
 */
static enum hv_err read_done(struct guest_memory *gm, uint64_t gfn, bool ok)
{
	struct guest_page_meta *m = page_meta(gm, gfn);
	enum hv_err err;

	m->tries = 0;
	if (!ok) {
		m->flags |= GPM_LOST;
		drop_frame(gm, gfn, PAGE_SWAPPED);
		gm->stats.read_failures++;
		settled(gm, gfn, false);
		return HV_OK;
	}
	gm->stats.swap_ins++;
	err = map_kept_frame(gm, gfn);
	if (err)
		return err;
	settled(gm, gfn, true);
	return HV_OK;
}

/* A failed read is retried from the same slot: the page is only there. */
static bool read_retried(struct guest_memory *gm, uint64_t gfn)
{
	if (++page_meta(gm, gfn)->tries >= GUEST_IO_TRIES)
		return false;
	gm->stats.io_retries++;
	submit_io(gm, gfn, SWAP_IO_READ);
	return true;
}

enum hv_err guest_memory_io_done(struct guest_memory *gm, uint64_t id,
				 bool ok)
{
	uint64_t gfn = id >> 16;
	struct guest_page_meta *m;
	bool write;

	if (!gm->meta || !guest_ram_contains(&gm->ram, gfn_gpa(gfn)) ||
	    !(page_meta(gm, gfn)->flags & GPM_IO) ||
	    page_meta(gm, gfn)->io_tag != (uint16_t)id) {
		gm->stats.stale_completions++;
		return HV_ERR_NOT_FOUND;
	}
	m = page_meta(gm, gfn);
	m->flags &= (uint8_t)~GPM_IO;
	gm->io_in_flight--;
	if (page_state(gm, gfn) == PAGE_RESIDENT) {
		if (!ok)
			gm->stats.io_errors++;
		written_while_mapped(gm, gfn, ok);
		return HV_OK;
	}
	write = page_state(gm, gfn) == PAGE_WRITEBACK;
	if (!ok) {
		gm->stats.io_errors++;
		if (write)
			return write_failed(gm, gfn);
		if (read_retried(gm, gfn))
			return HV_OK;
	}
	return write ? write_done(gm, gfn, ok) : read_done(gm, gfn, ok);
}
