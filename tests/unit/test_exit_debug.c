/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The debug exceptions around exits, over the fakes of
 * tests/unit/exit_env.h: DR7.GD cleared when a #DB is given back, a
 * single-stepped HLT that does not wait, and the pending #DB trap that
 * holds NMIs and interrupts back (vmx/vcpu_events.h). Each is a case of
 * kvm-unit-tests' x86/debug.c that failed under apfvisor.
 */
#include "tests/unit/exit_env.h"

#define DR7_FIXED_1 0x400ull
#define DR7_G1 BIT(3)

/*
 * "Single-step #DB w/ MOVSS blocking and DR7.GD=1": the general-detect
 * #DB of a MOV to DR6 exits with DR7.GD still set (SDM Vol. 3C, 28.1;
 * now that DR7 is saved on exit, the guest's GD came back with it);
 * given back, the handler must find it clear, as the CPU leaves it when
 * it enters a #DB handler, or its own MOV from DR6 faults again. The
 * breakpoint enables stay. ICEBP's #DB clears it too.
 */
static void debug_given_back_clears_general_detect(void **state)
{
	(void)state;
	fake_vmcs[VMCS_GUEST_DR7] = DR7_FIXED_1 | DR7_GD | DR7_G1;
	ex.qualification = DR6_BD;
	assert_int_equal(handle_guest_exception(&v, &ex,
						HW_EXCEPTION(EXC_DEBUG)),
			 EXIT_RESUME);
	assert_int_equal(injected, EXC_DEBUG);
	assert_int_equal(fake_vmcs[VMCS_GUEST_DR7], DR7_FIXED_1 | DR7_G1);
	assert_int_equal(dr6, 0xffff0ff0 | DR6_BD);

	setup(NULL);
	fake_vmcs[VMCS_GUEST_DR7] = DR7_FIXED_1 | DR7_GD;
	handle_guest_exception(&v, &ex, INTR_INFO_VALID |
			       INTR_TYPE_PRIV_SW_EXCEPTION | EXC_DEBUG);
	assert_int_equal(fake_vmcs[VMCS_GUEST_DR7], DR7_FIXED_1);

	/* Without GD nothing else changes. */
	setup(NULL);
	fake_vmcs[VMCS_GUEST_DR7] = DR7_FIXED_1 | DR7_G1;
	handle_guest_exception(&v, &ex, HW_EXCEPTION(EXC_DEBUG));
	assert_int_equal(fake_vmcs[VMCS_GUEST_DR7], DR7_FIXED_1 | DR7_G1);
}

/* HLT waits for an interrupt (IF set) or parks (IF clear), skipped. */
static void hlt_waits_or_parks(void **state)
{
	(void)state;
	vm.plat[0].run_state = VCPU_RUNNABLE;
	fake_vmcs[VMCS_GUEST_RFLAGS] = RFLAGS_IF | RFLAGS_RESERVED_1;
	assert_int_equal(handle_hlt(&v, &ex), EXIT_RESUME);
	expect_done();
	assert_int_equal(halts, 1);
	assert_int_equal(parks, 0);

	setup(NULL);
	fake_vmcs[VMCS_GUEST_RFLAGS] = RFLAGS_RESERVED_1;
	assert_int_equal(handle_hlt(&v, &ex), EXIT_RESUME);
	expect_done();
	assert_int_equal(halts, 0);
	assert_int_equal(parks, 1);
}

/*
 * "Single-step #DB w/ STI;HLT": a single-stepped HLT traps right after
 * it; waiting first let the timer interrupt that ended the wait go in
 * with the VM entry, which dropped the pending single step. Now the vCPU
 * does not wait: the pending BS goes in with the next entry. The same
 * with interrupts off (no park) and for a data breakpoint's pending trap.
 */
static void single_stepped_hlt_does_not_wait(void **state)
{
	(void)state;
	fake_vmcs[VMCS_GUEST_RFLAGS] = RFLAGS_TF | RFLAGS_IF |
				       RFLAGS_RESERVED_1;
	fake_vmcs[VMCS_GUEST_INTERRUPTIBILITY] = INTERRUPTIBILITY_STI;
	assert_int_equal(handle_hlt(&v, &ex), EXIT_RESUME);
	expect_done();
	assert_int_equal(halts, 0);
	assert_int_equal(fake_vmcs[VMCS_GUEST_PENDING_DEBUG], DR6_BS);
	assert_int_equal(fake_vmcs[VMCS_GUEST_INTERRUPTIBILITY], 0);

	setup(NULL);
	fake_vmcs[VMCS_GUEST_RFLAGS] = RFLAGS_TF | RFLAGS_RESERVED_1;
	assert_int_equal(handle_hlt(&v, &ex), EXIT_RESUME);
	assert_int_equal(parks, 0);

	setup(NULL);
	fake_vmcs[VMCS_GUEST_RFLAGS] = RFLAGS_IF | RFLAGS_RESERVED_1;
	fake_vmcs[VMCS_GUEST_PENDING_DEBUG] = PENDING_DEBUG_ENABLED_BREAKPOINT |
					      0x2;
	assert_int_equal(handle_hlt(&v, &ex), EXIT_RESUME);
	assert_int_equal(halts, 0);
}

/*
 * A pending #DB trap (BS, or B0-B3 with the enabled-breakpoint bit) goes
 * before an NMI or an interrupt: an entry that injected one would drop
 * it. RTM (bit 16) alone is no trap; an event already queued (a handler's
 * exception) goes first as well.
 */
static void pending_debug_trap_goes_first(void **state)
{
	static const struct {
		uint64_t pending;
		bool trap;
	} cases[] = {
		{ 0, false },
		{ DR6_BS, true },
		{ PENDING_DEBUG_ENABLED_BREAKPOINT | 0x1, true },
		{ 0x8, true },
		{ DR6_RTM, false },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		fake_vmcs[VMCS_ENTRY_INTERRUPTION_INFO] = 0;
		fake_vmcs[VMCS_GUEST_PENDING_DEBUG] = cases[i].pending;
		assert_int_equal(vcpu_debug_trap_pending(), cases[i].trap);
		assert_int_equal(vcpu_event_queued_first(), cases[i].trap);
	}
	fake_vmcs[VMCS_GUEST_PENDING_DEBUG] = 0;
	fake_vmcs[VMCS_ENTRY_INTERRUPTION_INFO] =
		HW_EXCEPTION(EXC_GENERAL_PROTECTION);
	assert_true(vcpu_event_queued_first());
	assert_false(vcpu_debug_trap_pending());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(debug_given_back_clears_general_detect),
		T(hlt_waits_or_parks),
		T(single_stepped_hlt_does_not_wait),
		T(pending_debug_trap_goes_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
