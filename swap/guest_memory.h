/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Guest RAM: the state of every guest page and the one place where it
 * changes (DESIGN.md, "Guest pages"). A page is UNTOUCHED until its first
 * access, which maps a zeroed frame from the pool (RESIDENT). With swap
 * enabled (guest_memory_enable_swap) the paging daemon evicts pages
 * (WRITEBACK, then SWAPPED) and faults read them back (SWAPIN). Pure C over
 * struct ept_memory, so tests/unit can drive it without hardware; I/O leaves
 * through the caller's swap_io_ops and comes back via guest_memory_io_done.
 * The caller holds the guest lock around every call.
 *
 * The states and the transitions between them are listed once, in
 * swap/page_state.h (each transition made is counted in
 * stats.transitions[from][to]). Which page is evicted is up to an eviction
 * policy (CLOCK unless the caller installs another), what is read ahead of
 * a fault up to a prefetch policy (none by default): swap/policy/.
 *
 * Every mapping starts with the EPT accessed bit set and the dirty bit
 * clear (see map_frame in swap/guest_memory_internal.h).
 */
#ifndef SWAP_GUEST_MEMORY_H
#define SWAP_GUEST_MEMORY_H

#include "ept/ept.h"
#include "lib/guest_ram.h"
#include "swap/frame_pool.h"
#include "swap/page_state.h"
#include "swap/policy/clock_policy.h"
#include "swap/policy/prefetch_policy.h"
#include "swap/swap_slots.h"
#include "swap/compressed_tier.h"

enum guest_fault_result {
	GUEST_FAULT_RESOLVED,           /* mapped: resume the guest */
	GUEST_FAULT_OUTSIDE_RAM,        /* gpa is not guest RAM */
	/*
	 * The pool is empty. With swap: run guest_memory_evict_step, then
	 * retry; fatal only when that frees nothing and no I/O is in flight.
	 */
	GUEST_FAULT_NO_FRAME,
	GUEST_FAULT_ALREADY_MAPPED,     /* EPT permissions, not presence */
	GUEST_FAULT_INTERNAL_ERROR,     /* EPT table allocation failed */
	/*
	 * The page's swap-in is in flight: retry the access once
	 * guest_memory_io_busy() is false.
	 */
	GUEST_FAULT_WAIT_IO,
	/*
	 * A swap-in was started. Either wait as for WAIT_IO (synchronous) or
	 * resume the guest with an async "page not present".
	 */
	GUEST_FAULT_SWAPIN_STARTED,
	/* The page could not be read back from swap: stop the guest. */
	GUEST_FAULT_IO_ERROR,
};

enum swap_io_op {
	SWAP_IO_READ,           /* slot -> frame */
	SWAP_IO_WRITE,          /* frame -> slot */
};

/* One page of I/O for the caller to carry out (on swap/blockdev.h). */
struct swap_io {
	enum swap_io_op op;
	uint32_t slot;
	uint64_t gfn;
	uint64_t frame_pa;      /* host-physical, 4 KiB */
	uint64_t id;            /* pass to guest_memory_io_done */
};

