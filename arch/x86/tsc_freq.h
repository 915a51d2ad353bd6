/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The arithmetic behind the host TSC frequency, apart from the hardware
 * that feeds it (arch/x86/tsc.c reads CPUID and the timers): which CPUID
 * leaves report a rate, what a count of reference-timer ticks across a TSC
 * interval gives, the ACPI PM timer's wrap, and what is plausible. Plain C
 * so that tests/unit can drive every case.
 */
#ifndef ARCH_X86_TSC_FREQ_H
#define ARCH_X86_TSC_FREQ_H

#include "lib/types.h"

/* A rate outside [100 MHz, 10 GHz] is a broken source, not a CPU. */
#define TSC_HZ_MIN 100000000ull
#define TSC_HZ_MAX 10000000000ull
/* ACPI 6.5, 4.8.3.3: the PM timer counts at 3.579545 MHz. */
#define PM_TIMER_HZ 3579545u
/* A CPUID rate that a measurement contradicts by more is not used. */
#define TSC_AGREE_PERCENT 2

#define CPUID_LEAF_TSC_CRYSTAL 0x15
#define CPUID_LEAF_FREQUENCY   0x16

/* Where the rate came from; tsc.source in apfvisor.cfg picks one. */
enum tsc_source {
	TSC_SOURCE_AUTO,        /* CPUID, else the PM timer, else the PIT */
	TSC_SOURCE_CPUID,
	TSC_SOURCE_PM_TIMER,
	TSC_SOURCE_PIT,
};

/* The leaves as CPUID returned them (SDM Vol. 2A, CPUID, leaves 15H/16H). */
struct tsc_cpuid_leaves {
	uint32_t max_leaf;                      /* CPUID.0:EAX */
	uint32_t ratio_den, ratio_num;          /* CPUID.15H:EAX, EBX */
	uint32_t crystal_hz;                    /* CPUID.15H:ECX */
	uint32_t base_mhz;                      /* CPUID.16H:EAX[15:0] */
};

enum tsc_cpuid_method {
	TSC_CPUID_NONE,         /* the CPU does not report its TSC rate */
	TSC_CPUID_CRYSTAL,      /* crystal Hz x EBX / EAX */
	TSC_CPUID_BASE_MHZ,     /* crystal unknown: the 16H base frequency */
};

/*
 * The TSC rate CPUID reports: crystal x numerator / denominator, or, when
 * leaf 15H gives the ratio but no crystal (ECX = 0), the processor base
 * frequency of leaf 16H, which is the TSC rate on the parts that leave the
 * crystal out (SDM Vol. 2A, CPUID 16H note; Linux arch/x86/kernel/tsc.c:
 * native_calibrate_tsc). *hz = 0 with TSC_CPUID_NONE and *why set when the
 * leaves say nothing.
 */
enum tsc_cpuid_method tsc_cpuid_hz(const struct tsc_cpuid_leaves *l,
				   uint64_t *hz, const char **why);

/* TSC ticks over ref_ticks of a ref_hz clock, in Hz (0 if no ticks). */
uint64_t tsc_hz_from_ticks(uint64_t tsc_ticks, uint64_t ref_ticks,
			   uint64_t ref_hz);

/* PM timer ticks from start to end, for a 24- or 32-bit counter. */
uint32_t pm_timer_ticks_between(uint32_t start, uint32_t end, bool is_32bit);

bool tsc_hz_plausible(uint64_t hz);

/* Whether two rates differ by at most TSC_AGREE_PERCENT. */
bool tsc_hz_agree(uint64_t a, uint64_t b);

/* The middle one of three measurements (the least disturbed). */
uint64_t tsc_median3(uint64_t a, uint64_t b, uint64_t c);

/* "CPUID 0x15", "the ACPI PM timer", "the PIT" (the log's words). */
const char *tsc_source_name(enum tsc_source s);

#endif
