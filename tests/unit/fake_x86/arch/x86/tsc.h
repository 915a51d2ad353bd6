/* SPDX-License-Identifier: BSD-2-Clause */
/* The TSC frequency for host unit tests (in place of arch/x86/tsc.h). */
#ifndef ARCH_X86_TSC_H
#define ARCH_X86_TSC_H

#include "lib/types.h"

extern uint64_t tsc_hz;

#endif