struct swap_io_ops {
	/*
	 * Starts one I/O. It cannot fail: the caller queues what the device
	 * cannot take yet. The completion is reported later, never from
	 * inside submit.
	 */
	void (*submit)(void *ctx, const struct swap_io *io);
	/*
	 * Called once per eviction batch, after the victims were unmapped
	 * and before their frames are read or freed: returns once no CPU
	 * can use a stale translation (INVEPT here, plus IPIs to the other
	 * vCPU CPUs). It runs under the caller's lock and keeps it: vCPUs
	 * enter the guest without that lock, so the flush can wait for
	 * them. NULL when there is nothing to flush (tests).
	 */
	void (*flush)(void *ctx);
	void *ctx;
	/*
	 * Called once when an I/O of page gfn has ended for good and the
	 * vCPUs told GUEST_FAULT_SWAPIN_STARTED or GUEST_FAULT_WAIT_IO for it
	 * may retry: a swap-in done (resident) or given up (!resident: the
	 * page is lost). Called from guest_memory_io_done after the
	 * state changed, with the guest lock held. NULL: not wanted. Last in
	 * the struct so that { submit, flush, ctx } initialisers still work.
	 */
	void (*page_settled)(void *ctx, uint64_t gfn, bool resident);
	/*
	 * Asked, after the flush, before a page whose swap copy is valid
	 * and whose dirty bit stayed clear loses its frame (a clean drop):
	 * false keeps the frame and writes the page again instead. For
	 * checks only (debug.swap_verify); NULL: always drop.
	 */
	bool (*clean_drop_ok)(void *ctx, uint64_t gfn, uint64_t frame_pa);
};

/*
 * Per-page swap metadata, one per guest page, allocated by the caller: 12
 * bytes, i.e. 0.3% of guest RAM. frame is a host frame number (pa >> 12).
 */
struct guest_page_meta {
	uint32_t slot;          /* valid with GPM_SLOT */
	uint32_t frame;         /* valid while RESIDENT, WRITEBACK, SWAPIN */
	uint16_t io_tag;        /* tells the current I/O from stale ones */
	uint8_t flags;          /* GPM_* */
	uint8_t tries : 4;      /* failed attempts of the current I/O */
	/*
	 * GPM_PREFETCHED: the eviction policy has passed the page over once
	 * as if it had been used (history_clear_accessed), as a page the
	 * guest faulted on is: a page read ahead is mapped with its accessed
	 * bit clear (so that its use shows), which would make it the first
	 * victim of a policy that goes by that bit before the guest got to it.
	 */
	uint8_t prefetch_spared : 1;
	/* Discarded as free by the guest and not touched since. */
	uint8_t discarded : 1;
};

#define GPM_SLOT        BIT(0)  /* owns meta.slot */
#define GPM_SWAP_VALID  BIT(1)  /* the slot holds the page's contents */
#define GPM_IO          BIT(2)  /* an I/O of the page is in flight */
/*
 * RESIDENT with a write in flight (GPM_IO): the guest faulted on the page
 * during the write and has its frame back; the copy is kept when the write
 * ends unless the hypervisor wrote the page meanwhile (which clears this).
 */
#define GPM_CANCEL      BIT(3)
#define GPM_LOST        BIT(4)  /* SWAPPED: the slot could not be read */
#define GPM_PINNED      BIT(5)  /* RESIDENT and never a victim (pins[]) */
/* Read by the prefetch policy and not touched by the guest since. */
#define GPM_PREFETCHED  BIT(6)
/*
 * swap.protect_kernel: the guest's kernel waited for this page's swap-in
 * (a CPL 0 fault, which never becomes an async PF); evicted last.
 */
#define GPM_KERNEL      BIT(7)

/*
 * Pages the hypervisor writes on its own (a vCPU's async-PF area, its
 * kvmclock record) stay resident while in use: pinned, with a count, for
 * two users may share a page. Room for two per vCPU and a few more.
 */
#define GUEST_MAX_PINS 136

/* Attempts of one I/O before it is given up. */
#define GUEST_IO_TRIES 3        /* below 16: guest_page_meta.tries */
/* Victims unmapped per flush. */
#define GUEST_EVICT_BATCH 32
/*
 * Pages the eviction policy looks at per evict step at most (2 * npages
 * in a smaller guest): it bounds the time a step holds the guest lock,
 * since a page may cost a 4 KiB zero check while the swap area is full.
 * CLOCK's hand keeps its place for the next step.
 */
#define GUEST_SCAN_BUDGET 1024
/* ... and while the swap area is full and nothing changed (swap_stalled). */
#define GUEST_STALL_SCAN 16

/* Resident pages unmapped by guest_memory_drop_translation at once. */
#define GUEST_MAX_DROPPED 8

