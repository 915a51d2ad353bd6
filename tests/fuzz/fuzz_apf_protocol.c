/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: the host side of the async page fault protocol
 * (apf/apf.c, apf/apf_msr.c) for two vCPUs, under any sequence of what a
 * guest does (WRMSR of EN, INT, ACK with any value; faults in any CPU
 * state; reading and clearing its shared area's words; INIT) and of what
 * the hypervisor does (swap-ins completing, a #PF abandoned, page-ready
 * checks, a page-ready it could not deliver). A model beside it keeps the tokens the guest was given and the
 * two words of each shared area, and checks the promises of
 * ../shared/APF-PROTOCOL.md:
 *   - a token is never 0 nor the broadcast, carries its vCPU in the low 12
 *     bits, and is never handed out while another token equal to it is
 *     still in flight on either vCPU;
 *   - a "page not present" goes out only when the guest can take it (APF
 *     on, IF set, no shadow, no event in delivery or pending, paging, the
 *     flags word consumed; in ring 0 only with SEND_ALWAYS);
 *   - a page-ready goes out only with paging on, into an empty token word
 *     with the LAPIC enabled, on the vector of MSR_KVM_ASYNC_PF_INT (a legal one), for
 *     a token whose page completed (or the broadcast), once per token;
 *     one the host could not deliver stays first in line, unchanged;
 *   - only an area newly in use has its token word cleared;
 *   - a refused WRMSR changes nothing; what the vCPU counts in flight is
 *     at least the model's count and never above its slots.
 */
#include <stdint.h>
#include <string.h>

#include "apf/apf.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_script.h"

#define VCPUS 2
#define RAM_BYTES (64ull << 20)
#define PAGES 8                         /* few pages: repeats and reuse */

static const struct apf_msr_env env = {
	.kvm_features = KVM_FEATURE_ASYNC_PF | KVM_FEATURE_ASYNC_PF_INT,
	.guest_ram = { .low_size = RAM_BYTES },
};

/* A token the guest holds: #PF delivered, page-ready not yet. */
struct held {
	uint32_t token;
	uint64_t gpa;
	bool completed;                 /* its swap-in is done */
};

struct model {
	struct apf_vcpu vcpu;
	struct held held[APF_SLOTS];
	unsigned nheld;
	uint32_t area_flags, area_token;  /* the shared area's words */
	bool wake_all_expected;
};

static struct model m[VCPUS];

static int find_held(const struct model *s, uint32_t token)
{
	for (unsigned i = 0; i < s->nheld; i++)
		if (s->held[i].token == token)
			return (int)i;
	return -1;
}

static void drop_held(struct model *s, unsigned i)
{
	s->held[i] = s->held[--s->nheld];
}

static void forget_all(struct model *s)
{
	s->nheld = 0;
	s->wake_all_expected = false;
}

static void check_counts(const struct model *s)
{
	CHECK(apf_outstanding(&s->vcpu) >= s->nheld);
	CHECK(apf_outstanding(&s->vcpu) <= APF_SLOTS);
}

/* Page-readies the host would deliver now (before an entry, on ACK). */
static void deliver_ready(struct model *s, bool paging, bool lapic_enabled,
			  uint64_t tsc)
{
	for (;;) {
		struct apf_ready_state st = { .paging = paging,
					      .lapic_enabled = lapic_enabled,
					      .area_token = s->area_token };
		struct apf_page_ready pr;
		enum apf_ready_verdict r =
			apf_next_page_ready(&s->vcpu, &st, tsc, &pr);
		int i;

		if (r != APF_READY_DELIVER)
			return;
		CHECK(paging && lapic_enabled && s->area_token == 0);
		CHECK(apf_enabled(&s->vcpu));
		CHECK(pr.vector == apf_vector(&s->vcpu));
		CHECK(pr.vector >= APF_FIRST_LEGAL_VECTOR);
		if (pr.token == KVM_APF_TOKEN_WAKE_ALL) {
			CHECK(s->wake_all_expected);
			s->wake_all_expected = false;
		} else {
			i = find_held(s, pr.token);
			CHECK(i >= 0 && s->held[i].completed);
			CHECK(pr.gpa == s->held[i].gpa);
			drop_held(s, (unsigned)i);
		}
		s->area_token = pr.token;
	}
}

/*
 * The host found a page-ready to send but could not (the token word not
 * writable, the LAPIC refused the vector): nothing changes, and the same
 * one is found again.
 */
static void delivery_fails(struct model *s)
{
	struct apf_ready_state st = { .paging = true, .lapic_enabled = true,
				      .area_token = s->area_token };
	struct apf_page_ready pr, again;
	unsigned in_use = apf_outstanding(&s->vcpu);
	bool pending = s->vcpu.page_ready_pending;

	if (apf_peek_page_ready(&s->vcpu, &st, &pr) != APF_READY_DELIVER)
		return;
	CHECK(apf_peek_page_ready(&s->vcpu, &st, &again) == APF_READY_DELIVER);
	CHECK(again.token == pr.token && again.gpa == pr.gpa);
	CHECK(apf_outstanding(&s->vcpu) == in_use);
	CHECK(s->vcpu.page_ready_pending == pending);
	CHECK(pr.token == KVM_APF_TOKEN_WAKE_ALL ? s->wake_all_expected
						 : find_held(s, pr.token) >= 0);
}

static void guest_wrmsr(struct model *s, struct fuzz_script *in)
{
	static const uint32_t msrs[4] = {
		MSR_KVM_ASYNC_PF_EN, MSR_KVM_ASYNC_PF_INT, MSR_KVM_ASYNC_PF_ACK,
		MSR_KVM_ASYNC_PF_EN,
	};
	unsigned how = (unsigned)fuzz_take(in, 1);
	uint32_t msr = msrs[how & 3];
	uint64_t value = fuzz_take(in, 8);
	uint64_t en = s->vcpu.msr_en, intr = s->vcpu.msr_int;
	bool was_on = apf_enabled(&s->vcpu);
	uint64_t old_area = apf_area_gpa(&s->vcpu);
	unsigned queued = s->vcpu.ready_count;
	struct apf_msr_effect effect;

	/* Mostly plausible values: an area in RAM, a vector, ACK = 1. */
	if (how & 4) {
		if (msr == MSR_KVM_ASYNC_PF_EN)
			value &= (RAM_BYTES - 1) | 0x3f;
		else
			value &= 0xff;
	}
	memset(&effect, 0, sizeof(effect));
	if (apf_wrmsr(&s->vcpu, &env, msr, value, &effect) != APF_MSR_OK) {
		CHECK(s->vcpu.msr_en == en && s->vcpu.msr_int == intr);
		return;
	}
	/* Only an area newly in use has its token word cleared. */
	CHECK(!effect.clear_token ||
	      (msr == MSR_KVM_ASYNC_PF_EN && apf_enabled(&s->vcpu) &&
	       (!was_on || apf_area_gpa(&s->vcpu) != old_area)));
	if (effect.clear_token)
		s->area_token = 0;
	if (msr == MSR_KVM_ASYNC_PF_EN) {
		if (!apf_enabled(&s->vcpu)) {
			/* Off: every token forgotten, the guest's included. */
			CHECK(apf_outstanding(&s->vcpu) == 0);
			forget_all(s);
		} else if (s->vcpu.ready_count != queued) {
			/* On: a broadcast, only into an empty queue. */
			CHECK(queued == 0 && s->vcpu.ready_count == 1);
			s->wake_all_expected = true;
		}
	} else {
		CHECK(s->vcpu.ready_count == queued);
	}
	if (effect.check_page_ready)
		deliver_ready(s, !(how & 16), how & 8, 0);
}

static void guest_faults(struct model *s, struct fuzz_script *in,
			 uint64_t tsc)
{
	unsigned bits = (unsigned)fuzz_take(in, 1);
	struct apf_guest_state g = {
		.event_in_delivery = bits & 1,
		.exception_pending = bits & 2,
		.interrupts_enabled = !(bits & 4),
		.interrupt_shadow = bits & 8,
		.paging = !(bits & 16),
		.cpl = bits & 32 ? 0 : 3,
		.area_flags = s->area_flags,
	};
	uint64_t gpa = (fuzz_take(in, 1) % PAGES) * PAGE_SIZE + 0x100000;
	uint32_t token = 0;
	enum apf_verdict v = apf_not_present(&s->vcpu, &g, gpa, tsc, &token);

	if (v != APF_DELIVER)
		return;
	CHECK(apf_enabled(&s->vcpu));
	CHECK(!g.event_in_delivery && !g.exception_pending &&
	      g.interrupts_enabled && !g.interrupt_shadow && g.paging &&
	      g.area_flags == 0);
	CHECK(g.cpl != 0 || (s->vcpu.msr_en & KVM_ASYNC_PF_SEND_ALWAYS));
	CHECK(token != 0 && token != KVM_APF_TOKEN_WAKE_ALL);
	CHECK((token & (APF_MAX_VCPUS - 1)) == s->vcpu.vcpu_id);
	for (unsigned n = 0; n < VCPUS; n++)
		CHECK(find_held(&m[n], token) < 0);
	CHECK(s->nheld < APF_SLOTS);
	s->held[s->nheld++] = (struct held){ token, gpa, false };
	s->area_flags = KVM_PV_REASON_PAGE_NOT_PRESENT;
}

static void swap_in_done(struct model *s, struct fuzz_script *in)
{
	uint64_t gpa = (fuzz_take(in, 1) % PAGES) * PAGE_SIZE + 0x100000;
	bool waiting = false;

	for (unsigned i = 0; i < s->nheld; i++)
		if (s->held[i].gpa == gpa && !s->held[i].completed) {
			s->held[i].completed = true;
			waiting = true;
		}
	CHECK((apf_page_completed(&s->vcpu, gpa) != APF_COMPLETION_NOT_OURS) ==
	      waiting);
}

static void abandon(struct model *s, struct fuzz_script *in)
{
	unsigned pick = (unsigned)fuzz_take(in, 1);
	uint32_t token = pick < s->nheld ? s->held[pick].token
					 : (uint32_t)fuzz_take(in, 4);
	int i = find_held(s, token);
	bool outstanding = i >= 0 && !s->held[i].completed;

	CHECK(apf_not_present_abandoned(&s->vcpu, token) == outstanding);
	if (outstanding) {
		drop_held(s, (unsigned)i);
		s->area_flags = 0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_script in = { data, size };
	uint64_t tsc = 0;

	memset(m, 0, sizeof(m));
	for (unsigned n = 0; n < VCPUS; n++)
		apf_vcpu_init(&m[n].vcpu, n);
	while (in.left) {
		unsigned op = (unsigned)fuzz_take(&in, 1);
		struct model *s = &m[(op >> 4) & 1];
		struct apf_orphans orphans;

		tsc += 1000;
		switch (op & 0xf) {
		case 0:
		case 1:
			guest_wrmsr(s, &in);
			break;
		case 2:
		case 3:
			guest_faults(s, &in, tsc);
			break;
		case 4:
			swap_in_done(s, &in);
			break;
		case 5:
			deliver_ready(s, !(op & 0x40), !(op & 0x20), tsc);
			break;
		case 6:                 /* the guest consumed the #PF */
			s->area_flags = 0;
			break;
		case 7:                 /* the guest took the page-ready */
			s->area_token = 0;
			break;
		case 8:
			abandon(s, &in);
			break;
		case 9:                 /* INIT */
			apf_vcpu_reset(&s->vcpu, &orphans);
			CHECK(!apf_enabled(&s->vcpu) &&
			      apf_outstanding(&s->vcpu) == 0);
			forget_all(s);
			break;
		case 10:
			delivery_fails(s);
			break;
		default:
			break;
		}
		check_counts(s);
	}
	return 0;
}
