// SPDX-License-Identifier: BSD-2-Clause
/*
 * What lib/trace/trace.c asks of the hardware: the TSC for timestamps and the
 * index of the host CPU, whose ring the record goes to. boot/ hands these
 * to lib/trace with trace_set_platform(); lib/ never calls up into arch/x86.
 */
#include "arch/x86/trace_clock.h"
#include "arch/x86/cpu.h"
#include "arch/x86/percpu.h"

static uint64_t tsc_clock(void)
{
	return rdtsc();
}

static unsigned host_cpu_index(void)
{
	return this_cpu()->index;
}

const struct trace_platform x86_trace_platform = {
	.clock = tsc_clock,
	.cpu = host_cpu_index,
};
