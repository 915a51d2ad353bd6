// SPDX-License-Identifier: BSD-2-Clause
/*
 * Event injection (SDM Vol. 3C, 27.6 "Event Injection"). apfvisor uses no
 * APIC virtualization: before every VM entry it asks guest/interrupts.c
 * what is pending and either injects it or, when the guest cannot take it
 * now, asks for an interrupt-window exit. The VMX preemption timer brings
 * the vCPU back for its APIC timer deadline and at least every
 * POLL_INTERVAL for console input. The poll is skipped when it cannot find
 * anything new (guest/interrupts.h, irq_poll_needed): most exits change no
 * device.
 */
#include "vmx/vcpu_events.h"
#include "vmx/vcpu_entry.h"
#include "lib/trace/trace.h"
#include "vmx/vmx_controls.h"
#include "vmx/vmx_ops.h"
#include "arch/x86/cpu.h"
#include "arch/x86/lapic.h"
#include "arch/x86/percpu.h"
#include "arch/x86/tsc.h"
#include "guest/async_pf.h"
#include "guest/interrupts.h"
#include "swap/swap_daemon.h"

#define POLL_INTERVALS_PER_SECOND 100
#define NMI_VECTOR 2

static unsigned preemption_rate(void)
{
	static unsigned rate = ~0u;

	if (rate == ~0u)
		rate = rdmsr(MSR_IA32_VMX_MISC) & VMX_MISC_PREEMPTION_RATE_MASK;
	return rate;
}

void vcpu_requeue_event(const struct vmx_exit *e, uint32_t info)
{
	uint32_t type = info & INTR_TYPE_MASK;

	if (info & INTR_INFO_DELIVER_ERROR_CODE)
		vmcs_write(VMCS_ENTRY_EXCEPTION_ERROR_CODE,
			   vmcs_read32(VMCS_IDT_VECTORING_ERROR));
	/* Software events restart from their instruction (27.6.1.3). */
	if (type == INTR_TYPE_SW_INTERRUPT ||
	    type == INTR_TYPE_PRIV_SW_EXCEPTION ||
	    type == INTR_TYPE_SW_EXCEPTION)
		vmcs_write(VMCS_ENTRY_INSTRUCTION_LENGTH, e->instruction_length);
	vmcs_write(VMCS_ENTRY_INTERRUPTION_INFO, info & ~(1u << 12));
}

static void set_proc_control(uint32_t bit, bool on)
{
	uint32_t ctl = vmcs_read32(VMCS_PROC_BASED_CONTROLS);
	uint32_t want = on ? (ctl | bit) : (ctl & ~bit);

	if (want != ctl)
		vmcs_write(VMCS_PROC_BASED_CONTROLS, want);
}

static bool interrupts_open(void)
{
	return (vmcs_read(VMCS_GUEST_RFLAGS) & RFLAGS_IF) &&
	       !(vmcs_read32(VMCS_GUEST_INTERRUPTIBILITY) &
		 (INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOV_SS));
}

/*
 * NMIs sent since the last look: two may wait while none is being
 * handled, one while the guest is in its NMI handler (blocked) or one is
 * on its way in (the entry's injection field). Dropped while waiting for
 * SIPI (NMIs are blocked then).
 */
static void take_nmis(struct vcpu *v, bool runnable)
{
	uint32_t sent = __atomic_exchange_n(&v->plat->nmis_sent, 0,
					    __ATOMIC_SEQ_CST);
	uint32_t info = vmcs_read32(VMCS_ENTRY_INTERRUPTION_INFO);
	unsigned limit = 2;

	if (!runnable)
		return;
	if ((vmcs_read32(VMCS_GUEST_INTERRUPTIBILITY) &
	     INTERRUPTIBILITY_NMI) ||
	    ((info & INTR_INFO_VALID) &&
	     (info & INTR_TYPE_MASK) == INTR_TYPE_NMI))
		limit = 1;
	v->nmi_pending = MIN(v->nmi_pending + sent, limit);
}

void vcpu_page_ready(struct vcpu *v)
{
	enum vm_page_ready r = vm_apf_page_ready(v->guest, v->id,
						 vcpu_guest_paging());

	v->page_ready_held = r == VM_PAGE_READY_HELD;
	vcpu_chores_changed(v);
	if (r == VM_PAGE_READY_SENT && v->halted)
		apf_count_halt_woken(&v->plat->apf);
}

