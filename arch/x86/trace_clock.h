/* SPDX-License-Identifier: BSD-2-Clause */
/* The host's answers to lib/trace's hardware questions (trace_clock.c). */
#ifndef ARCH_X86_TRACE_CLOCK_H
#define ARCH_X86_TRACE_CLOCK_H

#include "lib/trace/trace.h"

extern const struct trace_platform x86_trace_platform;

#endif
