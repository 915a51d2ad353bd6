/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/mce.c: the machine-check MSRs a guest sees (KVM's set_msr_mce and
 * get_msr_mce rules), and the machine check for a page that could not be
 * read back: the exact bank values QEMU's kvm_mce_inject writes for
 * BUS_MCEERR_AR, checked bit by bit against what Linux's mce_severity()
 * and mce_usable_address() need to call memory_failure(); and each case
 * where the VM ends instead.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "guest/mce.h"
#include "arch/x86/cpu_defs.h"

#define ONES (~(uint64_t)0)
#define BANK9_CTL 0x424
#define BANK9_STATUS 0x425
#define BANK9_ADDR 0x426
#define BANK9_MISC 0x427

static const struct mce_context one_vcpu = { .cr4_mce = true, .nvcpus = 1 };

static uint64_t rd(const struct guest_mce *m, uint32_t msr)
{
	uint64_t v = 0xdead;

	assert_true(guest_mce_rdmsr(m, msr, &v));
	return v;
}

static void test_power_on(void **state)
{
	struct guest_mce m;

	(void)state;
	guest_mce_init(&m);
	/* 10 banks, MCG_CTL_P, MCG_SER_P, MCG_LMCE_P. */
	assert_int_equal(rd(&m, MSR_IA32_MCG_CAP),
			 10 | BIT(8) | BIT(24) | BIT(27));
	assert_int_equal(rd(&m, MSR_IA32_MCG_STATUS), 0);
	assert_true(rd(&m, MSR_IA32_MCG_CTL) == ONES);
	assert_int_equal(rd(&m, MSR_IA32_MCG_EXT_CTL), 0);
	/* Locked, LMCE allowed, VMX not. */
	assert_int_equal(rd(&m, MSR_IA32_FEATURE_CONTROL), BIT(0) | BIT(20));
	for (uint32_t b = 0; b < 10; b++) {
		assert_true(rd(&m, 0x400 + 4 * b) == ONES);
		assert_int_equal(rd(&m, 0x401 + 4 * b), 0);
		assert_int_equal(rd(&m, 0x402 + 4 * b), 0);
		assert_int_equal(rd(&m, 0x403 + 4 * b), 0);
	}
}

static void test_msr_range(void **state)
{
	struct guest_mce m;
	uint64_t v;

	(void)state;
	guest_mce_init(&m);
	assert_true(guest_mce_owns_msr(0x400));
	assert_true(guest_mce_owns_msr(BANK9_MISC));
	/* Bank 10 does not exist: not ours, and #GP if asked anyway. */
	assert_false(guest_mce_owns_msr(0x428));
	assert_false(guest_mce_rdmsr(&m, 0x428, &v));
	assert_false(guest_mce_wrmsr(&m, 0x428, 0));
	assert_false(guest_mce_owns_msr(0x3ff));
	/* CTL2 (CMCI) is not offered. */
	assert_false(guest_mce_owns_msr(0x280));
}

static void test_guest_writes(void **state)
{
	struct guest_mce m;

	(void)state;
	guest_mce_init(&m);
	/* Read-only and locked. */
	assert_false(guest_mce_wrmsr(&m, MSR_IA32_MCG_CAP, 10));
	assert_false(guest_mce_wrmsr(&m, MSR_IA32_FEATURE_CONTROL,
				     BIT(0) | BIT(20)));
	/* MCG_CTL: 0 or all ones. */
	assert_false(guest_mce_wrmsr(&m, MSR_IA32_MCG_CTL, 1));
	assert_true(guest_mce_wrmsr(&m, MSR_IA32_MCG_CTL, 0));
	assert_true(guest_mce_wrmsr(&m, MSR_IA32_MCG_CTL, ONES));
	/* MCi_CTL: 0, all ones, or all ones but bits 0 and 10. */
	assert_false(guest_mce_wrmsr(&m, BANK9_CTL, 0xff));
	assert_true(guest_mce_wrmsr(&m, BANK9_CTL, ONES & ~BIT(10)));
	assert_true(guest_mce_wrmsr(&m, BANK9_CTL, 0));
	assert_int_equal(rd(&m, BANK9_CTL), 0);
	/* MCi_STATUS: only cleared by the guest. */
	assert_false(guest_mce_wrmsr(&m, BANK9_STATUS, MCI_STATUS_VAL));
	assert_true(guest_mce_wrmsr(&m, BANK9_STATUS, 0));
	/* ADDR, MISC, MCG_STATUS: anything. */
	assert_true(guest_mce_wrmsr(&m, BANK9_ADDR, 0x1234));
	assert_int_equal(rd(&m, BANK9_ADDR), 0x1234);
	assert_true(guest_mce_wrmsr(&m, MSR_IA32_MCG_STATUS, MCG_STATUS_MCIP));
	assert_int_equal(rd(&m, MSR_IA32_MCG_STATUS), MCG_STATUS_MCIP);
	/* MCG_EXT_CTL: LMCE_EN only. */
	assert_false(guest_mce_wrmsr(&m, MSR_IA32_MCG_EXT_CTL, 2));
	assert_true(guest_mce_wrmsr(&m, MSR_IA32_MCG_EXT_CTL, 1));
	assert_int_equal(rd(&m, MSR_IA32_MCG_EXT_CTL), 1);
}

