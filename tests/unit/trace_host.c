// SPDX-License-Identifier: BSD-2-Clause
/*
 * lib/trace/trace.c's two hardware questions, answered for host unit tests:
 * a clock that advances by 10 per call and the CPU a test sets. Weak, so
 * a test that wants another answer defines its own.
 */
#include "tests/unit/trace_host.h"

unsigned trace_host_cpu;
uint64_t trace_host_tsc = 1000;

__attribute__((weak)) uint64_t trace_clock(void)
{
	trace_host_tsc += 10;
	return trace_host_tsc;
}

__attribute__((weak)) unsigned trace_cpu(void)
{
	return trace_host_cpu;
}
