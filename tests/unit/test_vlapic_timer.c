/* SPDX-License-Identifier: BSD-2-Clause */
/* guest/devices/vlapic_timer.c: one-shot, periodic and TSC-deadline modes
 * and the divide register, at given TSC values (x2APIC mode). */
#include "tests/unit/vlapic_x2apic_fixture.h"

static void test_timer_one_shot(void **state)
{
	struct vlapic *a = *state;
	/* The count after so many TSC cycles: one less every 100. */
	static const struct { uint64_t after; uint32_t count; } cur[] = {
		{ 0, 1000 }, { 50, 1000 }, { 100, 999 }, { 99999, 1 },
		{ 100000, 0 },
	};

	wr(a, M(SVR), SVR_ON);
	wr(a, M(LVT_TIMER), TIMER_VEC);
	wr(a, M(TIMER_DCR), DCR_DIV1);
	wr(a, M(TIMER_INIT), 1000);     /* 1000 ticks of 100 TSC */
	assert_int_equal(vlapic_timer_deadline(a), 1100000);
	for (unsigned i = 0; i < ARRAY_SIZE(cur); i++) {
		now = 1000000 + cur[i].after;
		assert_int_equal(rd(a, M(TIMER_CUR)), cur[i].count);
	}
	vlapic_timer_check(a, 1099999);
	assert_false(has(a, M(IRR0), TIMER_VEC));
	vlapic_timer_check(a, 1100000);
	assert_true(has(a, M(IRR0), TIMER_VEC));
	assert_true(vlapic_timer_deadline(a) == UINT64_MAX);
	assert_int_equal(rd(a, M(TIMER_INIT)), 1000);
	/* Writing 0 stops an armed timer. */
	wr(a, M(TIMER_INIT), 5);
	assert_int_equal(vlapic_timer_deadline(a), now + 500);
	wr(a, M(TIMER_INIT), 0);
	assert_true(vlapic_timer_deadline(a) == UINT64_MAX);
	/* A write after an unprocessed expiry must not swallow it. */
	vlapic_ack(a, TIMER_VEC);
	wr(a, M(TIMER_INIT), 10);
	now += 5000;
	wr(a, M(LVT_TIMER), LVT_PERIODIC | TIMER_VEC);
	assert_true(has(a, M(IRR0), TIMER_VEC));
}

static void test_timer_divide(void **state)
{
	struct vlapic *a = *state;
	static const struct { uint32_t dcr, div; } table[] = {
		{ 0x0, 2 }, { 0x1, 4 }, { 0x2, 8 }, { 0x3, 16 },
		{ 0x8, 32 }, { 0x9, 64 }, { 0xa, 128 }, { 0xb, 1 },
	};

	for (unsigned i = 0; i < ARRAY_SIZE(table); i++) {
		wr(a, M(TIMER_DCR), table[i].dcr);
		wr(a, M(TIMER_INIT), 10);
		assert_int_equal(vlapic_timer_deadline(a),
				 now + 10ull * table[i].div * 100);
	}
	/* A new divisor applies to what is left: 500 counts, now at /2. */
	wr(a, M(TIMER_DCR), DCR_DIV1);
	wr(a, M(TIMER_INIT), 1000);
	now += 50000;
	wr(a, M(TIMER_DCR), 0x0);
	assert_int_equal(rd(a, M(TIMER_CUR)), 500);
	assert_int_equal(vlapic_timer_deadline(a), now + 100000);
}

static void test_timer_periodic(void **state)
{
	struct vlapic *a = *state;

	wr(a, M(SVR), SVR_ON);
	wr(a, M(LVT_TIMER), LVT_PERIODIC | TIMER_VEC);
	wr(a, M(TIMER_DCR), DCR_DIV1);
	wr(a, M(TIMER_INIT), 10000);    /* period 1000000 (400 us) */
	assert_int_equal(vlapic_timer_deadline(a), 2000000);
	/* Checked late: the next period still starts at the expiry. */
	vlapic_timer_check(a, 2000050);
	assert_int_equal(vlapic_pending_vector(a), TIMER_VEC);
	assert_int_equal(vlapic_timer_deadline(a), 3000000);
	ack_and_eoi(a, TIMER_VEC);
	/* A missed period coalesces into one interrupt; still no drift. */
	now = 4500000;
	assert_int_equal(rd(a, M(TIMER_CUR)), 5000);    /* reloaded */
	vlapic_timer_check(a, now);
	assert_true(has(a, M(IRR0), TIMER_VEC));
	assert_int_equal(vlapic_timer_deadline(a), 5000000);
	assert_int_equal(rd(a, M(TIMER_CUR)), 5000);
	now = 5000000;
	assert_int_equal(rd(a, M(TIMER_CUR)), 10000);
	/*
	 * Periodic -> one-shot: the count goes on where it was, as under KVM
	 * (kvm-unit-tests apic); into TSC-deadline mode the timer stops and
	 * the initial count reads 0.
	 */
	now = 4600000;
	wr(a, M(LVT_TIMER), TIMER_VEC);
	assert_int_equal(vlapic_timer_deadline(a), 5000000);
	assert_int_equal(rd(a, M(TIMER_CUR)), 4000);
	wr(a, M(LVT_TIMER), LVT_PERIODIC | TIMER_VEC);
	assert_int_equal(rd(a, M(TIMER_CUR)), 4000);
	wr(a, M(LVT_TIMER), (2u << VLAPIC_TIMER_MODE_SHIFT) | TIMER_VEC);
	assert_true(vlapic_timer_deadline(a) == UINT64_MAX);
	assert_int_equal(rd(a, M(TIMER_INIT)), 0);
	now = 5000000;
	/* Masked, it still counts and reloads, without interrupts. */
	ack_and_eoi(a, TIMER_VEC);
	wr(a, M(LVT_TIMER), VLAPIC_LVT_MASKED | LVT_PERIODIC | TIMER_VEC);
	wr(a, M(TIMER_INIT), 5000);     /* period 500000, the minimum */
	vlapic_timer_check(a, now + 500000);
	assert_false(has(a, M(IRR0), TIMER_VEC));
	assert_int_equal(vlapic_timer_deadline(a), now + 1000000);
	wr(a, M(LVT_TIMER), LVT_PERIODIC | TIMER_VEC);
	vlapic_timer_check(a, now + 1000000);
	assert_true(has(a, M(IRR0), TIMER_VEC));
	assert_int_equal(a->periods_raised, 0);
}

