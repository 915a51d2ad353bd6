/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * apf/apf.c: "page not present" goes out only when every delivery
 * condition holds (one counted reason per refusal), tokens have KVM's
 * layout and are unique with at most 64 in flight, page-ready goes out
 * in completion order one at a time behind the guest's token slot, and
 * the counters reach the registry.
 */
#include <string.h>

#include "tests/unit/apf_test.h"
#include "apf/apf_internal.h"

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

/*
 * KVM's APF halt rule (kvm_can_do_async_pf): the vCPU rests instead of
 * blocking exactly when it could take an interrupt; CPL, paging, the
 * flags word and the guest's own enable do not matter.
 */
static void apf_halt_where_an_interrupt_could_come(void **state)
{
	static void (*const blocking[])(struct apf_guest_state *) = {
		in_delivery, exception, if_clear, sti_shadow,
	};
	static void (*const irrelevant[])(struct apf_guest_state *) = {
		no_paging, kernel, flags_set,
	};
	struct apf_guest_state g = user_state();

	(void)state;
	assert_true(apf_halt_allowed(&g));
	for (unsigned i = 0; i < ARRAY_SIZE(blocking); i++) {
		g = user_state();
		blocking[i](&g);
		assert_false(apf_halt_allowed(&g));
	}
	g = user_state();
	for (unsigned i = 0; i < ARRAY_SIZE(irrelevant); i++)
		irrelevant[i](&g);
	assert_true(apf_halt_allowed(&g));
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

/* The completion's trace record names the token it moves to done. */
static void outstanding_token_found_until_completed(void **state)
{
	struct apf_vcpu *v = enabled_vcpu(0);
	uint32_t token = send(v, 0x5000, 0), found = 0;

	(void)state;
	assert_false(apf_outstanding_token(v, 0x6000, &found));
	assert_true(apf_outstanding_token(v, 0x5abc, &found));
	assert_int_equal(found, token);
	assert_int_equal(apf_page_completed(v, 0x5000), APF_COMPLETION_KICK);
	assert_false(apf_outstanding_token(v, 0x5000, &found));
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

/*
 * With 64 tokens in flight a wake-all takes the 65th entry, the one past
 * the first word of the busy bitmap: it goes out, its entry comes free
 * and can be taken again, and the tokens are still found by their gpa.
 */
static void the_entry_past_the_limit_is_freed(void **state)
{
	struct apf_vcpu *v = enabled_vcpu(0);
	struct apf_guest_state g = user_state();
	struct apf_page_ready pr;
	uint64_t last = (uint64_t)APF_PER_VCPU << PAGE_SHIFT;
	uint32_t token, first_token = 0, last_token = 0;

	(void)state;
	for (unsigned i = 1; i <= APF_PER_VCPU; i++) {
		last_token = send(v, (uint64_t)i << PAGE_SHIFT, i);
		if (i == 1)
			first_token = last_token;
	}
	assert_true(apf_queue_wake_all(v));
	assert_int_equal(apf_outstanding(v), APF_PER_VCPU + 1);
	assert_int_equal(apf_next_page_ready(v, &slot_free, 1, &pr),
			 APF_READY_DELIVER);
	assert_int_equal(pr.token, KVM_APF_TOKEN_WAKE_ALL);
	assert_int_equal(apf_outstanding(v), APF_PER_VCPU);
	assert_true(apf_queue_wake_all(v));
	assert_int_equal(apf_next_page_ready(v, &slot_free, 2, &pr),
			 APF_READY_DELIVER);
	assert_int_equal(pr.token, KVM_APF_TOKEN_WAKE_ALL);
	for (unsigned i = 1; i <= APF_PER_VCPU; i++)
		assert_true(apf_outstanding_token(v, (uint64_t)i << PAGE_SHIFT,
						  &token));
	assert_true(apf_outstanding_token(v, 1ull << PAGE_SHIFT, &token));
	assert_int_equal(token, first_token);
	assert_true(apf_outstanding_token(v, last, &token));
	assert_int_equal(token, last_token);
	assert_int_equal(apf_check_not_present(v, &g, 0x100000),
			 APF_SYNC_TOO_MANY);
	assert_int_equal(apf_page_completed(v, last), APF_COMPLETION_CHECK_ON_ENTRY);
	assert_false(apf_outstanding_token(v, last, &token));
	assert_int_equal(apf_next_page_ready(v, &slot_free, 3, &pr),
			 APF_READY_DELIVER);
	assert_int_equal(pr.token, last_token);
	assert_int_equal(apf_not_present(v, &g, 0x100000, 4, &token),
			 APF_DELIVER);
	assert_true(apf_not_present_abandoned(v, token));
	assert_int_equal(apf_outstanding(v), APF_PER_VCPU - 1);
	free(v);
}

/* ---- page ready ---- */

static void page_ready_in_completion_order_behind_the_slot(void **state)
{
	struct apf_vcpu *v = enabled_vcpu(0);
	struct apf_ready_state busy = { .paging = true, .lapic_enabled = true };
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
	/* An ACK with nothing queued asks for no look: the next completion
	 * kicks, as no page-ready is pending any more. */
	assert_int_equal(apf_wrmsr(v, &env, MSR_KVM_ASYNC_PF_ACK, 1, &effect),
			 APF_MSR_OK);
	assert_false(effect.check_page_ready);
	assert_false(v->page_ready_pending);
	free(v);
}

static void page_ready_waits_for_an_enabled_lapic(void **state)
{
	struct apf_vcpu *v = new_vcpu(0);
	struct apf_ready_state lapic_off = { .paging = true,
					     .lapic_enabled = false };
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

static void page_ready_waits_for_a_legal_vector(void **state)
{
	struct apf_vcpu *v = new_vcpu(0);
	struct apf_msr_effect effect;
	struct apf_page_ready pr;

	(void)state;
	/* Vectors 0-15: the LAPIC would drop the interrupt. */
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_INT, 15), APF_MSR_OK);
	assert_int_equal(wr(v, MSR_KVM_ASYNC_PF_EN, EN_ON), APF_MSR_OK);
	assert_int_equal(apf_next_page_ready(v, &slot_free, 0, &pr),
			 APF_READY_WAIT_VECTOR);
	assert_true(apf_has_page_ready(v));
	assert_false(v->page_ready_pending);
	/* A legal vector: the check is asked for, and the queue moves. */
	assert_int_equal(apf_wrmsr(v, &env, MSR_KVM_ASYNC_PF_INT, 16, &effect),
			 APF_MSR_OK);
	assert_true(effect.check_page_ready);
	assert_int_equal(apf_next_page_ready(v, &slot_free, 0, &pr),
			 APF_READY_DELIVER);
	assert_int_equal(pr.vector, 16);
	assert_int_equal(pr.token, KVM_APF_TOKEN_WAKE_ALL);
	/* With nothing queued, INT asks for no check. */
	assert_int_equal(apf_wrmsr(v, &env, MSR_KVM_ASYNC_PF_INT, 17, &effect),
			 APF_MSR_OK);
	assert_false(effect.check_page_ready);
	free(v);
}

static void peeked_page_ready_stays_until_sent(void **state)
{
	struct apf_vcpu *v = enabled_vcpu(0);
	struct apf_page_ready pr, again;
	uint32_t a = send(v, 0xa000, 100);
	uint32_t b = send(v, 0xb000, 100);

	(void)state;
	apf_page_completed(v, 0xa000);
	apf_page_completed(v, 0xb000);
	/* The caller could not deliver it: it is still first in line. */
	assert_int_equal(apf_peek_page_ready(v, &slot_free, &pr),
			 APF_READY_DELIVER);
	assert_int_equal(pr.token, a);
	assert_int_equal(apf_peek_page_ready(v, &slot_free, &again),
			 APF_READY_DELIVER);
	assert_int_equal(again.token, a);
	assert_int_equal(apf_outstanding(v), 2);
	assert_false(v->page_ready_pending);
	assert_int_equal(v->stats.page_ready, 0);
	apf_page_ready_sent(v, 300);
	assert_true(v->page_ready_pending);
	assert_int_equal(v->stats.page_ready, 1);
	assert_int_equal(v->stats.ready_latency_tsc, 200);
	assert_int_equal(apf_peek_page_ready(v, &slot_free, &pr),
			 APF_READY_DELIVER);
	assert_int_equal(pr.token, b);
	assert_int_equal(apf_outstanding(v), 1);
	free(v);
}

static void page_ready_waits_while_paging_is_off(void **state)
{
	struct apf_vcpu *v = enabled_vcpu(0);
	struct apf_ready_state no_paging = slot_free;
	struct apf_page_ready pr;
	uint32_t token = send(v, 0xa000, 0);

	(void)state;
	no_paging.paging = false;
	apf_page_completed(v, 0xa000);
	/* Checked first: the LAPIC and the slot do not matter then. */
	assert_int_equal(apf_next_page_ready(v, &no_paging, 0, &pr),
			 APF_READY_WAIT_PAGING);
	no_paging.lapic_enabled = false;
	no_paging.area_token = 1;
	assert_int_equal(apf_next_page_ready(v, &no_paging, 0, &pr),
			 APF_READY_WAIT_PAGING);
	/* Kept, not flushed as KVM 6.1 does at a CR0.PG change. */
	assert_true(apf_has_page_ready(v));
	assert_int_equal(v->stats.dropped, 0);
	assert_int_equal(apf_next_page_ready(v, &slot_free, 0, &pr),
			 APF_READY_DELIVER);
	assert_int_equal(pr.token, token);
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

/* ---- counters ---- */

struct fake_vcpu {
	char before[40];
	struct apf_vcpu apf;
	char after[24];
};

/* The value the counter registry reports; it must be reported once. */
static uint64_t counter(const char *name)
{
	uint64_t value;
	unsigned times = counters_find(name, &value);

	if (times != 1)
		fail_msg("%s reported %u times", name, times);
	return value;
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
		cmocka_unit_test(each_guest_condition_refuses_with_its_reason),
		cmocka_unit_test(apf_halt_where_an_interrupt_could_come),
		cmocka_unit_test(disabled_vcpu_always_waits),
		cmocka_unit_test(cpl_rule_follows_kvm_and_send_always),
		cmocka_unit_test(first_failing_condition_is_reported),
		cmocka_unit_test(delivered_not_present_records_the_token),
		cmocka_unit_test(repeated_fault_on_a_gpa_in_flight_waits),
		cmocka_unit_test(abandoned_injection_forgets_the_token),
		cmocka_unit_test(outstanding_token_found_until_completed),
		cmocka_unit_test(tokens_have_kvm_layout),
		cmocka_unit_test(token_counter_wraps_past_zero_and_in_use),
		cmocka_unit_test(token_never_equals_wake_all),
		cmocka_unit_test(vcpu_id_keeps_to_its_twelve_bits),
		cmocka_unit_test(at_most_64_tokens_in_flight),
		cmocka_unit_test(peak_counts_tokens_not_the_wake_all),
		cmocka_unit_test(the_entry_past_the_limit_is_freed),
		cmocka_unit_test(page_ready_in_completion_order_behind_the_slot),
		cmocka_unit_test(page_ready_waits_for_an_enabled_lapic),
		cmocka_unit_test(page_ready_waits_for_a_legal_vector),
		cmocka_unit_test(peeked_page_ready_stays_until_sent),
		cmocka_unit_test(page_ready_waits_while_paging_is_off),
		cmocka_unit_test(latency_ignores_a_tsc_that_went_back),
		cmocka_unit_test(counters_sum_per_vcpu_and_take_the_peak),
		cmocka_unit_test(verdicts_have_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
