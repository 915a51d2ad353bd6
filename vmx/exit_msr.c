// SPDX-License-Identifier: BSD-2-Clause
/*
 * RDMSR/WRMSR exits. MSRs whose guest value lives in the VMCS (loaded on
 * entry, saved on exit: SDM Vol. 3C, 25.4 and 27.3) are handled here; the
 * rest is platform state in guest/msr.c. STAR/LSTAR/CSTAR/SFMASK,
 * FS/GS_BASE, KERNEL_GS_BASE and TSC_AUX never exit (vmx/msr_bitmap.c):
 * the hypervisor itself never uses them, so the guest's values may stay
 * in the CPU, which also checks them. A value the CPU would refuse
 * (arch/x86/register_rules.h) raises #GP instead of reaching the VMCS,
 * where it would fail the next VM entry.
 */
#include "vmx/exit_handlers.h"
#include "vmx/vmx_ops.h"
#include "arch/x86/cpu.h"
#include "arch/x86/exceptions.h"
#include "arch/x86/register_rules.h"
#include "guest/vm.h"

/* EFER bits a guest may set (SDM Vol. 3A, 2.2.1): SCE, LME, LMA, NXE. */
#define EFER_GUEST_WRITABLE (EFER_SCE | EFER_LME | EFER_LMA | EFER_NXE)

struct vmcs_msr {
	uint32_t msr;
	uint32_t field;
};

static const struct vmcs_msr vmcs_msrs[] = {
	{ MSR_IA32_SYSENTER_CS, VMCS_GUEST_SYSENTER_CS },
	{ MSR_IA32_SYSENTER_ESP, VMCS_GUEST_SYSENTER_ESP },
	{ MSR_IA32_SYSENTER_EIP, VMCS_GUEST_SYSENTER_EIP },
	{ MSR_IA32_DEBUGCTL, VMCS_GUEST_IA32_DEBUGCTL },
	{ MSR_IA32_PAT, VMCS_GUEST_IA32_PAT },
};

static const struct vmcs_msr *find_vmcs_msr(uint32_t msr)
{
	for (size_t i = 0; i < ARRAY_SIZE(vmcs_msrs); i++)
		if (vmcs_msrs[i].msr == msr)
			return &vmcs_msrs[i];
	return NULL;
}

static void raise_gp(struct vcpu *v)
{
	v->stats.msr_gp_injected++;
	vmx_inject_exception(EXC_GENERAL_PROTECTION, true, 0);
}

/*
 * EFER.LMA is the processor's to set (paging on with LME); it is carried
 * over, and the "IA-32e mode guest" entry control follows it.
 */
static bool write_efer(uint64_t value)
{
	uint64_t old = vmcs_read(VMCS_GUEST_IA32_EFER);

	if (!efer_write_valid(value, old, vmcs_read(VMCS_GUEST_CR0),
			      EFER_GUEST_WRITABLE))
		return false;
	value = (value & ~EFER_LMA) | (old & EFER_LMA);
	vmcs_write(VMCS_GUEST_IA32_EFER, value);
	return true;
}

/* The checks of the MSRs whose guest value is a VMCS field. */
static bool vmcs_msr_value_valid(uint32_t msr, uint64_t value)
{
	switch (msr) {
	case MSR_IA32_PAT:
		return pat_value_valid(value);
	case MSR_IA32_DEBUGCTL:
		return debugctl_value_valid(value);
	case MSR_IA32_SYSENTER_ESP:
	case MSR_IA32_SYSENTER_EIP:
		return address_canonical(value, guest_va_bits(
			vmcs_read(VMCS_GUEST_CR4)));
	default:
		return true;            /* SYSENTER_CS: any selector */
	}
}

enum exit_action handle_rdmsr(struct vcpu *v, const struct vmx_exit *e)
{
	uint32_t msr = (uint32_t)v->regs.rcx;
	const struct vmcs_msr *vm = find_vmcs_msr(msr);
	uint64_t value;

	if (vm)
		value = vmcs_read(vm->field);
	else if (msr == MSR_IA32_EFER)
		value = vmcs_read(VMCS_GUEST_IA32_EFER);
	else if (guest_rdmsr(v->guest, v->id, msr, &value) !=
		 MSR_HANDLED) {
		raise_gp(v);
		return EXIT_RESUME;
	}
	v->regs.rax = (uint32_t)value;
	v->regs.rdx = value >> 32;
	vcpu_skip_instruction(e);
	return EXIT_RESUME;
}

enum exit_action handle_wrmsr(struct vcpu *v, const struct vmx_exit *e)
{
	uint32_t msr = (uint32_t)v->regs.rcx;
	uint64_t value = (v->regs.rdx << 32) | (uint32_t)v->regs.rax;
	const struct vmcs_msr *vm = find_vmcs_msr(msr);
	bool ok = true;

	if (vm) {
		ok = vmcs_msr_value_valid(msr, value);
		if (ok)
			vmcs_write(vm->field, value);
	} else if (msr == MSR_IA32_EFER)
		ok = write_efer(value);
	else
		ok = guest_wrmsr(v->guest, v->id, msr, value) == MSR_HANDLED;
	if (ok && guest_msr_moves_tsc(msr))     /* RDTSC(P) add it, no exit */
		vmcs_write(VMCS_TSC_OFFSET, v->plat->msrs.tsc.offset);
	if (!ok) {
		raise_gp(v);
		return EXIT_RESUME;
	}
	vcpu_skip_instruction(e);
	return EXIT_RESUME;
}
