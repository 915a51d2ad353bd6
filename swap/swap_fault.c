// SPDX-License-Identifier: BSD-2-Clause
/*
 * The paging daemon's fault path (swap/swap_daemon.h): a vCPU's EPT
 * violation on guest RAM begun (swap_fault_begin: mapped, or a swap-in
 * started or joined with the vCPU a waiter), taken without a read when a
 * store overwrites the whole page (swap_fault_overwrite), and waited for
 * where waiting is right (swap_fault_wait). The daemon's own work - I/O,
 * eviction, deadlines - is swap/swap_daemon.c's.
 */
#include "swap/swap_daemon.h"
#include "swap/swap_daemon_internal.h"
#include "lib/trace/trace.h"
#include "swap/swap_thrash.h"
#include "lib/latency_hist.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"

/*
 * A vCPU that has waited this long for a free frame while the swap area
 * is full is out of memory, even if the daemon still frees a frame now
 * and then (a thrashing guest gets nowhere either).
 */
#define FRAME_WAIT_LIMIT_S 10u

enum guest_fault_result swap_fault_begin_locked(struct swap_daemon *d,
						uint64_t gpa, unsigned vcpu)
{
	enum guest_page_state found = PAGE_UNTOUCHED;
	enum guest_fault_result r;

	if (trace_on && guest_memory_is_ram(d->mem, gpa))
		found = guest_memory_page_state(d->mem, gpa);
	r = guest_memory_fault(d->mem, gpa);
	if ((r == GUEST_FAULT_SWAPIN_STARTED || r == GUEST_FAULT_WAIT_IO) &&
	    vcpu < MAX_VCPUS)
		*waiter_word(d, gpa >> PAGE_SHIFT) |= BIT(vcpu);
	/*
	 * Mapped meanwhile: by the completion this vCPU waited for, or by
	 * another vCPU faulting on the same page. All guest mappings are
	 * RWX, so the access will now succeed.
	 */
	if (r == GUEST_FAULT_ALREADY_MAPPED) {
		d->stats.already_mapped++;
		r = GUEST_FAULT_RESOLVED;
	}
	trace_ept_violation(vcpu, gpa, (uint8_t)found, (uint8_t)r);
	return r;
}

enum guest_fault_result swap_fault_begin(struct swap_daemon *d, uint64_t gpa,
					 unsigned vcpu)
{
	enum guest_fault_result r;

	spin_lock(d->lock);
	r = swap_fault_begin_locked(d, gpa, vcpu);
	spin_unlock(d->lock);
	return r;
}

enum guest_fault_result swap_fault_overwrite(struct swap_daemon *d,
					     uint64_t gpa, unsigned vcpu,
					     uint64_t fill)
{
	enum guest_page_state found = PAGE_UNTOUCHED;
	enum guest_fault_result r;

	spin_lock(d->lock);
	if (trace_on && guest_memory_is_ram(d->mem, gpa))
		found = guest_memory_page_state(d->mem, gpa);
	r = guest_memory_overwrite(d->mem, gpa, fill);
	if (r == GUEST_FAULT_RESOLVED)
		trace_ept_violation(vcpu, gpa, (uint8_t)found, (uint8_t)r);
	spin_unlock(d->lock);
	return r;
}

/*
 * The vCPU has waited FRAME_WAIT_LIMIT_S for a frame with the swap area
 * full: stop the guest with one error (the first CPU to see it says so).
 */
static bool frame_wait_hopeless(struct swap_daemon *d, uint64_t start)
{
	if (!d->mem->swap_full ||
	    rdtsc() - start < (uint64_t)FRAME_WAIT_LIMIT_S * tsc_hz)
		return false;
	if (!__atomic_exchange_n(&d->stuck, true, __ATOMIC_ACQ_REL))
		swap_daemon_fatal(d, "swap: out of memory: swap area full (%llu "
				  "slots, %llu retired), no host frame free for %u s",
				  (unsigned long long)d->slots.nslots,
				  (unsigned long long)d->slots.retired,
				  FRAME_WAIT_LIMIT_S);
	return true;
}

static bool still_waiting(const struct swap_daemon *d, uint64_t gpa,
			  unsigned vcpu)
{
	return vcpu < MAX_VCPUS &&
	       guest_memory_is_ram(d->mem, gpa) &&
	       (__atomic_load_n(waiter_word(d, gpa >> PAGE_SHIFT),
				__ATOMIC_ACQUIRE) & BIT(vcpu));
}

bool swap_fault_pending(struct swap_daemon *d, uint64_t gpa, unsigned vcpu)
{
	enum guest_fault_result r;

	if (vcpu < MAX_VCPUS)
		return still_waiting(d, gpa, vcpu);
	r = swap_fault_begin(d, gpa, vcpu);
	return r == GUEST_FAULT_SWAPIN_STARTED || r == GUEST_FAULT_WAIT_IO;
}

/*
 * One round of waiting: the daemon's work when nobody else runs it,
 * else a short rest while the service CPU does it.
 */
static void wait_round(struct swap_daemon *d)
{
	if (swap_daemon_runs_on(d, SWAP_WORKER_VCPU))
		swap_daemon_work(d);
	else if (d->cfg.ops.rest)
		d->cfg.ops.rest(d->cfg.ops.ctx);
	spin_pause();
}

enum guest_fault_result swap_fault_wait(struct swap_daemon *d, uint64_t gpa,
					unsigned vcpu, const volatile bool *stop)
{
	uint64_t entered = rdtsc(), start = 0;
	enum guest_fault_result r = swap_fault_begin(d, gpa, vcpu);

	while (r == GUEST_FAULT_SWAPIN_STARTED || r == GUEST_FAULT_WAIT_IO ||
	       r == GUEST_FAULT_NO_FRAME) {
		if (!d->dev || d->stuck || *stop)
			break;
		if (!start) {
			start = entered;
			d->stats.waits++;
			if (r == GUEST_FAULT_NO_FRAME)
				d->stats.frame_waits++;
		}
		if (r == GUEST_FAULT_NO_FRAME) {
			/*
			 * Wait for the daemon to free frames; others may take
			 * them first, so this vCPU simply tries again (it is
			 * never stopped while the daemon makes progress).
			 */
			do
				wait_round(d);
			while (!__atomic_load_n(&d->mem->pool->nfree,
						__ATOMIC_RELAXED) &&
			       !d->stuck && !*stop &&
			       !frame_wait_hopeless(d, start));
		} else {
			/* At least one round: a waiter without a bit polls. */
			do
				wait_round(d);
			while (still_waiting(d, gpa, vcpu) && !d->stuck &&
			       !*stop);
		}
		r = swap_fault_begin(d, gpa, vcpu);
	}
	if (start) {
		uint64_t waited = rdtsc() - start;

		__atomic_fetch_add(&d->stats.wait_tsc, waited, __ATOMIC_RELAXED);
		latency_hist_add_atomic(&d->wait_latency, waited);
		swap_thrash_note_vcpu(&d->thrash, vcpu);
	}
	return r;
}
