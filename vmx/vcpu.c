// SPDX-License-Identifier: BSD-2-Clause
/* The vCPU loop: enter the guest, dispatch the exit, repeat. */
#include "vmx/vcpu.h"
#include "vmx/exit_handlers.h"
#include "vmx/vmcs_setup.h"
#include "vmx/vmx_cpu.h"
#include "vmx/vmx_ops.h"
#include "arch/x86/percpu.h"
#include "arch/x86/platform.h"
#include "guest/guest.h"
#include "lib/console.h"

/* vmx/vmx_entry.asm: 0 after a VM exit, else the entry failed. */
extern int vmx_run(struct guest_regs *regs, int launched);

enum vmx_run_result {
	VMX_RUN_EXITED = 0,
	VMX_RUN_FAIL_INVALID = 1,
	VMX_RUN_FAIL_VALID = 2,
	VMX_RUN_FAIL_HOST_RSP = 3,
};

NORETURN void vmcs_access_failed(const char *op, uint32_t field)
{
	uint64_t err = 0;

	vmread_checked(VMCS_VM_INSTRUCTION_ERROR, &err);
	hv_error("%s of VMCS field 0x%04x failed (VM-instruction error %llu)",
		 op, field, (unsigned long long)err);
	platform_stop();
}

void vcpu_skip_instruction(const struct vmx_exit *e)
{
	vmcs_write(VMCS_GUEST_RIP, e->guest_rip + e->instruction_length);
}

void vmx_inject_exception(uint8_t vector, bool has_error_code,
			  uint32_t error_code)
{
	uint32_t info = INTR_INFO_VALID | INTR_TYPE_HW_EXCEPTION | vector;

	if (has_error_code) {
		info |= INTR_INFO_DELIVER_ERROR_CODE;
		vmcs_write(VMCS_ENTRY_EXCEPTION_ERROR_CODE, error_code);
	}
	vmcs_write(VMCS_ENTRY_INTERRUPTION_INFO, info);
}

/* SDM Vol. 3C, 31.4: VM-instruction error numbers of VMLAUNCH/VMRESUME. */
static void report_entry_failure(struct vcpu *v, int rc)
{
	uint64_t err = 0;

	if (rc == VMX_RUN_FAIL_VALID)
		vmread_checked(VMCS_VM_INSTRUCTION_ERROR, &err);
	hv_error("vcpu %u: %s failed (%s, VM-instruction error %llu%s)", v->id,
		 v->launched ? "VMRESUME" : "VMLAUNCH",
		 rc == VMX_RUN_FAIL_VALID ? "VMfailValid" : "VMfailInvalid",
		 (unsigned long long)err,
		 err == 7 ? ": invalid control fields" :
		 err == 8 ? ": invalid host-state fields" : "");
	vmcs_dump();
	guest_end(v->guest, false, "VM entry failed (VM-instruction error %llu)",
		  (unsigned long long)err);
}

void vcpu_run(struct vcpu *v)
{
	struct guest *g = v->guest;

	v->host = this_cpu();
	v->host->vcpu = v;
	if (!vmx_cpu_on(v->host) ||
	    !vmcs_setup(v, ept_pointer(&g->ept), &g->entry)) {
		guest_end(g, false, "VMX could not be started on host cpu %u",
			  v->host->index);
		return;
	}
	v->regs.rdi = g->entry.rdi;
	v->regs.rsi = g->entry.rsi;
	hv_info("vcpu %u runs on host cpu %u", v->id, v->host->index);
	while (!g->ended) {
		int rc = vmx_run(&v->regs, v->launched);

		if (rc != VMX_RUN_EXITED) {
			report_entry_failure(v, rc);
			return;
		}
		v->launched = true;
		if (vmx_dispatch_exit(v) == EXIT_STOP)
			return;
	}
}
