// SPDX-License-Identifier: BSD-2-Clause
/*
 * Event injection (SDM Vol. 3C, 27.6 "Event Injection"). apfvisor uses no
 * APIC virtualization: before every VM entry it asks guest/interrupts.c
 * what is pending and either injects it or, when the guest cannot take it
 * now, asks for an interrupt-window exit. The VMX preemption timer brings
 * the vCPU back for its APIC timer deadline and at least every
 * POLL_INTERVAL for console input.
 */
#include "vmx/vcpu_events.h"
#include "vmx/vmx_controls.h"
#include "vmx/vmx_ops.h"
#include "arch/x86/cpu.h"
#include "arch/x86/lapic.h"
#include "arch/x86/percpu.h"
#include "arch/x86/serial.h"
#include "arch/x86/tsc.h"
#include "guest/guest.h"
#include "guest/interrupts.h"
#include "swap/swap_daemon.h"

#define POLL_INTERVALS_PER_SECOND 100
#define NMI_VECTOR 2
#define PREEMPTION_TIMER_MAX 0xffffffffull

static unsigned preemption_rate(void)
{
	static unsigned rate = ~0u;

	if (rate == ~0u)
		rate = rdmsr(MSR_IA32_VMX_MISC) & VMX_MISC_PREEMPTION_RATE_MASK;
	return rate;
}

