// SPDX-License-Identifier: BSD-2-Clause
/* The exit dispatch table, indexed by the basic exit reason. */
#include "vmx/exit_dispatch.h"
#include "vmx/vmx_ops.h"
#include "guest/vm.h"
#include "lib/console.h"
#include "lib/trace/trace.h"

/*
 * A reason without a handler of its own gets handle_unexpected: the range
 * gives every slot that default, the entries below override it (which is
 * what -Woverride-init would warn about).
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
const exit_handler_fn vmx_exit_handlers[VMX_EXIT_REASON_MAX] = {
	[0 ... VMX_EXIT_REASON_MAX - 1] = handle_unexpected,
	[VMX_EXIT_EXCEPTION_NMI] = handle_exception_nmi,
	[VMX_EXIT_EXTERNAL_INTERRUPT] = handle_external_interrupt,
	[VMX_EXIT_TRIPLE_FAULT] = handle_triple_fault,
	[VMX_EXIT_CPUID] = handle_cpuid,
	[VMX_EXIT_HLT] = handle_hlt,
	[VMX_EXIT_IO] = handle_io,
	[VMX_EXIT_RDMSR] = handle_rdmsr,
	[VMX_EXIT_WRMSR] = handle_wrmsr,
	[VMX_EXIT_EPT_VIOLATION] = handle_ept_violation,
	[VMX_EXIT_EPT_MISCONFIG] = handle_ept_misconfig,
	[VMX_EXIT_INTERRUPT_WINDOW] = handle_interrupt_window,
	[VMX_EXIT_NMI_WINDOW] = handle_interrupt_window,
	[VMX_EXIT_PREEMPTION_TIMER] = handle_preemption_timer,
	[VMX_EXIT_CR_ACCESS] = handle_cr_access,
	[VMX_EXIT_XSETBV] = handle_xsetbv,
	[VMX_EXIT_VMCALL] = handle_vmcall,
	[VMX_EXIT_GETSEC] = handle_invalid_opcode,
	[VMX_EXIT_MONITOR] = handle_invalid_opcode,
	[VMX_EXIT_MWAIT] = handle_invalid_opcode,
	[VMX_EXIT_VMCLEAR] = handle_invalid_opcode,
	[VMX_EXIT_VMLAUNCH] = handle_invalid_opcode,
	[VMX_EXIT_VMPTRLD] = handle_invalid_opcode,
	[VMX_EXIT_VMPTRST] = handle_invalid_opcode,
	[VMX_EXIT_VMREAD] = handle_invalid_opcode,
	[VMX_EXIT_VMRESUME] = handle_invalid_opcode,
	[VMX_EXIT_VMWRITE] = handle_invalid_opcode,
	[VMX_EXIT_VMXOFF] = handle_invalid_opcode,
	[VMX_EXIT_VMXON] = handle_invalid_opcode,
	[VMX_EXIT_INVEPT] = handle_invalid_opcode,
	[VMX_EXIT_INVVPID] = handle_invalid_opcode,
	[VMX_EXIT_RDPMC] = handle_rdpmc,
	[VMX_EXIT_INVD] = handle_invd,
	[VMX_EXIT_MACHINE_CHECK] = handle_machine_check,
	[VMX_EXIT_TASK_SWITCH] = handle_task_switch,
};
#pragma GCC diagnostic pop

enum exit_action vmx_dispatch_flagged_exit(struct vcpu *v)
{
	uint32_t raw = vmcs_read32(VMCS_EXIT_REASON);
	struct vmx_exit e = {
		.reason = raw & EXIT_REASON_BASIC_MASK,
		.qualification = vmcs_read(VMCS_EXIT_QUALIFICATION),
		.guest_rip = vmcs_read(VMCS_GUEST_RIP),
		.instruction_length = vmcs_read(VMCS_EXIT_INSTRUCTION_LENGTH),
	};

	vcpu_requeue_interrupted_event(&e);
	exit_stats_reason(&v->stats.exit, e.reason);
	if (trace_on) {
		v->traced_exit.qualification = e.qualification;
		v->traced_exit.rip = e.guest_rip;
	}
	if ((raw & EXIT_REASON_ENTRY_FAILURE) || e.reason >= VMX_EXIT_REASON_MAX)
		return handle_unexpected(v, &e);
	return vmx_exit_handlers[e.reason](v, &e);
}

enum exit_action handle_unexpected(struct vcpu *v, const struct vmx_exit *e)
{
	uint32_t raw = vmcs_read32(VMCS_EXIT_REASON);

	hv_error("vcpu %u: unexpected VM exit %s (reason %u%s), "
		 "qualification 0x%llx, guest rip 0x%llx",
		 v->id, vmx_exit_reason_name(e->reason), e->reason,
		 (raw & EXIT_REASON_ENTRY_FAILURE) ? ", VM-entry failure" : "",
		 (unsigned long long)e->qualification,
		 (unsigned long long)e->guest_rip);
	vmcs_dump();
	vm_end(v->guest, false, "unexpected VM exit %s (reason %u) at rip 0x%llx",
		  vmx_exit_reason_name(e->reason), e->reason,
		  (unsigned long long)e->guest_rip);
	return EXIT_STOP;
}
