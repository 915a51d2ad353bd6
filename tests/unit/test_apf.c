/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * apf/: the async-PF MSRs refuse what KVM refuses (#GP) and nothing else,
 * "page not present" goes out only when every delivery condition holds
 * (one counted reason per refusal), tokens have KVM's layout and are
 * unique with at most 64 in flight, page-ready goes out in completion
 * order one at a time behind the guest's token slot, and disabling or
 * resetting with tokens in flight reports every swap-in still running.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "apf/apf.h"

#define RAM MiB(64)
#define AREA 0x12340ull                 /* 64-byte aligned, inside RAM */
#define VECTOR 0xf3u
#define EN_ON (AREA | KVM_ASYNC_PF_ENABLED | KVM_ASYNC_PF_DELIVERY_AS_INT)

static const struct apf_msr_env env = {
	.kvm_features = KVM_FEATURE_ASYNC_PF | KVM_FEATURE_ASYNC_PF_INT,
	.guest_ram_size = RAM,
};

static struct apf_vcpu *new_vcpu(uint32_t id)
{
	struct apf_vcpu *v = malloc(sizeof(*v));

	assert_non_null(v);
	apf_vcpu_init(v, id);
	return v;
}

static enum apf_msr_result wr(struct apf_vcpu *v, uint32_t msr, uint64_t val)
{
	struct apf_msr_effect effect;

	return apf_wrmsr(v, &env, msr, val, &effect);
}

static uint64_t rd(const struct apf_vcpu *v, uint32_t msr)
{
	uint64_t val = 0xdeadbeef;

	assert_int_equal(apf_rdmsr(v, &env, msr, &val), APF_MSR_OK);
	return val;
}

/* A user-mode guest with interrupts on and nothing in flight. */
static struct apf_guest_state user_state(void)
{
	return (struct apf_guest_state){ .interrupts_enabled = true,
					 .paging = true, .cpl = 3 };
}

static const struct apf_ready_state slot_free = { .lapic_enabled = true };

/* Enabled as Linux does it (INT first), the initial "wake all" taken. */
static struct apf_vcpu *enabled_vcpu(uint32_t id)
{
	struct apf_vcpu *v = new_vcpu(id);
	struct apf_page_ready pr;

	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_INT, VECTOR), APF_MSR_OK);
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_EN, EN_ON), APF_MSR_OK);
	assert_int_equal(apf_next_page_ready(v, &slot_free, 0, &pr),
			 APF_READY_DELIVER);
	assert_int_equal(pr.token, KVM_APF_TOKEN_WAKE_ALL);
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_ACK, 1), APF_MSR_OK);
	return v;
}

static uint32_t send(struct apf_vcpu *v, uint64_t gpa, uint64_t tsc)
{
	struct apf_guest_state g = user_state();
	uint32_t token = 0;

	assert_int_equal(apf_not_present(v, &g, gpa, tsc, &token),
			 APF_DELIVER);
	return token;
}

/* ---- MSRs ---- */