/* A period of one count is raised to 200 us (KVM's minimum). */
static void test_timer_periodic_minimum(void **state)
{
	struct vlapic *a = *state;
	uint64_t min = 2500000000ull / 5000;    /* 200 us at 2.5 GHz */

	wr(a, M(SVR), SVR_ON);
	wr(a, M(LVT_TIMER), LVT_PERIODIC | TIMER_VEC);
	wr(a, M(TIMER_DCR), DCR_DIV1);
	wr(a, M(TIMER_INIT), 1);
	assert_int_equal(vlapic_timer_deadline(a), now + min);
	assert_int_equal(a->periods_raised, 1);
	assert_true(rd(a, M(TIMER_CUR)) <= 1);
	vlapic_timer_check(a, now + min);
	assert_int_equal(vlapic_pending_vector(a), TIMER_VEC);
	assert_int_equal(vlapic_timer_deadline(a), now + 2 * min);
	/* A one-shot timer keeps its count: it fires once. */
	wr(a, M(LVT_TIMER), TIMER_VEC);
	wr(a, M(TIMER_INIT), 1);
	assert_int_equal(vlapic_timer_deadline(a), now + 100);
	/*
	 * Back to periodic with the count of 1 still there: raised again
	 * (KVM's limit_periodic_timer_frequency on a mode change). A period
	 * at the minimum or above is left alone.
	 */
	wr(a, M(LVT_TIMER), LVT_PERIODIC | TIMER_VEC);
	assert_int_equal(a->periods_raised, 2);
	wr(a, M(TIMER_INIT), 5000);
	assert_int_equal(vlapic_timer_deadline(a), now + min);
	assert_int_equal(a->periods_raised, 2);
}

static void test_timer_tsc_deadline(void **state)
{
	struct vlapic *a = *state;

	wr(a, M(SVR), SVR_ON);
	/* Outside TSC-deadline mode the MSR reads 0 and ignores writes. */
	wr(a, M(TSC_DEADLINE), 5000000);
	assert_int_equal(rd(a, M(TSC_DEADLINE)), 0);
	wr(a, M(LVT_TIMER), LVT_DEADLINE | TIMER_VEC);
	wr(a, M(TSC_DEADLINE), 5000000);
	assert_int_equal(rd(a, M(TSC_DEADLINE)), 5000000);
	assert_int_equal(vlapic_timer_deadline(a), 5000000);
	/* Initial-count writes are ignored; the current count reads 0. */
	wr(a, M(TIMER_INIT), 1000);
	assert_int_equal(rd(a, M(TIMER_INIT)), 0);
	assert_int_equal(rd(a, M(TIMER_CUR)), 0);
	vlapic_timer_check(a, 4999999);
	assert_false(has(a, M(IRR0), TIMER_VEC));
	vlapic_timer_check(a, 5000000);
	assert_true(has(a, M(IRR0), TIMER_VEC));
	assert_int_equal(rd(a, M(TSC_DEADLINE)), 0);
	assert_true(vlapic_timer_deadline(a) == UINT64_MAX);
	ack_and_eoi(a, TIMER_VEC);
	/* A deadline already past fires within the write. */
	wr(a, M(TSC_DEADLINE), now - 1);
	assert_true(has(a, M(IRR0), TIMER_VEC));
	assert_int_equal(rd(a, M(TSC_DEADLINE)), 0);
	/* 0 disarms; a mode change disarms and clears the MSR. */
	wr(a, M(TSC_DEADLINE), now + 10);
	wr(a, M(TSC_DEADLINE), 0);
	assert_true(vlapic_timer_deadline(a) == UINT64_MAX);
	wr(a, M(TSC_DEADLINE), now + 10);
	wr(a, M(LVT_TIMER), TIMER_VEC);
	wr(a, M(LVT_TIMER), LVT_DEADLINE | TIMER_VEC);
	assert_int_equal(rd(a, M(TSC_DEADLINE)), 0);
	assert_true(vlapic_timer_deadline(a) == UINT64_MAX);
	/* Masked: disarms and clears, but no interrupt. */
	wr(a, M(LVT_TIMER), VLAPIC_LVT_MASKED | LVT_DEADLINE | 0x21);
	wr(a, M(TSC_DEADLINE), now + 10);
	vlapic_timer_check(a, now + 10);
	assert_false(has(a, M(IRR0), 0x21));
	assert_int_equal(rd(a, M(TSC_DEADLINE)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_timer_one_shot),
		T(test_timer_divide),
		T(test_timer_periodic),
		T(test_timer_periodic_minimum),
		T(test_timer_tsc_deadline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
