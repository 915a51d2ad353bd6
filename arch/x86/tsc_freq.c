// SPDX-License-Identifier: BSD-2-Clause
#include "arch/x86/tsc_freq.h"

#define PM_TIMER_24BIT_MASK 0xffffffu
#define BASE_MHZ_MASK 0xffffu

enum tsc_cpuid_method tsc_cpuid_hz(const struct tsc_cpuid_leaves *l,
				   uint64_t *hz, const char **why)
{
	*hz = 0;
	if (l->max_leaf < CPUID_LEAF_TSC_CRYSTAL) {
		*why = "the CPU has no leaf 0x15";
		return TSC_CPUID_NONE;
	}
	/* SDM: EBX = 0 means the ratio is not enumerated. */
	if (!l->ratio_num || !l->ratio_den) {
		*why = "leaf 0x15 reports no TSC/crystal ratio";
		return TSC_CPUID_NONE;
	}
	if (l->crystal_hz) {
		*hz = (uint64_t)l->crystal_hz * l->ratio_num / l->ratio_den;
		return TSC_CPUID_CRYSTAL;
	}
	if (l->max_leaf < CPUID_LEAF_FREQUENCY ||
	    !(l->base_mhz & BASE_MHZ_MASK)) {
		*why = "leaf 0x15 reports no crystal frequency and leaf 0x16 "
		       "no base frequency";
		return TSC_CPUID_NONE;
	}
	*hz = (uint64_t)(l->base_mhz & BASE_MHZ_MASK) * 1000000;
	return TSC_CPUID_BASE_MHZ;
}

/*
 * tsc_ticks * ref_hz / ref_ticks without a 128-bit division (the
 * freestanding build has none): whole periods, then the remainder.
 * Saturates instead of wrapping, so that a broken timer reads implausible.
 */
uint64_t tsc_hz_from_ticks(uint64_t tsc_ticks, uint64_t ref_ticks,
			   uint64_t ref_hz)
{
	uint64_t whole, part, hz;

	if (!ref_ticks)
		return 0;
	if (__builtin_mul_overflow(tsc_ticks / ref_ticks, ref_hz, &whole) ||
	    __builtin_mul_overflow(tsc_ticks % ref_ticks, ref_hz, &part) ||
	    __builtin_add_overflow(whole, part / ref_ticks, &hz))
		return UINT64_MAX;
	return hz;
}

/* ACPI 6.5, 4.8.3.3: TMR_VAL_EXT clear means only bits 23:0 count. */
uint32_t pm_timer_ticks_between(uint32_t start, uint32_t end, bool is_32bit)
{
	uint32_t mask = is_32bit ? UINT32_MAX : PM_TIMER_24BIT_MASK;

	return (end - start) & mask;
}

bool tsc_hz_plausible(uint64_t hz)
{
	return hz >= TSC_HZ_MIN && hz <= TSC_HZ_MAX;
}

bool tsc_hz_agree(uint64_t a, uint64_t b)
{
	uint64_t diff = a > b ? a - b : b - a;

	/* Both are below 2^64 / 100 when plausible; larger never agree. */
	if (a > UINT64_MAX / 100 || b > UINT64_MAX / 100)
		return a == b;
	return diff * 100 <= MIN(a, b) * TSC_AGREE_PERCENT;
}

uint64_t tsc_median3(uint64_t a, uint64_t b, uint64_t c)
{
	if (a > b) {
		uint64_t t = a;

		a = b;
		b = t;
	}
	/* Now a <= b: the median is b unless c lies outside [a, b]. */
	if (c < a)
		return a;
	return c < b ? c : b;
}

const char *tsc_source_name(enum tsc_source s)
{
	switch (s) {
	case TSC_SOURCE_CPUID:
		return "CPUID 0x15";
	case TSC_SOURCE_PM_TIMER:
		return "the ACPI PM timer";
	case TSC_SOURCE_PIT:
		return "the PIT";
	case TSC_SOURCE_AUTO:
		break;
	}
	return "auto";
}
