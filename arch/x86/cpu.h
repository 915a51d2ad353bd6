/* SPDX-License-Identifier: BSD-2-Clause */
/* CPUID, MSR and control-register helpers, and the names of their bits. */
#ifndef ARCH_X86_CPU_H
#define ARCH_X86_CPU_H

#include "lib/types.h"

/* CPUID leaves and bits (SDM Vol. 2A, CPUID). */
#define CPUID_LEAF_FEATURES      0x1
#define CPUID_1_ECX_VMX          BIT(5)
#define CPUID_1_ECX_X2APIC       BIT(21)
#define CPUID_1_ECX_XSAVE        BIT(26)
#define CPUID_1_ECX_AVX          BIT(28)
#define CPUID_1_ECX_HYPERVISOR   BIT(31)
#define CPUID_LEAF_XSAVE         0xd

/* Control registers (SDM Vol. 3A, 2.5). */
#define CR0_PE  BIT(0)
#define CR0_MP  BIT(1)
#define CR0_ET  BIT(4)
#define CR0_NE  BIT(5)
#define CR0_WP  BIT(16)
#define CR0_NW  BIT(29)
#define CR0_CD  BIT(30)
#define CR0_PG  BIT(31)
#define CR4_PAE BIT(5)
#define CR4_PGE BIT(7)
#define CR4_VMXE BIT(13)
#define CR4_OSXSAVE BIT(18)

/* Model-specific registers (SDM Vol. 4). */
#define MSR_IA32_APIC_BASE          0x1b
#define MSR_IA32_FEATURE_CONTROL    0x3a
#define MSR_IA32_SYSENTER_CS        0x174
#define MSR_IA32_SYSENTER_ESP       0x175
#define MSR_IA32_SYSENTER_EIP       0x176
#define MSR_IA32_DEBUGCTL           0x1d9
#define MSR_IA32_PAT                0x277
#define MSR_IA32_VMX_BASIC          0x480
#define MSR_IA32_VMX_PINBASED_CTLS  0x481
#define MSR_IA32_VMX_PROCBASED_CTLS 0x482
#define MSR_IA32_VMX_EXIT_CTLS      0x483
#define MSR_IA32_VMX_ENTRY_CTLS     0x484
#define MSR_IA32_VMX_MISC           0x485
#define MSR_IA32_VMX_CR0_FIXED0     0x486
#define MSR_IA32_VMX_CR0_FIXED1     0x487
#define MSR_IA32_VMX_CR4_FIXED0     0x488
#define MSR_IA32_VMX_CR4_FIXED1     0x489
#define MSR_IA32_VMX_PROCBASED_CTLS2 0x48b
#define MSR_IA32_VMX_EPT_VPID_CAP   0x48c
#define MSR_IA32_VMX_TRUE_PINBASED_CTLS  0x48d
#define MSR_IA32_VMX_TRUE_PROCBASED_CTLS 0x48e
#define MSR_IA32_VMX_TRUE_EXIT_CTLS      0x48f
#define MSR_IA32_VMX_TRUE_ENTRY_CTLS     0x490
#define MSR_IA32_EFER               0xc0000080
#define MSR_IA32_FS_BASE            0xc0000100
#define MSR_IA32_GS_BASE            0xc0000101

#define APIC_BASE_BSP     BIT(8)
#define APIC_BASE_X2APIC  BIT(10)
#define APIC_BASE_ENABLE  BIT(11)

#define FEATURE_CONTROL_LOCKED          BIT(0)
#define FEATURE_CONTROL_VMX_OUTSIDE_SMX BIT(2)

#define EFER_SCE BIT(0)
#define EFER_LME BIT(8)
#define EFER_LMA BIT(10)
#define EFER_NXE BIT(11)

#define RFLAGS_CF BIT(0)
#define RFLAGS_RESERVED_1 BIT(1)
#define RFLAGS_ZF BIT(6)
#define RFLAGS_IF BIT(9)

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

static inline void cpuid_count(uint32_t leaf, uint32_t subleaf,
			       struct cpuid_regs *r)
{
	__asm__ volatile("cpuid"
			 : "=a"(r->eax), "=b"(r->ebx), "=c"(r->ecx),
			   "=d"(r->edx)
			 : "a"(leaf), "c"(subleaf));
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr"
			 :
			 : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32))
			 : "memory");
}

#define DEFINE_CR_ACCESSORS(n)                                              \
	static inline uint64_t read_cr##n(void)                              \
	{                                                                    \
		uint64_t v;                                                  \
		__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v));            \
		return v;                                                    \
	}                                                                    \
	static inline void write_cr##n(uint64_t v)                           \
	{                                                                    \
		__asm__ volatile("mov %0, %%cr" #n : : "r"(v) : "memory");   \
	}
DEFINE_CR_ACCESSORS(0)
DEFINE_CR_ACCESSORS(2)
DEFINE_CR_ACCESSORS(3)
DEFINE_CR_ACCESSORS(4)
#undef DEFINE_CR_ACCESSORS

static inline uint64_t read_rflags(void)
{
	uint64_t v;
	__asm__ volatile("pushfq; popq %0" : "=r"(v));
	return v;
}

static inline void cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

static inline NORETURN void cpu_halt_forever(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

#endif
