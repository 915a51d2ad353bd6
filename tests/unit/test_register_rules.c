/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arch/x86/register_rules.h: the CR0, EFER, PAT, DEBUGCTL and
 * canonical-address values the CPU refuses with #GP, case by case.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "arch/x86/register_rules.h"

#define PAT_POWER_ON 0x0007040600070406ull      /* SDM Vol. 3A 11.12.4 */
#define CR0_LINUX (CR0_PE | CR0_MP | CR0_ET | CR0_NE | CR0_WP | CR0_PG)
#define EFER_LINUX (EFER_SCE | EFER_LME | EFER_LMA | EFER_NXE)
#define CR4_LINUX (CR4_PAE | CR4_PGE)

static void pat(void **state)
{
	(void)state;
	assert_true(pat_value_valid(PAT_POWER_ON));
	assert_true(pat_value_valid(0));
	assert_true(pat_value_valid(0x0706050401000706ull));
	for (unsigned byte = 0; byte < 8; byte++) {
		uint64_t keep = PAT_POWER_ON & ~(0xffull << (8 * byte));

		assert_false(pat_value_valid(keep | 2ull << (8 * byte)));
		assert_false(pat_value_valid(keep | 3ull << (8 * byte)));
		assert_false(pat_value_valid(keep | 8ull << (8 * byte)));
		assert_false(pat_value_valid(keep | 0x80ull << (8 * byte)));
	}
}

static void mtrr_types(void **state)
{
	(void)state;
	for (unsigned t = 0; t < 256; t++)
		assert_int_equal(mtrr_type_valid((uint8_t)t),
				 t == 0 || t == 1 || t == 4 || t == 5 || t == 6);
	assert_true(mtrr_fixed_value_valid(0x0606060606060606ull));
	assert_true(mtrr_fixed_value_valid(0));
	assert_false(mtrr_fixed_value_valid(0x0606060606060607ull));
	assert_false(mtrr_fixed_value_valid(0x0206060606060606ull));
}

static void canonical(void **state)
{
	(void)state;
	assert_true(address_canonical(0, 48));
	assert_true(address_canonical(0x00007fffffffffffull, 48));
	assert_true(address_canonical(0xffff800000000000ull, 48));
	assert_true(address_canonical(0xffffffff81000000ull, 48));
	assert_false(address_canonical(0x0000800000000000ull, 48));
	assert_false(address_canonical(0x8000000000000000ull, 48));
	assert_false(address_canonical(0xfffe800000000000ull, 48));
	assert_true(address_canonical(0x0000800000000000ull, 57));
	assert_false(address_canonical(0x0100000000000000ull, 57));
	assert_int_equal(guest_va_bits(CR4_LINUX), 48);
	assert_int_equal(guest_va_bits(CR4_LINUX | CR4_LA57), 57);
}

static void debugctl(void **state)
{
	(void)state;
	assert_true(debugctl_value_valid(0));
	assert_true(debugctl_value_valid(DEBUGCTL_LBR | DEBUGCTL_BTF));
	for (unsigned bit = 2; bit < 64; bit++)
		assert_false(debugctl_value_valid(1ull << bit));
}

static void cr0_reserved_and_cache_bits(void **state)
{
	(void)state;
	assert_true(cr0_write_valid(CR0_LINUX, CR0_LINUX, EFER_LINUX,
				    CR4_LINUX, true));
	assert_false(cr0_write_valid(CR0_LINUX | 1ull << 32, CR0_LINUX,
				     EFER_LINUX, CR4_LINUX, true));
	assert_false(cr0_write_valid(CR0_LINUX | 1ull << 63, CR0_LINUX,
				     EFER_LINUX, CR4_LINUX, true));
	/* NW without CD; CD alone, and both, are fine. */
	assert_false(cr0_write_valid(CR0_LINUX | CR0_NW, CR0_LINUX,
				     EFER_LINUX, CR4_LINUX, true));
	assert_true(cr0_write_valid(CR0_LINUX | CR0_CD, CR0_LINUX,
				    EFER_LINUX, CR4_LINUX, true));
	assert_true(cr0_write_valid(CR0_LINUX | CR0_CD | CR0_NW, CR0_LINUX,
				    EFER_LINUX, CR4_LINUX, true));
	/* NE cleared is allowed (the shadow shows it, VMX keeps it set). */
	assert_true(cr0_write_valid(CR0_LINUX & ~CR0_NE, CR0_LINUX,
				    EFER_LINUX, CR4_LINUX, true));
}

static void cr0_paging_combinations(void **state)
{
	uint64_t off = CR0_PE | CR0_ET | CR0_NE;

	(void)state;
	/* PG without PE, from real mode. */
	assert_false(cr0_write_valid(CR0_PG | CR0_ET, CR0_ET, 0, 0, false));
	/* Into long mode: PAE needed, from 32-bit code. */
	assert_true(cr0_write_valid(off | CR0_PG, off, EFER_LME, CR4_PAE,
				    false));
	assert_false(cr0_write_valid(off | CR0_PG, off, EFER_LME, 0, false));
	assert_false(cr0_write_valid(off | CR0_PG, off, EFER_LME, CR4_PAE,
				     true));
	/* 32-bit paging needs neither. */
	assert_true(cr0_write_valid(off | CR0_PG, off, 0, 0, false));
	/* Out of long mode: not from 64-bit code, not with PCIDs. */
	assert_false(cr0_write_valid(off, CR0_LINUX, EFER_LINUX, CR4_LINUX,
				     true));
	assert_true(cr0_write_valid(off, CR0_LINUX, EFER_LINUX, CR4_LINUX,
				    false));
	assert_false(cr0_write_valid(off, CR0_LINUX, EFER_LINUX,
				     CR4_LINUX | CR4_PCIDE, false));
	/* Paging already on: PAE or CS.L do not matter to this write. */
	assert_true(cr0_write_valid(CR0_LINUX, CR0_LINUX, EFER_LINUX, 0,
				    true));
}

static void efer(void **state)
{
	uint64_t writable = EFER_SCE | EFER_LME | EFER_LMA | EFER_NXE;

	(void)state;
	assert_true(efer_write_valid(EFER_LINUX, EFER_LINUX, CR0_LINUX,
				     writable));
	assert_false(efer_write_valid(EFER_LINUX | BIT(1), EFER_LINUX,
				      CR0_LINUX, writable));
	/* LME may change with paging off, not on. */
	assert_false(efer_write_valid(EFER_LINUX & ~EFER_LME, EFER_LINUX,
				      CR0_LINUX, writable));
	assert_true(efer_write_valid(EFER_LME, 0, CR0_PE, writable));
	assert_false(efer_write_valid(EFER_LME, 0, CR0_PE | CR0_PG,
				      writable));
	/* NXE and SCE may change with paging on. */
	assert_true(efer_write_valid(EFER_LINUX & ~EFER_NXE, EFER_LINUX,
				     CR0_LINUX, writable));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pat),
		cmocka_unit_test(mtrr_types),
		cmocka_unit_test(canonical),
		cmocka_unit_test(debugctl),
		cmocka_unit_test(cr0_reserved_and_cache_bits),
		cmocka_unit_test(cr0_paging_combinations),
		cmocka_unit_test(efer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
