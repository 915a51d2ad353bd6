// SPDX-License-Identifier: BSD-2-Clause
/*
 * The guest CPUID policy. Bits are hidden when apfvisor does not virtualize
 * what they promise (an MSR, an instruction, a device), because Linux uses
 * what it sees: e.g. PDCM makes it read IA32_PERF_CAPABILITIES. MCE and
 * MCA are shown whatever the host has: the banks they promise are
 * emulated (guest/mce.c), as KVM always offers them. Bit names: SDM Vol.
 * 2A, CPUID.
 */
#include "guest/cpuid.h"

/* Leaf 1 ECX */
#define L1_ECX_MONITOR BIT(3)
#define L1_ECX_DS_CPL BIT(4)
#define L1_ECX_SMX BIT(6)
#define L1_ECX_EIST BIT(7)
#define L1_ECX_TM2 BIT(8)
#define L1_ECX_SDBG BIT(11)
#define L1_ECX_XTPR BIT(14)
#define L1_ECX_PDCM BIT(15)
#define L1_ECX_DCA BIT(18)
#define L1_ECX_TSC_DEADLINE BIT(24)
#define L1_ECX_OSXSAVE BIT(27)
/* Leaf 1 EDX */
#define L1_EDX_MCE BIT(7)
#define L1_EDX_APIC BIT(9)
#define L1_EDX_MCA BIT(14)
#define L1_EDX_DS BIT(21)
#define L1_EDX_ACPI_THERMAL BIT(22)
#define L1_EDX_TM BIT(29)
#define L1_EDX_PBE BIT(31)
#define L1_EBX_APIC_ID_SHIFT 24
#define L1_EBX_LOGICAL_COUNT_SHIFT 16
#define L1_EBX_LOW_MASK 0xffffu

#define L1_ECX_HIDDEN (CPUID_1_ECX_VMX | L1_ECX_MONITOR | L1_ECX_DS_CPL | \
		       L1_ECX_SMX | L1_ECX_EIST | L1_ECX_TM2 | L1_ECX_SDBG | \
		       L1_ECX_XTPR | L1_ECX_PDCM | L1_ECX_DCA | L1_ECX_OSXSAVE)
#define L1_EDX_HIDDEN (L1_EDX_DS | L1_EDX_ACPI_THERMAL | L1_EDX_TM | \
		       L1_EDX_PBE)

/* Leaf 6: only ARAT (the APIC timer keeps running in deep C-states). */
#define L6_EAX_ARAT BIT(2)
/* Leaf 7.0 EBX: SGX, HLE, RTM, PQM, MPX, PQE, Intel PT */
#define L7_EBX_HIDDEN (BIT(2) | BIT(4) | BIT(11) | BIT(12) | \
		       BIT(14) | BIT(15) | BIT(25))
/* Leaf 7.0 EBX: IA32_TSC_ADJUST, emulated whatever the host has (as KVM). */
#define L7_EBX_TSC_ADJUST BIT(1)
/*
 * RDPID (leaf 7.0 ECX) and RDTSCP (0x80000001 EDX) read IA32_TSC_AUX;
 * without VT-x's "enable RDTSCP" both are #UD in the guest (SDM Vol. 3C
 * 26.3), so they are hidden then.
 */
#define L7_ECX_RDPID BIT(22)
#define LEXT1_EDX_RDTSCP BIT(27)
/* Leaf 7.0 ECX: WAITPKG, SGX_LC, PKS */
#define L7_ECX_HIDDEN (BIT(5) | BIT(30) | BIT(31))
/* Leaf 0xD.1 EAX: XSAVES/XRSTORS are not enabled in VMX (no IA32_XSS). */
#define LD1_EAX_XSAVES BIT(3)
/* Leaf 0xD.1 EAX: XSAVEC, hidden where the host's is wrong (xsave_probe.h). */
#define LD1_EAX_XSAVEC BIT(1)
/* Leaf 0x80000007 EDX: invariant TSC. */
#define LEXT7_EDX_INVARIANT_TSC BIT(8)

/* Topology leaves 0xB/0x1F: level types (SDM Vol. 2A, CPUID leaf 0BH). */
#define TOPO_LEVEL_SMT 1
#define TOPO_LEVEL_CORE 2
#define TOPO_LEVEL_TYPE_SHIFT 8
#define L4_EAX_CORES_SHIFT 26
#define L4_EAX_SHARING_SHIFT 14
#define L4_EAX_LOW_MASK 0x3fffu

static uint32_t bits_for(uint32_t count)
{
	uint32_t bits = 0;

	while ((1u << bits) < count)
		bits++;
	return bits;
}