void vcpu_entry_chores(struct vcpu *v, uint64_t now)
{
	vcpu_poll_console(v, now);
	if (v->page_ready_held)
		vcpu_page_ready(v);
}

bool vcpu_take_requests(struct vcpu *v)
{
	struct vm *g = v->guest;
	struct vcpu_platform *p = v->plat;
	uint64_t req = vm_take_requests(g, v->id);

	if (req)
		v->stats.requests_handled++;
	if ((req & BIT(VCPU_REQ_STOP)) || g->end.ended)
		return false;
	/* The BSP ignores INIT here; an AP waits for a SIPI again. */
	if ((req & BIT(VCPU_REQ_INIT)) && v->id != 0) {
		vm_apf_reset(g, v->id);
		pv_eoi_reset(g, v->id);
		p->run_state = VCPU_WAIT_FOR_SIPI;
		v->sipi_pending = false;
		v->nmi_pending = 0;
		v->page_ready_held = false;
		vcpu_chores_changed(v);
	}
	/* Only a CPU waiting for one takes a SIPI (SDM Vol. 3A, 9.4.4). */
	if ((req & BIT(VCPU_REQ_SIPI)) && p->run_state == VCPU_WAIT_FOR_SIPI)
		v->sipi_pending = true;
	/* NMIs are blocked while waiting for SIPI. */
	if (req & BIT(VCPU_REQ_NMI))
		take_nmis(v, p->run_state == VCPU_RUNNABLE);
	/* An AP waiting for SIPI has no VMCS loaded yet, nor async PF on. */
	if ((req & BIT(VCPU_REQ_PAGE_READY)) && p->run_state == VCPU_RUNNABLE)
		vcpu_page_ready(v);
	/*
	 * VCPU_REQ_TLB_FLUSH: the flush itself happens on entry (the
	 * shootdown generation moved). VCPU_REQ_EVENT: only a wake. Every
	 * request but a flush makes the next entry poll the interrupt state
	 * again.
	 */
	if (req & ~BIT(VCPU_REQ_TLB_FLUSH))
		vcpu_poll_again(v);
	return true;
}

void vcpu_poll_console(struct vcpu *v, uint64_t now)
{
	if (!vcpu_console_poll_due(v, now))
		return;
	v->next_console_poll = now + tsc_hz / VM_CONSOLE_POLLS_VCPU0;
	vcpu_chores_changed(v);
	vm_poll_console(v->guest);
}

static bool try_inject_nmi(struct vcpu *v)
{
	if (!v->nmi_pending ||
	    (vmcs_read32(VMCS_GUEST_INTERRUPTIBILITY) &
	     (INTERRUPTIBILITY_NMI | INTERRUPTIBILITY_STI |
	      INTERRUPTIBILITY_MOV_SS)))
		return false;
	v->nmi_pending--;
	v->stats.nmi_injected++;
	vmcs_write(VMCS_ENTRY_INTERRUPTION_INFO,
		   INTR_INFO_VALID | INTR_TYPE_NMI | NMI_VECTOR);
	return true;
}

/*
 * With async page faults outstanding and the daemon's work on the vCPUs
 * (swap_daemon_runs_on), this vCPU's own exits move the swap I/O: the
 * timer then fires often enough that a page-ready is late by ~1 ms at
 * most.
 */
#define APF_POLLS_PER_SECOND 1000

void vcpu_events_init(struct vcpu *v)
{
	bool service_cpu = swap_daemon_has_service_cpu(v->guest->memory.swap);

	v->next_console_poll = v->id == 0 && !service_cpu ? 0 : UINT64_MAX;
	vcpu_chores_changed(v);
	v->entry_cfg.poll_ticks = tsc_hz / POLL_INTERVALS_PER_SECOND;
	v->entry_cfg.apf_short_timer =
		swap_daemon_runs_on(v->guest->memory.swap, SWAP_WORKER_VCPU);
	v->entry_cfg.apf_poll_ticks = v->entry_cfg.apf_short_timer ?
					      tsc_hz / APF_POLLS_PER_SECOND :
					      v->entry_cfg.poll_ticks;
	v->entry_cfg.rate = preemption_rate();
	v->entry_cfg.poll_timer = preemption_timer_value(v,
						v->entry_cfg.poll_ticks);
	v->entry_cfg.apf_poll_timer = preemption_timer_value(v,
						v->entry_cfg.apf_poll_ticks);
	vcpu_poll_again(v);
}

