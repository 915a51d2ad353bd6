// SPDX-License-Identifier: BSD-2-Clause
/*
 * What lib/trace/trace.c asks of the hardware: the TSC for timestamps and the
 * index of the host CPU, whose ring the record goes to.
 */
#include "lib/trace/trace.h"
#include "arch/x86/cpu.h"
#include "arch/x86/percpu.h"

uint64_t trace_clock(void)
{
	return rdtsc();
}

unsigned trace_cpu(void)
{
	return this_cpu()->index;
}
