// SPDX-License-Identifier: BSD-2-Clause
/*
 * Guest pages: set-up, the fault path and hypervisor writes. Eviction and
 * I/O completions are in swap/guest_swap.c; both change states only through
 * set_state (swap/guest_memory_internal.h).
 */
#include "swap/guest_memory_internal.h"
#include "lib/string.h"

/* meta.frame holds a frame number in 32 bits. */
#define FRAME_PA_LIMIT (1ull << (32 + PAGE_SHIFT))

void guest_memory_init(struct guest_memory *gm,
		       const struct guest_ram_layout *ram,
		       uint8_t *state_storage, struct ept *ept,
		       struct frame_pool *pool)
{
	memset(gm, 0, sizeof(*gm));
	gm->ram = *ram;
	gm->ram_size = guest_ram_total(ram);
	gm->npages = guest_ram_pages(ram);
	gm->state = state_storage;
	gm->ept = ept;
	gm->pool = pool;
	memset(gm->state, PAGE_UNTOUCHED, gm->npages);
	gm->count[PAGE_UNTOUCHED] = gm->npages;
	gm->evict = clock_policy(&gm->clock);
	gm->evict_listens = eviction_policy_listens(&gm->evict);
	gm->prefetch = prefetch_none();
}

void guest_memory_use_policies(struct guest_memory *gm,
			       const struct eviction_policy *evict,
			       const struct prefetch_policy *prefetch)
{
	if (evict && evict->ops) {
		gm->evict = *evict;
		/*
		 * A policy that keeps its own order of resident pages (FIFO)
		 * hears of those already resident, in index order.
		 */
		for (uint64_t i = 0; i < gm->npages &&
				     gm->evict.ops->on_map; i++)
			if (gm->state[i] == PAGE_RESIDENT)
				eviction_policy_mapped(&gm->evict, i);
	}
	if (prefetch && prefetch->ops)
		gm->prefetch = *prefetch;
	/* What the fault and state-change paths test instead of the hooks. */
	gm->evict_listens = eviction_policy_listens(&gm->evict);
	gm->fault_listeners = gm->meta && (gm->evict.ops->on_fault ||
					   gm->prefetch.ops->on_fault);
}

static bool watermarks_valid(const struct guest_memory *gm, uint64_t low,
			     uint64_t high)
{
	return low && low <= high && high < gm->pool->total;
}

/*
 * Default watermarks: keep 1/32 of the frames free, start at 1/64. Enough
 * for a batch of swap-ins without the daemon running on every fault.
 */
static void default_watermarks(const struct guest_memory *gm, uint64_t *low,
			       uint64_t *high)
{
	*high = MAX(gm->pool->total / 32, 2);
	*low = MAX(*high / 2, 1);
}

static bool frames_fit_meta(const struct frame_pool *pool)
{
	for (unsigned i = 0; i < pool->nranges; i++) {
		const struct frame_range *r = &pool->ranges[i];

		if (r->base + r->frames * PAGE_SIZE > FRAME_PA_LIMIT)
			return false;
	}
	return true;
}

/* meta for a page that is UNTOUCHED or RESIDENT: its frame, if any. */
static bool init_meta(struct guest_memory *gm, uint64_t gfn)
{
	struct guest_page_meta *m = page_meta(gm, gfn);
	struct ept_mapping map;

	*m = (struct guest_page_meta){ 0 };
	if (page_state(gm, gfn) == PAGE_UNTOUCHED)
		return true;
	if (page_state(gm, gfn) != PAGE_RESIDENT ||
	    !ept_lookup(gm->ept, gfn_gpa(gfn), &map))
		return false;
	m->frame = (uint32_t)(map.hpa >> PAGE_SHIFT);
	return true;
}

