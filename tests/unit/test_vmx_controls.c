/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * vmx/vmx_caps.h: vmx_adjust_controls against capability MSR values (SDM
 * Vol. 3D, A.3-A.5: bits 31:0 are the allowed 0-settings, a 1 there means
 * the control must be 1; bits 63:32 are the allowed 1-settings, a 0 there
 * means the control must be 0).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vmx/vmx_caps.h"
#include "vmx/vmx_controls.h"

static uint64_t cap(uint32_t may_be_one, uint32_t must_be_one)
{
	return (uint64_t)may_be_one << 32 | must_be_one;
}

static void test_must_be_one_forced(void **state)
{
	const uint64_t c = cap(0xffffffff, 0x00000016);

	(void)state;
	assert_int_equal(vmx_adjust_controls(c, 0), 0x16);
	assert_int_equal(vmx_adjust_controls(c, 0x01), 0x17);
	assert_int_equal(vmx_adjust_controls(c, 0x16), 0x16);
	assert_int_equal(vmx_adjust_controls(c, 0x80000000), 0x80000016);
	assert_int_equal(vmx_adjust_controls(c, 0xffffffff), 0xffffffff);
}

static void test_not_allowed_cleared(void **state)
{
	const uint64_t c = cap(0x0000ff3e, 0);

	(void)state;
	assert_int_equal(vmx_adjust_controls(c, 0xffffffff), 0x0000ff3e);
	assert_int_equal(vmx_adjust_controls(c, 0x00000001), 0);
	assert_int_equal(vmx_adjust_controls(c, 0x80000041), 0);
	assert_int_equal(vmx_adjust_controls(c, 0x000000c3), 0x02);
	assert_int_equal(vmx_adjust_controls(c, 0x00000f00), 0x00000f00);
}

static void test_both(void **state)
{
	/* A TRUE_PINBASED_CTLS value seen on real CPUs: 1, 2, 4 fixed at 1. */
	const uint64_t pin = 0x0000007f00000016ull;
	/* Secondary controls have no must-be-one bits. */
	const uint64_t sec = cap(0x00bf3fff, 0);

	(void)state;
	/* External-interrupt (0) and NMI (3) exiting. */
	assert_int_equal(vmx_adjust_controls(pin, BIT(0) | BIT(3)), 0x1f);
	/* Posted interrupts (7) are not offered. */
	assert_int_equal(vmx_adjust_controls(pin, BIT(0) | BIT(7)), 0x17);
	assert_int_equal(vmx_adjust_controls(pin, 0), 0x16);
	/* EPT (1), RDTSCP (3), VPID (5), unrestricted guest (7), INVPCID (12),
	 * XSAVES (20), and bit 22 which this CPU lacks. */
	assert_int_equal(vmx_adjust_controls(sec, BIT(1) | BIT(3) | BIT(5) |
					     BIT(7) | BIT(12) | BIT(20) |
					     BIT(22)),
			 BIT(1) | BIT(3) | BIT(5) | BIT(7) | BIT(12) | BIT(20));
}

static void test_degenerate(void **state)
{
	(void)state;
	/* Nothing allowed. */
	assert_int_equal(vmx_adjust_controls(0, 0xffffffff), 0);
	/* Everything allowed, nothing required: unchanged. */
	assert_int_equal(vmx_adjust_controls(cap(0xffffffff, 0), 0x12345678),
			 0x12345678);
	assert_int_equal(vmx_adjust_controls(cap(0xffffffff, 0), 0), 0);
	/* Everything required. */
	assert_int_equal(vmx_adjust_controls(~0ull, 0), 0xffffffff);
	/*
	 * Must be 1 yet may not be 1 (no real CPU reports this): clearing
	 * wins, so the result never has a bit the CPU refuses.
	 */
	assert_int_equal(vmx_adjust_controls(cap(0x0000000f, 0x00000030),
					     0x3),
			 0x3);
}

/*
 * The debug controls are asked for, not left to the must-be-one bits:
 * Bochs' TRUE_EXIT_CTLS and TRUE_ENTRY_CTLS (as real CPUs' since the
 * TRUE MSRs exist) let bit 2 be 0, and without it every VM exit reset
 * the guest's DR7 to 400H (kvm-unit-tests' debug lost its breakpoints
 * after the first #DB).
 */
static void test_debug_controls_wanted(void **state)
{
	/* Bochs 2.7, cpu/vmx_ctrls.h: the must-be-one halves, bit 2 clear. */
	const uint64_t true_exit = cap(0x00ffffff, 0x00036dfb);
	const uint64_t true_entry = cap(0x0000ffff, 0x000011fb);

	(void)state;
	assert_true(vmx_adjust_controls(true_exit, VMX_EXIT_CONTROLS_WANTED) &
		    EXIT_SAVE_DEBUG_CONTROLS);
	assert_true(vmx_adjust_controls(true_entry,
					VMX_ENTRY_CONTROLS_WANTED) &
		    ENTRY_LOAD_DEBUG_CONTROLS);
	assert_int_equal(EXIT_SAVE_DEBUG_CONTROLS, 0x4);
	assert_int_equal(ENTRY_LOAD_DEBUG_CONTROLS, 0x4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_must_be_one_forced),
		cmocka_unit_test(test_not_allowed_cleared),
		cmocka_unit_test(test_both),
		cmocka_unit_test(test_degenerate),
		cmocka_unit_test(test_debug_controls_wanted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
