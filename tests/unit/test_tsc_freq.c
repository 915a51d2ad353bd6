/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arch/x86/tsc_freq.c: the TSC rate CPUID 0x15/0x16 report (SDM Vol. 2A,
 * CPUID), a rate from reference-timer ticks, the PM timer's 24/32-bit wrap
 * (ACPI 6.5, 4.8.3.3) and the plausibility bounds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "arch/x86/tsc_freq.h"

static enum tsc_cpuid_method cpuid_hz(struct tsc_cpuid_leaves l,
				      uint64_t *hz, const char **why)
{
	*why = NULL;
	return tsc_cpuid_hz(&l, hz, why);
}

static void cpuid_crystal_times_ratio(void **state)
{
	const char *why;
	uint64_t hz;

	(void)state;
	/* A Skylake client: 24 MHz crystal, ratio 242/2 = 2904 MHz. */
	assert_int_equal(cpuid_hz((struct tsc_cpuid_leaves){
				 .max_leaf = 0x16, .ratio_den = 2,
				 .ratio_num = 242, .crystal_hz = 24000000,
				 .base_mhz = 2900 }, &hz, &why),
			 TSC_CPUID_CRYSTAL);
	assert_int_equal(hz, 2904000000ull);
	/* 38.4 MHz crystal (Ice Lake server) and a ratio that does not divide. */
	assert_int_equal(cpuid_hz((struct tsc_cpuid_leaves){
				 .max_leaf = 0x15, .ratio_den = 3,
				 .ratio_num = 200, .crystal_hz = 38400000 },
				 &hz, &why),
			 TSC_CPUID_CRYSTAL);
	assert_int_equal(hz, 2560000000ull);
}

static void cpuid_no_crystal_uses_base_mhz(void **state)
{
	const char *why;
	uint64_t hz;

	(void)state;
	/* Bochs' corei7_skylake_x: 0x15 = 2/0x124/0, 0x16 EAX = 3500. */
	assert_int_equal(cpuid_hz((struct tsc_cpuid_leaves){
				 .max_leaf = 0x16, .ratio_den = 2,
				 .ratio_num = 0x124, .base_mhz = 0xdac },
				 &hz, &why),
			 TSC_CPUID_BASE_MHZ);
	assert_int_equal(hz, 3500000000ull);
	/* Bits 31:16 of 0x16 EAX are reserved: not part of the MHz. */
	assert_int_equal(cpuid_hz((struct tsc_cpuid_leaves){
				 .max_leaf = 0x16, .ratio_den = 2,
				 .ratio_num = 200, .base_mhz = 0xabcd0000u | 2000 },
				 &hz, &why),
			 TSC_CPUID_BASE_MHZ);
	assert_int_equal(hz, 2000000000ull);
}

static void cpuid_reports_nothing(void **state)
{
	const char *why;
	uint64_t hz = 1;

	(void)state;
	assert_int_equal(cpuid_hz((struct tsc_cpuid_leaves){ .max_leaf = 0xd },
				  &hz, &why), TSC_CPUID_NONE);
	assert_int_equal(hz, 0);
	assert_string_equal(why, "the CPU has no leaf 0x15");
	/* QEMU TCG with level=0x16: the leaf exists and is all zeros. */
	assert_int_equal(cpuid_hz((struct tsc_cpuid_leaves){ .max_leaf = 0x16 },
				  &hz, &why), TSC_CPUID_NONE);
	assert_string_equal(why, "leaf 0x15 reports no TSC/crystal ratio");
	assert_int_equal(cpuid_hz((struct tsc_cpuid_leaves){
				 .max_leaf = 0x16, .ratio_num = 100,
				 .crystal_hz = 24000000 }, &hz, &why),
			 TSC_CPUID_NONE);
	/* A ratio, no crystal, no leaf 0x16 (or a zero base frequency). */
	assert_int_equal(cpuid_hz((struct tsc_cpuid_leaves){
				 .max_leaf = 0x15, .ratio_den = 2,
				 .ratio_num = 100, .base_mhz = 3000 }, &hz, &why),
			 TSC_CPUID_NONE);
	assert_string_equal(why, "leaf 0x15 reports no crystal frequency and "
			    "leaf 0x16 no base frequency");
	assert_int_equal(cpuid_hz((struct tsc_cpuid_leaves){
				 .max_leaf = 0x16, .ratio_den = 2,
				 .ratio_num = 100 }, &hz, &why),
			 TSC_CPUID_NONE);
	assert_int_equal(hz, 0);
}