static void msrs_need_their_cpuid_bits(void **state)
{
	struct apf_vcpu *v = new_vcpu(0);
	struct apf_msr_env none = { .guest_ram_size = RAM };
	struct apf_msr_env pf_only = { .kvm_features = KVM_FEATURE_ASYNC_PF,
				       .guest_ram_size = RAM };
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
	assert_int_equal(apf_wrmsr(v, &env, MSR_KVM_ASYNC_PF_ACK, ~0ull,
				   &effect), APF_MSR_OK);
	assert_true(effect.check_page_ready);
	assert_int_equal(v->stats.acks, 2);
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

/* ---- page not present ---- */

struct condition {
	const char *what;
	void (*spoil)(struct apf_guest_state *g);
	enum apf_verdict expected;
};

static void in_delivery(struct apf_guest_state *g)
{
	g->event_in_delivery = true;
}

static void exception(struct apf_guest_state *g)
{
	g->exception_pending = true;
}

static void if_clear(struct apf_guest_state *g)
{
	g->interrupts_enabled = false;
}

static void sti_shadow(struct apf_guest_state *g)
{
	g->interrupt_shadow = true;
}

static void no_paging(struct apf_guest_state *g)
{
	g->paging = false;
}

static void kernel(struct apf_guest_state *g)
{
	g->cpl = 0;
}

static void flags_set(struct apf_guest_state *g)
{
	g->area_flags = KVM_PV_REASON_PAGE_NOT_PRESENT;
}

static void each_guest_condition_refuses_with_its_reason(void **state)
{
	static const struct condition conditions[] = {
		{ "event in delivery", in_delivery,
		  APF_SYNC_EVENT_IN_DELIVERY },
		{ "exception pending", exception, APF_SYNC_EXCEPTION_PENDING },
		{ "IF=0", if_clear, APF_SYNC_INTERRUPTS_OFF },
		{ "STI/MOV SS shadow", sti_shadow, APF_SYNC_INTERRUPT_SHADOW },
		{ "CR0.PG=0", no_paging, APF_SYNC_PAGING_OFF },
		{ "CPL 0", kernel, APF_SYNC_KERNEL_MODE },
		{ "flags unconsumed", flags_set,
		  APF_SYNC_NOTIFICATION_UNCONSUMED },
	};
	struct apf_vcpu *v = enabled_vcpu(0);

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(conditions); i++) {
		const struct condition *c = &conditions[i];
		struct apf_guest_state g = user_state();
		uint32_t token = 0;

		c->spoil(&g);
		print_message("%s\n", c->what);
		assert_int_equal(apf_check_not_present(v, &g, 0x5000),
				 c->expected);
		assert_int_equal(apf_not_present(v, &g, 0x5000, 1, &token),
				 c->expected);
		assert_int_equal(token, 0);
		assert_int_equal(v->stats.sync[c->expected], 1);
	}
	assert_int_equal(apf_outstanding(v), 0);
	assert_int_equal(v->stats.not_present, 0);
	free(v);
}

static void disabled_vcpu_always_waits(void **state)
{
	struct apf_vcpu *v = new_vcpu(0);
	struct apf_guest_state g = user_state();
	uint32_t token = 0;

	(void)state;
	assert_int_equal(apf_not_present(v, &g, 0x5000, 1, &token),
			 APF_SYNC_DISABLED);
	/* INT set and EN with ENABLED but not DELIVERY_AS_INT: still off. */
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_INT, VECTOR), APF_MSR_OK);
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_EN,
			    AREA | KVM_ASYNC_PF_ENABLED), APF_MSR_OK);
	assert_int_equal(apf_not_present(v, &g, 0x5000, 1, &token),
			 APF_SYNC_DISABLED);
	assert_int_equal(v->stats.sync[APF_SYNC_DISABLED], 2);
	free(v);
}

static void cpl_rule_follows_kvm_and_send_always(void **state)
{
	struct apf_vcpu *v = enabled_vcpu(0);
	struct apf_guest_state g = user_state();

	(void)state;
	/* KVM 6.1 refuses CPL 0 only (64-bit user_mode() is CS & 3). */
	g.cpl = 1;
	assert_int_equal(apf_check_not_present(v, &g, 0x5000), APF_DELIVER);
	g.cpl = 2;
	assert_int_equal(apf_check_not_present(v, &g, 0x5000), APF_DELIVER);
	g.cpl = 0;
	assert_int_equal(apf_check_not_present(v, &g, 0x5000),
			 APF_SYNC_KERNEL_MODE);
	/* kvm-unit-tests' asyncpf runs at CPL 0 with SEND_ALWAYS. */
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_EN,
			    EN_ON | KVM_ASYNC_PF_SEND_ALWAYS), APF_MSR_OK);
	assert_int_equal(apf_check_not_present(v, &g, 0x5000), APF_DELIVER);
	/* ... but never with IF=0, which the guest would panic on. */
	g.interrupts_enabled = false;
	assert_int_equal(apf_check_not_present(v, &g, 0x5000),
			 APF_SYNC_INTERRUPTS_OFF);
	free(v);
}

