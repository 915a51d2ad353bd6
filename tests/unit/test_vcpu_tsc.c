/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/vcpu_tsc.c on made-up host TSC values: WRMSR IA32_TSC sets the
 * guest's TSC and moves IA32_TSC_ADJUST by as much (SDM Vol. 3B 17.17.3),
 * WRMSR IA32_TSC_ADJUST moves the TSC by its change, both ways and across
 * 2^64; the guest's TSC values (IA32_TSC_DEADLINE) turned into host time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "guest/vcpu_tsc.h"

#define E11 100000000000ull

static void tsc_write_sets_the_guest_tsc(void **state)
{
	struct vcpu_tsc t = { 0, 0 };

	(void)state;
	assert_true(vcpu_tsc_guest(&t, 5000) == 5000);
	/* Forward: the TSC reads the value at once and runs on from it. */
	assert_true(vcpu_tsc_write(&t, E11, 5000) == E11 - 5000);
	assert_true(vcpu_tsc_guest(&t, 5000) == E11);
	assert_true(vcpu_tsc_guest(&t, 5100) == E11 + 100);
	assert_true(t.adjust == E11 - 5000);
	/* Back to 0: the offset and ADJUST go below 0 (mod 2^64). */
	vcpu_tsc_write(&t, 0, 6000);
	assert_true(vcpu_tsc_guest(&t, 6000) == 0);
	assert_true(t.offset == (uint64_t)-6000);
	assert_true(t.adjust == (uint64_t)-6000);
	assert_true(vcpu_tsc_guest(&t, 6001) == 1);
	/* Writing what it reads changes nothing. */
	assert_true(vcpu_tsc_write(&t, 1000, 7000) == 0);
	assert_true(t.adjust == (uint64_t)-6000);
}

static void tsc_adjust_write_moves_the_tsc(void **state)
{
	struct vcpu_tsc t = { 0, 0 };

	(void)state;
	assert_true(vcpu_tsc_write_adjust(&t, E11) == E11);
	assert_true(t.adjust == E11);
	assert_true(vcpu_tsc_guest(&t, 42) == E11 + 42);
	/* A smaller ADJUST moves it back by the difference only. */
	assert_true(vcpu_tsc_write_adjust(&t, 10) == 10 - E11);
	assert_true(vcpu_tsc_guest(&t, 42) == 52);
	assert_true(vcpu_tsc_write_adjust(&t, 0) == (uint64_t)-10);
	assert_true(t.offset == 0);
}

/* kvm-unit-tests x86/tsc_adjust.c, with the host TSC advancing by 10. */
static void kvm_unit_tests_sequence(void **state)
{
	struct vcpu_tsc t = { 0, 0 };
	uint64_t host = 1000000, t1, t2, t5;

	(void)state;
	assert_true(t.adjust == 0);
	t1 = vcpu_tsc_guest(&t, host += 10);
	vcpu_tsc_write_adjust(&t, E11);
	t2 = vcpu_tsc_guest(&t, host += 10);
	assert_true(t.adjust == E11);
	assert_true(t2 - t1 >= E11);
	vcpu_tsc_write_adjust(&t, 0);
	assert_true(t.adjust == 0);
	t1 = vcpu_tsc_guest(&t, host += 10);
	vcpu_tsc_write(&t, E11, host += 10);
	t2 = vcpu_tsc_guest(&t, host += 10);
	t5 = t.adjust;
	assert_true(t1 <= E11 - t5);    /* the internal TSC went on */
	assert_true(t2 >= E11);
}

static void guest_values_to_host_time(void **state)
{
	struct vcpu_tsc ahead = { .offset = E11 };
	struct vcpu_tsc behind = { .offset = (uint64_t)-5000 };
	struct vcpu_tsc zero = { 0, 0 };

	(void)state;
	/* Offset 0: the same number, or now when it is past. */
	assert_true(vcpu_tsc_to_host(&zero, 9000, 1000) == 9000);
	assert_true(vcpu_tsc_to_host(&zero, 1000, 1000) == 1000);
	assert_true(vcpu_tsc_to_host(&zero, 10, 1000) == 1000);
	/* Guest ahead: a value 500 ahead of its TSC is 500 ahead on host. */
	assert_true(vcpu_tsc_to_host(&ahead, E11 + 1500, 1000) == 1500);
	/* ... and one below the offset is long past, not 2^64 away. */
	assert_true(vcpu_tsc_to_host(&ahead, 1, 1000) == 1000);
	/* Guest behind (1000 at host 6000): its values are 5000 later. */
	assert_true(vcpu_tsc_to_host(&behind, 1100, 6000) == 6100);
	assert_true(vcpu_tsc_to_host(&behind, 500, 6000) == 6000);
	/* Farther than the host's TSC can count: never. */
	assert_true(vcpu_tsc_to_host(&behind, UINT64_MAX, 6000) == UINT64_MAX);
	/* Round trip while nothing moves: the guest's value again. */
	assert_true(vcpu_tsc_guest(&ahead, vcpu_tsc_to_host(&ahead, E11 + 7777,
							    1000)) ==
		    E11 + 7777);
	assert_true(vcpu_tsc_guest(&behind, vcpu_tsc_to_host(&behind, 70000,
							     6000)) == 70000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tsc_write_sets_the_guest_tsc),
		cmocka_unit_test(tsc_adjust_write_moves_the_tsc),
		cmocka_unit_test(kvm_unit_tests_sequence),
		cmocka_unit_test(guest_values_to_host_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
