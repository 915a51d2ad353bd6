// SPDX-License-Identifier: BSD-2-Clause
/*
 * The paging daemon's side of guest pages: letting the eviction policy
 * choose victims (CLOCK unless told otherwise: swap/policy/) from the EPT
 * accessed and dirty bits, deciding what each needs (nothing, or a write),
 * and starting their writes. Faults are in swap/guest_memory.c, the I/O
 * completions in swap/guest_io_done.c.
 *
 * An eviction has two halves around one flush per batch. First the victims
 * are unmapped (RESIDENT -> WRITEBACK): the dirty bit read atomically with
 * the unmap is final, since a CPU holding a translation with the bit clear
 * must update the entry to set it (SDM Vol. 3C, "Accessed and Dirty Flags
 * for EPT"), finds it not present, and exits. Then, after the flush, no
 * CPU can write the frames through a stale translation any more, so the
 * contents can be judged (all zero?) and written, and frames freed.
 *
 * The swap copy of a page goes stale when the guest writes the page. A
 * write through a present EPT entry gives no exit, only the dirty bit, so
 * the rule is: the page's slot is freed when the daemon finds the dirty bit
 * set while the copy is valid - as the eviction policy looks at the page,
 * or when it unmaps it - and a later eviction writes it to a new slot. The
 * bit is never cleared on a mapped page (that would need a flush to be
 * reliable): every mapping of a page with a valid copy starts with the bit
 * clear (a swap-in, or a cancelled eviction). Writes by the
 * hypervisor do not set the bit; guest_memory_write frees the slot itself.
 */
#include "lib/checksum.h"
#include "lib/console.h"
#include "swap/guest_memory_internal.h"

/* Free frames, counting those that writes in flight will free. */
static uint64_t free_frames(const struct guest_memory *gm)
{
	return gm->pool->nfree + gm->count[PAGE_WRITEBACK];
}

bool guest_memory_needs_eviction(const struct guest_memory *gm)
{
	uint64_t free = free_frames(gm);

	/*
	 * A prefetch refused for frames wants them up to high_free, while
	 * evicting is cheap: not when only writes could free them and the
	 * swap area is full.
	 */
	return gm->meta && (free < gm->low_free ||
			    (gm->prefetch_starved && !gm->swap_full &&
			     free < gm->high_free));
}

static bool frame_is_zero(const struct guest_memory *gm, uint64_t pa)
{
	const uint64_t *w = frame_ptr(gm, pa);

	for (unsigned i = 0; i < PAGE_SIZE / sizeof(*w); i++)
		if (w[i])
			return false;
	return true;
}

void check_dirty(struct guest_memory *gm, uint64_t gfn, bool dirty)
{
	if (dirty && (page_meta(gm, gfn)->flags & GPM_SWAP_VALID)) {
		release_slot(gm, gfn);
		gm->stats.slots_freed_dirty++;
	}
}

/*
 * While the swap area is full, a page that would need a write cannot go.
 * The contents are only peeked at here (the guest may still change them);
 * the real check comes after the flush.
 */
static bool unevictable_now(const struct guest_memory *gm, uint64_t gfn)
{
	const struct guest_page_meta *m = page_meta(gm, gfn);

	return gm->swap_full && !(m->flags & GPM_SWAP_VALID) &&
	       !frame_is_zero(gm, meta_frame_pa(m));
}

/* The policy looked at a page with nothing to evict (counted while full). */
static void note_idle(struct guest_memory *gm)
{
	if (gm->swap_full)
		gm->idle_scan++;
}

/*
 * The history the eviction policy picks from (swap/policy/eviction_policy.h):
 * a page is a candidate when it is resident and mapped, not pinned, and,
 * while the swap area is full, would not need a write (that page is turned
 * down before its accessed bit is looked at: however cold, it cannot go).
 * Every resident page looked at counts in clock_scanned, and its dirty bit
 * is acted on (check_dirty) whatever the policy then does with it.
 */
