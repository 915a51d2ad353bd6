/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Does this CPU's XSAVEC put extended state where the compacted format says
 * (SDM Vol. 1, 13.4.3)? Bochs 2.7 does not: its XSAVEC/XSAVES start the
 * extended components 160 bytes early (at the end of the SSE registers, not
 * after the 64-byte header), while its XRSTOR reads them at the right
 * offsets. A guest that saves with XSAVEC (Linux 6.1 does when XSAVES is
 * absent) gets AVX and AVX-512 registers back wrong after a context switch
 * that happens while they hold live data: with async page faults that is
 * every "page not present" in the middle of a SIMD copy. The guest is then
 * not offered XSAVEC and saves in the standard format instead.
 */
#ifndef ARCH_X86_XSAVE_PROBE_H
#define ARCH_X86_XSAVE_PROBE_H

#include "lib/types.h"

enum xsavec_layout {
	XSAVEC_LAYOUT_NOT_TESTED,       /* no XSAVEC, or no AVX to test with */
	XSAVEC_LAYOUT_RIGHT,
	XSAVEC_LAYOUT_WRONG,
};

#define XSAVEC_PROBE_AREA_SIZE 1024
#define XSAVEC_FIRST_EXTENDED_OFFSET 576        /* 512 legacy + 64 header */
#define XSAVEC_SSE_REGS_OFFSET 160

/*
 * The verdict on an area that xsavec_store_ymm filled (YMM0's upper half
 * all ones, only the AVX component requested): pure, unit tested.
 */
enum xsavec_layout xsavec_layout_of(const uint8_t *area);

/* Runs the probe on this CPU (boot CPU, before any guest). */
enum xsavec_layout xsavec_probe(void);

#endif
