/* SPDX-License-Identifier: BSD-2-Clause */
/* guest/kvmclock.c: the TSC-to-ns scale the guest uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "guest/kvmclock.h"
#include "lib/civil_time.h"

static void test_known_scale(void **state)
{
	/* APF-PROTOCOL.md §8: 2.5 GHz gives shift -1, mul 3435973836. */
	struct pvclock_scale s = pvclock_scale_for(2500000000ull);

	(void)state;
	assert_int_equal(s.shift, -1);
	assert_int_equal(s.mul, 3435973836u);
	/* Bochs' default 200 MHz: shifted up 3 times to 1.6 GHz. */
	s = pvclock_scale_for(200000000ull);
	assert_int_equal(s.shift, 3);
	assert_int_equal(s.mul, 2684354560u);
}

static void test_one_second_is_one_second(void **state)
{
	static const uint64_t rates[] = {
		50000000ull, 199992000ull, 1000000000ull, 1000000001ull,
		2100000000ull, 3500000000ull, 5000000000ull,
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		struct pvclock_scale s = pvclock_scale_for(rates[i]);
		uint64_t ns = pvclock_ticks_to_ns(rates[i], s);

		/* Within 1 ppm over one second. */
		assert_in_range(ns, 1000000000ull - 1000, 1000000000ull + 1000);
		assert_true(s.mul >= 0x80000000u);
		/* And over an hour, without overflow. */
		ns = pvclock_ticks_to_ns(rates[i] * 3600, s);
		assert_in_range(ns, 3600000000000ull - 3600000,
				3600000000000ull + 3600000);
	}
}

static void test_fill(void **state)
{
	struct pvclock_vcpu_time_info ti;
	struct pvclock_scale s = pvclock_scale_for(200000000ull);

	(void)state;
	assert_int_equal(sizeof(ti), 32);
	pvclock_fill(&ti, 2, 12345, 678, s, PVCLOCK_TSC_STABLE_BIT);
	assert_int_equal(ti.version, 2);
	assert_int_equal(ti.tsc_timestamp, 12345);
	assert_int_equal(ti.system_time, 678);
	assert_int_equal(ti.tsc_to_system_mul, s.mul);
	assert_int_equal(ti.tsc_shift, 3);
	assert_int_equal(ti.flags, PVCLOCK_TSC_STABLE_BIT);
	/* Field offsets of pvclock-abi.h. */
	assert_int_equal(offsetof(struct pvclock_vcpu_time_info, system_time),
			 16);
	assert_int_equal(offsetof(struct pvclock_vcpu_time_info, tsc_shift),
			 28);
	assert_int_equal(offsetof(struct pvclock_vcpu_time_info, flags), 29);
	assert_int_equal(sizeof(struct pvclock_wall_clock), 12);
}

static void test_unix_time(void **state)
{
	(void)state;
	assert_int_equal(unix_time_from_date(1970, 1, 1, 0, 0, 0), 0);
	assert_int_equal(unix_time_from_date(2000, 3, 1, 0, 0, 0), 951868800);
	assert_int_equal(unix_time_from_date(2024, 2, 29, 12, 0, 0),
			 1709208000);
	assert_int_equal(unix_time_from_date(2026, 12, 3, 7, 28, 50),
			 1796282930);
	assert_int_equal(unix_time_from_date(2100, 1, 1, 0, 0, 0),
			 4102444800ull);
	assert_int_equal(unix_time_from_date(1969, 12, 31, 0, 0, 0), 0);
	assert_int_equal(unix_time_from_date(2020, 13, 1, 0, 0, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_scale),
		cmocka_unit_test(test_one_second_is_one_second),
		cmocka_unit_test(test_fill),
		cmocka_unit_test(test_unix_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
