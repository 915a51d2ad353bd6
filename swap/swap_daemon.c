// SPDX-License-Identifier: BSD-2-Clause
#include "swap/swap_daemon.h"
#include "swap/blockdev_faults.h"
#include "swap/swap_device.h"
#include "swap/swap_format.h"
#include "swap/swap_slots.h"
#include "boot/hv_heap.h"
#include "guest/guest.h"
#include "lib/console.h"
#include "lib/string.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"

#define EVICT_PAGES_PER_STEP 256
#define COMPLETIONS_PER_POLL 32
/* A page that does not come in within this many seconds is an error. */
#define SWAP_WAIT_LIMIT_S 30u

struct swap_daemon {
	struct guest *g;
	struct blockdev *dev;
	struct swap_header_info hdr;
	struct swap_slots slots;
	struct swap_io queue[SWAP_QUEUE_MAX];   /* not yet taken by the device */
	unsigned head, count;
	struct swap_daemon_stats stats;
};

static struct swap_daemon the_daemon;

static void queue_io(void *ctx, const struct swap_io *io)
{
	struct swap_daemon *d = ctx;

	if (d->count == SWAP_QUEUE_MAX) {
		/*
		 * Eviction leaves SWAP_QUEUE_RESERVE entries free, and each
		 * vCPU waits for one page at a time: a full queue is a bug.
		 * Dropping the I/O would lose data, so the guest stops.
		 */
		hv_error("swap: I/O queue overflow (%u requests)", d->count);
		guest_end(d->g, false, "swap: I/O queue overflow");
		return;
	}
	d->queue[(d->head + d->count) % SWAP_QUEUE_MAX] = *io;
	d->count++;
}

/* Hands queued I/O to the device until its queue is full. */
static void submit_queued(struct swap_daemon *d)
{
	while (d->count) {
		const struct swap_io *io = &d->queue[d->head];
		struct blk_request r = {
			.op = io->op == SWAP_IO_READ ? BLK_READ : BLK_WRITE,
			.offset = swap_slot_offset(io->slot),
			.buffer_pa = io->frame_pa,
			.cookie = (void *)(uintptr_t)io->id,
		};

		if (blk_submit(d->dev, &r)) {
			d->stats.queue_full++;
			return;
		}
		d->stats.submitted++;
		d->head = (d->head + 1) % SWAP_QUEUE_MAX;
		d->count--;
	}
}

static void harvest(struct guest *g, struct swap_daemon *d)
{
	struct blk_completion done[COMPLETIONS_PER_POLL];
	uint64_t t0 = rdtsc();
	unsigned n = blk_poll(d->dev, done, COMPLETIONS_PER_POLL);

	for (unsigned i = 0; i < n; i++) {
		d->stats.completed++;
		if (guest_memory_io_done(&g->mem, (uint64_t)(uintptr_t)done[i].cookie,
					 done[i].status == BLK_OK) == -2)
			guest_end(g, false, "swap: a page could not be mapped "
				  "again after its I/O");
	}
	d->stats.io_tsc += rdtsc() - t0;
}

/*
 * Before an evicted page's frame is reused, no vCPU may still hold its
 * translation: every vCPU in guest mode is kicked out and flushes
 * (INVEPT) before it enters again (vmx/vcpu_events.c). Called with g->lock
 * held; drops it while waiting so that the vCPUs can take it.
 */
static void shootdown(void *ctx)
{
	struct guest *g = ((struct swap_daemon *)ctx)->g;

	the_daemon.stats.shootdowns++;
	__atomic_fetch_add(&g->ept_generation, 1, __ATOMIC_SEQ_CST);
	if (g->ept_flush)
		g->ept_flush(g);
}

void swap_daemon_work(struct guest *g)
{
	struct swap_daemon *d = &the_daemon;

	if (!d->dev)
		return;
	spin_lock(&g->lock);
	harvest(g, d);
	if (guest_memory_needs_eviction(&g->mem) &&
	    d->count + EVICT_PAGES_PER_STEP + SWAP_QUEUE_RESERVE <=
		    SWAP_QUEUE_MAX) {
		struct guest_evict_result res;

		uint64_t t0 = rdtsc();

		d->stats.evict_steps++;
		guest_memory_evict_step(&g->mem, EVICT_PAGES_PER_STEP, &res);
		d->stats.evict_tsc += rdtsc() - t0;
		d->stats.victims += res.victims;
		if (res.report_swap_full)
			hv_error("swap: the swap area is full (%llu pages): "
				 "eviction stops until slots are freed",
				 (unsigned long long)d->hdr.page_count);
	}
	submit_queued(d);
	spin_unlock(&g->lock);
}

/*
 * The synchronous fault path (no async page faults yet): the vCPU helps
 * the daemon along until the page at gpa is resident or cannot be.
 */
enum guest_fault_result swap_daemon_fault(struct guest *g, uint64_t gpa)
{
	struct swap_daemon *d = &the_daemon;
	enum guest_fault_result r;
	uint64_t start = 0;

