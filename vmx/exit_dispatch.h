/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The exit dispatch, inline in the vCPU loop (vmx/vcpu.c): every exit
 * passes here, so it reads what every handler needs once and calls the
 * reason's handler from the table in vmx/exit_dispatch.c.
 */
#ifndef VMX_EXIT_DISPATCH_H
#define VMX_EXIT_DISPATCH_H

#include "vmx/exit_handlers.h"
#include "vmx/vmx_ops.h"
#include "vmx/vcpu_events.h"
#include "lib/trace.h"

extern const exit_handler_fn vmx_exit_handlers[VMX_EXIT_REASON_MAX];

static inline enum exit_action vmx_dispatch_exit(struct vcpu *v)
{
	uint32_t raw = vmcs_read32(VMCS_EXIT_REASON);
	struct vmx_exit e = {
		.reason = raw & EXIT_REASON_BASIC_MASK,
		.qualification = vmcs_read(VMCS_EXIT_QUALIFICATION),
		.guest_rip = vmcs_read(VMCS_GUEST_RIP),
		.instruction_length = vmcs_read32(VMCS_EXIT_INSTRUCTION_LENGTH),
	};
	exit_handler_fn fn = NULL;

	v->stats.exits_total++;
	vcpu_requeue_interrupted_event(&e);
	exit_stats_reason(&v->stats.exit, e.reason);
	if (trace_on) {
		v->traced_exit.qualification = e.qualification;
		v->traced_exit.rip = e.guest_rip;
	}
	if (e.reason < VMX_EXIT_REASON_MAX)
		fn = vmx_exit_handlers[e.reason];
	/* 28.2.1: bit 31 = the VM entry failed after loading guest state. */
	if ((raw & EXIT_REASON_ENTRY_FAILURE) || !fn)
		return handle_unexpected(v, &e);
	return fn(v, &e);
}

#endif
