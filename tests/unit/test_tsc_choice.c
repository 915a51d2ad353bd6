/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arch/x86/tsc_choice.c over fake machines: the order CPUID, PM timer,
 * PIT; the cross-check that catches an emulator's CPUID (Bochs); an error
 * line for a stuck timer or an implausible rate, then the next source; a
 * forced source used alone; the log lines, word for word.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86/tsc_choice.h"
#include "tests/unit/console_capture.h"

/* The fake machine: what each source answers, and how often it was asked. */
static struct tsc_cpuid_leaves fake_cpuid;
static enum tsc_measurement pm_answer, pit_answer;
static uint64_t pm_hz, pit_hz;
static unsigned pm_calls, pit_calls;

static void read_cpuid(struct tsc_cpuid_leaves *l)
{
	*l = fake_cpuid;
}

static enum tsc_measurement answer(enum tsc_measurement a, uint64_t rate,
				   uint64_t *hz, const char **why,
				   const char *absent, const char *stuck)
{
	if (a == TSC_MEASURED)
		*hz = rate;
	else
		*why = a == TSC_TIMER_ABSENT ? absent : stuck;
	return a;
}

static enum tsc_measurement measure_pm(uint64_t *hz, const char **why)
{
	pm_calls++;
	return answer(pm_answer, pm_hz, hz, why, "no ACPI FADT",
		      "the counter at port 0x608 is not ticking");
}

static enum tsc_measurement measure_pit(uint64_t *hz, const char **why)
{
	pit_calls++;
	return answer(pit_answer, pit_hz, hz, why, "absent",
		      "channel 2 never reached its terminal count");
}

static const struct tsc_timer_ops fake = {
	.read_cpuid = read_cpuid,
	.measure_pm_timer = measure_pm,
	.measure_pit = measure_pit,
};

static const struct tsc_cpuid_leaves skylake = {
	.max_leaf = 0x16, .ratio_den = 2, .ratio_num = 242,
	.crystal_hz = 24000000, .base_mhz = 2900,
};
static const struct tsc_cpuid_leaves bochs = {
	.max_leaf = 0x16, .ratio_den = 2, .ratio_num = 0x124,
	.base_mhz = 3500,
};
static const struct tsc_cpuid_leaves no_leaf = { .max_leaf = 0xd };

static int reset(void **state)
{
	(void)state;
	console_forget();
	fake_cpuid = no_leaf;
	pm_answer = pit_answer = TSC_MEASURED;
	pm_hz = pit_hz = 0;
	pm_calls = pit_calls = 0;
	return 0;
}

static void expect_lines(const char *const *want, unsigned n)
{
	for (unsigned i = 0; i < n && i < console_nlines; i++)
		assert_string_equal(console_lines[i], want[i]);
	assert_int_equal(console_nlines, n);
}

#define EXPECT_LINES(...) do { \
	static const char *const lines_[] = { __VA_ARGS__ }; \
	expect_lines(lines_, ARRAY_SIZE(lines_)); \
} while (0)

static void cpuid_confirmed_by_pm_timer(void **state)
{
	(void)state;
	fake_cpuid = skylake;
	pm_hz = 2903500000ull;
	assert_int_equal(tsc_choose_hz(TSC_SOURCE_AUTO, &fake), 2904000000ull);
	EXPECT_LINES("apfvisor: tsc: CPUID 0x15: crystal 24000000 Hz, "
		     "TSC/crystal ratio 242/2",
		     "apfvisor: tsc: 2904.000 MHz from CPUID 0x15");
	assert_int_equal(pm_calls, 1);
	assert_int_equal(pit_calls, 0);
}

static void emulator_cpuid_overruled_by_pit(void **state)
{
	(void)state;
	fake_cpuid = bochs;
	pm_answer = TSC_TIMER_ABSENT;
	pit_hz = 199998000;
	assert_int_equal(tsc_choose_hz(TSC_SOURCE_AUTO, &fake), 199998000);
	EXPECT_LINES("apfvisor: tsc: CPUID 0x15: ratio 292/2 but no crystal "
		     "frequency; CPUID 0x16 base frequency 3500 MHz",
		     "apfvisor: tsc: the ACPI PM timer: no ACPI FADT",
		     "apfvisor: tsc: CPUID 0x15 says 3500.000 MHz but the PIT "
		     "measures 199.998 MHz: CPUID not used",
		     "apfvisor: tsc: 199.998 MHz from the PIT");
	/* The cross-check's measurement is not taken twice. */
	assert_int_equal(pit_calls, 1);
}

static void cpuid_without_any_timer(void **state)
{
	(void)state;
	fake_cpuid = skylake;
	pm_answer = TSC_TIMER_ABSENT;
	pit_answer = TSC_TIMER_STUCK;
	assert_int_equal(tsc_choose_hz(TSC_SOURCE_AUTO, &fake), 2904000000ull);
	EXPECT_LINES("apfvisor: tsc: CPUID 0x15: crystal 24000000 Hz, "
		     "TSC/crystal ratio 242/2",
		     "apfvisor: tsc: the ACPI PM timer: no ACPI FADT",
		     "apfvisor: error: tsc: the PIT: channel 2 never reached "
		     "its terminal count",
		     "apfvisor: tsc: CPUID 0x15 not cross-checked: no timer "
		     "measured",
		     "apfvisor: tsc: 2904.000 MHz from CPUID 0x15");
}