static void first_failing_condition_is_reported(void **state)
{
	struct apf_vcpu *v = enabled_vcpu(0);
	struct apf_guest_state g = user_state();

	(void)state;
	g.cpl = 0;
	g.interrupts_enabled = false;
	g.area_flags = 1;
	assert_int_equal(apf_check_not_present(v, &g, 0x5000),
			 APF_SYNC_INTERRUPTS_OFF);
	g.exception_pending = true;
	assert_int_equal(apf_check_not_present(v, &g, 0x5000),
			 APF_SYNC_EXCEPTION_PENDING);
	free(v);
}

static void delivered_not_present_records_the_token(void **state)
{
	struct apf_vcpu *v = enabled_vcpu(7);
	struct apf_guest_state g = user_state();
	uint32_t token = 0;

	(void)state;
	assert_int_equal(apf_not_present(v, &g, 0x5123, 1000, &token),
			 APF_DELIVER);
	assert_int_equal(token, 0x1007);
	assert_int_equal(apf_outstanding(v), 1);
	assert_int_equal(v->stats.not_present, 1);
	assert_int_equal(v->stats.peak_outstanding, 1);
	free(v);
}

static void repeated_fault_on_a_gpa_in_flight_waits(void **state)
{
	struct apf_vcpu *v = enabled_vcpu(0);
	struct apf_guest_state g = user_state();
	struct apf_page_ready pr;
	uint32_t first = send(v, 0x5000, 0), second = 0;

	(void)state;
	/* Same page, other offset: KVM halts instead of a second token. */
	assert_int_equal(apf_not_present(v, &g, 0x5ff8, 1, &second),
			 APF_SYNC_REPEATED_FAULT);
	/* Still so once complete, until its page-ready has gone out. */
	assert_int_equal(apf_page_completed(v, 0x5000), APF_COMPLETION_KICK);
	assert_int_equal(apf_check_not_present(v, &g, 0x5000),
			 APF_SYNC_REPEATED_FAULT);
	assert_int_equal(apf_next_page_ready(v, &slot_free, 9, &pr),
			 APF_READY_DELIVER);
	assert_int_equal(pr.token, first);
	second = send(v, 0x5000, 10);
	assert_int_not_equal(second, first);
	assert_int_equal(v->stats.sync[APF_SYNC_REPEATED_FAULT], 1);
	free(v);
}

static void abandoned_injection_forgets_the_token(void **state)
{
	struct apf_vcpu *v = enabled_vcpu(0);
	uint32_t token = send(v, 0x5000, 0);

	(void)state;
	assert_false(apf_not_present_abandoned(v, token + 1));
	assert_true(apf_not_present_abandoned(v, token));
	assert_false(apf_not_present_abandoned(v, token));
	assert_int_equal(apf_outstanding(v), 0);
	assert_int_equal(v->stats.abandoned, 1);
	/* Its swap-in still completes; no page-ready follows. */
	assert_int_equal(apf_page_completed(v, 0x5000),
			 APF_COMPLETION_NOT_OURS);
	assert_false(apf_has_page_ready(v));
	free(v);
}

/* ---- tokens ---- */

static void tokens_have_kvm_layout(void **state)
{
	struct apf_vcpu *v = enabled_vcpu(5);

	(void)state;
	assert_int_equal(send(v, 0x1000, 0), 0x1005);
	assert_int_equal(send(v, 0x2000, 0), 0x2005);
	assert_int_equal(send(v, 0x3000, 0), 0x3005);
	free(v);
}

static void token_counter_wraps_past_zero_and_in_use(void **state)
{
	struct apf_vcpu *v = enabled_vcpu(5);
	uint32_t first = send(v, 0x1000, 0);

	(void)state;
	assert_int_equal(first, 0x1005);
	/* The last 20-bit counter value, then the wrap skips 0 ... */
	v->next_id = 0xfffff;
	assert_int_equal(send(v, 0x2000, 0), 0xfffff005);
	/* ... and 0x1005, still in flight, so the next is 0x2005. */
	assert_int_equal(send(v, 0x3000, 0), 0x2005);
	assert_int_equal(v->next_id, 3);
	free(v);
}

