// SPDX-License-Identifier: BSD-2-Clause
#include "swap/swap_daemon.h"
#include "swap/swap_daemon_internal.h"
#include "lib/trace/trace.h"
#include "swap/swap_thrash.h"
#include "swap/drivers/blockdev_faults.h"
#include "swap/swap_device.h"
#include "swap/swap_format.h"
#include "swap/swap_io_queue.h"
#include "swap/swap_slots.h"
#include "swap/swap_verify.h"
#include "lib/console.h"
#include "lib/counters.h"
#include "lib/format.h"
#include "lib/heap.h"
#include "lib/ratelimit.h"
#include "lib/string.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"

#define EVICT_PAGES_PER_STEP 256
#define COMPLETIONS_PER_POLL 32
/* Steps that freed nothing, with no I/O in flight, before "stuck". */
#define STUCK_STEPS 3
/* A fatal line, short enough for the end-of-guest line that repeats it. */
#define SWAP_FATAL_LINE_MAX 160

bool swap_daemon_has_swap(const struct swap_daemon *d)
{
	return d->dev != NULL;
}

const struct blockdev *swap_daemon_device(const struct swap_daemon *d)
{
	return d->dev;
}

bool swap_daemon_has_service_cpu(const struct swap_daemon *d)
{
	return d->cfg.service_cpu;
}

