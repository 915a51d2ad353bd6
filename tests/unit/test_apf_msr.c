/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * apf/apf_msr.c: the async-PF MSRs refuse what KVM refuses (#GP) and
 * nothing else, and disabling or resetting with tokens in flight reports
 * every swap-in still running and forgets the rest.
 */
#include "tests/unit/apf_test.h"

/* ---- MSRs ---- */

static void msrs_need_their_cpuid_bits(void **state)
{
	struct apf_vcpu *v = new_vcpu(0);
	struct apf_msr_env none = { .guest_ram = { .low_size = RAM } };
	struct apf_msr_env pf_only = { .kvm_features = KVM_FEATURE_ASYNC_PF,
				       .guest_ram = { .low_size = RAM } };
	struct apf_msr_effect effect;
	uint64_t val;

	(void)state;
	/* apf = off: no bit, every MSR raises #GP, read or written. */
	assert_int_equal(apf_wrmsr(v, &none, MSR_KVM_ASYNC_PF_EN, 0, &effect),
			 APF_MSR_RAISE_GP);
	assert_int_equal(apf_wrmsr(v, &none, MSR_KVM_ASYNC_PF_INT, VECTOR,
				   &effect), APF_MSR_RAISE_GP);
	assert_int_equal(apf_wrmsr(v, &none, MSR_KVM_ASYNC_PF_ACK, 1, &effect),
			 APF_MSR_RAISE_GP);
	assert_int_equal(apf_rdmsr(v, &none, MSR_KVM_ASYNC_PF_EN, &val),
			 APF_MSR_RAISE_GP);
	/* INT and ACK belong to bit 14, EN to bit 4. */
	assert_int_equal(apf_rdmsr(v, &pf_only, MSR_KVM_ASYNC_PF_EN, &val),
			 APF_MSR_OK);
	assert_int_equal(apf_rdmsr(v, &pf_only, MSR_KVM_ASYNC_PF_INT, &val),
			 APF_MSR_RAISE_GP);
	assert_int_equal(apf_rdmsr(v, &pf_only, MSR_KVM_ASYNC_PF_ACK, &val),
			 APF_MSR_RAISE_GP);
	assert_int_equal(apf_wrmsr(v, &pf_only, MSR_KVM_ASYNC_PF_ACK, 1,
				   &effect), APF_MSR_RAISE_GP);
	/* Bit 3 (interrupt delivery) needs bit 14 as well. */
	assert_int_equal(apf_wrmsr(v, &pf_only, MSR_KVM_ASYNC_PF_EN, EN_ON,
				   &effect), APF_MSR_RAISE_GP);
	assert_int_equal(apf_wrmsr(v, &pf_only, MSR_KVM_ASYNC_PF_EN,
				   AREA | KVM_ASYNC_PF_ENABLED, &effect),
			 APF_MSR_OK);
	assert_false(apf_enabled(v));
	free(v);
}

static void en_reserved_and_unoffered_bits_raise_gp(void **state)
{
	struct apf_vcpu *v = new_vcpu(0);
	struct apf_msr_env vmexit = env;

	(void)state;
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_EN, EN_ON), APF_MSR_OK);
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_EN, EN_ON | BIT(4)),
			 APF_MSR_RAISE_GP);
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_EN, EN_ON | BIT(5)),
			 APF_MSR_RAISE_GP);
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_EN, BIT(4)), APF_MSR_RAISE_GP);
	/* Bit 2 (L1 delivery as #PF exit) needs feature bit 10. */
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_EN,
			    EN_ON | KVM_ASYNC_PF_DELIVERY_AS_PF_VMEXIT),
			 APF_MSR_RAISE_GP);
	/* A refused write changes nothing. */
	assert_int_equal(rd(v, MSR_KVM_ASYNC_PF_EN), EN_ON);
	assert_true(apf_enabled(v));
	vmexit.kvm_features |= KVM_FEATURE_ASYNC_PF_VMEXIT;
	{
		struct apf_msr_effect effect;
		uint64_t val = EN_ON | KVM_ASYNC_PF_DELIVERY_AS_PF_VMEXIT;

		assert_int_equal(apf_wrmsr(v, &vmexit, MSR_KVM_ASYNC_PF_EN,
					   val, &effect), APF_MSR_OK);
		assert_int_equal(rd(v, MSR_KVM_ASYNC_PF_EN), val);
	}
	free(v);
}

