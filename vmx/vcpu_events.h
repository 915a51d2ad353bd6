/* SPDX-License-Identifier: BSD-2-Clause */
/* Events into a vCPU: interrupts, NMIs, re-injection, timer, HLT. */
#ifndef VMX_VCPU_EVENTS_H
#define VMX_VCPU_EVENTS_H

#include "vmx/vcpu.h"
#include "vmx/vmx_ops.h"

#include "arch/x86/idle.h"    /* HV_KICK_VECTOR */

/*
 * Right after an exit: an event whose delivery the exit interrupted is
 * queued again for the next entry (SDM Vol. 3C, 28.2.4 and 29.2.1.1).
 */
void vcpu_requeue_event(const struct vmx_exit *e, uint32_t idt_info);

static inline void vcpu_requeue_interrupted_event(const struct vmx_exit *e)
{
	uint32_t info = vmcs_read32(VMCS_IDT_VECTORING_INFO);

	if (info & INTR_INFO_VALID)
		vcpu_requeue_event(e, info);
}

/*
 * The pending debug exceptions field (SDM Vol. 3C, 25.4.2) holds a #DB
 * trap still to come: B0-B3 with bit 12 (an enabled data or I/O
 * breakpoint was hit) or BS (a single step). The CPU delivers it right
 * after a VM entry that injects nothing, and drops it when the entry
 * injects an event ("Delivery of Pending Debug Exceptions after VM
 * Entry"; Bochs' VMenterLoadCheckGuestState does the same). It ranks
 * above NMIs and external interrupts (SDM Vol. 3A, "Priority Among
 * Concurrent Exceptions and Interrupts"), so while one is pending those
 * wait: the #DB exits (the exception bitmap) and, given back, goes first.
 */
#define PENDING_DEBUG_ENABLED_BREAKPOINT BIT(12)
#define PENDING_DEBUG_TRAPS \
	(DR6_TRAP_BITS | PENDING_DEBUG_ENABLED_BREAKPOINT | DR6_BS)

static inline bool vcpu_debug_trap_pending(void)
{
	return vmcs_read(VMCS_GUEST_PENDING_DEBUG) & PENDING_DEBUG_TRAPS;
}

/*
 * What goes into the guest before an NMI or an external interrupt: an
 * event already queued for this entry (an exception an exit handler
 * raised, an event whose delivery an exit interrupted) or a #DB trap.
 */
static inline bool vcpu_event_queued_first(void)
{
	return (vmcs_read32(VMCS_ENTRY_INTERRUPTION_INFO) & INTR_INFO_VALID) ||
	       vcpu_debug_trap_pending();
}

/* Once, when v is created: what vcpu_prepare_entry reads of the config. */
void vcpu_events_init(struct vcpu *v);

/*
 * Right before an entry (vmx/vcpu_entry.h, vcpu_prepare_entry): when due,
 * vCPU 0 without a service CPU polls the host console; when a poll is
 * needed (irq_poll_needed), the devices are polled under dev.lock and
 * what is due is injected, or an interrupt window asked for, and the
 * outcome kept in v->irq_memo.
 */
static inline bool vcpu_console_poll_due(const struct vcpu *v, uint64_t now)
{
	return now >= v->next_console_poll;     /* UINT64_MAX: never */
}

/* After a change of next_console_poll or page_ready_held. */
static inline void vcpu_chores_changed(struct vcpu *v)
{
	v->chores_due = v->page_ready_held ? 0 : v->next_console_poll;
}

/*
 * Before an entry, once v->chores_due has come: the console poll when
 * due, the held page-ready's retry.
 */
void vcpu_entry_chores(struct vcpu *v, uint64_t now);

void vcpu_poll_console(struct vcpu *v, uint64_t now);

/*
 * Something the last interrupt poll did not see may be pending (a
 * request was taken, the vCPU polled on its own while halted): the next
 * entry polls again.
 */
static inline void vcpu_poll_again(struct vcpu *v)
{
	v->irq_memo.quiet = false;
	v->fast_entry_until = 0;
}

void vcpu_poll_and_inject(struct vcpu *v, uint64_t now);

/* HLT with interrupts on: wait in the hypervisor until one is pending. */
void vcpu_block_until_event(struct vcpu *v);

/*
 * KVM's APF halt (apf_halt_allowed): the vCPU's access waits for the
 * swap-in of gpa, already started, resting as in HLT: it returns when
 * the page is in, or earlier when an interrupt, an NMI or a request is
 * there for the vCPU to take first (the access then runs again and waits
 * again). Counted as time waiting for swap.
 */
void vcpu_apf_halt(struct vcpu *v, uint64_t gpa);

/*
 * HLT with interrupts off: wait for an NMI or INIT; ends the guest ("hlt
 * with interrupts disabled") once every running vCPU is parked.
 */
void vcpu_park(struct vcpu *v);

/*
 * Takes v's request word and acts on its bits (INIT, SIPI, NMI,
 * PAGE_READY; the rest only wake). False when the guest has ended.
 */
bool vcpu_take_requests(struct vcpu *v);

/*
 * VCPU_REQ_PAGE_READY's handler, and the retry before each entry while a
 * page-ready is held (v->page_ready_held): delivers the next page-ready
 * of v's done list (guest/async_pf.h, vm_apf_page_ready).
 */
void vcpu_page_ready(struct vcpu *v);

/* A vCPU with nothing to do re-checks at least this often. */
#define VCPU_IDLE_CHECKS_PER_SECOND 1000

/*
 * Rests (HLT) until deadline (a TSC value), a request for v (its kick
 * ends the HLT) or another interrupt.
 */
void vcpu_idle(struct vcpu *v, uint64_t deadline);

/* vm->kick: makes vCPU n of the vCPU array ctx leave guest mode soon. */
void vcpu_kick(void *ctx, unsigned n);

#endif
