/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The work before every VM entry, inline in the vCPU loop (vmx/vcpu.c):
 * most entries follow an exit that changed nothing a poll would find and
 * find the preemption timer's value already in the VMCS: then they only
 * look. The rarer parts are out of line in vmx/vcpu_events.c.
 */
#ifndef VMX_VCPU_ENTRY_H
#define VMX_VCPU_ENTRY_H

#include "vmx/vcpu_events.h"
#include "vmx/vmx_ops.h"
#include "arch/x86/cpu.h"
#include "guest/async_pf.h"

#define PREEMPTION_TIMER_MAX 0xffffffffull

/* TSC ticks as a preemption-timer value (the field is 32 bits wide). */
static inline uint64_t preemption_timer_value(const struct vcpu *v,
					      uint64_t ticks)
{
	return MIN(ticks >> v->entry_cfg.rate, PREEMPTION_TIMER_MAX);
}

/*
 * The VMX preemption timer (SDM Vol. 3C, 26.5.1) brings the vCPU back for
 * its APIC timer deadline, and at least every poll interval (a shorter
 * one while apf says async page faults are in flight and this vCPU moves
 * the swap I/O). The VMCS
 * field keeps what was written last (the timer counts down a copy of it
 * and nothing saves the copy back), so without a deadline, when the value
 * would be the same as last time, the VMWRITE is left out.
 */
static inline void vcpu_arm_preemption_timer(struct vcpu *v, uint64_t now,
					     uint64_t deadline, bool apf)
{
	uint64_t value = apf ? v->entry_cfg.apf_poll_timer
			     : v->entry_cfg.poll_timer;

	if (deadline != UINT64_MAX) {
		uint64_t ticks = apf ? v->entry_cfg.apf_poll_ticks
				     : v->entry_cfg.poll_ticks;

		ticks = MIN(ticks, deadline > now ? deadline - now : 0);
		value = preemption_timer_value(v, ticks);
	}
	if (value == v->timer_written)
		return;
	vmcs_write(VMCS_PREEMPTION_TIMER_VALUE, value);
	v->timer_written = value;
}

/* CR0.PG as the guest has it now (a change of PG makes no exit). */
static inline bool vcpu_guest_paging(void)
{
	return vmcs_read(VMCS_GUEST_CR0) & CR0_PG;
}

/*
 * Injects what is pending (polling only when needed), arms the timer;
 * now: the TSC when the last exit's handler returned (or later). Then
 * says until when the next entries may skip all that (fast_entry_until):
 * while the poll stays quiet, no timer deadline and no async PF make the
 * preemption timer's value change, and the console poll is not due,
 * only a move of irq_gen or an outstanding async PF (with the short
 * timer) can give this work something to do (what else would, clears it:
 * vcpu_poll_again; a held page-ready keeps it 0 through chores_due).
 */
static inline void vcpu_prepare_entry_fully(struct vcpu *v, uint64_t now,
					    bool apf)
{
	struct vm *g = v->guest;

	if (now >= v->chores_due)
		vcpu_entry_chores(v, now);
	if (irq_poll_needed(&v->irq_memo, vm_irq_gen(g), now))
		vcpu_poll_and_inject(v, now);
	vcpu_arm_preemption_timer(v, now, v->irq_memo.deadline, apf);
	/* chores_due is 0 while a page-ready is held: no fast entries. */
	v->fast_entry_until = v->irq_memo.quiet && !apf &&
				      v->irq_memo.deadline == UINT64_MAX ?
				      v->chores_due :
				      0;
}

/* g and plat: v's VM and platform (the caller keeps them at hand). */
static inline void vcpu_prepare_entry(struct vcpu *v, struct vm *g,
				      struct vcpu_platform *plat, uint64_t now)
{
	/*
	 * The short timer while tokens are out, when this vCPU's exits move
	 * the swap I/O (entry_cfg.apf_short_timer). Page-ready is not looked
	 * for here: it comes as VCPU_REQ_PAGE_READY (vcpu_take_requests).
	 */
	bool apf = apf_outstanding(&plat->apf) &&
		   v->entry_cfg.apf_short_timer;

	if (now < v->fast_entry_until && !apf &&
	    vm_irq_gen(g) == v->irq_memo.irq_gen)
		return;
	vcpu_prepare_entry_fully(v, now, apf);
}

#endif