static void en_area_must_lie_in_guest_ram(void **state)
{
	struct apf_vcpu *v = new_vcpu(0);
	const uint64_t on = KVM_ASYNC_PF_ENABLED | KVM_ASYNC_PF_DELIVERY_AS_INT;

	(void)state;
	/* The last 64-byte block of RAM is fine, the next one is not. */
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_EN, (RAM - 64) | on),
			 APF_MSR_OK);
	assert_int_equal(apf_area_gpa(v), RAM - 64);
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_EN, RAM | on),
			 APF_MSR_RAISE_GP);
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_EN, (1ull << 63) | on),
			 APF_MSR_RAISE_GP);
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_EN, ~0x3full | on),
			 APF_MSR_RAISE_GP);
	/* The refused writes left the accepted value in place. */
	assert_int_equal(rd(v, MSR_KVM_ASYNC_PF_EN), (RAM - 64) | on);
	assert_int_equal(v->stats.enables, 1);
	/* An area outside RAM does not matter while it stays off. */
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_EN, RAM), APF_MSR_OK);
	assert_int_equal(rd(v, MSR_KVM_ASYNC_PF_EN), RAM);
	free(v);
}

static void en_without_interrupt_delivery_is_stored_but_off(void **state)
{
	struct apf_vcpu *v = new_vcpu(0);
	struct apf_msr_effect effect;

	(void)state;
	/* The pre-5.8 #PF-based protocol: accepted, and no events at all. */
	assert_int_equal(apf_wrmsr(v, &env, MSR_KVM_ASYNC_PF_EN,
				   AREA | KVM_ASYNC_PF_ENABLED, &effect),
			 APF_MSR_OK);
	assert_int_equal(rd(v, MSR_KVM_ASYNC_PF_EN),
			 AREA | KVM_ASYNC_PF_ENABLED);
	assert_false(apf_enabled(v));
	assert_false(effect.check_page_ready);
	assert_false(apf_has_page_ready(v));
	assert_int_equal(v->stats.enables, 0);
	/* Interrupt delivery without ENABLED is off as well. */
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_EN,
			    AREA | KVM_ASYNC_PF_DELIVERY_AS_INT), APF_MSR_OK);
	assert_false(apf_enabled(v));
	free(v);
}

static void enabling_queues_one_wake_all(void **state)
{
	struct apf_vcpu *v = new_vcpu(3);
	struct apf_msr_effect effect;
	struct apf_page_ready pr;

	(void)state;
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_INT, VECTOR), APF_MSR_OK);
	assert_int_equal(apf_wrmsr(v, &env, MSR_KVM_ASYNC_PF_EN, EN_ON,
				   &effect), APF_MSR_OK);
	assert_true(apf_enabled(v));
	assert_int_equal(apf_area_gpa(v), AREA);
	assert_true(effect.check_page_ready);
	assert_int_equal(apf_outstanding(v), 1);
	/* Enabling again while it is still queued adds no second one. */
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_EN, EN_ON), APF_MSR_OK);
	assert_int_equal(apf_outstanding(v), 1);
	assert_int_equal(apf_next_page_ready(v, &slot_free, 100, &pr),
			 APF_READY_DELIVER);
	assert_int_equal(pr.token, KVM_APF_TOKEN_WAKE_ALL);
	assert_int_equal(pr.vector, VECTOR);
	assert_int_equal(apf_next_page_ready(v, &slot_free, 100, &pr),
			 APF_READY_NONE);
	assert_int_equal(v->stats.wake_all, 1);
	assert_int_equal(v->stats.page_ready, 0);
	assert_int_equal(v->stats.enables, 2);
	assert_int_equal(v->stats.vcpus_enabled, 1);
	free(v);
}

