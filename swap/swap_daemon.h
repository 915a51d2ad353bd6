/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The paging daemon: connects guest memory's eviction and swap-in
 * decisions (swap/guest_memory.c) to the swap device (swap/blockdev.h).
 * It is an object made from the guest's memory, the lock that guards it and
 * a table of callbacks into the layers above (flush translations, fatal
 * error, page resident); it knows nothing of vCPUs beyond their numbers.
 *
 * Who runs its work: with a service CPU (more host CPUs than vCPUs) only
 * that CPU evicts and moves I/O (swap_daemon_work in its loop); without
 * one, the vCPUs do, on VM exits and while they wait. That is decided in
 * one place, swap_daemon_runs_on; every caller asks it (or calls
 * swap_daemon_work_as).
 *
 * The fault path is split: swap_fault_begin never blocks (the page is
 * mapped, or its swap-in is under way and the vCPU is registered as a
 * waiter, or it cannot be had now), and swap_fault_wait blocks until the
 * page is settled, for the callers for which waiting is right (a
 * synchronous EPT violation, a hypervisor write into guest RAM). When an
 * I/O of a page with waiters ends for good, ops.page_resident names the
 * page and the set of vCPUs that waited for it, once.
 */
#ifndef SWAP_SWAP_DAEMON_H
#define SWAP_SWAP_DAEMON_H

#include "lib/limits.h"
#include "lib/spinlock.h"
#include "swap/guest_memory.h"
#include "swap/swap_params.h"

/*
 * The vcpu argument of a hypervisor access (vm_read_ram and friends): no
 * vCPU waits for the page. vCPUs are 0..MAX_VCPUS - 1 (lib/limits.h), one
 * bit each in a page's waiter word.
 */
#define SWAP_NO_VCPU MAX_VCPUS

struct swap_daemon_ops {
	/*
	 * Returns once no vCPU can use a translation of a page unmapped
	 * before the call. Called with the memory lock held; it must not
	 * take it (a vCPU enters the guest without it).
	 */
	void (*flush_translations)(void *ctx);
	/* The guest cannot go on: stop it (reason is one line). */
	void (*fatal)(void *ctx, const char *reason);
	/*
	 * The page at gpa is settled (resident, or lost when !resident) and
	 * waiters (bit n = vCPU n) had waited for it. Called with the
	 * memory lock held, from whichever CPU harvested the completion.
	 */
	void (*page_resident)(void *ctx, uint64_t gpa, uint64_t waiters,
			      bool resident);
	/*
	 * A vCPU waits while another CPU does the work: let this CPU rest a
	 * moment (a short HLT). NULL: spin.
	 */
	void (*rest)(void *ctx);
	void *ctx;
};

struct swap_daemon_config {
	struct guest_memory *mem;
	struct spinlock *lock;          /* guards mem, and the daemon */
	struct swap_params params;
	struct swap_daemon_ops ops;
	bool service_cpu;               /* a CPU of its own runs the work */
	uint64_t host_frames;           /* bytes the guest may occupy */
};

/*
 * Thrashing: in SWAP_THRASH_WINDOWS windows of SWAP_THRASH_WINDOW_S
 * seconds in a row, with the swap area full all along, the vCPUs that
 * waited spent at least SWAP_THRASH_PERCENT of their time waiting for
 * swap: in faults they waited for synchronously, or halted while their
 * tasks waited for pages that async page faults reported not present.
 * Clean pages still go and come back, so nothing is "stuck", but the
 * guest gets nowhere: out of memory. The figures follow systemd-oomd's
 * defaults (60% of the time stalled on memory, over 30 s).
 */
#define SWAP_THRASH_WINDOW_S 10u
#define SWAP_THRASH_WINDOWS 3u
#define SWAP_THRASH_PERCENT 60u

struct swap_daemon;

/*
 * Without swap (no swap device asked for, no overcommit) the daemon only
 * serves faults on untouched pages. Otherwise it opens the device and turns
 * eviction on. Returns NULL after one error line when the guest cannot run
 * (overcommit without a usable swap device). Registers its counters.
 */
struct swap_daemon *swap_daemon_create(const struct swap_daemon_config *cfg);

/* True when pages can be evicted (a swap device is in use). */
bool swap_daemon_has_swap(const struct swap_daemon *d);

/* True when a CPU of its own runs the daemon's work (and the console). */
bool swap_daemon_has_service_cpu(const struct swap_daemon *d);

/* The swap device (NULL: no swap). */
const struct blockdev *swap_daemon_device(const struct swap_daemon *d);

/* Requests queued for the device and not yet handed to it. */
unsigned swap_daemon_io_waiting(const struct swap_daemon *d);