/*
 * Eviction unmaps, and CLOCK tests, one 4 KiB page at a time: a 2 MiB leaf
 * (SDM Vol. 3C, Table 29-4) would make a page's unmap fail (ept_unmap
 * refuses the other size) and its accessed bit stand for 512 pages. Such
 * a leaf is refused rather than split; nothing maps guest RAM that way.
 * Every aligned 2 MiB is looked at once: a leaf covers one whole.
 */
static bool ram_has_large_leaf(const struct guest_memory *gm)
{
	struct ept_mapping map;

	for (uint64_t gpa = 0; guest_ram_contains(&gm->ram, gpa); gpa += LARGE_PAGE_SIZE)
		if (ept_lookup(gm->ept, gpa, &map) &&
		    map.size == EPT_PAGE_2M)
			return true;
	return false;
}

int guest_memory_enable_swap(struct guest_memory *gm,
			     const struct guest_swap_config *cfg)
{
	uint64_t low = cfg->low_free, high = cfg->high_free;

	if (!low && !high)
		default_watermarks(gm, &low, &high);
	if (!cfg->meta || !cfg->slots || !cfg->io.submit ||
	    !watermarks_valid(gm, low, high) || !frames_fit_meta(gm->pool) ||
	    ram_has_large_leaf(gm))
		return -1;
	gm->meta = cfg->meta;
	for (uint64_t i = 0; i < gm->npages; i++) {
		if (!init_meta(gm, guest_memory_index_gfn(gm, i))) {
			gm->meta = NULL;
			return -1;
		}
	}
	gm->slots = cfg->slots;
	gm->io = cfg->io;
	gm->low_free = low;
	gm->high_free = high;
	guest_memory_use_policies(gm, &cfg->evict, &cfg->prefetch);
	gm->protect_kernel = cfg->protect_kernel;
	gm->whole_page_stores = cfg->whole_page_stores;
	gm->tier = cfg->tier;
	return 0;
}

void guest_memory_fill_freed_frames(struct guest_memory *gm, uint64_t value)
{
	gm->freed_fill = value;
}

/*
 * UNTOUCHED -> RESIDENT: a zeroed frame, mapped read/write/execute. i is
 * gfn's index (guest_memory_index): the first touch of every page comes
 * here, and finds it once.
 */
static enum guest_fault_result zero_fill(struct guest_memory *gm, uint64_t gfn,
					 uint64_t i)
{
	uint64_t hpa;

	if (!frame_pool_alloc(gm->pool, &hpa))
		return GUEST_FAULT_NO_FRAME;
	memset(frame_ptr(gm, hpa), 0, PAGE_SIZE);
	if (map_frame(gm, gfn, hpa)) {
		frame_pool_free(gm->pool, hpa);
		return GUEST_FAULT_INTERNAL_ERROR;
	}
	if (gm->meta) {
		gm->meta[i].frame = (uint32_t)(hpa >> PAGE_SHIFT);
		if (gm->meta[i].discarded) {
			gm->meta[i].discarded = 0;
			gm->stats.discard_refaults++;
		}
	}
	set_state_at(gm, i, gfn, PAGE_RESIDENT);
	gm->stats.zero_fills++;
	return GUEST_FAULT_RESOLVED;
}

/*
 * A fault on a page being evicted cancels the eviction: the frame still
 * holds the page, and the guest gets it back at once - before its write
 * started (the daemon is between unmapping and the flush), and while the
 * write is in flight too, as a host's swap cache serves a page under
 * writeback, instead of waiting for the disk. That write goes on from a
 * frame the guest may now change. Its copy is kept as valid when it ends
 * (written_while_mapped in guest_swap.c) only if the hypervisor did not
 * write the page meanwhile (GPM_CANCEL, cleared by written_by_host); a
 * write by the guest shows in the dirty bit, which the new mapping starts
 * clear, so the daemon frees that copy as it frees any stale one.
 */
