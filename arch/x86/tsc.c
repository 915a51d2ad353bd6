// SPDX-License-Identifier: BSD-2-Clause
#include "arch/x86/tsc.h"
#include "arch/x86/cpu.h"
#include "arch/x86/pit.h"

/* 3 x 20 ms: long enough for 0.1% accuracy, short under emulation. */
#define CALIBRATION_US 20000
#define CALIBRATION_ROUNDS 3

uint64_t tsc_hz;

uint64_t tsc_calibrate_hz(void)
{
	uint64_t best = 0;

	/* The shortest round is the one least disturbed (SMIs, emulation). */
	for (int i = 0; i < CALIBRATION_ROUNDS; i++) {
		uint64_t start = rdtsc();

		pit_delay_us(CALIBRATION_US);
		uint64_t ticks = rdtsc() - start;

		if (!best || ticks < best)
			best = ticks;
	}
	tsc_hz = best * (1000000 / CALIBRATION_US);
	return tsc_hz;
}