/* Read ahead, not used yet, and not yet passed over for that. */
static bool prefetch_unspared(const struct guest_memory *gm, uint64_t gfn)
{
	const struct guest_page_meta *m = page_meta(gm, gfn);

	return (m->flags & GPM_PREFETCHED) && !m->prefetch_spared;
}

static bool history_inspect(void *ctx, uint64_t page, struct page_history *h)
{
	struct guest_memory *gm = ctx;
	struct ept_mapping map;
	uint64_t gfn;

	if (page >= gm->npages)
		return false;
	gfn = guest_memory_index_gfn(gm, page);
	if (page_state(gm, gfn) != PAGE_RESIDENT ||
	    !ept_lookup(gm->ept, gfn_gpa(gfn), &map)) {
		note_idle(gm);
		return false;
	}
	gm->stats.clock_scanned++;
	check_dirty(gm, gfn, map.dirty);
	if (map.accessed)
		prefetch_touched(gm, page_meta(gm, gfn), true);
	if ((page_meta(gm, gfn)->flags & GPM_PINNED) ||
	    unevictable_now(gm, gfn)) {
		note_idle(gm);
		return false;
	}
	/* swap.protect_kernel: the kernel's pages only in a last pass. */
	if ((page_meta(gm, gfn)->flags & GPM_KERNEL) && !gm->kernel_pass) {
		gm->stats.kernel_spared++;
		return false;
	}
	/* Spared or taken, the page could go: not a stall. */
	gm->idle_scan = 0;
	*h = (struct page_history){
		.accessed = map.accessed || prefetch_unspared(gm, gfn),
		.dirty = map.dirty };
	return true;
}

/*
 * The bit cleared reaches the other CPUs' TLBs with the batch's flush. A
 * page read ahead and not yet used counts as used the first time
 * (guest_page_meta.prefetch_spared).
 */
static bool history_clear_accessed(void *ctx, uint64_t page)
{
	struct guest_memory *gm = ctx;
	uint64_t gfn;

	if (page >= gm->npages)
		return false;
	gfn = guest_memory_index_gfn(gm, page);
	if (prefetch_unspared(gm, gfn)) {
		page_meta(gm, gfn)->prefetch_spared = 1;
		gm->stats.prefetch_spared++;
		return true;
	}
	if (!ept_test_and_clear_accessed(gm->ept, gfn_gpa(gfn)))
		return false;
	gm->stats.clock_referenced++;
	return true;
}

/*
 * The swap area is full and the policy looked at npages pages in a row that
 * all need a write: a full scan cannot find a victim until a page becomes
 * resident (set_state) or a slot is freed (release_slot), which reset
 * idle_scan. Until then a step only probes GUEST_STALL_SCAN pages, for a
 * page the guest may have zeroed in place (no event tells of that).
 */
bool guest_memory_swap_stalled(const struct guest_memory *gm)
{
	return gm->swap_full && gm->idle_scan >= gm->npages;
}

/* Pages the policy may look at in this step. */
static uint64_t scan_budget(struct guest_memory *gm)
{
	uint64_t budget = GUEST_SCAN_BUDGET;

	if (guest_memory_swap_stalled(gm)) {
		gm->stats.evict_steps_stalled++;
		budget = GUEST_STALL_SCAN;
	}
	/* Two turns at most: the first may only clear accessed bits. */
	return MIN(budget, 2 * gm->npages);
}

/* RESIDENT -> WRITEBACK: out of the guest's reach; the frame stays. */
static bool unmap_victim(struct guest_memory *gm, uint64_t gfn)
{
	struct ept_mapping old;

	if (ept_unmap(gm->ept, gfn_gpa(gfn), EPT_PAGE_4K, &old))
		return false;
	check_dirty(gm, gfn, old.dirty);
	prefetch_touched(gm, page_meta(gm, gfn), old.accessed);
	if (page_meta(gm, gfn)->flags & GPM_KERNEL)
		gm->stats.kernel_evicted++;
	set_state(gm, gfn, PAGE_WRITEBACK);
	return true;
}