struct guest_memory_stats {
	uint64_t faults;                /* EPT violations seen */
	uint64_t zero_fills;            /* UNTOUCHED -> RESIDENT */
	uint64_t swap_outs;             /* writes done: -> SWAPPED */
	uint64_t swap_ins;              /* reads done: SWAPIN -> RESIDENT */
	uint64_t zero_pages_skipped;    /* all-zero victims: -> UNTOUCHED */
	uint64_t clean_drops;           /* valid swap copy: no write */
	uint64_t evictions_cancelled;   /* a fault on a WRITEBACK page */
	/* ... of those, mapped while the page's write was in flight */
	uint64_t writeback_mapped;
	uint64_t evictions_aborted;     /* no slot for the victim */
	uint64_t slots_freed_dirty;     /* swap copy stale: slot released */
	uint64_t writes_started;        /* first attempts only */
	uint64_t reads_started;
	uint64_t io_errors;             /* failed completions */
	uint64_t io_retries;            /* failed I/Os submitted again */
	uint64_t write_failures;        /* given up: page stays resident */
	uint64_t slots_retired;         /* a write to them failed */
	uint64_t read_failures;         /* given up: page lost */
	uint64_t stale_completions;     /* io_done with an unknown id */
	uint64_t swap_full_events;      /* eviction stopped: no free slot */
	uint64_t wait_io;               /* faults answered WAIT_IO */
	uint64_t no_frame;              /* faults answered NO_FRAME */
	uint64_t clock_scanned;         /* resident pages the policy saw */
	/* ... whose accessed bit it cleared (CLOCK: spared this round) */
	uint64_t clock_referenced;
	uint64_t flushes;
	uint64_t evict_steps_stalled;   /* swap full, nothing changed: probe */
	uint64_t frame_free_errors;     /* a frame freed twice (a bug) */
	uint64_t quarantine_changed;    /* a dropped frame changed later */
	uint64_t pins;                  /* guest_memory_pin calls that held */
	uint64_t pins_not_resident;     /* ... that found the page away */
	uint64_t translations_dropped;  /* guest_memory_drop_translation */
	uint64_t dropped_refaults;      /* ... and mapped again by a fault */
	uint64_t prefetch_reads;        /* swap-ins the prefetch policy asked */
	/*
	 * Of those: touched by the guest before they were evicted (its
	 * accessed bit, or a fault while the read was in flight), and
	 * evicted untouched.
	 */
	uint64_t prefetch_used, prefetch_wasted;
	uint64_t prefetch_spared;       /* passed over once, not yet used */
	/*
	 * Pages a prefetch policy asked for that were not read, the pool
	 * being at its low watermark; and of those, asked for again once
	 * frames came back (a policy with on_frames: replay).
	 */
	uint64_t prefetch_refused, prefetch_resumed;
	/* swap.tier: pages that did not expand to what was stored (lost). */
	uint64_t tier_lost;
	/*
	 * swap.protect_kernel: pages marked as the kernel's, times the
	 * policy's scan had to pass one by, and marked pages evicted all the
	 * same (nothing else could go).
	 */
	uint64_t kernel_marked, kernel_spared, kernel_evicted;
	/*
	 * guest_memory_discard: pages that gave back a frame, a slot or a
	 * tier slot; and of those, zero-filled again by a guest fault.
	 */
	uint64_t discarded, discard_refaults;
	/*
	 * guest_memory_overwrite: swap-ins not made, the faulting store
	 * overwriting the whole page (from the disk, from the tier).
	 */
	uint64_t overwrites, overwrites_from_tier;
	uint64_t illegal_transitions;   /* not in page_state.h's list: a bug */
	uint64_t transitions[GUEST_PAGE_STATES][GUEST_PAGE_STATES];
};