	for (;;) {
		spin_lock(&g->lock);
		r = guest_memory_fault(&g->mem, gpa);
		spin_unlock(&g->lock);
		if (r != GUEST_FAULT_SWAPIN_STARTED && r != GUEST_FAULT_WAIT_IO &&
		    r != GUEST_FAULT_NO_FRAME)
			break;
		if (!d->dev || g->ended)
			break;
		if (!start) {
			start = rdtsc();
			d->stats.waits++;
		} else if (rdtsc() - start > SWAP_WAIT_LIMIT_S * tsc_hz) {
			hv_error("swap: waited %u s for the page at gpa 0x%llx "
				 "(%s): giving up", SWAP_WAIT_LIMIT_S,
				 (unsigned long long)gpa,
				 guest_fault_result_name(r));
			break;
		}
		swap_daemon_work(g);
		cpu_relax();
	}
	if (start)
		d->stats.wait_tsc += rdtsc() - start;
	/*
	 * Mapped meanwhile: by the completion this vCPU waited for (a
	 * cancelled eviction), or by another vCPU faulting on the same page.
	 * All guest mappings are RWX, so the access will now succeed.
	 */
	if (r == GUEST_FAULT_ALREADY_MAPPED) {
		d->stats.already_mapped++;
		r = GUEST_FAULT_RESOLVED;
	}
	return r;
}

static bool wants_swap(const struct boot_info *bi)
{
	return bi->cfg.swap_device != SWAP_DEVICE_NONE ||
	       bi->cfg.guest_memory > bi->cfg.host_guest_frames;
}

bool swap_daemon_setup(struct guest *g, const struct boot_info *bi)
{
	struct swap_daemon *d = &the_daemon;
	enum swap_device_kind kind = bi->cfg.swap_device;
	struct guest_swap_config sc;
	uint32_t nslots;

	if (!wants_swap(bi))
		return true;
	if (kind == SWAP_DEVICE_NONE) {
		hv_error("guest.memory (%llu MiB) is larger than "
			 "host.guest_frames (%llu MiB) and swap.device = none",
			 (unsigned long long)(bi->cfg.guest_memory >> 20),
			 (unsigned long long)(bi->cfg.host_guest_frames >> 20));
		return false;
	}
	d->dev = swap_device_open(kind, &d->hdr);
	d->dev = blockdev_faults_wrap(d->dev, bi->cfg.debug_swap_fail_reads,
				      bi->cfg.debug_swap_fail_writes);
	if (!d->dev)
		return false;
	nslots = (uint32_t)MIN(d->hdr.page_count, UINT32_MAX);
	swap_slots_init(&d->slots, hv_alloc(swap_slots_storage_words(nslots) *
					    sizeof(uint64_t)), nslots);
	sc = (struct guest_swap_config){
		.meta = hv_alloc(g->mem.npages * sizeof(struct guest_page_meta)),
		.slots = &d->slots,
		.io = { queue_io, shootdown, d },
	};
	d->g = g;
	if (guest_memory_enable_swap(&g->mem, &sc)) {
		hv_error("swap: cannot enable eviction for this guest");
		return false;
	}
	return true;
}

static uint64_t per(uint64_t total, uint64_t n)
{
	return n ? total / n : 0;
}

/*
 * make bench-swap's figures, in TSC cycles (= emulated instructions under
 * Bochs): what a vCPU waits per swap-in, and the daemon's root-mode time
 * per page written (victim selection, unmap, shootdown, zero check,
 * submission, and the driver's work in polling), beside the device rate
 * the block self-test measured at the start of the same run.
 */
static void report_bench(const struct swap_daemon *d,
			 const struct guest_memory_stats *s)
{
	hv_info("bench: swap-in %llu cycles/page (vCPU wait, %llu swap-ins)",
		(unsigned long long)per(d->stats.wait_tsc, s->swap_ins),
		(unsigned long long)s->swap_ins);
	hv_info("bench: swap-out %llu cycles/page batched (daemon root-mode "
		"time over %llu pages written)",
		(unsigned long long)per(d->stats.evict_tsc + d->stats.io_tsc,
					s->swap_outs),
		(unsigned long long)s->swap_outs);
	hv_info("bench: eviction candidates %llu: zero %llu%%, clean %llu%%, "
		"written %llu%%", (unsigned long long)d->stats.victims,
		(unsigned long long)per(100 * s->zero_pages_skipped,
					d->stats.victims),
		(unsigned long long)per(100 * s->clean_drops, d->stats.victims),
		(unsigned long long)per(100 * s->swap_outs, d->stats.victims));
}

void swap_daemon_report(const struct guest *g)
{
	const struct swap_daemon *d = &the_daemon;
	const struct guest_memory_stats *s = &g->mem.stats;

	if (!d->dev)
		return;
	hv_stat("swap.outs", s->swap_outs);
	hv_stat("swap.ins", s->swap_ins);
	hv_stat("swap.zero_pages_skipped", s->zero_pages_skipped);
	hv_stat("swap.clean_drops", s->clean_drops);
	hv_stat("swap.evictions_cancelled", s->evictions_cancelled);
	hv_stat("swap.slots_in_use", d->slots.in_use);
	hv_stat("swap.slots_peak", d->slots.peak);
	hv_stat("swap.shootdowns", d->stats.shootdowns);
	hv_stat("swap.io_errors", s->io_errors);
	hv_stat("swap.full_events", s->swap_full_events);
	hv_stat("swap.waits", d->stats.waits);
	hv_stat("swap.faults_already_mapped", d->stats.already_mapped);
	hv_stat("swap.wait_tsc", d->stats.wait_tsc);
	hv_stat("swap.submitted", d->stats.submitted);
	hv_stat("swap.completed", d->stats.completed);
	hv_stat("swap.victims", d->stats.victims);
	hv_stat("swap.evict_tsc", d->stats.evict_tsc);
	hv_stat("swap.io_tsc", d->stats.io_tsc);
	if (g->cfg->bench_swap)
		report_bench(d, s);
}