/* A policy's pick must be a page inspect offered; a stray one is ignored. */
static bool victim_ok(const struct guest_memory *gm, uint64_t page)
{
	uint64_t gfn;

	if (page >= gm->npages)
		return false;
	gfn = guest_memory_index_gfn(gm, page);
	/* Not while the write of an eviction a fault cancelled is on. */
	return page_state(gm, gfn) == PAGE_RESIDENT &&
	       !(page_meta(gm, gfn)->flags & (GPM_PINNED | GPM_IO));
}

static unsigned select_batch(struct guest_memory *gm, unsigned want,
			     uint64_t *scan_left)
{
	const struct evict_history h = {
		.npages = gm->npages,
		.inspect = history_inspect,
		.clear_accessed = history_clear_accessed,
		.ctx = gm,
	};
	unsigned n = 0;
	uint64_t page, gfn;

	while (n < want && eviction_policy_pick(&gm->evict, &h, scan_left,
						&page)) {
		if (!victim_ok(gm, page))
			continue;
		gfn = guest_memory_index_gfn(gm, page);
		if (unmap_victim(gm, gfn))
			gm->batch[n++] = gfn;
	}
	return n;
}

/*
 * Filled only once the pool took the frame back: a frame it refuses (a
 * double free, a stray address) may belong to someone else.
 */
static void fill_freed(struct guest_memory *gm, uint64_t pa)
{
	uint64_t *w = frame_ptr(gm, pa);

	for (unsigned i = 0; i < PAGE_SIZE / sizeof(*w); i++)
		w[i] = gm->freed_fill;
}

static void free_frame(struct guest_memory *gm, uint64_t gfn, uint64_t pa)
{
	if (frame_pool_free(gm->pool, pa) == 0) {
		if (gm->freed_fill)
			fill_freed(gm, pa);
		return;
	}
	gm->stats.frame_free_errors++;
	hv_error("swap: frame 0x%llx of gpa 0x%llx was already free: two "
		 "guest pages may share it", (unsigned long long)pa,
		 (unsigned long long)gfn_gpa(gfn));
}

static uint64_t quarantine_sum(const struct guest_memory *gm, uint64_t pa)
{
	return page_checksum(frame_ptr(gm, pa), ~0ull);
}

/* The oldest frame leaves the quarantine: it must be as it was dropped. */
static void quarantine_release(struct guest_memory *gm, unsigned i)
{
	struct guest_quarantine *q = gm->quarantine;

	if (quarantine_sum(gm, q->slot[i].pa) != q->slot[i].sum) {
		gm->stats.quarantine_changed++;
		hv_error("swap: frame 0x%llx changed after gpa 0x%llx was "
			 "dropped from it: a stale translation survived the "
			 "flush", (unsigned long long)q->slot[i].pa,
			 (unsigned long long)gfn_gpa(q->slot[i].gfn));
	}
	free_frame(gm, q->slot[i].gfn, q->slot[i].pa);
}

static void release_frame(struct guest_memory *gm, uint64_t gfn)
{
	struct guest_quarantine *q = gm->quarantine;
	uint64_t pa = meta_frame_pa(page_meta(gm, gfn));
	unsigned i;

	if (!q) {
		free_frame(gm, gfn, pa);
		return;
	}
	i = q->next;
	q->next = (i + 1) % q->capacity;
	if (q->used == q->capacity)
		quarantine_release(gm, i);
	else
		q->used++;
	q->slot[i].pa = pa;
	q->slot[i].gfn = gfn;
	q->slot[i].sum = quarantine_sum(gm, pa);
}

void drop_frame(struct guest_memory *gm, uint64_t gfn,
		enum guest_page_state to)
{
	release_frame(gm, gfn);
	set_state(gm, gfn, to);
}

/* res: NULL outside an evict step (the report waits for the next step). */
static void note_swap_full(struct guest_memory *gm,
			   struct guest_evict_result *res)
{
	if (!gm->swap_full) {
		gm->swap_full = true;
		gm->stats.swap_full_events++;
	}
	if (!res)
		return;
	res->swap_full = true;
	if (!gm->swap_full_reported) {
		gm->swap_full_reported = true;
		res->report_swap_full = true;
	}
}

