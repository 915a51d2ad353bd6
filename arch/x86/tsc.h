/* SPDX-License-Identifier: BSD-2-Clause */
/* The host TSC frequency, measured against the PIT. */
#ifndef ARCH_X86_TSC_H
#define ARCH_X86_TSC_H

#include "lib/types.h"

/*
 * Measures TSC ticks across a PIT-timed interval. Never trusts the CPU's
 * brand string: Bochs claims 3.5 GHz while its TSC runs at `ips` Hz
 * (DESIGN.md, Bochs notes).
 */
uint64_t tsc_calibrate_hz(void);

extern uint64_t tsc_hz;

#endif
