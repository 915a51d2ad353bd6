// SPDX-License-Identifier: BSD-2-Clause
/* The vCPU loop: enter the guest, dispatch the exit, repeat. */
#include "vmx/vcpu.h"
#include "vmx/exit_handlers.h"
#include "vmx/vmcs_setup.h"
#include "vmx/vmx_cpu.h"
#include "vmx/vmx_ops.h"
#include "vmx/vcpu_events.h"
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
	uint32_t blocking = vmcs_read32(VMCS_GUEST_INTERRUPTIBILITY);

	vmcs_write(VMCS_GUEST_RIP, e->guest_rip + e->instruction_length);
	/* STI/MOV SS blocking covers only the instruction just skipped. */
	if (blocking & (INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOV_SS))
		vmcs_write(VMCS_GUEST_INTERRUPTIBILITY,
			   blocking & ~(INTERRUPTIBILITY_STI |
					INTERRUPTIBILITY_MOV_SS));
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

/*
 * An AP waits for its SIPI (SDM Vol. 3A, 9.4.4) in the hypervisor, not in
 * the VMX wait-for-SIPI activity state: the BSP's ICR write lands in
 * guest/interrupts.c, which records the vector. False if the guest ended.
 */
static bool wait_for_sipi(struct vcpu *v, struct vcpu_entry_state *s)
{
	struct vcpu_platform *p = &v->guest->plat[v->id];

	while (!v->guest->ended) {
		int vector = p->sipi_vector;

		if (vector >= 0) {
			p->sipi_vector = -1;
			p->run_state = VCPU_RUNNABLE;
			vcpu_sipi_entry_state((uint8_t)vector, s);
			return true;
		}
		cpu_relax();
	}
	return false;
}

static bool start_vcpu(struct vcpu *v)
{
	struct guest *g = v->guest;
	struct vcpu_entry_state sipi;
	const struct vcpu_entry_state *s = &g->entry;

	if (v->id != 0) {
		if (!wait_for_sipi(v, &sipi))
			return false;
		s = &sipi;
		hv_info("vcpu %u: SIPI, starting at 0x%x", v->id,
			sipi.real_mode_cs << 4);
	}
	if (!vmcs_setup(v, ept_pointer(&g->ept), s)) {
		guest_end(g, false, "VMX could not be started on host cpu %u",
			  v->host->index);
		return false;
	}
	if (v->id == 0) {
		v->regs.rdi = g->entry.rdi;
		v->regs.rsi = g->entry.rsi;
	}
	return true;
}

/* An INIT sent to a running AP: back to waiting for a SIPI. */
static bool restart_after_init(struct vcpu *v)
{
	struct vcpu_entry_state s;

	if (!wait_for_sipi(v, &s))
		return false;
	vmcs_load_entry_state(&s);
	v->regs = (struct guest_regs){ 0 };
	return true;
}

void vcpu_run(struct vcpu *v)
{
	struct guest *g = v->guest;

	v->host = this_cpu();
	v->host->vcpu = v;
	if (!vmx_cpu_on(v->host)) {
		guest_end(g, false, "VMX could not be started on host cpu %u",
			  v->host->index);
		return;
	}
	hv_info("vcpu %u runs on host cpu %u", v->id, v->host->index);
	if (!start_vcpu(v))
		return;
	if (v->id == 0)
		g->first_entry_tsc = rdtsc();
	while (!g->ended) {
		if (g->plat[v->id].run_state == VCPU_WAIT_FOR_SIPI &&
		    !restart_after_init(v))
			return;
		vcpu_prepare_entry(v);
		vcpu_enter_guest_mode(v);
		int rc = vmx_run(&v->regs, v->launched);

		__atomic_store_n(&v->in_guest, false, __ATOMIC_RELEASE);
		if (rc != VMX_RUN_EXITED) {
			report_entry_failure(v, rc);
			return;
		}
		v->launched = true;
		if (vmx_dispatch_exit(v) == EXIT_STOP)
			return;
	}
}
