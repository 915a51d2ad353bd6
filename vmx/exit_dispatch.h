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
#include "lib/trace/trace.h"

extern const exit_handler_fn vmx_exit_handlers[VMX_EXIT_REASON_MAX];

/*
 * Exits caused by executing an instruction that gives no exit
 * qualification (SDM Vol. 3C, 28.2.1) and whose handler needs only the
 * RIP and the instruction length. They cannot occur during the delivery
 * of an event (28.2.4 lists the exits that can), so the IDT-vectoring
 * information of such an exit is never valid: neither it nor the
 * qualification is read for them (e.qualification stays 0).
 */
#define VMX_PLAIN_INSTRUCTION_EXITS                                            \
	(BIT(VMX_EXIT_CPUID) | BIT(VMX_EXIT_HLT) | BIT(VMX_EXIT_RDMSR) |     \
	 BIT(VMX_EXIT_WRMSR) | BIT(VMX_EXIT_XSETBV) | BIT(VMX_EXIT_VMCALL) |  \
	 BIT(VMX_EXIT_INVD) | BIT(VMX_EXIT_RDPMC))

static inline bool vmx_plain_instruction_exit(unsigned reason)
{
	return reason < 64 && ((VMX_PLAIN_INSTRUCTION_EXITS >> reason) & 1);
}

/*
 * An exit whose raw reason is not a basic reason below the table's size:
 * a flag bit is set (28.2.1: bit 31, the VM entry failed after loading
 * guest state, or another) or the reason is unknown. Out of line.
 */
enum exit_action vmx_dispatch_flagged_exit(struct vcpu *v);

static inline enum exit_action vmx_dispatch_exit(struct vcpu *v)
{
	/* 64 bits wide, as VMREAD zero-extends it: it indexes the tables. */
	uint64_t raw = vmcs_read(VMCS_EXIT_REASON);
	uint64_t rip, length;

	if (__builtin_expect(raw >= VMX_EXIT_REASON_MAX, 0))
		return vmx_dispatch_flagged_exit(v);
	rip = vmcs_read(VMCS_GUEST_RIP);
	/* VMREAD zero-extends a 32-bit field into a 64-bit register. */
	length = vmcs_read(VMCS_EXIT_INSTRUCTION_LENGTH);
	exit_stats_reason(&v->stats.exit, raw);
	if (trace_on) {
		v->traced_exit.qualification =
			vmcs_read(VMCS_EXIT_QUALIFICATION);
		v->traced_exit.rip = rip;
	}
	/*
	 * The commonest exit of all skips the table when the vCPU's cache
	 * has the answer, as KVM handles its commonest exits before its
	 * table (arch/x86/kvm/vmx/vmx.c: vmx_exit_handlers_fastpath and
	 * __vmx_handle_exit). handle_cpuid does the same for the rest.
	 */
	if (raw == VMX_EXIT_CPUID) {
		const struct vmx_exit cpuid = { .reason = VMX_EXIT_CPUID,
						.guest_rip = rip,
						.instruction_length = length };

		if (cpuid_answer_cached(v, &cpuid))
			return EXIT_RESUME;
	}

	struct vmx_exit e;              /* field by field: no padding zeroed */

	e.reason = (uint32_t)raw;
	e.guest_rip = rip;
	e.instruction_length = length;
	if (vmx_plain_instruction_exit(raw)) {
		e.qualification = 0;
	} else {
		e.qualification = vmcs_read(VMCS_EXIT_QUALIFICATION);
		vcpu_requeue_interrupted_event(&e);
	}
	/* Every slot holds a handler (handle_unexpected by default). */
	return vmx_exit_handlers[raw](v, &e);
}

#endif