static void token_never_equals_wake_all(void **state)
{
	struct apf_vcpu *v = enabled_vcpu(APF_MAX_VCPUS - 1);

	(void)state;
	v->next_id = 0xfffff;           /* would give 0xffffffff */
	assert_int_equal(send(v, 0x1000, 0), 0x1fff);
	free(v);
}

static void vcpu_id_keeps_to_its_twelve_bits(void **state)
{
	struct apf_vcpu *v = new_vcpu(APF_MAX_VCPUS + 2);

	(void)state;
	assert_int_equal(v->vcpu_id, 2);
	free(v);
}

static void at_most_64_tokens_in_flight(void **state)
{
	struct apf_vcpu *v = enabled_vcpu(1);
	struct apf_guest_state g = user_state();
	struct apf_page_ready pr;
	uint32_t tokens[APF_PER_VCPU], token = 0;

	(void)state;
	for (unsigned i = 0; i < APF_PER_VCPU; i++) {
		tokens[i] = send(v, (uint64_t)(i + 1) << PAGE_SHIFT, i);
		for (unsigned j = 0; j < i; j++)
			assert_int_not_equal(tokens[i], tokens[j]);
	}
	assert_int_equal(apf_outstanding(v), 64);
	assert_int_equal(apf_not_present(v, &g, 0x100000, 0, &token),
			 APF_SYNC_TOO_MANY);
	assert_int_equal(v->stats.sync[APF_SYNC_TOO_MANY], 1);
	assert_int_equal(v->stats.peak_outstanding, 64);
	/* A completed token still counts until its page-ready goes out. */
	assert_int_equal(apf_page_completed(v, 1ull << PAGE_SHIFT),
			 APF_COMPLETION_KICK);
	assert_int_equal(apf_check_not_present(v, &g, 0x100000),
			 APF_SYNC_TOO_MANY);
	assert_int_equal(apf_next_page_ready(v, &slot_free, 100, &pr),
			 APF_READY_DELIVER);
	assert_int_equal(pr.token, tokens[0]);
	assert_int_equal(apf_check_not_present(v, &g, 0x100000), APF_DELIVER);
	free(v);
}

static void peak_counts_tokens_not_the_wake_all(void **state)
{
	struct apf_vcpu *v = new_vcpu(0);

	(void)state;
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_INT, VECTOR), APF_MSR_OK);
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_EN, EN_ON), APF_MSR_OK);
	send(v, 0x1000, 0);
	assert_int_equal(apf_outstanding(v), 2);
	assert_int_equal(v->stats.peak_outstanding, 1);
	free(v);
}

/* ---- page ready ---- */

