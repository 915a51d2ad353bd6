/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The CPU as host unit tests of drivers see it (in place of arch/x86/cpu.h,
 * see fake_x86/arch/x86/io.h): a TSC that the fake device model advances
 * on every read, so that every bounded wait ends.
 */
#ifndef ARCH_X86_CPU_H
#define ARCH_X86_CPU_H

#include "lib/types.h"

uint64_t rdtsc(void);

static inline void cpu_relax(void)
{
}

#endif