static enum guest_fault_result fault_writeback(struct guest_memory *gm,
					       uint64_t gfn)
{
	struct guest_page_meta *m = page_meta(gm, gfn);
	bool writing = m->flags & GPM_IO;

	if (map_kept_frame(gm, gfn))
		return GUEST_FAULT_INTERNAL_ERROR;
	gm->stats.evictions_cancelled++;
	if (writing) {
		m->flags |= GPM_CANCEL;
		gm->stats.writeback_mapped++;
	}
	return GUEST_FAULT_RESOLVED;
}

enum guest_fault_result start_swapin(struct guest_memory *gm, uint64_t gfn)
{
	struct guest_page_meta *m = page_meta(gm, gfn);
	uint64_t hpa;

	if (m->flags & GPM_LOST)
		return GUEST_FAULT_IO_ERROR;
	if (!frame_pool_alloc(gm->pool, &hpa))
		return GUEST_FAULT_NO_FRAME;
	m->frame = (uint32_t)(hpa >> PAGE_SHIFT);
	set_state(gm, gfn, PAGE_SWAPIN);
	gm->stats.reads_started++;
	submit_io(gm, gfn, SWAP_IO_READ);
	return GUEST_FAULT_SWAPIN_STARTED;
}

static struct guest_dropped *find_dropped(const struct guest_memory *gm,
					  uint64_t gfn)
{
	for (unsigned i = 0; i < GUEST_MAX_DROPPED; i++)
		if (gm->dropped[i].pa && gm->dropped[i].gfn == gfn)
			return (struct guest_dropped *)&gm->dropped[i];
	return NULL;
}

/*
 * The frame behind gpa for a copy by the hypervisor, as the EPT lookup
 * gives it, or the one kept by a page whose translation was dropped.
 */
static bool host_frame(const struct guest_memory *gm, uint64_t gpa,
		       uint64_t *pa)
{
	struct guest_dropped *d;
	struct ept_mapping m;

	if (ept_lookup(gm->ept, gpa, &m)) {
		*pa = m.hpa;
		return true;
	}
	d = find_dropped(gm, gpa >> PAGE_SHIFT);
	if (d)
		*pa = d->pa;
	return d != NULL;
}

int guest_memory_drop_translation(struct guest_memory *gm, uint64_t gpa)
{
	uint64_t gfn = gpa >> PAGE_SHIFT;
	struct guest_dropped *free_entry = find_dropped(gm, gfn);
	struct ept_mapping old;

	if (gm->meta || !guest_ram_contains(&gm->ram, gpa) ||
	    page_state(gm, gfn) != PAGE_RESIDENT || free_entry)
		return -1;
	for (unsigned i = 0; i < GUEST_MAX_DROPPED && !free_entry; i++)
		if (!gm->dropped[i].pa)
			free_entry = &gm->dropped[i];
	if (!free_entry ||
	    ept_unmap(gm->ept, gfn_gpa(gfn), EPT_PAGE_4K, &old))
		return -1;
	free_entry->gfn = gfn;
	free_entry->pa = old.hpa;
	gm->stats.translations_dropped++;
	return 0;
}

/* A resident page faults only when its translation was dropped. */
static enum guest_fault_result fault_resident(struct guest_memory *gm,
					      uint64_t gfn)
{
	struct guest_dropped *d = find_dropped(gm, gfn);

	if (!d)
		return GUEST_FAULT_ALREADY_MAPPED;
	if (map_frame(gm, gfn, d->pa))
		return GUEST_FAULT_INTERNAL_ERROR;
	d->pa = 0;
	gm->stats.dropped_refaults++;
	return GUEST_FAULT_RESOLVED;
}

/*
 * COMPRESSED -> RESIDENT: the page expanded from the tier into a fresh
 * frame, no I/O. One that does not expand to what was stored is lost, as
 * a page whose swap slot cannot be read (SWAPPED, GPM_LOST): never mapped.
 */