/*
 * debug.swap_verify: frames of dropped pages (all zero, or clean) wait
 * here before they are reused, with a checksum taken at the drop; one that
 * changed meanwhile was written through a translation the flush should
 * have removed.
 */
#define GUEST_QUARANTINE_FRAMES 256

struct guest_quarantine {
	struct {
		uint64_t pa, gfn, sum;
	} slot[GUEST_QUARANTINE_FRAMES];
	unsigned capacity;      /* at most a 16th of the frames */
	unsigned next, used;
};

struct guest_memory {
	struct guest_ram_layout ram;    /* where RAM is (lib/guest_ram.h) */
	uint64_t ram_size;              /* bytes of RAM in all */
	/*
	 * Pages of RAM. state[] and meta[] hold one entry per page, indexed
	 * by guest_memory_index (the hole below 4 GiB has none); gfns
	 * everywhere else are guest-physical page numbers.
	 */
	uint64_t npages;
	uint8_t *state;                 /* enum guest_page_state per page */
	struct ept *ept;
	struct frame_pool *pool;
	struct guest_memory_stats stats;
	uint64_t count[GUEST_PAGE_STATES];      /* pages in each state */
	/* Swap: all zero until guest_memory_enable_swap. */
	struct guest_page_meta *meta;
	struct swap_slots *slots;
	struct swap_io_ops io;
	uint64_t low_free, high_free;   /* watermarks, in frames */
	struct eviction_policy evict;   /* who picks the victims */
	bool evict_listens;             /* eviction_policy_listens(&evict) */
	/* Either policy has an on_fault hook (with swap on): set with them. */
	bool fault_listeners;
	/* swap.protect_kernel; kernel_pass: this scan may take them too. */
	bool protect_kernel, kernel_pass;
	/* swap.whole_page_stores: guest_memory_overwrite is wanted. */
	bool whole_page_stores;
	/*
	 * swap.tier: where a victim goes before the disk (NULL: none). A
	 * COMPRESSED page's tier slot is in its meta.frame.
	 */
	struct compressed_tier *tier;
	struct clock_policy clock;      /* the default policy's state */
	struct prefetch_policy prefetch;        /* what to read ahead */
	/*
	 * The prefetch policy has pages it wants that were refused for lack
	 * of frames: the daemon evicts up to the high watermark, and
	 * guest_memory_resume_prefetch asks for them again.
	 */
	bool prefetch_starved;
	/*
	 * While the swap area is full: pages the policy looked at that had
	 * nothing to evict, since the last change that could make a page
	 * evictable (a page made resident, a slot freed). After npages of
	 * them a step only probes a few pages until such a change
	 * (swap_stalled).
	 */
	uint64_t idle_scan;
	uint64_t io_in_flight;
	uint64_t batch[GUEST_EVICT_BATCH];
	bool evicting;                  /* an evict step is under way */
	bool swap_full;                 /* the last slot allocation failed */
	bool swap_full_reported;
	struct guest_quarantine *quarantine;    /* NULL: off */
	/*
	 * debug.isolation_secret: every frame a page gives back to the pool
	 * is filled with this word (0: left as it was); see
	 * guest_memory_fill_freed_frames.
	 */
	uint64_t freed_fill;
	struct guest_pin {
		uint64_t gfn;
		uint32_t count;                 /* 0: the entry is free */
	} pins[GUEST_MAX_PINS];
	/* Resident pages whose translation was dropped (see below). */
	struct guest_dropped {
		uint64_t gfn, pa;       /* pa 0: the entry is free */
	} dropped[GUEST_MAX_DROPPED];
};

struct guest_swap_config {
	struct guest_page_meta *meta;   /* npages entries, any contents */
	struct swap_slots *slots;       /* initialised, all free */
	struct swap_io_ops io;
	/*
	 * Evict when free frames fall below low_free, until high_free are
	 * free (frames under writeback count as free). Both 0: defaults.
	 */
	uint64_t low_free, high_free;
	/* The policies (swap/policy/); ops NULL: CLOCK, and no prefetch. */
	struct eviction_policy evict;
	struct prefetch_policy prefetch;
	bool protect_kernel;            /* swap.protect_kernel */
	bool whole_page_stores;         /* swap.whole_page_stores */
	struct compressed_tier *tier;   /* swap.tier, initialised; or NULL */
};

