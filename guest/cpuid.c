// SPDX-License-Identifier: BSD-2-Clause
#include "guest/cpuid.h"

/*
 * KVM paravirtual features offered in EAX of 0x40000001. None yet: each bit
 * promises MSRs the guest will use (APF-PROTOCOL.md, section 1), and
 * apfvisor adds them as it implements them.
 */
#define KVM_FEATURES_OFFERED 0u

void guest_cpuid(uint32_t leaf, uint32_t subleaf,
		 const struct cpuid_regs *host, struct cpuid_regs *out)
{
	(void)subleaf;
	*out = *host;
	if (leaf == CPUID_LEAF_FEATURES) {
		/* No nested VMX; tell the guest it runs on a hypervisor. */
		out->ecx &= ~CPUID_1_ECX_VMX;
		out->ecx |= CPUID_1_ECX_HYPERVISOR;
		return;
	}
	if (leaf < CPUID_HYPERVISOR_BASE || leaf > CPUID_HYPERVISOR_LAST)
		return;
	*out = (struct cpuid_regs){ 0 };
	if (leaf == CPUID_HYPERVISOR_BASE) {
		out->eax = CPUID_HYPERVISOR_FEATURES;
		out->ebx = KVM_SIGNATURE_EBX;
		out->ecx = KVM_SIGNATURE_ECX;
		out->edx = KVM_SIGNATURE_EDX;
	} else if (leaf == CPUID_HYPERVISOR_FEATURES) {
		out->eax = KVM_FEATURES_OFFERED;
	}
}
