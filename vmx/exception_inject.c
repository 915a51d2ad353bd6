// SPDX-License-Identifier: BSD-2-Clause
/*
 * A hardware exception apfvisor raises in the guest (#GP for a refused
 * MSR or CR write, #UD, #PF, a reflected #DB or #AC, #MC), queued for the
 * next VM entry (SDM Vol. 3C, 27.6 "Event Injection").
 */
#include "vmx/exit_handlers.h"
#include "vmx/vmx_ops.h"
#include "arch/x86/cpu.h"
#include "arch/x86/exceptions.h"

/*
 * Whether the CPU, delivering this exception itself, sets RF in the
 * RFLAGS image it pushes: for every fault but #DB, so that the IRET back
 * to the faulting instruction does not take an instruction breakpoint on
 * it again (SDM Vol. 3A, 18.3.1.1 and Table 6-1). Traps (#BP, #OF) and
 * aborts (#DF, #MC) push RF as it was; #DB is a fault only for an
 * instruction breakpoint, whose handler sets RF itself. KVM's rule
 * (arch/x86/kvm/x86.c, exception_type and kvm_check_and_inject_events).
 */
bool vmx_exception_sets_rf(uint8_t vector)
{
	switch (vector) {
	case EXC_DEBUG:
	case EXC_NMI:
	case EXC_BREAKPOINT:
	case EXC_OVERFLOW:
	case EXC_DOUBLE_FAULT:
	case EXC_MACHINE_CHECK:
		return false;
	default:
		return true;
	}
}

void vmx_inject_exception(uint8_t vector, bool has_error_code,
			  uint32_t error_code)
{
	uint32_t info = INTR_INFO_VALID | INTR_TYPE_HW_EXCEPTION | vector;

	/*
	 * In real mode no exception pushes an error code, and VM entry fails
	 * when one is asked to deliver one (SDM Vol. 3C, 26.2.1.3).
	 */
	if (has_error_code && !(vmcs_read(VMCS_GUEST_CR0) & CR0_PE))
		has_error_code = false;
	if (has_error_code) {
		info |= INTR_INFO_DELIVER_ERROR_CODE;
		vmcs_write(VMCS_ENTRY_EXCEPTION_ERROR_CODE, error_code);
	}
	/*
	 * The injected event pushes the guest-state RFLAGS as they are
	 * (27.6.1.1): RF goes there for the handler to see it.
	 */
	if (vmx_exception_sets_rf(vector))
		vmcs_write(VMCS_GUEST_RFLAGS,
			   vmcs_read(VMCS_GUEST_RFLAGS) | RFLAGS_RF);
	vmcs_write(VMCS_ENTRY_INTERRUPTION_INFO, info);
}