static void leaf_features(const struct cpuid_context *ctx,
			  struct cpuid_regs *out)
{
	out->ecx &= ~L1_ECX_HIDDEN;
	out->ecx |= CPUID_1_ECX_HYPERVISOR | CPUID_1_ECX_X2APIC |
		    L1_ECX_TSC_DEADLINE;
	if (ctx->guest_osxsave)
		out->ecx |= L1_ECX_OSXSAVE;
	out->edx &= ~L1_EDX_HIDDEN;
	out->edx |= L1_EDX_MCE | L1_EDX_MCA;
	if (ctx->apic_disabled)
		out->edx &= ~L1_EDX_APIC;
	out->ebx = (out->ebx & L1_EBX_LOW_MASK) |
		   (ctx->nvcpus << L1_EBX_LOGICAL_COUNT_SHIFT) |
		   (ctx->vcpu_id << L1_EBX_APIC_ID_SHIFT);
}

/* One core per vCPU, one thread per core, one package. */
static void leaf_topology(const struct cpuid_context *ctx, uint32_t level,
			  struct cpuid_regs *out)
{
	*out = (struct cpuid_regs){ .ecx = level, .edx = ctx->vcpu_id };
	if (level == 0) {
		out->ebx = 1;
		out->ecx |= TOPO_LEVEL_SMT << TOPO_LEVEL_TYPE_SHIFT;
	} else if (level == 1) {
		out->eax = bits_for(ctx->nvcpus);
		out->ebx = ctx->nvcpus;
		out->ecx |= TOPO_LEVEL_CORE << TOPO_LEVEL_TYPE_SHIFT;
	}
}

static void leaf_cache(const struct cpuid_context *ctx, struct cpuid_regs *out)
{
	if (!(out->eax & 0x1f))
		return;                 /* no cache at this subleaf */
	out->eax = (out->eax & L4_EAX_LOW_MASK) |
		   ((ctx->nvcpus - 1) << L4_EAX_CORES_SHIFT);
}

static void leaf_hypervisor(const struct cpuid_context *ctx, uint32_t leaf,
			    struct cpuid_regs *out)
{
	*out = (struct cpuid_regs){ 0 };
	if (leaf == CPUID_HYPERVISOR_BASE) {
		out->eax = CPUID_HYPERVISOR_FEATURES;
		out->ebx = KVM_SIGNATURE_EBX;
		out->ecx = KVM_SIGNATURE_ECX;
		out->edx = KVM_SIGNATURE_EDX;
	} else if (leaf == CPUID_HYPERVISOR_FEATURES) {
		out->eax = ctx->kvm_features;
	}
}

void guest_cpuid(const struct cpuid_context *ctx, uint32_t leaf,
		 uint32_t subleaf, const struct cpuid_regs *host,
		 struct cpuid_regs *out)
{
	*out = *host;
	switch (leaf) {
	case 0x1:
		leaf_features(ctx, out);
		break;
	case 0x4:
		leaf_cache(ctx, out);
		break;
	case 0x5:               /* MONITOR/MWAIT: hidden in leaf 1 */
	case 0xa:               /* architectural PMU: not virtualized */
		*out = (struct cpuid_regs){ 0 };
		break;
	case 0x6:
		*out = (struct cpuid_regs){ .eax = L6_EAX_ARAT };
		break;
	case 0x7:
		if (subleaf == 0) {
			out->ebx &= ~L7_EBX_HIDDEN;
			out->ebx |= L7_EBX_TSC_ADJUST;
			out->ecx &= ~(L7_ECX_HIDDEN |
				      (ctx->no_rdtscp ? L7_ECX_RDPID : 0));
			out->edx = 0;   /* speculation controls, ARCH_CAPS, ... */
		} else {
			*out = (struct cpuid_regs){ 0 };  /* incl. FRED */
		}
		break;
	case 0xb:
	case 0x1f:
		leaf_topology(ctx, subleaf, out);
		break;
	case 0xd:
		if (subleaf == 1)
			out->eax &= ~(LD1_EAX_XSAVES |
				      (ctx->hide_xsavec ? LD1_EAX_XSAVEC : 0));
		break;
	case 0x80000001:
		if (ctx->no_rdtscp)
			out->edx &= ~LEXT1_EDX_RDTSCP;
		break;
	case 0x80000007:
		out->edx &= LEXT7_EDX_INVARIANT_TSC;
		break;
	default:
		if (leaf >= CPUID_HYPERVISOR_BASE &&
		    leaf <= CPUID_HYPERVISOR_LAST)
			leaf_hypervisor(ctx, leaf, out);
		break;
	}
}

void cpuid_cache_init(struct cpuid_cache *c)
{
	for (unsigned i = 0; i < CPUID_CACHE_SLOTS; i++) {
		/* Leaf i ^ 1, subleaf 0 has index i ^ 1: never slot i's. */
		c->slot[i].leaf = i ^ 1;
		c->slot[i].subleaf = 0;
	}
}

void cpuid_cache_store(struct cpuid_cache *c, uint32_t leaf,
		       uint32_t subleaf, const struct cpuid_regs *regs)
{
	unsigned i = cpuid_cache_index(leaf, subleaf);

	if (!cpuid_cacheable(leaf))
		return;
	c->slot[i].leaf = leaf;
	c->slot[i].subleaf = subleaf;
	c->slot[i].regs = *regs;
}