struct guest_evict_result {
	unsigned scanned;               /* pages the policy looked at */
	unsigned victims;               /* pages unmapped for eviction */
	unsigned compressed;            /* of them: into the tier (swap.tier) */
	unsigned writes;                /* writes started */
	unsigned clean_drops;
	unsigned zero_pages;
	unsigned cancelled;             /* by a fault during the flush */
	unsigned aborted;               /* put back: no free slot */
	bool swap_full;                 /* stopped for want of a slot */
	bool report_swap_full;          /* first time for this guest */
};

/* What a page looks like from outside (tests, debug dumps). */
struct guest_page_info {
	enum guest_page_state state;
	uint8_t flags;                  /* GPM_*, 0 without swap */
	uint32_t slot;                  /* with GPM_SLOT */
	uint64_t frame_pa;              /* 0 when the page has no frame */
};

/* state_storage holds guest_ram_pages(ram) bytes. */
void guest_memory_init(struct guest_memory *gm,
		       const struct guest_ram_layout *ram,
		       uint8_t *state_storage, struct ept *ept,
		       struct frame_pool *pool);

/*
 * Puts the eviction and prefetch policies in place (either NULL: keep the
 * one there). Every change of policy goes through here: the fault path
 * tests flags set here rather than the policies' hooks.
 */
void guest_memory_use_policies(struct guest_memory *gm,
			       const struct eviction_policy *evict,
			       const struct prefetch_policy *prefetch);

/*
 * swap.protect_kernel: the guest faulted on page gpa in kernel mode
 * (kernel true, CPL 0) or in user mode, on a swap-in under way. A page the
 * kernel waits for is marked and evicted only when no other page can go;
 * a user-mode fault on it takes the mark off. Nothing without swap or
 * with protect_kernel off.
 */
void guest_memory_note_fault_mode(struct guest_memory *gm, uint64_t gpa,
				  bool kernel);

/*
 * Turns on eviction. Pages already resident stay so; every other page must
 * be UNTOUCHED. Returns 0, or -1 (bad watermarks, a page in another state,
 * a frame above 2^44 that meta.frame cannot hold, guest RAM mapped by a
 * 2 MiB EPT leaf: pages are evicted one by one, so each needs its own).
 */
int guest_memory_enable_swap(struct guest_memory *gm,
			     const struct guest_swap_config *cfg);

/*
 * debug.isolation_secret: from now on every frame that a page gives back to
 * the pool (evicted after its write, dropped as clean or all zero, left by
 * a read given up) is filled with value in every 8-byte word before anyone
 * can take it again. A frame reaches the guest only zero-filled or holding
 * what was read into it: one mapped without either would show value. 0
 * turns it off (frames keep what they held).
 */
void guest_memory_fill_freed_frames(struct guest_memory *gm, uint64_t value);

/* An EPT violation at gpa: bring the page in. */
enum guest_fault_result guest_memory_fault(struct guest_memory *gm,
					   uint64_t gpa);

/*
 * Copies len bytes into guest RAM at gpa, making untouched pages resident;
 * -1 when a page is outside RAM, cannot get a frame or is not resident.
 * The write bypasses EPT, so it invalidates the pages' swap copies itself.
 */
/*
 * Keeps the page at gpa resident until as many unpins: 0, or -1 when it is
 * not resident now (the caller faults it in and tries again), outside RAM,
 * or the pin table is full. Without swap every page stays anyway: 0.
 */
int guest_memory_pin(struct guest_memory *gm, uint64_t gpa);