static enum guest_fault_result expand_from_tier(struct guest_memory *gm,
						uint64_t gfn)
{
	struct guest_page_meta *m = page_meta(gm, gfn);
	uint64_t hpa;

	if (!frame_pool_alloc(gm->pool, &hpa))
		return GUEST_FAULT_NO_FRAME;
	if (!gm->tier ||
	    !compressed_tier_load(gm->tier, m->frame, frame_ptr(gm, hpa))) {
		frame_pool_free(gm->pool, hpa);
		m->flags |= GPM_LOST;
		set_state(gm, gfn, PAGE_SWAPPED);
		gm->stats.tier_lost++;
		return GUEST_FAULT_IO_ERROR;
	}
	m->frame = (uint32_t)(hpa >> PAGE_SHIFT);
	if (map_frame(gm, gfn, hpa)) {
		/* Cannot happen: the page was mapped before, its tables stand. */
		frame_pool_free(gm->pool, hpa);
		m->flags |= GPM_LOST;
		set_state(gm, gfn, PAGE_SWAPPED);
		gm->stats.tier_lost++;
		return GUEST_FAULT_IO_ERROR;
	}
	set_state(gm, gfn, PAGE_RESIDENT);
	return GUEST_FAULT_RESOLVED;
}

static enum guest_fault_result fault_page(struct guest_memory *gm,
					  uint64_t gfn)
{
	uint64_t i = guest_memory_index(gm, gfn);

	switch (gm->state[i]) {
	case PAGE_UNTOUCHED:
		return zero_fill(gm, gfn, i);
	case PAGE_RESIDENT:
		return fault_resident(gm, gfn);
	default:
		break;
	}
	/* Without swap no page can be in the other states. */
	if (!gm->meta)
		return GUEST_FAULT_INTERNAL_ERROR;
	switch (gm->state[i]) {
	case PAGE_WRITEBACK:
		return fault_writeback(gm, gfn);
	case PAGE_SWAPPED:
		return start_swapin(gm, gfn);
	case PAGE_COMPRESSED:
		return expand_from_tier(gm, gfn);
	case PAGE_SWAPIN:
		/* The guest wants a page read ahead for it: a late hit. */
		prefetch_touched(gm, page_meta(gm, gfn), true);
		/* Without I/O in flight only after a failed map_kept_frame. */
		if (page_meta(gm, gfn)->flags & GPM_IO)
			return GUEST_FAULT_WAIT_IO;
		return map_kept_frame(gm, gfn) ? GUEST_FAULT_INTERNAL_ERROR :
						 GUEST_FAULT_RESOLVED;
	default:
		return GUEST_FAULT_INTERNAL_ERROR;
	}
}

enum guest_fault_result guest_memory_fault(struct guest_memory *gm,
					   uint64_t gpa)
{
	enum guest_fault_result r;

	gm->stats.faults++;
	if (!guest_ram_contains(&gm->ram, gpa))
		return GUEST_FAULT_OUTSIDE_RAM;
	r = fault_page(gm, gpa >> PAGE_SHIFT);
	/* Most policies hear nothing of faults: no call then. */
	if (gm->fault_listeners)
		policies_see_fault(gm, gpa >> PAGE_SHIFT, r);
	if (r == GUEST_FAULT_WAIT_IO)
		gm->stats.wait_io++;
	else if (r == GUEST_FAULT_NO_FRAME)
		gm->stats.no_frame++;
	return r;
}

void guest_memory_note_fault_mode(struct guest_memory *gm, uint64_t gpa,
				  bool kernel)
{
	struct guest_page_meta *m;

	if (!gm->protect_kernel || !gm->meta ||
	    !guest_ram_contains(&gm->ram, gpa))
		return;
	m = page_meta(gm, gpa >> PAGE_SHIFT);
	if (kernel && !(m->flags & GPM_KERNEL)) {
		m->flags |= GPM_KERNEL;
		gm->stats.kernel_marked++;
	} else if (!kernel) {
		m->flags &= (uint8_t)~GPM_KERNEL;
	}
}