static void test_poison_values(void **state)
{
	struct guest_mce m;
	uint64_t status, misc;

	(void)state;
	guest_mce_init(&m);
	assert_int_equal(guest_mce_poison(&m, 0x1234000, &one_vcpu),
			 MCE_INJECT);
	status = rd(&m, BANK9_STATUS);
	/* QEMU's value for BUS_MCEERR_AR, written out. */
	assert_true(status == 0xbd80000000000134ull);
	/* What Linux's severity table matches as "action required, data". */
	assert_true(status & MCI_STATUS_VAL);
	assert_true(status & MCI_STATUS_EN);
	assert_true((status & (MCI_STATUS_UC | MCI_STATUS_S | MCI_STATUS_AR)) ==
		    (MCI_STATUS_UC | MCI_STATUS_S | MCI_STATUS_AR));
	assert_false(status & (MCI_STATUS_OVER | MCI_STATUS_PCC));
	assert_int_equal(status & 0xefff, 0x134);
	assert_int_equal(rd(&m, BANK9_ADDR), 0x1234000);
	/* mce_usable_address: physical mode, lowest bit <= PAGE_SHIFT. */
	misc = rd(&m, BANK9_MISC);
	assert_int_equal(misc, 0x8c);
	assert_int_equal((misc >> 6) & 7, 2);
	assert_int_equal(misc & 0x3f, 12);
	assert_int_equal(rd(&m, MSR_IA32_MCG_STATUS),
			 MCG_STATUS_MCIP | MCG_STATUS_RIPV | MCG_STATUS_EIPV);
	/* The other banks are untouched. */
	for (uint32_t b = 0; b < 9; b++)
		assert_int_equal(rd(&m, 0x401 + 4 * b), 0);
}

static void test_poison_lmce(void **state)
{
	struct guest_mce m;
	struct mce_context two = { .cr4_mce = true, .nvcpus = 2 };

	(void)state;
	guest_mce_init(&m);
	/* Two vCPUs without LMCE: a broadcast would be needed. */
	assert_int_equal(guest_mce_poison(&m, 0x5000, &two),
			 MCE_END_BROADCAST);
	assert_int_equal(rd(&m, BANK9_STATUS), 0);
	assert_int_equal(rd(&m, MSR_IA32_MCG_STATUS), 0);
	/* Linux's intel_init_lmce turns it on: local, on this vCPU only. */
	assert_true(guest_mce_wrmsr(&m, MSR_IA32_MCG_EXT_CTL, 1));
	assert_int_equal(guest_mce_poison(&m, 0x5000, &two), MCE_INJECT);
	assert_int_equal(rd(&m, MSR_IA32_MCG_STATUS),
			 MCG_STATUS_MCIP | MCG_STATUS_RIPV | MCG_STATUS_EIPV |
				 MCG_STATUS_LMCES);
}

static void test_poison_again(void **state)
{
	struct guest_mce m;

	(void)state;
	guest_mce_init(&m);
	assert_int_equal(guest_mce_poison(&m, 0x5000, &one_vcpu), MCE_INJECT);
	/* Still in the handler: a second #MC shuts the CPU down. */
	assert_int_equal(guest_mce_poison(&m, 0x6000, &one_vcpu),
			 MCE_END_MCIP_SET);
	assert_int_equal(rd(&m, BANK9_ADDR), 0x5000);
	/* The handler ends without clearing the bank: the next overwrites. */
	assert_true(guest_mce_wrmsr(&m, MSR_IA32_MCG_STATUS, 0));
	assert_int_equal(guest_mce_poison(&m, 0x6000, &one_vcpu), MCE_INJECT);
	assert_true(rd(&m, BANK9_STATUS) & MCI_STATUS_OVER);
	assert_int_equal(rd(&m, BANK9_ADDR), 0x6000);
	/* Cleared as Linux does (mce_clear_state): no OVER next time. */
	assert_true(guest_mce_wrmsr(&m, BANK9_STATUS, 0));
	assert_true(guest_mce_wrmsr(&m, MSR_IA32_MCG_STATUS, 0));
	assert_int_equal(guest_mce_poison(&m, 0x7000, &one_vcpu), MCE_INJECT);
	assert_false(rd(&m, BANK9_STATUS) & MCI_STATUS_OVER);
}

static void expect_end(struct guest_mce *m, const struct mce_context *ctx,
		       enum mce_verdict want)
{
	struct guest_mce before = *m;

	assert_int_equal(guest_mce_poison(m, 0x9000, ctx), want);
	/* Nothing written when the VM ends instead. */
	assert_memory_equal(&before, m, sizeof(before));
	assert_true(strlen(guest_mce_verdict_text(want)) > 10);
}

static void test_poison_refused(void **state)
{
	struct guest_mce m;
	struct mce_context ctx = one_vcpu;

	(void)state;
	guest_mce_init(&m);
	ctx.cr4_mce = false;
	expect_end(&m, &ctx, MCE_END_CR4_MCE_CLEAR);
	ctx = one_vcpu;
	ctx.event_in_delivery = true;
	expect_end(&m, &ctx, MCE_END_EVENT_DELIVERY);
	/* Reporting off in the bank, or globally. */
	assert_true(guest_mce_wrmsr(&m, BANK9_CTL, 0));
	expect_end(&m, &one_vcpu, MCE_END_REPORTING_OFF);
	assert_true(guest_mce_wrmsr(&m, BANK9_CTL, ONES));
	assert_true(guest_mce_wrmsr(&m, MSR_IA32_MCG_CTL, 0));
	expect_end(&m, &one_vcpu, MCE_END_REPORTING_OFF);
	assert_true(guest_mce_wrmsr(&m, MSR_IA32_MCG_CTL, ONES));
	assert_int_equal(guest_mce_poison(&m, 0x9000, &one_vcpu), MCE_INJECT);
	assert_string_equal(guest_mce_verdict_text(MCE_INJECT), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_power_on),
		cmocka_unit_test(test_msr_range),
		cmocka_unit_test(test_guest_writes),
		cmocka_unit_test(test_poison_values),
		cmocka_unit_test(test_poison_lmce),
		cmocka_unit_test(test_poison_again),
		cmocka_unit_test(test_poison_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
