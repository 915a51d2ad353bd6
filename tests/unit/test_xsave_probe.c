/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arch/x86/xsave_probe.c's verdict: after XSAVEC of the AVX component
 * alone with YMM0 all ones, YMM0's upper half must be at offset 576 (the
 * first extended component of the compacted format, SDM Vol. 1, 13.4.3);
 * Bochs 2.7 puts it at 160.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86/xsave_probe.h"

/* The probe's store runs only on the CPU itself; never called here. */
void xsavec_store_ymm(void *area);
void xsavec_store_ymm(void *area)
{
	(void)area;
	fail_msg("the unit tests never execute XSAVEC");
}

static uint8_t area[XSAVEC_PROBE_AREA_SIZE];

static void stored_at(unsigned offset)
{
	memset(area, 0, sizeof(area));
	memset(area + offset, 0xff, 16);
}

static void test_right_offset(void **state)
{
	(void)state;
	stored_at(576);
	assert_int_equal(xsavec_layout_of(area), XSAVEC_LAYOUT_RIGHT);
}

static void test_bochs_offset(void **state)
{
	(void)state;
	stored_at(160);
	assert_int_equal(xsavec_layout_of(area), XSAVEC_LAYOUT_WRONG);
}

static void test_nothing_stored(void **state)
{
	(void)state;
	memset(area, 0, sizeof(area));
	assert_int_equal(xsavec_layout_of(area), XSAVEC_LAYOUT_WRONG);
}

static void test_partly_stored(void **state)
{
	(void)state;
	stored_at(576);
	area[576 + 15] = 0x7f;
	assert_int_equal(xsavec_layout_of(area), XSAVEC_LAYOUT_WRONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_right_offset),
		cmocka_unit_test(test_bochs_offset),
		cmocka_unit_test(test_nothing_stored),
		cmocka_unit_test(test_partly_stored),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
