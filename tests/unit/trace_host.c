// SPDX-License-Identifier: BSD-2-Clause
/*
 * lib/trace/trace.c's two hardware questions, answered for host unit tests:
 * a clock that advances by 10 per call and the CPU a test sets, installed
 * before main(); a test that wants other answers calls trace_set_platform().
 */
#include "tests/unit/trace_host.h"

unsigned trace_host_cpu;
uint64_t trace_host_tsc = 1000;

static uint64_t host_clock(void)
{
	trace_host_tsc += 10;
	return trace_host_tsc;
}

static unsigned host_cpu(void)
{
	return trace_host_cpu;
}

static const struct trace_platform host_platform = {
	.clock = host_clock,
	.cpu = host_cpu,
};

/* Before main(): every test sees this platform unless it sets another. */
__attribute__((constructor)) static void install_host_platform(void)
{
	trace_set_platform(&host_platform);
}
