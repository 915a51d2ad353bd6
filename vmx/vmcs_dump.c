// SPDX-License-Identifier: BSD-2-Clause
/* A readable dump of the current VMCS for unexpected exits and failures. */
#include "vmx/exit_handlers.h"
#include "vmx/vmx_ops.h"
#include "lib/console.h"

struct named_field {
	uint32_t field;
	const char *name;
};

static const struct named_field dumped_fields[] = {
	{ VMCS_EXIT_REASON, "exit_reason" },
	{ VMCS_EXIT_QUALIFICATION, "exit_qualification" },
	{ VMCS_VM_INSTRUCTION_ERROR, "vm_instruction_error" },
	{ VMCS_EXIT_INTERRUPTION_INFO, "exit_interruption_info" },
	{ VMCS_IDT_VECTORING_INFO, "idt_vectoring_info" },
	{ VMCS_GUEST_PHYSICAL_ADDRESS, "guest_physical_address" },
	{ VMCS_GUEST_LINEAR_ADDRESS, "guest_linear_address" },
	{ VMCS_GUEST_RIP, "guest_rip" },
	{ VMCS_GUEST_RSP, "guest_rsp" },
	{ VMCS_GUEST_RFLAGS, "guest_rflags" },
	{ VMCS_GUEST_CR0, "guest_cr0" },
	{ VMCS_GUEST_CR3, "guest_cr3" },
	{ VMCS_GUEST_CR4, "guest_cr4" },
	{ VMCS_GUEST_IA32_EFER, "guest_efer" },
	{ VMCS_GUEST_CS_SELECTOR, "guest_cs" },
	{ VMCS_GUEST_CS_ACCESS_RIGHTS, "guest_cs_ar" },
	{ VMCS_GUEST_SS_ACCESS_RIGHTS, "guest_ss_ar" },
	{ VMCS_GUEST_TR_ACCESS_RIGHTS, "guest_tr_ar" },
	{ VMCS_GUEST_GDTR_BASE, "guest_gdtr_base" },
	{ VMCS_GUEST_IDTR_BASE, "guest_idtr_base" },
	{ VMCS_GUEST_INTERRUPTIBILITY, "guest_interruptibility" },
	{ VMCS_GUEST_ACTIVITY_STATE, "guest_activity_state" },
	{ VMCS_ENTRY_INTERRUPTION_INFO, "entry_interruption_info" },
	{ VMCS_PIN_BASED_CONTROLS, "pin_based_controls" },
	{ VMCS_PROC_BASED_CONTROLS, "proc_based_controls" },
	{ VMCS_PROC_BASED_CONTROLS2, "proc_based_controls2" },
	{ VMCS_EXIT_CONTROLS, "exit_controls" },
	{ VMCS_ENTRY_CONTROLS, "entry_controls" },
	{ VMCS_EPT_POINTER, "ept_pointer" },
	{ VMCS_HOST_CR0, "host_cr0" },
	{ VMCS_HOST_CR3, "host_cr3" },
	{ VMCS_HOST_CR4, "host_cr4" },
	{ VMCS_HOST_RIP, "host_rip" },
	{ VMCS_HOST_RSP, "host_rsp" },
};

void vmcs_dump(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(dumped_fields); i++) {
		uint64_t value;

		if (vmread_checked(dumped_fields[i].field, &value))
			hv_info("vmcs: %-24s 0x%llx", dumped_fields[i].name,
				(unsigned long long)value);
		else
			hv_info("vmcs: %-24s (unreadable)",
				dumped_fields[i].name);
	}
}