void vcpu_requeue_interrupted_event(const struct vmx_exit *e)
{
	uint32_t info = vmcs_read32(VMCS_IDT_VECTORING_INFO);
	uint32_t type = info & INTR_TYPE_MASK;

	if (!(info & INTR_INFO_VALID))
		return;
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

#define PROMPT_FLUSH_PER_SECOND 10

/*
 * Console input for the guest's COM1 comes from the host's COM1; a partial
 * output line (a prompt) is shown after 100 ms without output.
 */
static void poll_console_input(struct guest *g)
{
	int c;

	uart_flush_idle(&g->uart, rdtsc(), tsc_hz / PROMPT_FLUSH_PER_SECOND);
	while (g->uart.rx_count < UART_RX_FIFO && (c = serial_read_byte()) >= 0)
		uart_receive(&g->uart, (uint8_t)c);
}

static bool try_inject_nmi(struct vcpu_platform *p)
{
	if (!p->nmi_pending ||
	    (vmcs_read32(VMCS_GUEST_INTERRUPTIBILITY) &
	     (INTERRUPTIBILITY_NMI | INTERRUPTIBILITY_STI |
	      INTERRUPTIBILITY_MOV_SS)))
		return false;
	p->nmi_pending = false;
	vmcs_write(VMCS_ENTRY_INTERRUPTION_INFO,
		   INTR_INFO_VALID | INTR_TYPE_NMI | NMI_VECTOR);
	return true;
}

static void arm_preemption_timer(uint64_t now, uint64_t deadline)
{
	uint64_t ticks = tsc_hz / POLL_INTERVALS_PER_SECOND;

	if (deadline != UINT64_MAX)
		ticks = MIN(ticks, deadline > now ? deadline - now : 0);
	vmcs_write(VMCS_PREEMPTION_TIMER_VALUE,
		   MIN(ticks >> preemption_rate(), PREEMPTION_TIMER_MAX));
}

void vcpu_prepare_entry(struct vcpu *v)
{
	struct guest *g = v->guest;
	struct vcpu_platform *p = &g->plat[v->id];
	uint64_t now = rdtsc();
	struct pending_interrupt pi;
	uint64_t deadline;
	bool want_window = false;

	spin_lock(&g->lock);
	if (v->id == 0)
		poll_console_input(g);
	pi = guest_poll_interrupts(g, v->id, now);
	if (!(vmcs_read32(VMCS_ENTRY_INTERRUPTION_INFO) & INTR_INFO_VALID) &&
	    !try_inject_nmi(p) && pi.vector >= 0) {
		if (interrupts_open()) {
			vmcs_write(VMCS_ENTRY_INTERRUPTION_INFO,
				   INTR_INFO_VALID | INTR_TYPE_EXTERNAL |
					   guest_ack_interrupt(g, v->id, pi));
			if (pi.source == INTERRUPT_FROM_PIC)
				v->stats.irq_injected_pic++;
			else
				v->stats.irq_injected_lapic++;
		} else
			want_window = true;
	} else if (pi.vector >= 0) {
		want_window = true;
	}
	deadline = guest_timer_deadline(g, v->id);
	spin_unlock(&g->lock);
	set_proc_control(PROC_INTERRUPT_WINDOW_EXITING, want_window);
	arm_preemption_timer(now, deadline);
}

void vcpu_block_until_event(struct vcpu *v)
{
	struct guest *g = v->guest;
	struct vcpu_platform *p = &g->plat[v->id];

	while (!g->ended) {
		struct pending_interrupt pi;

		swap_daemon_work(g);

		spin_lock(&g->lock);
		if (v->id == 0)
			poll_console_input(g);
		pi = guest_poll_interrupts(g, v->id, rdtsc());
		spin_unlock(&g->lock);
		if (pi.vector >= 0 || p->nmi_pending)
			return;
		cpu_relax();
	}
}

static bool all_running_vcpus_parked(struct guest *g)
{
	for (unsigned n = 0; n < g->nvcpus; n++)
		if (g->plat[n].run_state == VCPU_RUNNABLE && !g->plat[n].parked)
			return false;
	return true;
}

void vcpu_park(struct vcpu *v)
{
	struct guest *g = v->guest;
	struct vcpu_platform *p = &g->plat[v->id];

	p->parked = true;
	while (!g->ended && !p->nmi_pending &&
	       p->run_state == VCPU_RUNNABLE) {
		if (all_running_vcpus_parked(g))
			guest_end(g, true, "hlt with interrupts disabled");
		cpu_relax();
	}
	p->parked = false;
}

void vcpu_kick(struct guest *g, unsigned n)
{
	struct vcpu *v = g->vcpus[n];

	/* A vCPU in guest mode leaves it on the IPI (external-interrupt exit). */
	if (v && v->host && v->host != this_cpu())
		lapic_send_fixed(v->host->apic_id, HV_KICK_VECTOR);
}

/*
 * Dekker-style with vcpu_ept_flush_all: the vCPU publishes in_guest before
 * it reads the generation, the flusher publishes the generation before it
 * reads in_guest (both sequentially consistent). So either this vCPU sees
 * the new generation and flushes, or the flusher sees it in guest mode and
 * waits for it.
 */
void vcpu_enter_guest_mode(struct vcpu *v)
{
	uint64_t gen;

	__atomic_store_n(&v->in_guest, true, __ATOMIC_SEQ_CST);
	gen = __atomic_load_n(&v->guest->ept_generation, __ATOMIC_SEQ_CST);
	if (v->ept_seen != gen) {
		invept(INVEPT_SINGLE_CONTEXT, ept_pointer(&v->guest->ept));
		__atomic_store_n(&v->ept_seen, gen, __ATOMIC_RELEASE);
	}
}

void vcpu_ept_flush_all(struct guest *g)
{
	uint64_t gen = __atomic_load_n(&g->ept_generation, __ATOMIC_SEQ_CST);

	spin_unlock(&g->lock);
	for (unsigned n = 0; n < g->nvcpus; n++) {
		struct vcpu *v = g->vcpus[n];
		bool kicked = false;

		if (!v || v->host == this_cpu())
			continue;       /* this CPU flushes before it enters */
		while (__atomic_load_n(&v->in_guest, __ATOMIC_SEQ_CST) &&
		       __atomic_load_n(&v->ept_seen, __ATOMIC_ACQUIRE) < gen) {
			if (!kicked)
				vcpu_kick(g, n);
			kicked = true;
			cpu_relax();
		}
	}
	spin_lock(&g->lock);
}
