/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The CPU as the exit-handler unit tests see it (in place of
 * arch/x86/cpu.h, by the include path): the real numbers, and the
 * instructions as functions that tests/unit/test_exit_handlers.c defines.
 */
#ifndef ARCH_X86_CPU_H
#define ARCH_X86_CPU_H

#include "lib/types.h"
#include "arch/x86/cpu_defs.h"

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

void cpuid_count(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r);
uint64_t rdmsr(uint32_t msr);
void xsetbv(uint32_t xcr, uint64_t value);
uint64_t rdtsc(void);
uint64_t read_dr6(void);
void write_dr6(uint64_t value);
NORETURN void cpu_halt_forever(void);

static inline void cpu_relax(void)
{
}

#endif
