/* SPDX-License-Identifier: BSD-2-Clause */
/* What tests/unit/test_apf*.c share: a guest, its MSR writes, its faults. */
#ifndef TESTS_UNIT_APF_TEST_H
#define TESTS_UNIT_APF_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "apf/apf.h"

#define RAM MiB(64)
#define AREA 0x12340ull                 /* 64-byte aligned, inside RAM */
#define VECTOR 0xf3u
#define EN_ON (AREA | KVM_ASYNC_PF_ENABLED | KVM_ASYNC_PF_DELIVERY_AS_INT)

static const struct apf_msr_env env = {
	.kvm_features = KVM_FEATURE_ASYNC_PF | KVM_FEATURE_ASYNC_PF_INT,
	.guest_ram = { .low_size = RAM },
};

static inline struct apf_vcpu *new_vcpu(uint32_t id)
{
	struct apf_vcpu *v = malloc(sizeof(*v));

	assert_non_null(v);
	apf_vcpu_init(v, id);
	return v;
}

static inline enum apf_msr_result wr(struct apf_vcpu *v, uint32_t msr, uint64_t val)
{
	struct apf_msr_effect effect;

	return apf_wrmsr(v, &env, msr, val, &effect);
}

static inline uint64_t rd(const struct apf_vcpu *v, uint32_t msr)
{
	uint64_t val = 0xdeadbeef;

	assert_int_equal(apf_rdmsr(v, &env, msr, &val), APF_MSR_OK);
	return val;
}

/* A user-mode guest with interrupts on and nothing in flight. */
static inline struct apf_guest_state user_state(void)
{
	return (struct apf_guest_state){ .interrupts_enabled = true,
					 .paging = true, .cpl = 3 };
}

static const struct apf_ready_state slot_free = { .paging = true,
						   .lapic_enabled = true };

/* Enabled as Linux does it (INT first), the initial "wake all" taken. */
static inline struct apf_vcpu *enabled_vcpu(uint32_t id)
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

static inline uint32_t send(struct apf_vcpu *v, uint64_t gpa, uint64_t tsc)
{
	struct apf_guest_state g = user_state();
	uint32_t token = 0;

	assert_int_equal(apf_not_present(v, &g, gpa, tsc, &token),
			 APF_DELIVER);
	return token;
}

#endif