static void an_area_newly_in_use_gets_its_token_word_cleared(void **state)
{
	struct apf_vcpu *v = new_vcpu(0);
	struct apf_msr_effect effect;

	(void)state;
	assert_int_equal(apf_wrmsr(v, &env, MSR_KVM_ASYNC_PF_EN, EN_ON,
				   &effect), APF_MSR_OK);
	assert_true(effect.clear_token);
	/* The same area again: a page-ready may sit in its word. */
	assert_int_equal(apf_wrmsr(v, &env, MSR_KVM_ASYNC_PF_EN, EN_ON,
				   &effect), APF_MSR_OK);
	assert_false(effect.clear_token);
	/* Moved: the new word was never ours. */
	assert_int_equal(apf_wrmsr(v, &env, MSR_KVM_ASYNC_PF_EN, EN_ON + 0x40,
				   &effect), APF_MSR_OK);
	assert_true(effect.clear_token);
	/* Off, a refused on, then on again (a CPU back online). */
	assert_int_equal(apf_wrmsr(v, &env, MSR_KVM_ASYNC_PF_EN, 0, &effect),
			 APF_MSR_OK);
	assert_false(effect.clear_token);
	assert_int_equal(apf_wrmsr(v, &env, MSR_KVM_ASYNC_PF_EN,
				   RAM | KVM_ASYNC_PF_ENABLED |
					   KVM_ASYNC_PF_DELIVERY_AS_INT,
				   &effect), APF_MSR_RAISE_GP);
	assert_false(effect.clear_token);
	assert_int_equal(apf_wrmsr(v, &env, MSR_KVM_ASYNC_PF_EN, EN_ON,
				   &effect), APF_MSR_OK);
	assert_true(effect.clear_token);
	/* INT and ACK never touch it. */
	assert_int_equal(apf_wrmsr(v, &env, MSR_KVM_ASYNC_PF_ACK, 1, &effect),
			 APF_MSR_OK);
	assert_false(effect.clear_token);
	free(v);
}

static void int_takes_any_vector_but_no_high_bits(void **state)
{
	struct apf_vcpu *v = new_vcpu(0);

	(void)state;
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_INT, 0x1f3), APF_MSR_RAISE_GP);
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_INT, 1ull << 63),
			 APF_MSR_RAISE_GP);
	assert_int_equal(rd(v, MSR_KVM_ASYNC_PF_INT), 0);
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_INT, VECTOR), APF_MSR_OK);
	assert_int_equal(rd(v, MSR_KVM_ASYNC_PF_INT), VECTOR);
	assert_int_equal(apf_vector(v), VECTOR);
	/* KVM does not validate the vector: an exception vector is taken. */
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_INT, 5), APF_MSR_OK);
	assert_int_equal(apf_vector(v), 5);
	free(v);
}

static void ack_bit0_rescans_other_bits_are_ignored(void **state)
{
	struct apf_vcpu *v = enabled_vcpu(0);
	struct apf_msr_effect effect;

	(void)state;
	assert_int_equal(v->stats.acks, 1);     /* enabled_vcpu's */
	assert_int_equal(apf_wrmsr(v, &env, MSR_KVM_ASYNC_PF_ACK, 0, &effect),
			 APF_MSR_OK);
	assert_false(effect.check_page_ready);
	assert_int_equal(apf_wrmsr(v, &env, MSR_KVM_ASYNC_PF_ACK, 0x2, &effect),
			 APF_MSR_OK);
	assert_false(effect.check_page_ready);
	assert_int_equal(v->stats.acks, 1);
	/* Bit 0 counts; it asks for a look only with a page-ready queued. */
	assert_int_equal(apf_wrmsr(v, &env, MSR_KVM_ASYNC_PF_ACK, 1, &effect),
			 APF_MSR_OK);
	assert_false(effect.check_page_ready);
	send(v, 0x5000, 1);
	assert_int_equal(apf_page_completed(v, 0x5000), APF_COMPLETION_KICK);
	assert_int_equal(apf_wrmsr(v, &env, MSR_KVM_ASYNC_PF_ACK, ~0ull,
				   &effect), APF_MSR_OK);
	assert_true(effect.check_page_ready);
	assert_int_equal(v->stats.acks, 3);
	assert_int_equal(rd(v, MSR_KVM_ASYNC_PF_ACK), 0);
	free(v);
}

static void other_msrs_are_not_ours(void **state)
{
	struct apf_vcpu *v = new_vcpu(0);
	uint64_t val;

	(void)state;
	assert_true(apf_msr_is_async_pf(0x4b564d02));
	assert_true(apf_msr_is_async_pf(0x4b564d06));
	assert_true(apf_msr_is_async_pf(0x4b564d07));
	assert_false(apf_msr_is_async_pf(0x4b564d01));
	assert_false(apf_msr_is_async_pf(0x4b564d03));
	assert_int_equal(wr(v, 0x4b564d03, 0), APF_MSR_RAISE_GP);
	assert_int_equal(apf_rdmsr(v, &env, 0x4b564d05, &val),
			 APF_MSR_RAISE_GP);
	free(v);
}

