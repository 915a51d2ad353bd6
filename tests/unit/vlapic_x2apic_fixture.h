/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fixture of the x2APIC-mode vLAPIC tests (test_vlapic.c,
 * test_vlapic_timer.c): one software-visible LAPIC in x2APIC mode at a
 * given TSC value, and the MSR accessors that assert the access is legal.
 */
#ifndef TESTS_UNIT_VLAPIC_X2APIC_FIXTURE_H
#define TESTS_UNIT_VLAPIC_X2APIC_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "guest/devices/vlapic.h"

/* 2.5 GHz TSC: 100 TSC cycles per 25 MHz timer tick. */
#define TSC_HZ 2500000000ull
#define ID 5
#define TIMER_VEC 0xec
#define LVT_PERIODIC (1u << 17)
#define LVT_DEADLINE (2u << 17)
#define DCR_DIV1 0xb
#define SVR_ON 0x1ff   /* software-enabled, spurious vector 0xff */
#define M(reg) VLAPIC_MSR_##reg

static uint64_t now;   /* the TSC the tests give the LAPIC */

/* What a guest does first to use the MSRs: xAPIC -> x2APIC (11.12.1). */
static inline void x2apic_on(struct vlapic *a)
{
	assert_int_equal(vlapic_wrmsr(a, M(APIC_BASE), a->apic_base |
				      VLAPIC_BASE_EXTD, now, NULL), 0);
}

/* These tests are of x2APIC mode; test_vlapic_xapic.c has xAPIC mode's. */
static inline int setup(void **state)
{
	struct vlapic *a = malloc(sizeof(*a));

	if (!a)
		return -1;
	/* Garbage, so that anything vlapic_init forgets shows. */
	memset(a, 0xa5, sizeof(*a));
	vlapic_init(a, ID, true, TSC_HZ);
	now = 1000000;
	x2apic_on(a);
	*state = a;
	return 0;
}

static inline int teardown(void **state)
{
	free(*state);
	return 0;
}

static inline uint64_t rd(struct vlapic *a, uint32_t msr)
{
	uint64_t v = 0xdead;

	assert_int_equal(vlapic_rdmsr(a, msr, now, &v), 0);
	return v;
}

static inline int wr(struct vlapic *a, uint32_t msr, uint64_t val)
{
	int r = vlapic_wrmsr(a, msr, val, now, NULL);

	assert_true(r >= 0);
	return r;
}

static inline void rd_gp(struct vlapic *a, uint32_t msr)
{
	assert_int_equal(vlapic_rdmsr(a, msr, now, &(uint64_t){ 0 }),
			 VLAPIC_GP);
}

static inline void wr_gp(struct vlapic *a, uint32_t msr, uint64_t val)
{
	assert_int_equal(vlapic_wrmsr(a, msr, val, now, NULL), VLAPIC_GP);
}

static inline bool has(struct vlapic *a, uint32_t reg0, unsigned v)
{
	return rd(a, reg0 + v / 32) & (1u << (v % 32));
}

static inline void ack_and_eoi(struct vlapic *a, uint8_t v)
{
	vlapic_ack(a, v);
	wr(a, M(EOI), 0);
}

/* Reads ESR the way Linux does: write 0 first, then read. */
static inline uint64_t esr(struct vlapic *a)
{
	wr(a, M(ESR), 0);
	return rd(a, M(ESR));
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

#endif