/*
 * The hypervisor's pointer to the page of gpa, which guest_memory_pin
 * holds (or any mapped page without swap): it keeps its frame while
 * pinned, so a word of it the hypervisor reads and writes often (the
 * async-PF area) needs no lock after this. Its swap copy is dropped here,
 * as writes through the pointer set no dirty bit. NULL: not pinned or not
 * in a frame.
 */
void *guest_memory_pinned_page(struct guest_memory *gm, uint64_t gpa);
void guest_memory_unpin(struct guest_memory *gm, uint64_t gpa);

/*
 * Copies len bytes of guest RAM at gpa to dst; untouched pages read as
 * zero. -1 when gpa is outside RAM or a page is not mapped (swapped out,
 * or on its way): the caller brings it in and tries again.
 */
int guest_memory_read(const struct guest_memory *gm, uint64_t gpa, void *dst,
		      uint64_t len);

int guest_memory_write(struct guest_memory *gm, uint64_t gpa, const void *src,
		       uint64_t len);

/*
 * True when the swap area is full and the policy looked at npages pages in
 * a row that all need a write: no eviction can free a frame until a page
 * becomes resident or a slot is freed.
 */
bool guest_memory_swap_stalled(const struct guest_memory *gm);

/*
 * True when free frames are below the low watermark, or below the high
 * one while a prefetch waits for frames (prefetch_starved).
 */
bool guest_memory_needs_eviction(const struct guest_memory *gm);

/*
 * The daemon's turn after evicting: when the prefetch policy was refused
 * frames and the pool is above its low watermark again, the pages it still
 * wants are read (the same rules as at a fault).
 */
void guest_memory_resume_prefetch(struct guest_memory *gm);

/*
 * The paging daemon's step: evicts until free frames (counting writes in
 * flight) reach the high watermark, at most max_pages victims, in batches
 * of GUEST_EVICT_BATCH (one flush each), the eviction policy looking at
 * most at GUEST_SCAN_BUDGET pages. Returns the frames freed or being freed:
 * 0 means no progress this step (nothing evictable in the pages scanned,
 * swap full, or another step is under way); a later step goes on from
 * where the policy stopped (CLOCK's hand). While the swap area is full and
 * npages pages in a row had nothing, a step looks at only GUEST_STALL_SCAN
 * pages until a page becomes
 * resident or a slot is freed. res may be NULL.
 */
unsigned guest_memory_evict_step(struct guest_memory *gm, unsigned max_pages,
				 struct guest_evict_result *res);

/*
 * One page out now, as a victim of a step would go (a write, a clean drop,
 * a zero page freed, or the tier), whatever the policy would choose and
 * however many frames are free: for debug.hypercall's tests. 0, or -1
 * when the page at gpa is not RAM, not resident, pinned, or a step is
 * under way. res may be NULL.
 */
int guest_memory_evict_page(struct guest_memory *gm, uint64_t gpa,
			    struct guest_evict_result *res);

/*
 * The I/O with this id has finished. A failed I/O is submitted again up to
 * GUEST_IO_TRIES attempts in all: a read from the same slot (the page is
 * only there), a write to a fresh slot, the failed one being retired (no
 * free slot: the page stays resident). Returns HV_OK; HV_ERR_NOT_FOUND for an
 * id that is not in flight (stale or bogus: ignored, counted); any other
 * error is ept_map's when the page could not be mapped again (EPT failure:
 * stop the guest).
 */
enum hv_err guest_memory_io_done(struct guest_memory *gm, uint64_t id,
				 bool ok);

/* What guest_memory_discard did with the pages it was given. */
struct guest_discard_result {
	uint64_t dropped;       /* gave back a frame, a slot or a tier slot */
	uint64_t already_free;  /* UNTOUCHED already */
	uint64_t kept;          /* I/O in flight, pinned, or swap off */
	uint64_t outside_ram;
};

