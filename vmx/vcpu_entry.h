/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The work before every VM entry, inline in the vCPU loop (vmx/vcpu.c):
 * most entries follow an exit that changed nothing a poll would find, and
 * then only arm the preemption timer. The rarer parts are out of line in
 * vmx/vcpu_events.c.
 */
#ifndef VMX_VCPU_ENTRY_H
#define VMX_VCPU_ENTRY_H

#include "vmx/vcpu_events.h"
#include "vmx/vmx_ops.h"
#include "arch/x86/cpu.h"
#include "guest/async_pf.h"

#define PREEMPTION_TIMER_MAX 0xffffffffull

/*
 * The VMX preemption timer (SDM Vol. 3C, 26.5.1) brings the vCPU back for
 * its APIC timer deadline, and at least every poll interval.
 */
static inline void vcpu_arm_preemption_timer(struct vcpu *v, uint64_t now,
					     uint64_t deadline)
{
	uint64_t ticks = v->entry_cfg.poll_ticks;

	if (apf_outstanding(&v->plat->apf))
		ticks = v->entry_cfg.apf_poll_ticks;
	if (deadline != UINT64_MAX)
		ticks = MIN(ticks, deadline > now ? deadline - now : 0);
	vmcs_write(VMCS_PREEMPTION_TIMER_VALUE,
		   MIN(ticks >> v->entry_cfg.rate, PREEMPTION_TIMER_MAX));
}

/* Injects what is pending (polling only when needed), arms the timer. */
static inline void vcpu_prepare_entry(struct vcpu *v)
{
	struct vm *g = v->guest;
	uint64_t now = rdtsc();

	if (vcpu_console_poll_due(v, now))
		vcpu_poll_console(v, now);
	if (apf_outstanding(&v->plat->apf))
		vm_apf_page_ready(g, v->id);
	if (irq_poll_needed(&v->irq_memo, vm_irq_gen(g), now))
		vcpu_poll_and_inject(v, now);
	vcpu_arm_preemption_timer(v, now, v->irq_memo.deadline);
}

#endif
