// SPDX-License-Identifier: BSD-2-Clause
/* SDM Vol. 3C, 24.7 "Enabling and Entering VMX Operation", 24.8 fixed bits. */
#include "vmx/vmx_cpu.h"
#include "vmx/vmx_caps.h"
#include "vmx/vmx_controls.h"
#include "vmx/vmx_ops.h"
#include "arch/x86/cpu.h"
#include "lib/heap.h"
#include "lib/console.h"

uint32_t vmx_revision_id(void)
{
	return (uint32_t)(rdmsr(MSR_IA32_VMX_BASIC) & VMX_BASIC_REVISION_MASK);
}

/* Bits set in FIXED0 must be 1, bits clear in FIXED1 must be 0. */
static uint64_t apply_fixed_bits(uint64_t v, uint32_t fixed0_msr,
				 uint32_t fixed1_msr)
{
	return (v | rdmsr(fixed0_msr)) & rdmsr(fixed1_msr);
}

/*
 * With CR4.OSXSAVE set in root mode the hypervisor can execute the guest's
 * XSETBV for it (VM exits load the host CR4, SDM Vol. 3C 28.5.1).
 */
static uint64_t host_osxsave(void)
{
	struct cpuid_regs id;

	cpuid_count(CPUID_LEAF_FEATURES, 0, &id);
	return (id.ecx & CPUID_1_ECX_XSAVE) ? CR4_OSXSAVE : 0;
}

bool vmx_cpu_on(struct percpu *cpu)
{
	uint64_t region;

	if (!vmx_enable_feature_control()) {
		hv_error("host cpu %u: VMX is locked off in IA32_FEATURE_CONTROL",
			 cpu->index);
		return false;
	}
	write_cr0(apply_fixed_bits(read_cr0(), MSR_IA32_VMX_CR0_FIXED0,
				   MSR_IA32_VMX_CR0_FIXED1));
	write_cr4(apply_fixed_bits(read_cr4() | CR4_VMXE | host_osxsave(),
				   MSR_IA32_VMX_CR4_FIXED0,
				   MSR_IA32_VMX_CR4_FIXED1));
	region = hv_alloc_pages_low(1);
	*(uint32_t *)(uintptr_t)region = vmx_revision_id();
	if (!vmxon(region)) {
		hv_error("host cpu %u: VMXON failed", cpu->index);
		return false;
	}
	cpu->vmxon_pa = region;
	return true;
}