/*
 * The guest says pages [gpa, gpa + pages * 4 KiB) are free (virtio-balloon
 * free page reporting): each page gives back its frame, its swap slot and
 * its tier slot and is UNTOUCHED again, so its next touch is a zero fill
 * (counted in discard_refaults). Resident pages are unmapped in batches of
 * GUEST_EVICT_BATCH with one flush each, as victims are. A page with I/O
 * in flight or pinned is kept, as is every page without swap (the pages
 * stay mapped then: nothing to flush with). r is added to.
 */
void guest_memory_discard(struct guest_memory *gm, uint64_t gpa,
			  uint64_t pages, struct guest_discard_result *r);

/*
 * An EPT violation at gpa by a store that is about to overwrite the whole
 * page with 8-byte words of fill (guest/page_store.h): a page on the swap
 * device or in the tier gets a fresh frame holding what the store will
 * leave, loses its slot and is mapped, without the read (RESOLVED, or
 * NO_FRAME: retry). A page in any other state (resident, untouched, with
 * I/O in flight, lost) answers GUEST_FAULT_WAIT_IO with nothing done: the
 * caller takes the usual fault path.
 */
enum guest_fault_result guest_memory_overwrite(struct guest_memory *gm,
					       uint64_t gpa, uint64_t fill);

/*
 * True when gpa is guest RAM whose page is on the swap device or in the
 * tier and nowhere else, with no I/O in flight and not lost: what
 * guest_memory_overwrite takes. Without the lock it is a hint (the VM
 * exit's, before it fetches the instruction); with it, the answer.
 */
bool guest_memory_only_in_swap(const struct guest_memory *gm, uint64_t gpa);

/* True while an I/O of the page at gpa is in flight. */
bool guest_memory_io_busy(const struct guest_memory *gm, uint64_t gpa);

/* The entry of RAM page gfn in per-page arrays sized npages. */
static inline uint64_t guest_memory_index(const struct guest_memory *gm,
					  uint64_t gfn)
{
	return guest_ram_page_index(&gm->ram, gfn);
}

/* The gfn of the page with entry i (i < npages). */
static inline uint64_t guest_memory_index_gfn(const struct guest_memory *gm,
					      uint64_t i)
{
	return guest_ram_index_gfn(&gm->ram, i);
}

/* True when gpa is guest RAM. */
static inline bool guest_memory_is_ram(const struct guest_memory *gm,
				       uint64_t gpa)
{
	return guest_ram_contains(&gm->ram, gpa);
}

enum guest_page_state guest_memory_page_state(const struct guest_memory *gm,
					      uint64_t gpa);

/* Fills *out for the page with number gfn; false when outside RAM. */
bool guest_memory_page_info(const struct guest_memory *gm, uint64_t gfn,
			    struct guest_page_info *out);

/*
 * QEMU pc-testdev's "flush page" (guest/devices/pc_testdev.h): the EPT translation
 * of the resident page at gpa goes, the frame stays the page's, and the
 * next guest access takes an EPT violation that maps it again
 * (GUEST_FAULT_RESOLVED). The caller then flushes the vCPUs' cached
 * translations. 0 when done; -1 when the page is not resident in a 4 KiB
 * mapping, swap is on (the paging daemon owns unmapping then), or
 * GUEST_MAX_DROPPED pages are unmapped already.
 */
int guest_memory_drop_translation(struct guest_memory *gm, uint64_t gpa);

const char *guest_fault_result_name(enum guest_fault_result r);

/*
 * Calls fn with every swap counter under its stat name ("swap.outs", ...),
 * then the pages in each state ("pages.resident", ...) and every transition
 * that happened ("pages.resident_to_writeback", ...). Without swap only
 * the page flushes of pc-testdev ("testdev.translations_dropped", if any).
 */
void guest_memory_each_stat(const struct guest_memory *gm,
			    void (*fn)(void *ctx, const char *name,
				       uint64_t value),
			    void *ctx);

#endif
