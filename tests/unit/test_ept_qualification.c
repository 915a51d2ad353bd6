/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * vmx/ept_qualification.h: "NMI unblocking due to IRET" (bit 12 of an EPT
 * violation's qualification, SDM Vol. 3C 28.2.3) makes the handler block
 * NMIs again before resuming, unless the violation hit during event
 * delivery (IDT-vectoring information valid: bit 12 is then undefined).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "vmx/ept_qualification.h"

static void iret_unblocking_reblocks(void **state)
{
	(void)state;
	assert_true(ept_violation_reblocks_nmi(
		EPT_QUAL_NMI_UNBLOCKED_BY_IRET | EPT_QUAL_READ, 0));
	assert_true(ept_violation_reblocks_nmi(EPT_QUAL_NMI_UNBLOCKED_BY_IRET,
					       0x0000000e)); /* not valid */
}

static void no_bit_no_reblock(void **state)
{
	(void)state;
	assert_false(ept_violation_reblocks_nmi(EPT_QUAL_WRITE, 0));
	assert_false(ept_violation_reblocks_nmi(0, 0));
}

static void during_event_delivery_no_reblock(void **state)
{
	(void)state;
	assert_false(ept_violation_reblocks_nmi(
		EPT_QUAL_NMI_UNBLOCKED_BY_IRET,
		EPT_IDT_VECTORING_VALID | 0x30e));
}

/*
 * Nothing at the address: a load or store is emulated (all ones, dropped);
 * a fetch, or a page walk (linear address valid, not the final
 * translation), has no instruction to emulate.
 */
static void unclaimed_accesses(void **state)
{
	const uint64_t final = EPT_QUAL_LINEAR_VALID |
			       EPT_QUAL_FINAL_TRANSLATION;

	(void)state;
	assert_int_equal(ept_unclaimed_access_kind(EPT_QUAL_READ | final),
			 EPT_UNCLAIMED_EMULATE);
	assert_int_equal(ept_unclaimed_access_kind(EPT_QUAL_WRITE | final),
			 EPT_UNCLAIMED_EMULATE);
	assert_int_equal(ept_unclaimed_access_kind(EPT_QUAL_FETCH | final),
			 EPT_UNCLAIMED_FETCH);
	assert_int_equal(ept_unclaimed_access_kind(EPT_QUAL_READ |
						   EPT_QUAL_LINEAR_VALID),
			 EPT_UNCLAIMED_PAGE_WALK);
	/* A walk's A/D update is a write, still the walk's. */
	assert_int_equal(ept_unclaimed_access_kind(EPT_QUAL_WRITE |
						   EPT_QUAL_LINEAR_VALID),
			 EPT_UNCLAIMED_PAGE_WALK);
	assert_true(ept_violation_in_page_walk(EPT_QUAL_LINEAR_VALID));
	assert_false(ept_violation_in_page_walk(final));
	assert_false(ept_violation_in_page_walk(0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(iret_unblocking_reblocks),
		cmocka_unit_test(no_bit_no_reblock),
		cmocka_unit_test(during_event_delivery_no_reblock),
		cmocka_unit_test(unclaimed_accesses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