void vcpu_poll_and_inject(struct vcpu *v, uint64_t now)
{
	struct vm *g = v->guest;
	struct pending_interrupt pi;
	bool want_window = false, injected = false;
	/*
	 * A #DB trap pending: no window either, the #DB's own exit comes
	 * first and the next entry looks again (a window exit ahead of it
	 * would find it still pending, again and again).
	 */
	bool trap = vcpu_debug_trap_pending();

	vm_devices_lock(g);
	pi = guest_poll_interrupts(g, v->id, now);
	if (!vcpu_event_queued_first() && !try_inject_nmi(v) &&
	    pi.vector >= 0) {
		if (interrupts_open()) {
			uint8_t vector = guest_ack_interrupt(g, v->id, pi);

			vmcs_write(VMCS_ENTRY_INTERRUPTION_INFO,
				   INTR_INFO_VALID | INTR_TYPE_EXTERNAL |
					   vector);
			trace_irq_inject(v->id, vector);
			injected = true;
			if (pi.source == INTERRUPT_FROM_PIC)
				v->stats.irq_injected_pic++;
			else
				v->stats.irq_injected_lapic++;
		} else
			want_window = true;
	} else if (pi.vector >= 0) {
		want_window = !trap;
	}
	/*
	 * What the poll itself changed needs no new generation: a timer that
	 * fired and a vector acknowledged belong to this vCPU (and the 8259,
	 * which it acknowledges, reaches vCPU 0 only), and the UART line it
	 * copied into the 8259 moved irq_gen when it changed.
	 */
	pv_eoi_arm(g, v->id);
	/*
	 * Quiet also after an injection whose EOI the PV EOI word will make,
	 * when nothing is pending behind it: the word is armed only with the
	 * vector alone in service and none requested, its collection asks
	 * for a poll if one was requested meanwhile (pv_eoi_collect), and
	 * anything else that could let a vector in moves irq_gen. The ACK
	 * exit after an async-PF page-ready then polls nothing. Without the
	 * word the EOI is a register write, which moves irq_gen anyway: the
	 * look would only cost.
	 */
	v->irq_memo = (struct irq_poll_memo){
		.quiet = !v->nmi_pending && !want_window &&
			 (pi.vector < 0 ||
			  (injected && pv_eoi_armed(&v->plat->pv_eoi) &&
			   !guest_interrupt_pending(g, v->id))),
		.irq_gen = g->dev.irq_gen,
		.deadline = guest_timer_deadline(g, v->id, now),
	};
	vm_devices_unlock(g, false);
	set_proc_control(PROC_INTERRUPT_WINDOW_EXITING, want_window);
	/*
	 * An NMI that could not go in (the guest is in its NMI handler,
	 * until its IRET, or in a MOV SS shadow): exit as soon as it can
	 * (virtual NMIs, SDM 25.2, 26.7.6), not at whatever exit comes next.
	 */
	set_proc_control(PROC_NMI_WINDOW_EXITING, v->nmi_pending && !trap);
}

static bool no_requests(void *ctx)
{
	struct vcpu *v = ctx;

	return !vm_has_requests(v->guest, v->id) && !v->guest->end.ended;
}

void vcpu_idle(struct vcpu *v, uint64_t deadline)
{
	cpu_idle_until(deadline, no_requests, v);
}

/*
 * Until when a halted vCPU may rest: its timer, the console, the daemon;
 * 10 us when it waits for a page too (nothing wakes it when one comes in).
 */
static uint64_t halt_deadline(struct vcpu *v, uint64_t now, uint64_t timer,
			      bool page_wait)
{
	uint64_t limit = now + tsc_hz / VCPU_IDLE_CHECKS_PER_SECOND;

	/* This vCPU may also move the swap I/O. */
	if (page_wait ||
	    (swap_daemon_runs_on(v->guest->memory.swap, SWAP_WORKER_VCPU) &&
	     swap_daemon_has_swap(v->guest->memory.swap)))
		limit = now + tsc_hz / 100000;
	return MIN(limit, timer);
}

