/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef TESTS_UNIT_TRACE_HOST_H
#define TESTS_UNIT_TRACE_HOST_H

#include "lib/trace/trace.h"

/* What trace_cpu() answers, and the clock trace_clock() advances. */
extern unsigned trace_host_cpu;
extern uint64_t trace_host_tsc;

#endif
