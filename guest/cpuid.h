/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What CPUID tells the guest: the host's values, filtered so that the guest
 * sees only what apfvisor virtualizes (APF-PROTOCOL.md sections 1 and 8).
 * Pure C over the host's answer so tests/unit can check it.
 */
#ifndef GUEST_CPUID_H
#define GUEST_CPUID_H

#include "apf/kvm_para.h"
#include "arch/x86/cpu.h"

#define CPUID_HYPERVISOR_BASE 0x40000000u
#define CPUID_HYPERVISOR_FEATURES 0x40000001u
#define CPUID_HYPERVISOR_LAST 0x400000ffu
/* "KVMKVMKVM\0\0\0" (Documentation/virt/kvm/x86/cpuid.rst) */
#define KVM_SIGNATURE_EBX 0x4b4d564bu
#define KVM_SIGNATURE_ECX 0x564b4d56u
#define KVM_SIGNATURE_EDX 0x0000004du

/*
 * KVM paravirtual feature bits, EAX of 0x40000001 (uapi kvm_para.h); the
 * async-PF ones are in apf/kvm_para.h.
 */
#define KVM_FEATURE_CLOCKSOURCE2 BIT(3)
#define KVM_FEATURE_PV_EOI BIT(6)
#define KVM_FEATURE_CLOCKSOURCE_STABLE_BIT BIT(24)

struct cpuid_context {
	uint32_t vcpu_id;               /* = its x2APIC ID */
	uint32_t nvcpus;
	bool guest_osxsave;             /* the guest's CR4.OSXSAVE */
	uint32_t kvm_features;          /* EAX of 0x40000001 */
	bool hide_xsavec;               /* the host's XSAVEC misplaces state */
	/*
	 * IA32_APIC_BASE.EN is clear: leaf 1 EDX[9] (APIC) reads 0, as on
	 * the CPU (SDM Vol. 3A 11.4.3) and under KVM.
	 */
	bool apic_disabled;
	bool no_rdtscp;                 /* VT-x's "enable RDTSCP" is off */
};

/* host = what the CPU answered for (leaf, subleaf); out = the guest's. */
void guest_cpuid(const struct cpuid_context *ctx, uint32_t leaf,
		 uint32_t subleaf, const struct cpuid_regs *host,
		 struct cpuid_regs *out);

/*
 * A vCPU's answers, remembered so that a repeated CPUID costs a lookup.
 * Only leaves whose answer cannot change while the guest runs are kept:
 * not leaf 1 (OSXSAVE follows the guest's CR4) nor leaf 0xD (the XSAVE
 * sizes follow XCR0, which the guest sets).
 */
#define CPUID_CACHE_SLOTS 8

/*
 * A slot holds one (leaf, subleaf) and its answer. An empty slot holds a
 * (leaf, subleaf) whose index is another slot's (cpuid_cache_init), so no
 * lookup can match it: a lookup tests no "valid" flag.
 */
struct cpuid_cache {
	struct {
		uint32_t leaf, subleaf;
		struct cpuid_regs regs;
	} __attribute__((aligned(32))) slot[CPUID_CACHE_SLOTS]; /* index << 5 */
};

static inline bool cpuid_cacheable(uint32_t leaf)
{
	return leaf != 0x1 && leaf != 0xd;
}

static inline unsigned cpuid_cache_index(uint32_t leaf, uint32_t subleaf)
{
	return (leaf ^ (leaf >> 28) ^ subleaf) % CPUID_CACHE_SLOTS;
}

/* The stored answer for (leaf, subleaf), or NULL. */
static inline const struct cpuid_regs *
cpuid_cache_find(const struct cpuid_cache *c, uint32_t leaf, uint32_t subleaf)
{
	unsigned i = cpuid_cache_index(leaf, subleaf);

	if (c->slot[i].leaf != leaf || c->slot[i].subleaf != subleaf)
		return NULL;
	return &c->slot[i].regs;
}

/* Empties the cache. */
void cpuid_cache_init(struct cpuid_cache *c);

/* Keeps the answer for (leaf, subleaf) if its leaf may be kept. */
void cpuid_cache_store(struct cpuid_cache *c, uint32_t leaf,
		       uint32_t subleaf, const struct cpuid_regs *regs);

#endif