/*
 * The halt: until an interrupt is pending, an NMI or a request that ends
 * the halt came, or the VM ended; with page_wait also until the page at
 * gpa is in (or its fault ended otherwise). True: the page ended it.
 */
static bool wait_for_event(struct vcpu *v, bool page_wait, uint64_t gpa)
{
	struct vm *g = v->guest;

	while (!g->end.ended) {
		struct pending_interrupt pi;
		uint64_t now, timer;

		if (page_wait &&
		    !swap_fault_pending(g->memory.swap, gpa, v->id))
			return true;
		if (vm_has_requests(g, v->id)) {
			if (!vcpu_take_requests(v))
				return false;
			if (v->nmi_pending ||
			    v->plat->run_state != VCPU_RUNNABLE)
				return false;
		}
		swap_daemon_work_as(g->memory.swap, SWAP_WORKER_VCPU);
		vcpu_poll_console(v, rdtsc());
		if (v->page_ready_held)
			vcpu_page_ready(v);
		now = rdtsc();
		vm_devices_lock(g);
		pi = guest_poll_interrupts(g, v->id, now);
		timer = guest_timer_deadline(g, v->id, now);
		vm_devices_unlock(g, false);    /* as in vcpu_poll_and_inject */
		if (pi.vector >= 0)
			return false;
		vcpu_idle(v, halt_deadline(v, now, timer, page_wait));
	}
	return false;
}

/*
 * A halt with async page faults outstanding is time the guest's tasks
 * spent waiting for swap: the daemon's thrashing rule counts it.
 */
void vcpu_block_until_event(struct vcpu *v)
{
	bool apf_waiting = vm_apf_busy(v->guest, v->id);
	uint64_t start = rdtsc();

	trace_vcpu_halt_at(start, v->id);
	v->halted = true;
	wait_for_event(v, false, 0);
	v->halted = false;
	vcpu_poll_again(v);     /* it polled on its own */
	trace_vcpu_wake(v->id, rdtsc() - start);
	if (apf_waiting)
		swap_daemon_count_apf_halt(v->guest->memory.swap, v->id,
					   rdtsc() - start);
}

void vcpu_apf_halt(struct vcpu *v, uint64_t gpa)
{
	uint64_t start = rdtsc();

	v->stats.apf_halts++;
	trace_vcpu_halt_at(start, v->id);
	v->halted = true;
	if (!wait_for_event(v, true, gpa))
		v->stats.apf_halt_events++;
	v->halted = false;
	vcpu_poll_again(v);
	trace_vcpu_wake(v->id, rdtsc() - start);
	swap_daemon_count_apf_halt(v->guest->memory.swap, v->id,
				   rdtsc() - start);
}

static bool all_running_vcpus_parked(struct vm *g)
{
	for (unsigned n = 0; n < g->nvcpus; n++)
		if (g->plat[n].run_state == VCPU_RUNNABLE && !g->plat[n].parked)
			return false;
	return true;
}

void vcpu_park(struct vcpu *v)
{
	struct vm *g = v->guest;
	struct vcpu_platform *p = v->plat;

	p->parked = true;
	while (!g->end.ended && !v->nmi_pending &&
	       p->run_state == VCPU_RUNNABLE) {
		if (all_running_vcpus_parked(g))
			vm_end(g, true, "hlt with interrupts disabled");
		if (vm_has_requests(g, v->id) && !vcpu_take_requests(v))
			break;
		vcpu_idle(v, rdtsc() + tsc_hz / VCPU_IDLE_CHECKS_PER_SECOND);
	}
	p->parked = false;
	vcpu_poll_again(v);
}

void vcpu_kick(void *ctx, unsigned n)
{
	struct vcpu *v = &((struct vcpu *)ctx)[n];

	/*
	 * A vCPU in guest mode needs the IPI (an external-interrupt exit),
	 * and so does one resting in vcpu_idle (it ends the HLT); one busy in
	 * root mode looks at its requests before it enters.
	 */
	if (v->host && v->host != this_cpu() &&
	    (__atomic_load_n(&v->guest->memory.tlb.client[n].in_guest,
			     __ATOMIC_SEQ_CST) ||
	     cpu_is_idle(v->host->index)))
		lapic_send_fixed(v->host->apic_id, HV_KICK_VECTOR);
}
