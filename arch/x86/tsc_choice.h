/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Which source gives the host TSC frequency, and what the log says about
 * it. The hardware is behind tsc_timer_ops (arch/x86/tsc.c fills it), so
 * tests/unit can play every machine: a CPU that reports its rate, one that
 * lies (Bochs says 3.5 GHz and ticks at its `ips`), a PM timer that does
 * not tick, no PIT.
 *
 * tsc.source = auto tries, in order:
 *  1. CPUID 0x15 (and 0x16), cross-checked against the first timer that
 *     measures (PM timer, else PIT): a rate they contradict is not used;
 *  2. a measurement against the ACPI PM timer;
 *  3. a measurement against the PIT.
 * A source that is absent gets an info line; one that gives an
 * implausible rate or does not tick gets an error line; the first good one
 * gives "tsc: M.kkk MHz from SOURCE". A forced source (tsc.source = cpuid,
 * pmtimer or pit) is used alone, without the cross-check.
 */
#ifndef ARCH_X86_TSC_CHOICE_H
#define ARCH_X86_TSC_CHOICE_H

#include "arch/x86/tsc_freq.h"

enum tsc_measurement {
	TSC_MEASURED,           /* *hz holds the measured rate */
	TSC_TIMER_ABSENT,       /* *why says why there is no such timer */
	TSC_TIMER_STUCK,        /* the timer never advanced; *why names it */
};

struct tsc_timer_ops {
	void (*read_cpuid)(struct tsc_cpuid_leaves *l);
	enum tsc_measurement (*measure_pm_timer)(uint64_t *hz,
						 const char **why);
	enum tsc_measurement (*measure_pit)(uint64_t *hz, const char **why);
};

/*
 * The TSC frequency in Hz from the source want asks for, with its log
 * lines; 0 when none gave a plausible rate (an error line said so).
 */
uint64_t tsc_choose_hz(enum tsc_source want, const struct tsc_timer_ops *ops);

#endif