/* ---- lifecycle ---- */

static void disable_reports_swapins_still_in_flight(void **state)
{
	struct apf_vcpu *v = enabled_vcpu(0);
	struct apf_msr_effect effect;
	struct apf_page_ready pr;

	(void)state;
	send(v, 0xa000, 0);
	send(v, 0xb000, 0);
	send(v, 0xc000, 0);
	assert_int_equal(apf_page_completed(v, 0xb000), APF_COMPLETION_KICK);
	assert_int_equal(apf_wrmsr(v, &env, MSR_KVM_ASYNC_PF_EN, 0, &effect),
			 APF_MSR_OK);
	/* a and c are still being read; b is done, its notice dropped. */
	assert_int_equal(effect.orphans.count, 2);
	assert_int_equal(effect.orphans.gpa[0], 0xa000);
	assert_int_equal(effect.orphans.gpa[1], 0xc000);
	assert_false(effect.check_page_ready);
	assert_int_equal(v->stats.dropped, 3);
	assert_int_equal(apf_outstanding(v), 0);
	assert_false(apf_has_page_ready(v));
	assert_int_equal(rd(v, MSR_KVM_ASYNC_PF_EN), 0);
	/* Their completions arrive later and concern no token. */
	assert_int_equal(apf_page_completed(v, 0xa000),
			 APF_COMPLETION_NOT_OURS);
	assert_int_equal(apf_next_page_ready(v, &slot_free, 0, &pr),
			 APF_READY_NONE);
	/* Re-enabled: a wake-all, then fresh tokens that never repeat. */
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_EN, EN_ON), APF_MSR_OK);
	assert_int_equal(apf_next_page_ready(v, &slot_free, 0, &pr),
			 APF_READY_DELIVER);
	assert_int_equal(pr.token, KVM_APF_TOKEN_WAKE_ALL);
	assert_int_equal(send(v, 0xa000, 0), 0x4000);
	free(v);
}

static void reset_clears_both_msrs_and_reports(void **state)
{
	struct apf_vcpu *v = enabled_vcpu(2);
	struct apf_orphans orphans;

	(void)state;
	send(v, 0x7000, 0);
	v->page_ready_pending = true;
	apf_vcpu_reset(v, &orphans);
	assert_int_equal(orphans.count, 1);
	assert_int_equal(orphans.gpa[0], 0x7000);
	assert_int_equal(rd(v, MSR_KVM_ASYNC_PF_EN), 0);
	assert_int_equal(rd(v, MSR_KVM_ASYNC_PF_INT), 0);
	assert_false(apf_enabled(v));
	assert_false(v->page_ready_pending);
	assert_int_equal(apf_outstanding(v), 0);
	free(v);
}

static void disable_with_64_in_flight_reports_all(void **state)
{
	struct apf_vcpu *v = enabled_vcpu(0);
	struct apf_msr_effect effect;

	(void)state;
	for (unsigned i = 0; i < APF_PER_VCPU; i++)
		send(v, (uint64_t)(i + 1) << PAGE_SHIFT, 0);
	assert_int_equal(apf_wrmsr(v, &env, MSR_KVM_ASYNC_PF_EN, 0, &effect),
			 APF_MSR_OK);
	assert_int_equal(effect.orphans.count, APF_PER_VCPU);
	for (unsigned i = 0; i < APF_PER_VCPU; i++)
		assert_int_equal(effect.orphans.gpa[i],
				 (uint64_t)(i + 1) << PAGE_SHIFT);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(msrs_need_their_cpuid_bits),
		cmocka_unit_test(en_reserved_and_unoffered_bits_raise_gp),
		cmocka_unit_test(en_area_must_lie_in_guest_ram),
		cmocka_unit_test(en_without_interrupt_delivery_is_stored_but_off),
		cmocka_unit_test(enabling_queues_one_wake_all),
		cmocka_unit_test(an_area_newly_in_use_gets_its_token_word_cleared),
		cmocka_unit_test(int_takes_any_vector_but_no_high_bits),
		cmocka_unit_test(ack_bit0_rescans_other_bits_are_ignored),
		cmocka_unit_test(other_msrs_are_not_ours),
		cmocka_unit_test(disable_reports_swapins_still_in_flight),
		cmocka_unit_test(reset_clears_both_msrs_and_reports),
		cmocka_unit_test(disable_with_64_in_flight_reports_all),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