/* A fresh slot for the page's write; false when none is free. */
bool take_swap_slot(struct guest_memory *gm, uint64_t gfn,
		    struct guest_evict_result *res)
{
	struct guest_page_meta *m = page_meta(gm, gfn);

	if (!swap_slots_alloc(gm->slots, &m->slot)) {
		note_swap_full(gm, res);
		return false;
	}
	m->flags |= GPM_SLOT;
	return true;
}

/* A write to a fresh slot, or, with none free, the page goes back. */
static void start_write(struct guest_memory *gm, uint64_t gfn,
			struct guest_evict_result *res)
{
	if (!take_swap_slot(gm, gfn, res)) {
		map_kept_frame(gm, gfn);
		gm->stats.evictions_aborted++;
		res->aborted++;
		return;
	}
	gm->stats.writes_started++;
	res->writes++;
	submit_io(gm, gfn, SWAP_IO_WRITE);
}

static bool clean_drop_ok(struct guest_memory *gm, uint64_t gfn)
{
	return !gm->io.clean_drop_ok ||
	       gm->io.clean_drop_ok(gm->io.ctx, gfn,
				    meta_frame_pa(page_meta(gm, gfn)));
}

/*
 * The tier was full: the victim took the slot of the tier's oldest page,
 * whose contents are now in the victim's frame (or, lost, nothing of
 * use). The older page goes on to the disk through that frame: COMPRESSED
 * -> WRITEBACK, as a victim of its own; the frame is freed when its write
 * is done, as the victim's would have been.
 */
static void move_out_oldest(struct guest_memory *gm, uint64_t gfn,
			    uint32_t moved, bool lost,
			    struct guest_evict_result *res)
{
	struct guest_page_meta *m = page_meta(gm, gfn);
	uint64_t old_gfn = guest_memory_index_gfn(gm, moved);
	struct guest_page_meta *old = page_meta(gm, old_gfn);

	if (lost) {
		old->flags |= GPM_LOST;
		set_state(gm, old_gfn, PAGE_SWAPPED);
		gm->stats.tier_lost++;
		release_frame(gm, gfn);
		return;
	}
	old->frame = m->frame;
	set_state(gm, old_gfn, PAGE_WRITEBACK);
	start_write(gm, old_gfn, res);
}

/*
 * swap.tier: the victim compressed into the tier instead of written (its
 * frame freed, the slot in meta.frame); when the tier is full it takes
 * the slot of the tier's oldest page, which moves on to the disk instead
 * (move_out_oldest). False when it did not shrink to a slot: then it goes
 * to the disk. A page whose swap copy is valid never comes here: its
 * clean drop costs nothing.
 */
static bool into_tier(struct guest_memory *gm, uint64_t gfn,
		      struct guest_evict_result *res)
{
	struct guest_page_meta *m = page_meta(gm, gfn);
	void *page = frame_ptr(gm, meta_frame_pa(m));
	uint32_t index = (uint32_t)guest_memory_index(gm, gfn);
	enum tier_store_result r;
	uint32_t slot, moved;

	if (!gm->tier)
		return false;
	r = compressed_tier_store(gm->tier, page, index, &slot);
	if (r == TIER_FULL)
		r = compressed_tier_store_moving_out(gm->tier, page, index,
						     &slot, &moved);
	if (r != TIER_STORED && r != TIER_MOVED_OUT &&
	    r != TIER_MOVED_OUT_LOST)
		return false;
	release_slot(gm, gfn);
	if (r == TIER_STORED)
		release_frame(gm, gfn);
	else
		move_out_oldest(gm, gfn, moved, r == TIER_MOVED_OUT_LOST, res);
	set_state(gm, gfn, PAGE_COMPRESSED);
	m->frame = slot;
	res->compressed++;
	return true;
}

/* After the flush: what a victim needs. */
static void finish_victim(struct guest_memory *gm, uint64_t gfn,
			  struct guest_evict_result *res)
{
	struct guest_page_meta *m = page_meta(gm, gfn);