void swap_daemon_fatal(struct swap_daemon *d, const char *fmt, ...)
{
	char line[SWAP_FATAL_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	hv_error("%s", line);
	if (d->cfg.ops.fatal)
		d->cfg.ops.fatal(d->cfg.ops.ctx, line);
}

/* debug.swap_verify: counted here, explained by swap_verify.c. */
static bool read_verified(struct swap_daemon *d, const struct swap_io *io)
{
	if (swap_verify_read(&d->verify, io->gfn, io->slot, io->frame_pa))
		return true;
	d->stats.verify_mismatches++;
	return false;
}

static bool clean_drop_ok(void *ctx, uint64_t gfn, uint64_t frame_pa)
{
	struct swap_daemon *d = ctx;

	if (swap_verify_clean(&d->verify, gfn, frame_pa))
		return true;
	d->stats.verify_clean_changed++;
	return false;
}

/* guest_memory's I/O leaves here: into the daemon's queues. */
static void queue_io(void *ctx, const struct swap_io *io)
{
	struct swap_daemon *d = ctx;

	/* The frame is unmapped and flushed: its contents are final. */
	if (d->verifying && io->op == SWAP_IO_WRITE)
		swap_verify_written(&d->verify, io->gfn, io->frame_pa);
	if (!swap_io_queue_add(&d->io, io))
		swap_daemon_fatal(d, "swap: I/O queue overflow (%u requests): "
				  "stopping rather than losing a page",
				  swap_io_queue_waiting(&d->io));
}

static void flush_translations(void *ctx)
{
	struct swap_daemon *d = ctx;

	d->stats.shootdowns++;
	if (d->cfg.ops.flush_translations)
		d->cfg.ops.flush_translations(d->cfg.ops.ctx);
}

/* A guest that loses many pages gets a few lines, then a count. */
static struct ratelimit lost_lines = RATELIMIT("pages lost to failed "
					       "swap-ins", 8);

/*
 * guest_memory's page_settled: the page's I/O ended for good (resident, or
 * lost). One page-resident event names it with the vCPUs that waited.
 */
static void page_settled(void *ctx, uint64_t gfn, bool resident)
{
	struct swap_daemon *d = ctx;
	uint64_t *word = waiter_word(d, gfn);
	uint64_t waiters = *word;

	if (!resident) {
		d->stats.pages_lost++;
		if (ratelimit_allow(&lost_lines))
			hv_info("swap: the page at gpa 0x%llx could not be "
				"read back (%u attempts): lost; an access "
				"to it is a machine check for the guest",
				(unsigned long long)(gfn << PAGE_SHIFT),
				GUEST_IO_TRIES);
	}

	__atomic_store_n(word, 0, __ATOMIC_RELEASE);
	d->stats.page_resident_events++;
	if (d->cfg.ops.page_resident)
		d->cfg.ops.page_resident(d->cfg.ops.ctx, gfn << PAGE_SHIFT,
					 waiters, resident);
}

static void trace_io_done(const struct swap_io *io, bool ok,
			  uint64_t submitted)
{
	uint64_t latency = submitted ? trace_clock() - submitted : 0;

	if (io->op == SWAP_IO_READ)
		trace_swap_in_done(TRACE_NO_VCPU, io->gfn << PAGE_SHIFT,
				   io->slot, ok, latency);
	else
		trace_swap_out_done(TRACE_NO_VCPU, io->gfn << PAGE_SHIFT,
				    io->slot, ok, latency);
}

static void finish_io(struct swap_daemon *d, void *cookie, bool ok)
{
	struct swap_io io;
	enum hv_err err;

	uint64_t submitted = 0;

	if (trace_on) {
		const struct swap_io_in_flight *f =
			swap_io_queue_peek(&d->io, cookie);

		submitted = f ? f->submitted_tsc : 0;
	}
	if (!swap_io_queue_complete(&d->io, cookie, &io))
		return;         /* not ours: counted by the queue */
	d->stats.completed++;
	trace_io_done(&io, ok, submitted);
	if (ok && d->verifying && io.op == SWAP_IO_READ)
		ok = read_verified(d, &io);
	if (ok && io.op == SWAP_IO_READ &&
	    swap_unreadable_has(&d->unreadable, io.gfn)) {
		ok = false;
		d->stats.reads_made_to_fail++;
	}
	err = guest_memory_io_done(d->mem, io.id, ok);
	/* A stale id is counted by guest memory; a page left unmapped is not. */
	if (err != HV_OK && err != HV_ERR_NOT_FOUND)
		swap_daemon_fatal(d, "swap: the page at gpa 0x%llx could not be "
				  "mapped again after its I/O",
				  (unsigned long long)(io.gfn << PAGE_SHIFT));
}

/*
 * swap.read_latency: a read the device finished early is held (its queue
 * slot stays taken, as on a slower disk) until read_latency after it was
 * submitted. Returns true when held.
 */
static bool hold_early_read(struct swap_daemon *d, void *cookie, bool ok,
			    uint64_t now)
{
	const struct swap_io_in_flight *f = swap_io_queue_peek(&d->io, cookie);
	uint64_t due;

	if (!d->read_latency_tsc || !f || f->io.op != SWAP_IO_READ ||
	    d->nheld == ARRAY_SIZE(d->held))
		return false;
	due = f->submitted_tsc + d->read_latency_tsc;
	if (now >= due)
		return false;
	d->held[d->nheld++] = (struct held_read){ cookie, ok, due };
	d->stats.reads_delayed++;
	return true;
}

static unsigned release_due_reads(struct swap_daemon *d, uint64_t now)
{
	unsigned released = 0;

	for (unsigned i = 0; i < d->nheld;) {
		struct held_read h = d->held[i];

		if (now < h.due) {
			i++;
			continue;
		}
		d->held[i] = d->held[--d->nheld];
		finish_io(d, h.cookie, h.ok);
		released++;
	}
	return released;
}

static unsigned harvest(struct swap_daemon *d)
{
	struct blk_completion done[COMPLETIONS_PER_POLL];
	uint64_t t0 = rdtsc();
	unsigned n = blk_poll(d->dev, done, COMPLETIONS_PER_POLL);

	for (unsigned i = 0; i < n; i++) {
		bool ok = done[i].status == BLK_OK;

		if (!hold_early_read(d, done[i].cookie, ok, t0))
			finish_io(d, done[i].cookie, ok);
	}
	n += release_due_reads(d, rdtsc());
	d->stats.io_tsc += rdtsc() - t0;
	return n;
}

static unsigned submit_queued(struct swap_daemon *d)
{
	struct swap_io io;
	void *cookie;
	unsigned n = 0;

	while (swap_io_queue_next(&d->io, &io, &cookie)) {
		struct blk_request r = {
			.op = io.op == SWAP_IO_READ ? BLK_READ : BLK_WRITE,
			.offset = swap_slot_offset(io.slot),
			.buffer_pa = io.frame_pa,
			.cookie = cookie,
		};

		if (blk_submit(d->dev, &r)) {
			d->stats.queue_full++;
			swap_io_queue_unsubmit(&d->io);
			return n;
		}
		swap_io_queue_submitted(&d->io, rdtsc());
		d->stats.submitted++;
		if (io.op == SWAP_IO_READ)
			trace_swap_in_submit(TRACE_NO_VCPU,
					     io.gfn << PAGE_SHIFT, io.slot);
		else
			trace_swap_out_submit(TRACE_NO_VCPU,
					      io.gfn << PAGE_SHIFT, io.slot);
		n++;
	}
	return n;
}

/*
 * A request the device has not completed in time is reported once; one
 * that stays stuck four times as long stops the guest (with the page
 * named) instead of leaving its vCPU waiting forever. It is not submitted
 * a second time: the device may still transfer into the frame.
 */
static void check_deadlines(struct swap_daemon *d)
{
	struct swap_io io;
	uint64_t age;
	bool first;

	if (!swap_io_queue_oldest_overdue(&d->io, rdtsc(),
					  SWAP_IO_DEADLINE_S * tsc_hz, &io, &age,
					  &first))
		return;
	if (first) {
		d->stats.overdue_requests++;
		hv_error("swap: %s: the %s of gpa 0x%llx (slot %u) has not "
			 "completed after %u s", d->dev->name,
			 io.op == SWAP_IO_READ ? "read" : "write",
			 (unsigned long long)(io.gfn << PAGE_SHIFT), io.slot,
			 SWAP_IO_DEADLINE_S);
	}
	if (age > 4ull * SWAP_IO_DEADLINE_S * tsc_hz && !d->stuck) {
		d->stuck = true;
		swap_daemon_fatal(d, "swap: %s: gave up on the %s of gpa 0x%llx "
				  "after %u s", d->dev->name,
				  io.op == SWAP_IO_READ ? "read" : "write",
				  (unsigned long long)(io.gfn << PAGE_SHIFT),
				  4 * SWAP_IO_DEADLINE_S);
	}
}

/*
 * Nothing can be evicted (the swap area is full and a whole turn of the
 * hand found only pages that need a write), no frame is free and no I/O
 * will free one: say so once and stop the guest rather than let its vCPUs
 * wait for a frame forever. A vCPU that merely lost the race for frames
 * while the daemon makes progress is never stopped.
 */
static void note_progress(struct swap_daemon *d, unsigned freed)
{
	struct guest_memory *gm = d->mem;

	if (freed || gm->io_in_flight || gm->pool->nfree ||
	    !guest_memory_swap_stalled(gm)) {
		d->stuck_steps = 0;
		return;
	}
	if (++d->stuck_steps < STUCK_STEPS || d->stuck)
		return;
	d->stuck = true;
	swap_daemon_fatal(d, "swap: out of memory: swap area full (%llu of %llu "
			  "slots, %llu retired), no resident page can be "
			  "evicted",
			  (unsigned long long)d->slots.in_use,
			  (unsigned long long)d->slots.nslots,
			  (unsigned long long)d->slots.retired);
}

static void evict(struct swap_daemon *d)
{
	struct guest_evict_result res;
	uint64_t t0 = rdtsc();
	unsigned freed;

	d->stats.evict_steps++;
	freed = guest_memory_evict_step(d->mem, EVICT_PAGES_PER_STEP, &res);
	d->stats.evict_tsc += rdtsc() - t0;
	d->stats.victims += res.victims;
	trace_evict_step(TRACE_NO_VCPU, res.scanned, res.victims, res.writes,
			 res.clean_drops + res.zero_pages);
	/*
	 * Not an error yet: clean and zero pages can still go, and slots come
	 * back as pages are dirtied. It becomes one (note_progress) when
	 * nothing can be evicted at all.
	 */
	if (res.report_swap_full)
		hv_info("swap: the swap area is full (%u slots): pages that "
			"need a write stay until slots are freed",
			d->slots.nslots);
	note_progress(d, freed);
}

unsigned swap_daemon_io_waiting(const struct swap_daemon *d)
{
	return d->dev ? swap_io_queue_waiting(&d->io) : 0;
}

/* The thrashing rule (swap/swap_thrash.h), on the daemon's clock. */
static void check_thrashing(struct swap_daemon *d)
{
	uint64_t waited = d->stats.wait_tsc + d->stats.apf_halt_tsc;
	unsigned percent = 0;

	switch (swap_thrash_check(&d->thrash, d->mem->swap_full && !d->stuck,
				  waited, rdtsc(),
				  (uint64_t)SWAP_THRASH_WINDOW_S * tsc_hz,
				  &percent)) {
	case SWAP_THRASH_NOTHING:
		return;
	case SWAP_THRASH_WINDOW_HIGH:
		hv_info("swap: the swap area is full and the vCPUs spent "
			"%u%% of the last %u s waiting for swap (%u such "
			"windows in a row end the guest)", percent,
			SWAP_THRASH_WINDOW_S, SWAP_THRASH_WINDOWS);
		return;
	case SWAP_THRASH_THRASHING:
		d->stuck = true;
		swap_daemon_fatal(d, "swap: out of memory: swap area full (%llu "
				  "slots), more than %u%% of the last %u s spent "
				  "waiting for swap (thrashing)",
				  (unsigned long long)d->slots.nslots,
				  SWAP_THRASH_PERCENT,
				  SWAP_THRASH_WINDOW_S * SWAP_THRASH_WINDOWS);
		return;
	}
}

/* Called with the lock held; false when there was nothing to do. */
static bool work_locked(struct swap_daemon *d)
{
	bool busy = harvest(d) > 0;

	if (guest_memory_needs_eviction(d->mem) &&
	    swap_io_queue_room_for_writes(&d->io) >= EVICT_PAGES_PER_STEP) {
		evict(d);
		busy = true;
	}
	guest_memory_resume_prefetch(d->mem);
	busy |= submit_queued(d) > 0;
	check_deadlines(d);
	check_thrashing(d);
	return busy;
}

bool swap_daemon_runs_on(const struct swap_daemon *d, enum swap_worker who)
{
	return d->cfg.service_cpu ? who == SWAP_WORKER_SERVICE_CPU
				  : who == SWAP_WORKER_VCPU;
}

bool swap_daemon_work_as(struct swap_daemon *d, enum swap_worker who)
{
	return swap_daemon_runs_on(d, who) && swap_daemon_work(d);
}

bool swap_daemon_work(struct swap_daemon *d)
{
	bool busy;

	if (!d->dev)
		return false;
	spin_lock(d->lock);
	busy = work_locked(d);
	spin_unlock(d->lock);
	return busy;
}

bool swap_daemon_fail_reads_of(struct swap_daemon *d, uint64_t gpa)
{
	bool ok;

	if (!d->dev || !guest_memory_is_ram(d->mem, gpa))
		return false;
	spin_lock(d->lock);
	ok = swap_unreadable_add(&d->unreadable, gpa >> PAGE_SHIFT);
	spin_unlock(d->lock);
	return ok;
}

bool swap_daemon_evict_page(struct swap_daemon *d, uint64_t gpa)
{
	struct guest_evict_result res;
	bool ok;

	if (!d->dev)
		return false;
	spin_lock(d->lock);
	ok = guest_memory_evict_page(d->mem, gpa, &res) == 0;
	d->stats.victims += res.victims;
	spin_unlock(d->lock);
	return ok;
}

void swap_daemon_count_apf_halt(struct swap_daemon *d, unsigned vcpu,
				uint64_t tsc)
{
	__atomic_fetch_add(&d->stats.apf_halt_tsc, tsc, __ATOMIC_RELAXED);
	swap_thrash_note_vcpu(&d->thrash, vcpu);
}

static bool wants_swap(const struct swap_daemon_config *cfg)
{
	return cfg->params.device != SWAP_DEVICE_NONE ||
	       cfg->mem->ram_size > cfg->host_frames;
}

static bool open_swap(struct swap_daemon *d)
{
	const struct swap_daemon_config *cfg = &d->cfg;
	struct guest_swap_config sc;
	uint32_t nslots;

	if (cfg->params.device == SWAP_DEVICE_NONE) {
		hv_error("guest.memory (%llu MiB) is larger than "
			 "host.guest_frames (%llu MiB) and swap.device = none",
			 (unsigned long long)(d->mem->ram_size >> 20),
			 (unsigned long long)(cfg->host_frames >> 20));
		return false;
	}
	d->dev = blockdev_faults_wrap(swap_device_open(cfg->params.device,
						       &d->hdr),
				      cfg->params.fail_reads,
				      cfg->params.fail_writes);
	if (!d->dev)
		return false;
	/*
	 * A guest page holds at most one slot, so a larger disk only needs
	 * as many slots as the guest has pages, and a sixteenth more to
	 * replace slots retired after write errors: the slot bitmap (and the
	 * hypervisor heap it lives in) never grows with the disk.
	 */
	nslots = (uint32_t)MIN(MIN(d->hdr.page_count,
				   d->mem->npages + d->mem->npages / 16),
			       UINT32_MAX);
	if (nslots < d->hdr.page_count)
		hv_info("swap: the swap area has %llu slots; a guest of %llu "
			"pages uses the first %u",
			(unsigned long long)d->hdr.page_count,
			(unsigned long long)d->mem->npages, nslots);
	swap_slots_init(&d->slots, hv_alloc(swap_slots_storage_words(nslots) *
					    sizeof(uint64_t)), nslots);
	swap_io_queue_init(&d->io, MIN(d->dev->queue_depth,
				       SWAP_IO_IN_FLIGHT_MAX));
	d->waiters = hv_alloc(d->mem->npages * sizeof(uint64_t));
	/* At most 10 s: 1e10 ns times tsc_hz / 1000 stays far below 2^64. */
	d->read_latency_tsc = cfg->params.read_latency_ns * (tsc_hz / 1000) /
			      1000000ull;
	if (d->read_latency_tsc)
		hv_info("swap: reads complete %llu us after submission at the "
			"earliest (swap.read_latency)",
			(unsigned long long)(cfg->params.read_latency_ns / 1000));
	if (cfg->params.verify) {
		d->verifying = true;
		swap_verify_init(&d->verify, &d->mem->ept->mem, &d->mem->ram);
		d->mem->quarantine = hv_alloc(sizeof(*d->mem->quarantine));
		d->mem->quarantine->capacity = (unsigned)MAX(1u,
			MIN(GUEST_QUARANTINE_FRAMES, d->mem->pool->total / 16));
		hv_info("debug: swap pages are checksummed and verified on "
			"swap-in");
	}
	if (!swap_policies_setup(&d->policies, &cfg->params, &d->mem->ram,
				 d->verifying))
		return false;
	sc = (struct guest_swap_config){
		.meta = hv_alloc(d->mem->npages * sizeof(struct guest_page_meta)),
		.slots = &d->slots,
		.io = { queue_io, flush_translations, d, page_settled,
			d->verifying ? clean_drop_ok : NULL },
		.evict = d->policies.evict,
		.prefetch = d->policies.prefetch,
		.protect_kernel = cfg->params.protect_kernel,
		.whole_page_stores = cfg->params.whole_page_stores,
		.tier = d->policies.has_tier ? &d->policies.tier : NULL,
	};
	if (guest_memory_enable_swap(d->mem, &sc)) {
		hv_error("swap: cannot enable eviction for this guest");
		return false;
	}
	return true;
}

struct swap_daemon *swap_daemon_create(const struct swap_daemon_config *cfg)
{
	struct swap_daemon *d = hv_alloc(sizeof(*d));

	d->cfg = *cfg;
	d->mem = cfg->mem;
	d->lock = cfg->lock;
	if (!wants_swap(cfg)) {
		swap_daemon_register_memory_counters(d);
		return d;
	}
	if (!open_swap(d))
		return NULL;
	swap_daemon_register_counters(d);
	return d;
}