/* Who may run the daemon's work. */
enum swap_worker {
	SWAP_WORKER_SERVICE_CPU,        /* the loop of a host CPU of its own */
	SWAP_WORKER_VCPU,               /* a vCPU: its exits and its waits */
};

/*
 * The one decision of where the daemon's work runs: on the service CPU
 * when there is one, else on the vCPUs. True when who runs it.
 */
bool swap_daemon_runs_on(const struct swap_daemon *d, enum swap_worker who);

/* swap_daemon_work when who runs the work (swap_daemon_runs_on); else
 * false at once. */
bool swap_daemon_work_as(struct swap_daemon *d, enum swap_worker who);

/*
 * Moves I/O along and evicts when frames run low. Takes the lock. False
 * when it found nothing to do (no completion, no submission, no eviction):
 * the caller may rest a moment.
 */
bool swap_daemon_work(struct swap_daemon *d);

/*
 * An EPT violation (or a hypervisor access) of vCPU vcpu at gpa; takes the
 * lock, never blocks. GUEST_FAULT_SWAPIN_STARTED and GUEST_FAULT_WAIT_IO
 * register vcpu as a waiter for the page (ALREADY_MAPPED is reported as
 * RESOLVED).
 */
/*
 * swap.whole_page_stores: vCPU vcpu's fault at gpa is a store about to
 * overwrite the whole page with fill (guest/page_store.h). RESOLVED: the
 * page was in swap and is now mapped with a fresh frame holding fill, no
 * read made (guest_memory_overwrite); anything else: nothing was done,
 * and the fault goes the usual way. Never blocks.
 */
enum guest_fault_result swap_fault_overwrite(struct swap_daemon *d,
					     uint64_t gpa, unsigned vcpu,
					     uint64_t fill);

enum guest_fault_result swap_fault_begin(struct swap_daemon *d, uint64_t gpa,
					 unsigned vcpu);

/*
 * swap_fault_begin with the lock (swap_daemon_config.lock) already held
 * by the caller, which may do more under the same hold: the VM takes a
 * token for the page in it (guest/async_pf.h, vm_fault_begin), so that
 * the completion, which runs under the lock, cannot come between.
 */
enum guest_fault_result swap_fault_begin_locked(struct swap_daemon *d,
						uint64_t gpa, unsigned vcpu);

/*
 * Whether the I/O of the page at gpa that vcpu registered for (with
 * swap_fault_begin) is still under way. Without the lock for a vCPU that
 * has a waiter bit: it reads the bit page_resident clears, so a vCPU
 * resting until its page comes in (the APF halt) never waits behind an
 * eviction step that holds the lock for milliseconds while its
 * interrupts come in.
 */
bool swap_fault_pending(struct swap_daemon *d, uint64_t gpa, unsigned vcpu);

/*
 * Blocks until the page at gpa is resident (RESOLVED) or cannot be (the
 * other results); runs the daemon's work meanwhile when it has no CPU of
 * its own. Starts with swap_fault_begin. stop is polled: when it becomes
 * true the wait ends with GUEST_FAULT_NO_FRAME.
 */
enum guest_fault_result swap_fault_wait(struct swap_daemon *d, uint64_t gpa,
					unsigned vcpu, const volatile bool *stop);

/*
 * debug.hypercall: from now on every read of the page at gpa from swap
 * fails as if the device had failed it (swap/swap_unreadable.h), so its
 * next swap-in loses the page. False without swap, outside guest RAM, or
 * when the set is full.
 */
bool swap_daemon_fail_reads_of(struct swap_daemon *d, uint64_t gpa);

/*
 * debug.hypercall: the page at gpa goes out now (guest_memory_evict_page);
 * its write is submitted with the daemon's next work. False without swap
 * or when the page cannot go (not resident, pinned, outside RAM).
 */
bool swap_daemon_evict_page(struct swap_daemon *d, uint64_t gpa);

/*
 * vCPU vcpu was halted for tsc cycles with async page faults outstanding:
 * its tasks waited for swap-ins. Counted (swap.apf_halt_tsc) and, for the
 * thrashing rule, as time spent waiting for swap.
 */
void swap_daemon_count_apf_halt(struct swap_daemon *d, unsigned vcpu,
				uint64_t tsc);

/*
 * make bench-swap's figures, in TSC cycles (= emulated instructions under
 * Bochs): what a vCPU waits per swap-in, and the daemon's root-mode time
 * per page written, beside the device's rate that the block self-test
 * measured at the start of the same run.
 */
void swap_daemon_report_bench(const struct swap_daemon *d);

#endif
