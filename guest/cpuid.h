/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What CPUID tells the guest: the host's values, filtered. Pure C over the
 * host's answer so tests/unit can check it.
 */
#ifndef GUEST_CPUID_H
#define GUEST_CPUID_H

#include "arch/x86/cpu.h"

#define CPUID_HYPERVISOR_BASE 0x40000000u
#define CPUID_HYPERVISOR_FEATURES 0x40000001u
#define CPUID_HYPERVISOR_LAST 0x400000ffu
/* "KVMKVMKVM\0\0\0" (Documentation/virt/kvm/x86/cpuid.rst) */
#define KVM_SIGNATURE_EBX 0x4b4d564bu
#define KVM_SIGNATURE_ECX 0x564b4d56u
#define KVM_SIGNATURE_EDX 0x0000004du

/* host = what the CPU answered for (leaf, subleaf); out = the guest's. */
void guest_cpuid(uint32_t leaf, uint32_t subleaf,
		 const struct cpuid_regs *host, struct cpuid_regs *out);

#endif