static void hz_from_ticks(void **state)
{
	(void)state;
	/* 71591 PM timer ticks (20.0 ms) over 40e6 TSC ticks: ~2 GHz. */
	assert_int_equal(tsc_hz_from_ticks(40000000, 71591, PM_TIMER_HZ),
			 1999997206ull);
	assert_int_equal(tsc_hz_from_ticks(1000, 0, PM_TIMER_HZ), 0);
	assert_int_equal(tsc_hz_from_ticks(3000, 3, 1000), 1000000);
	/* Beyond 64 bits: saturates, so the result reads implausible. */
	assert_int_equal(tsc_hz_from_ticks(UINT64_MAX, 1, PM_TIMER_HZ),
			 UINT64_MAX);
	assert_false(tsc_hz_plausible(tsc_hz_from_ticks(UINT64_MAX / 2, 3,
							PM_TIMER_HZ)));
}

static void pm_timer_wraps(void **state)
{
	(void)state;
	assert_int_equal(pm_timer_ticks_between(100, 350, false), 250);
	/* 24 bits: 0xfffff0 -> 0x10 is 0x20 ticks. */
	assert_int_equal(pm_timer_ticks_between(0xfffff0, 0x10, false), 0x20);
	/* Bits 31:24 of a 24-bit timer may read anything: ignored. */
	assert_int_equal(pm_timer_ticks_between(0xab000005, 0x12000009, false),
			 4);
	assert_int_equal(pm_timer_ticks_between(0xfffffff0u, 0x10, true), 0x20);
	assert_int_equal(pm_timer_ticks_between(0xfffff0, 0x10, true),
			 0xff000020u);
	assert_int_equal(pm_timer_ticks_between(7, 7, false), 0);
}

static void plausible_bounds(void **state)
{
	(void)state;
	assert_false(tsc_hz_plausible(0));
	assert_false(tsc_hz_plausible(99999999));
	assert_true(tsc_hz_plausible(100000000));
	assert_true(tsc_hz_plausible(10000000000ull));
	assert_false(tsc_hz_plausible(10000000001ull));
	assert_false(tsc_hz_plausible(UINT64_MAX));
}

static void agreement(void **state)
{
	(void)state;
	assert_true(tsc_hz_agree(2000000000, 2040000000));
	assert_true(tsc_hz_agree(2040000000, 2000000000));
	assert_false(tsc_hz_agree(2000000000, 2041000000));
	assert_false(tsc_hz_agree(3500000000ull, 200000000));
	assert_false(tsc_hz_agree(UINT64_MAX, 2000000000));
	assert_true(tsc_hz_agree(UINT64_MAX, UINT64_MAX));
}

static void median(void **state)
{
	(void)state;
	assert_int_equal(tsc_median3(1, 2, 3), 2);
	assert_int_equal(tsc_median3(3, 2, 1), 2);
	assert_int_equal(tsc_median3(2, 3, 1), 2);
	assert_int_equal(tsc_median3(1, 3, 2), 2);
	assert_int_equal(tsc_median3(3, 1, 2), 2);
	assert_int_equal(tsc_median3(2, 1, 3), 2);
	assert_int_equal(tsc_median3(5, 5, 1), 5);
}

static void source_names(void **state)
{
	(void)state;
	assert_string_equal(tsc_source_name(TSC_SOURCE_CPUID), "CPUID 0x15");
	assert_string_equal(tsc_source_name(TSC_SOURCE_PM_TIMER),
			    "the ACPI PM timer");
	assert_string_equal(tsc_source_name(TSC_SOURCE_PIT), "the PIT");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cpuid_crystal_times_ratio),
		cmocka_unit_test(cpuid_no_crystal_uses_base_mhz),
		cmocka_unit_test(cpuid_reports_nothing),
		cmocka_unit_test(hz_from_ticks),
		cmocka_unit_test(pm_timer_wraps),
		cmocka_unit_test(plausible_bounds),
		cmocka_unit_test(agreement),
		cmocka_unit_test(median),
		cmocka_unit_test(source_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