static void page_ready_in_completion_order_behind_the_slot(void **state)
{
	struct apf_vcpu *v = enabled_vcpu(0);
	struct apf_ready_state busy = { .lapic_enabled = true };
	struct apf_msr_effect effect;
	struct apf_page_ready pr;
	uint32_t a = send(v, 0xa000, 100);
	uint32_t b = send(v, 0xb000, 200);
	uint32_t c = send(v, 0xc000, 300);

	(void)state;
	assert_int_equal(apf_next_page_ready(v, &slot_free, 0, &pr),
			 APF_READY_NONE);
	assert_int_equal(apf_page_completed(v, 0xc000), APF_COMPLETION_KICK);
	assert_int_equal(apf_page_completed(v, 0xa000), APF_COMPLETION_KICK);
	assert_int_equal(apf_page_completed(v, 0xd000),
			 APF_COMPLETION_NOT_OURS);
	/* c completed first, so it goes first. */
	assert_int_equal(apf_next_page_ready(v, &slot_free, 1300, &pr),
			 APF_READY_DELIVER);
	assert_int_equal(pr.token, c);
	assert_int_equal(pr.vector, VECTOR);
	/* The guest holds c: a stays queued, and so does b's completion,
	 * without a kick (the ACK exit will look). */
	busy.area_token = c;
	assert_int_equal(apf_next_page_ready(v, &busy, 1400, &pr),
			 APF_READY_WAIT_SLOT);
	assert_int_equal(apf_page_completed(v, 0xb000),
			 APF_COMPLETION_CHECK_ON_ENTRY);
	/* The guest clears the slot and acknowledges. */
	assert_int_equal(apf_wrmsr(v, &env, MSR_KVM_ASYNC_PF_ACK, 1, &effect),
			 APF_MSR_OK);
	assert_true(effect.check_page_ready);
	assert_int_equal(apf_next_page_ready(v, &slot_free, 2100, &pr),
			 APF_READY_DELIVER);
	assert_int_equal(pr.token, a);
	busy.area_token = a;
	assert_int_equal(apf_next_page_ready(v, &busy, 2100, &pr),
			 APF_READY_WAIT_SLOT);
	/* KVM gates on the slot word: a cleared slot lets b go even
	 * before the ACK write comes. */
	assert_int_equal(apf_next_page_ready(v, &slot_free, 2200, &pr),
			 APF_READY_DELIVER);
	assert_int_equal(pr.token, b);
	assert_int_equal(apf_next_page_ready(v, &slot_free, 2300, &pr),
			 APF_READY_NONE);
	assert_int_equal(v->stats.page_ready, 3);
	assert_int_equal(v->stats.not_present, 3);
	/* (1300-300) + (2100-100) + (2200-200) */
	assert_int_equal(v->stats.ready_latency_tsc, 5000);
	assert_int_equal(apf_outstanding(v), 0);
	free(v);
}

static void page_ready_waits_for_an_enabled_lapic(void **state)
{
	struct apf_vcpu *v = new_vcpu(0);
	struct apf_ready_state lapic_off = { .lapic_enabled = false };
	struct apf_page_ready pr;

	(void)state;
	/* Direct kernel boot: EN comes before the guest enables its LAPIC. */
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_INT, VECTOR), APF_MSR_OK);
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_EN, EN_ON), APF_MSR_OK);
	assert_int_equal(apf_next_page_ready(v, &lapic_off, 0, &pr),
			 APF_READY_WAIT_LAPIC);
	assert_true(apf_has_page_ready(v));
	assert_int_equal(apf_next_page_ready(v, &slot_free, 0, &pr),
			 APF_READY_DELIVER);
	assert_int_equal(pr.token, KVM_APF_TOKEN_WAKE_ALL);
	free(v);
}

static void latency_ignores_a_tsc_that_went_back(void **state)
{
	struct apf_vcpu *v = enabled_vcpu(0);
	struct apf_page_ready pr;

	(void)state;
	send(v, 0x1000, 5000);
	apf_page_completed(v, 0x1000);
	assert_int_equal(apf_next_page_ready(v, &slot_free, 4000, &pr),
			 APF_READY_DELIVER);
	assert_int_equal(v->stats.ready_latency_tsc, 0);
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

/* ---- counters ---- */

struct fake_vcpu {
	char before[40];
	struct apf_vcpu apf;
	char after[24];
};

/* One counter as the registry reports it; it must be reported once. */
struct wanted {
	const char *name;
	uint64_t value;
	unsigned times;
};

static void pick(void *ctx, const char *name, uint64_t value)
{
	struct wanted *w = ctx;

	if (!strcmp(name, w->name)) {
		w->value = value;
		w->times++;
	}
}

static uint64_t counter(const char *name)
{
	struct wanted w = { .name = name };

	counters_each(pick, &w);
	if (w.times != 1)
		fail_msg("%s reported %u times", name, w.times);
	return w.value;
}

static void counters_sum_per_vcpu_and_take_the_peak(void **state)
{
	static struct apf_counter_sources src;
	struct fake_vcpu *vcpus = calloc(2, sizeof(*vcpus));
	struct apf_guest_state g = user_state();
	uint32_t token;

	(void)state;
	assert_non_null(vcpus);
	counters_reset();
	for (unsigned i = 0; i < 2; i++) {
		struct apf_vcpu *v = &vcpus[i].apf;

		apf_vcpu_init(v, i);
		assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_EN, EN_ON), APF_MSR_OK);
	}
	apf_counters_register(&src, &vcpus[0].apf, 2, sizeof(*vcpus));
	apf_not_present(&vcpus[0].apf, &g, 0x1000, 0, &token);
	apf_not_present(&vcpus[0].apf, &g, 0x2000, 0, &token);
	apf_not_present(&vcpus[1].apf, &g, 0x1000, 0, &token);
	g.cpl = 0;
	apf_not_present(&vcpus[1].apf, &g, 0x3000, 0, &token);
	apf_count_halt_woken(&vcpus[1].apf);
	assert_int_equal(counter("apf.vcpus_enabled"), 2);
	assert_int_equal(counter("apf.enables"), 2);
	assert_int_equal(counter("apf.not_present"), 3);
	assert_int_equal(counter("apf.sync.kernel_mode"), 1);
	assert_int_equal(counter("apf.sync.disabled"), 0);
	assert_int_equal(counter("apf.sync.too_many_outstanding"), 0);
	assert_int_equal(counter("apf.halts_woken"), 1);
	assert_int_equal(counter("apf.ready_latency_tsc"), 0);
	/* The max over vCPUs (2), not the sum (3). */
	assert_int_equal(counter("apf.peak_outstanding"), 2);
	counters_reset();
	free(vcpus);
}