/*
 * A write that does not go through EPT sets no dirty bit, so the daemon
 * could not tell that the swap copy went stale: drop it now.
 */
static void written_by_host(struct guest_memory *gm, uint64_t gfn)
{
	if (!gm->meta)
		return;
	/* A write in flight from the mapped frame: its copy is not kept. */
	page_meta(gm, gfn)->flags &= (uint8_t)~GPM_CANCEL;
	if (page_meta(gm, gfn)->flags & GPM_SWAP_VALID) {
		release_slot(gm, gfn);
		gm->stats.slots_freed_dirty++;
	}
}

int guest_memory_write(struct guest_memory *gm, uint64_t gpa, const void *src,
		       uint64_t len)
{
	const uint8_t *from = src;

	while (len) {
		uint64_t off = gpa & (PAGE_SIZE - 1);
		uint64_t chunk = MIN(len, PAGE_SIZE - off);
		uint64_t pa;

		if (!guest_ram_contains(&gm->ram, gpa))
			return -1;
		if (page_state(gm, gpa >> PAGE_SHIFT) == PAGE_UNTOUCHED &&
		    zero_fill(gm, gpa >> PAGE_SHIFT,
			      guest_memory_index(gm, gpa >> PAGE_SHIFT)) !=
			    GUEST_FAULT_RESOLVED)
			return -1;
		if (!host_frame(gm, gpa, &pa))
			return -1;
		written_by_host(gm, gpa >> PAGE_SHIFT);
		memcpy((uint8_t *)frame_ptr(gm, pa) + off, from, chunk);
		gpa += chunk;
		from += chunk;
		len -= chunk;
	}
	return 0;
}

static struct guest_pin *find_pin(struct guest_memory *gm, uint64_t gfn)
{
	for (unsigned i = 0; i < GUEST_MAX_PINS; i++)
		if (gm->pins[i].count && gm->pins[i].gfn == gfn)
			return &gm->pins[i];
	return NULL;
}

int guest_memory_pin(struct guest_memory *gm, uint64_t gpa)
{
	uint64_t gfn = gpa >> PAGE_SHIFT;
	struct guest_pin *pin;

	if (!guest_ram_contains(&gm->ram, gpa))
		return -1;
	if (!gm->meta)
		return 0;
	if (page_state(gm, gfn) != PAGE_RESIDENT) {
		gm->stats.pins_not_resident++;
		return -1;
	}
	pin = find_pin(gm, gfn);
	for (unsigned i = 0; !pin && i < GUEST_MAX_PINS; i++)
		if (!gm->pins[i].count)
			pin = &gm->pins[i];
	if (!pin)
		return -1;
	pin->gfn = gfn;
	pin->count++;
	page_meta(gm, gfn)->flags |= GPM_PINNED;
	gm->stats.pins++;
	return 0;
}

void *guest_memory_pinned_page(struct guest_memory *gm, uint64_t gpa)
{
	uint64_t gfn = gpa >> PAGE_SHIFT;
	uint64_t pa;

	if (!guest_ram_contains(&gm->ram, gpa) ||
	    (gm->meta && !(page_meta(gm, gfn)->flags & GPM_PINNED)) ||
	    !host_frame(gm, gfn_gpa(gfn), &pa))
		return NULL;
	/* Its writes will set no dirty bit: no swap copy may outlive them. */
	written_by_host(gm, gfn);
	return frame_ptr(gm, pa);
}

void guest_memory_unpin(struct guest_memory *gm, uint64_t gpa)
{
	uint64_t gfn = gpa >> PAGE_SHIFT;
	struct guest_pin *pin;

	if (!gm->meta || !guest_ram_contains(&gm->ram, gpa) || !(pin = find_pin(gm, gfn)))
		return;
	if (--pin->count == 0)
		page_meta(gm, gfn)->flags &= (uint8_t)~GPM_PINNED;
}