	if (page_state(gm, gfn) != PAGE_WRITEBACK) {
		/* A fault during the flush took the page back. */
		res->cancelled++;
	} else if ((m->flags & GPM_SWAP_VALID) && !clean_drop_ok(gm, gfn)) {
		release_slot(gm, gfn);
		if (!into_tier(gm, gfn, res))
			start_write(gm, gfn, res);
	} else if (m->flags & GPM_SWAP_VALID) {
		drop_frame(gm, gfn, PAGE_SWAPPED);
		gm->stats.clean_drops++;
		res->clean_drops++;
	} else if (frame_is_zero(gm, meta_frame_pa(m))) {
		release_slot(gm, gfn);
		drop_frame(gm, gfn, PAGE_UNTOUCHED);
		gm->stats.zero_pages_skipped++;
		res->zero_pages++;
	} else if (!into_tier(gm, gfn, res)) {
		start_write(gm, gfn, res);
	}
}

void flush_translations(struct guest_memory *gm)
{
	gm->stats.flushes++;
	if (gm->io.flush)
		gm->io.flush(gm->io.ctx);
}

/* One batch; false when there was nothing left to evict. */
static bool evict_batch(struct guest_memory *gm, unsigned want,
			uint64_t *scan_left, struct guest_evict_result *res)
{
	unsigned n = select_batch(gm, want, scan_left);

	if (!n)
		return false;
	res->victims += n;
	flush_translations(gm);
	for (unsigned i = 0; i < n; i++)
		finish_victim(gm, gm->batch[i], res);
	return true;
}

/* Victims for the next batch: 0 once the high watermark is reached. */
static unsigned batch_size(const struct guest_memory *gm, unsigned budget)
{
	uint64_t free = free_frames(gm);

	if (free >= gm->high_free)
		return 0;
	return (unsigned)MIN(MIN(budget, GUEST_EVICT_BATCH),
			     gm->high_free - free);
}

/* Batches until the high watermark, budget pages looked at; how many. */
static unsigned evict_batches(struct guest_memory *gm, unsigned max_pages,
			      uint64_t budget, struct guest_evict_result *r)
{
	uint64_t scan_left = budget;
	unsigned want;

	while (!r->swap_full &&
	       (want = batch_size(gm, max_pages - r->victims)) &&
	       evict_batch(gm, want, &scan_left, r))
		;
	return (unsigned)(budget - scan_left);
}

unsigned guest_memory_evict_step(struct guest_memory *gm, unsigned max_pages,
				 struct guest_evict_result *res)
{
	struct guest_evict_result r = { 0 };

	if (gm->meta && !gm->evicting) {
		uint64_t budget = scan_budget(gm);

		gm->evicting = true;
		r.scanned = evict_batches(gm, max_pages, budget, &r);
		/*
		 * swap.protect_kernel: the kernel's pages go only when nothing
		 * else could, in a second scan with a budget of its own.
		 */
		if (gm->protect_kernel && !r.victims && !r.swap_full &&
		    batch_size(gm, max_pages)) {
			gm->kernel_pass = true;
			r.scanned += evict_batches(gm, max_pages, budget, &r);
			gm->kernel_pass = false;
		}
		gm->evicting = false;
		/* Nothing could go: the prefetch does without. */
		if (!r.victims)
			gm->prefetch_starved = false;
	}
	if (res)
		*res = r;
	return r.writes + r.clean_drops + r.zero_pages + r.compressed;
}

int guest_memory_evict_page(struct guest_memory *gm, uint64_t gpa,
			    struct guest_evict_result *res)
{
	struct guest_evict_result r = { 0 };
	uint64_t gfn = gpa >> PAGE_SHIFT;
	int rc = -1;

	if (gm->meta && !gm->evicting && guest_memory_is_ram(gm, gpa) &&
	    victim_ok(gm, guest_memory_index(gm, gfn))) {
		gm->evicting = true;
		if (unmap_victim(gm, gfn)) {
			r.victims = 1;
			flush_translations(gm);
			finish_victim(gm, gfn, &r);
			rc = 0;
		}
		gm->evicting = false;
	}
	if (res)
		*res = r;
	return rc;
}