static void pm_timer_when_cpuid_is_silent(void **state)
{
	(void)state;
	pm_hz = 2096074000ull;
	assert_int_equal(tsc_choose_hz(TSC_SOURCE_AUTO, &fake), 2096074000ull);
	EXPECT_LINES("apfvisor: tsc: CPUID 0x15: the CPU has no leaf 0x15",
		     "apfvisor: tsc: 2096.074 MHz from the ACPI PM timer");
	assert_int_equal(pit_calls, 0);
}

static void stuck_pm_timer_then_pit(void **state)
{
	(void)state;
	pm_answer = TSC_TIMER_STUCK;
	pit_hz = 3000000000ull;
	assert_int_equal(tsc_choose_hz(TSC_SOURCE_AUTO, &fake), 3000000000ull);
	EXPECT_LINES("apfvisor: tsc: CPUID 0x15: the CPU has no leaf 0x15",
		     "apfvisor: error: tsc: the ACPI PM timer: the counter at "
		     "port 0x608 is not ticking",
		     "apfvisor: tsc: 3000.000 MHz from the PIT");
}

static void implausible_rates_are_errors(void **state)
{
	(void)state;
	fake_cpuid = skylake;
	fake_cpuid.ratio_num = 2;       /* 24 MHz: too slow */
	pm_hz = 50000000;               /* too slow as well */
	pit_hz = 20000000000ull;        /* too fast */
	assert_int_equal(tsc_choose_hz(TSC_SOURCE_AUTO, &fake), 0);
	EXPECT_LINES("apfvisor: tsc: CPUID 0x15: crystal 24000000 Hz, "
		     "TSC/crystal ratio 2/2",
		     "apfvisor: error: tsc: CPUID 0x15 gives 24.000 MHz, not a "
		     "plausible TSC rate (100 MHz to 10 GHz)",
		     "apfvisor: error: tsc: the ACPI PM timer gives 50.000 MHz, "
		     "not a plausible TSC rate (100 MHz to 10 GHz)",
		     "apfvisor: error: tsc: the PIT gives 20000.000 MHz, not a "
		     "plausible TSC rate (100 MHz to 10 GHz)",
		     "apfvisor: error: tsc: no source gave the TSC frequency "
		     "(tried CPUID 0x15, the ACPI PM timer and the PIT)");
}

static void forced_pit(void **state)
{
	(void)state;
	fake_cpuid = skylake;
	pm_hz = 2904000000ull;
	pit_hz = 2903000000ull;
	assert_int_equal(tsc_choose_hz(TSC_SOURCE_PIT, &fake), 2903000000ull);
	EXPECT_LINES("apfvisor: tsc: 2903.000 MHz from the PIT");
	assert_int_equal(pm_calls, 0);
}

static void forced_cpuid_is_not_cross_checked(void **state)
{
	(void)state;
	fake_cpuid = bochs;
	pit_hz = 200000000;
	assert_int_equal(tsc_choose_hz(TSC_SOURCE_CPUID, &fake), 3500000000ull);
	assert_int_equal(pm_calls + pit_calls, 0);
	assert_string_equal(console_lines[1],
			    "apfvisor: tsc: 3500.000 MHz from CPUID 0x15");
}

static void forced_source_missing_is_an_error(void **state)
{
	(void)state;
	fake_cpuid = (struct tsc_cpuid_leaves){ .max_leaf = 0x16 };
	assert_int_equal(tsc_choose_hz(TSC_SOURCE_CPUID, &fake), 0);
	EXPECT_LINES("apfvisor: error: tsc: CPUID 0x15: leaf 0x15 reports no "
		     "TSC/crystal ratio",
		     "apfvisor: error: tsc: tsc.source asks for CPUID 0x15, "
		     "which gave no TSC rate");
	console_forget();
	pm_answer = TSC_TIMER_ABSENT;
	assert_int_equal(tsc_choose_hz(TSC_SOURCE_PM_TIMER, &fake), 0);
	EXPECT_LINES("apfvisor: error: tsc: the ACPI PM timer: no ACPI FADT",
		     "apfvisor: error: tsc: tsc.source asks for the ACPI PM "
		     "timer, which gave no TSC rate");
	assert_int_equal(pit_calls, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(cpuid_confirmed_by_pm_timer, reset),
		cmocka_unit_test_setup(emulator_cpuid_overruled_by_pit, reset),
		cmocka_unit_test_setup(cpuid_without_any_timer, reset),
		cmocka_unit_test_setup(pm_timer_when_cpuid_is_silent, reset),
		cmocka_unit_test_setup(stuck_pm_timer_then_pit, reset),
		cmocka_unit_test_setup(implausible_rates_are_errors, reset),
		cmocka_unit_test_setup(forced_pit, reset),
		cmocka_unit_test_setup(forced_cpuid_is_not_cross_checked, reset),
		cmocka_unit_test_setup(forced_source_missing_is_an_error, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
