/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arch/x86/xcr0.h: the XCR0 values XSETBV accepts, case by case as KVM's
 * __kvm_set_xcr decides them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "arch/x86/xcr0.h"

/* A CPU with every feature the rules name. */
#define ALL (XCR0_X87 | XCR0_SSE | XCR0_AVX | XCR0_MPX | XCR0_AVX512 | \
	     XCR0_XTILE)

static void values_linux_and_others_load_are_valid(void **state)
{
	(void)state;
	assert_true(xcr0_value_valid(XCR0_X87, ALL));
	assert_true(xcr0_value_valid(XCR0_X87 | XCR0_SSE, ALL));
	assert_true(xcr0_value_valid(XCR0_X87 | XCR0_SSE | XCR0_AVX, ALL));
	assert_true(xcr0_value_valid(XCR0_X87 | XCR0_SSE | XCR0_AVX |
				     XCR0_AVX512, ALL));
	assert_true(xcr0_value_valid(XCR0_X87 | XCR0_MPX, ALL));
	assert_true(xcr0_value_valid(ALL, ALL));
	/* x87 is always allowed, even when CPUID forgot it. */
	assert_true(xcr0_value_valid(XCR0_X87 | XCR0_SSE, XCR0_SSE));
}

static void each_rule_refuses(void **state)
{
	const uint64_t base = XCR0_X87 | XCR0_SSE | XCR0_AVX;

	(void)state;
	assert_false(xcr0_value_valid(0, ALL));                 /* no x87 */
	assert_false(xcr0_value_valid(XCR0_SSE, ALL));
	assert_false(xcr0_value_valid(XCR0_X87 | XCR0_AVX, ALL)); /* AVX, no SSE */
	assert_false(xcr0_value_valid(base | XCR0_BNDREGS, ALL)); /* MPX half */
	assert_false(xcr0_value_valid(base | XCR0_BNDCSR, ALL));
	assert_false(xcr0_value_valid(base | XCR0_OPMASK, ALL)); /* 512 part */
	assert_false(xcr0_value_valid(base | XCR0_OPMASK | XCR0_ZMM_HI256,
				      ALL));
	assert_false(xcr0_value_valid(XCR0_X87 | XCR0_SSE | XCR0_AVX512,
				      ALL));                    /* no AVX */
	assert_false(xcr0_value_valid(base | XCR0_XTILE_DATA, ALL)); /* AMX */
	assert_false(xcr0_value_valid(base | XCR0_XTILE_CFG, ALL));
	assert_true(xcr0_value_valid(base | XCR0_XTILE, ALL));
}

static void features_the_cpu_lacks_are_refused(void **state)
{
	(void)state;
	assert_false(xcr0_value_valid(XCR0_X87 | XCR0_SSE | XCR0_AVX,
				      XCR0_X87 | XCR0_SSE));
	assert_false(xcr0_value_valid(XCR0_X87 | BIT(9), ALL | BIT(8)));
	assert_false(xcr0_value_valid(XCR0_X87 | BIT(63), ~BIT(63)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(values_linux_and_others_load_are_valid),
		cmocka_unit_test(each_rule_refuses),
		cmocka_unit_test(features_the_cpu_lacks_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
