/* SPDX-License-Identifier: BSD-2-Clause */
/* CPUID, MSR and control-register helpers, and the names of their bits. */
#ifndef ARCH_X86_CPU_H
#define ARCH_X86_CPU_H

#include "lib/types.h"
#include "arch/x86/cpu_defs.h"

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

/* XSETBV: loads value into extended control register xcr. */
static inline void xsetbv(uint32_t xcr, uint64_t value)
{
	__asm__ volatile("xsetbv"
			 :
			 : "c"(xcr), "a"((uint32_t)value),
			   "d"((uint32_t)(value >> 32)));
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

/*
 * DR6 belongs to the guest (MOV DR does not exit): the hypervisor sets it
 * only when it reflects a #DB, as the CPU would have.
 */
static inline uint64_t read_dr6(void)
{
	uint64_t v;

	__asm__ volatile("mov %%dr6, %0" : "=r"(v));
	return v;
}

static inline void write_dr6(uint64_t v)
{
	__asm__ volatile("mov %0, %%dr6" : : "r"(v));
}
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

/*
 * RDTSC clears bits 63:32 of RAX and RDX in 64-bit mode (SDM Vol. 2B,
 * RDTSC): taken as 64-bit values, no zero-extension is added.
 */
static inline uint64_t rdtsc(void)
{
	uint64_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (hi << 32) | lo;
}

#endif