int guest_memory_read(const struct guest_memory *gm, uint64_t gpa, void *dst,
		      uint64_t len)
{
	uint8_t *to = dst;

	while (len) {
		uint64_t off = gpa & (PAGE_SIZE - 1);
		uint64_t chunk = MIN(len, PAGE_SIZE - off);
		uint64_t pa;

		if (!guest_ram_contains(&gm->ram, gpa))
			return -1;
		if (page_state(gm, gpa >> PAGE_SHIFT) == PAGE_UNTOUCHED)
			memset(to, 0, chunk);
		else if (host_frame(gm, gpa, &pa))
			memcpy(to, (const uint8_t *)frame_ptr(gm, pa) + off,
			       chunk);
		else
			return -1;
		gpa += chunk;
		to += chunk;
		len -= chunk;
	}
	return 0;
}

void release_slot(struct guest_memory *gm, uint64_t gfn)
{
	struct guest_page_meta *m = page_meta(gm, gfn);

	if (m->flags & GPM_SLOT) {
		swap_slots_free(gm->slots, m->slot);
		gm->swap_full = false;
		gm->idle_scan = 0;
	}
	m->flags &= (uint8_t)~(GPM_SLOT | GPM_SWAP_VALID);
}

/*
 * The id carries the page and a tag that changes with every submission, so
 * a completion reported twice, or for an attempt already given up, is
 * recognised instead of being taken for the current one.
 */
void submit_io(struct guest_memory *gm, uint64_t gfn, enum swap_io_op op)
{
	struct guest_page_meta *m = page_meta(gm, gfn);
	struct swap_io io = {
		.op = op,
		.slot = m->slot,
		.gfn = gfn,
		.frame_pa = meta_frame_pa(m),
	};

	m->io_tag++;
	m->flags |= GPM_IO;
	gm->io_in_flight++;
	io.id = gfn << 16 | m->io_tag;
	gm->io.submit(gm->io.ctx, &io);
}

bool guest_memory_io_busy(const struct guest_memory *gm, uint64_t gpa)
{
	return gm->meta && guest_ram_contains(&gm->ram, gpa) &&
	       (page_meta(gm, gpa >> PAGE_SHIFT)->flags & GPM_IO);
}

enum guest_page_state guest_memory_page_state(const struct guest_memory *gm,
					      uint64_t gpa)
{
	return (enum guest_page_state)page_state(gm, gpa >> PAGE_SHIFT);
}

bool guest_memory_page_info(const struct guest_memory *gm, uint64_t gfn,
			    struct guest_page_info *out)
{
	struct ept_mapping map;

	if (gfn >> (64 - PAGE_SHIFT) ||
	    !guest_ram_contains(&gm->ram, gfn_gpa(gfn)))
		return false;
	*out = (struct guest_page_info){ .state = page_state(gm, gfn) };
	if (gm->meta) {
		const struct guest_page_meta *m = page_meta(gm, gfn);

		out->flags = m->flags;
		out->slot = m->slot;
		if (guest_page_state_has_frame(out->state))
			out->frame_pa = meta_frame_pa(m);
	} else if (ept_lookup(gm->ept, gfn_gpa(gfn), &map)) {
		out->frame_pa = map.hpa;
	}
	return true;
}

const char *guest_fault_result_name(enum guest_fault_result r)
{
	switch (r) {
	case GUEST_FAULT_RESOLVED: return "resolved";
	case GUEST_FAULT_OUTSIDE_RAM: return "outside guest RAM";
	case GUEST_FAULT_NO_FRAME: return "no free host frame";
	case GUEST_FAULT_ALREADY_MAPPED: return "page already mapped";
	case GUEST_FAULT_WAIT_IO: return "waiting for swap I/O";
	case GUEST_FAULT_SWAPIN_STARTED: return "swap-in started";
	case GUEST_FAULT_IO_ERROR: return "swap read failed";
	default: return "internal error";
	}
}