static void verdicts_have_names(void **state)
{
	(void)state;
	assert_string_equal(apf_verdict_name(APF_DELIVER), "deliver");
	assert_string_equal(apf_verdict_name(APF_SYNC_KERNEL_MODE),
			    "kernel_mode");
	assert_string_equal(apf_verdict_name(APF_SYNC_TOO_MANY),
			    "too_many_outstanding");
	assert_string_equal(apf_verdict_name(APF_VERDICT_COUNT), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(msrs_need_their_cpuid_bits),
		cmocka_unit_test(en_reserved_and_unoffered_bits_raise_gp),
		cmocka_unit_test(en_area_must_lie_in_guest_ram),
		cmocka_unit_test(en_without_interrupt_delivery_is_stored_but_off),
		cmocka_unit_test(enabling_queues_one_wake_all),
		cmocka_unit_test(int_takes_any_vector_but_no_high_bits),
		cmocka_unit_test(ack_bit0_rescans_other_bits_are_ignored),
		cmocka_unit_test(other_msrs_are_not_ours),
		cmocka_unit_test(each_guest_condition_refuses_with_its_reason),
		cmocka_unit_test(disabled_vcpu_always_waits),
		cmocka_unit_test(cpl_rule_follows_kvm_and_send_always),
		cmocka_unit_test(first_failing_condition_is_reported),
		cmocka_unit_test(delivered_not_present_records_the_token),
		cmocka_unit_test(repeated_fault_on_a_gpa_in_flight_waits),
		cmocka_unit_test(abandoned_injection_forgets_the_token),
		cmocka_unit_test(tokens_have_kvm_layout),
		cmocka_unit_test(token_counter_wraps_past_zero_and_in_use),
		cmocka_unit_test(token_never_equals_wake_all),
		cmocka_unit_test(vcpu_id_keeps_to_its_twelve_bits),
		cmocka_unit_test(at_most_64_tokens_in_flight),
		cmocka_unit_test(peak_counts_tokens_not_the_wake_all),
		cmocka_unit_test(page_ready_in_completion_order_behind_the_slot),
		cmocka_unit_test(page_ready_waits_for_an_enabled_lapic),
		cmocka_unit_test(latency_ignores_a_tsc_that_went_back),
		cmocka_unit_test(disable_reports_swapins_still_in_flight),
		cmocka_unit_test(reset_clears_both_msrs_and_reports),
		cmocka_unit_test(disable_with_64_in_flight_reports_all),
		cmocka_unit_test(counters_sum_per_vcpu_and_take_the_peak),
		cmocka_unit_test(verdicts_have_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
