/* SPDX-License-Identifier: BSD-2-Clause */
/* guest/devices/vlapic.c in x2APIC mode: registers and #GP rules,
 * priorities, interrupt flow, ICR/SELF IPI, IA32_APIC_BASE, TMR. The timer
 * modes are in test_vlapic_timer.c, xAPIC mode in test_vlapic_xapic.c. */
#include "tests/unit/vlapic_x2apic_fixture.h"

static void test_reset_state(void **state)
{
	struct vlapic *a = *state, b;
	static const struct { uint32_t msr; uint64_t val; } reset[] = {
		{ M(APIC_BASE), 0xfee00d00 }, { M(ID), ID },
		/* Version 0x14, max LVT 6, no EOI-broadcast suppression. */
		{ M(VERSION), 0x00060014 }, { M(SVR), 0xff },
		{ M(TPR), 0 }, { M(PPR), 0 }, { M(ESR), 0 }, { M(ICR), 0 },
		{ M(TIMER_INIT), 0 }, { M(TIMER_CUR), 0 }, { M(TIMER_DCR), 0 },
		{ M(TSC_DEADLINE), 0 }, { M(LVT_CMCI), VLAPIC_LVT_MASKED },
		/* 11.12.10.2: LDR = ID[19:4] << 16 | 1 << ID[3:0]. */
		{ M(LDR), 1u << ID },
	};

	for (unsigned i = 0; i < ARRAY_SIZE(reset); i++)
		assert_int_equal(rd(a, reset[i].msr), reset[i].val);
	for (uint32_t m = M(LVT_TIMER); m <= M(LVT_ERROR); m++)
		assert_int_equal(rd(a, m), VLAPIC_LVT_MASKED);
	for (uint32_t m = M(ISR0); m < M(IRR0) + 8; m++)
		assert_int_equal(rd(a, m), 0);
	assert_false(vlapic_sw_enabled(a));
	assert_true(vlapic_hw_enabled(a));
	assert_true(vlapic_timer_deadline(a) == UINT64_MAX);
	assert_int_equal(vlapic_pending_vector(a), -1);
	vlapic_init(&b, 0x23, false, TSC_HZ);
	assert_int_equal(rd(&b, M(APIC_BASE)), 0xfee00800);     /* xAPIC */
	x2apic_on(&b);
	assert_int_equal(rd(&b, M(LDR)), 0x20008);
	assert_true(vlapic_owns_msr(0x1b) && vlapic_owns_msr(0x6e0));
	assert_true(vlapic_owns_msr(0x800) && vlapic_owns_msr(0xbff));
	assert_false(vlapic_owns_msr(0x7ff) || vlapic_owns_msr(0xc00));
	/* The timer clock: round(tsc_hz / 25 MHz) TSC cycles a tick. */
	assert_int_equal(a->tsc_per_tick, 100);
	assert_int_equal(vlapic_timer_hz(a), 25000000);
	vlapic_init(&b, 0, true, 2893453000ull);
	assert_int_equal(b.tsc_per_tick, 116);
	assert_int_equal(vlapic_timer_hz(&b), 2893453000ull / 116);
	/* Bochs-like slow TSC: one TSC cycle per tick at least. */
	vlapic_init(&b, 0, true, 10000000);
	assert_int_equal(b.tsc_per_tick, 1);
	assert_int_equal(vlapic_timer_hz(&b), 10000000);
}

static void test_read_only_write_only_reserved(void **state)
{
	struct vlapic *a = *state;
	static const uint32_t ro[] = {
		M(ID), M(VERSION), M(PPR), M(LDR), M(TIMER_CUR),
	};
	static const uint32_t reserved[] = {
		0x800, 0x801, 0x804, 0x807, 0x809, 0x80c, 0x80e, 0x829,
		0x82e, 0x831, 0x83a, 0x83d, 0x840, 0x8ff, 0xbff,
	};

	for (unsigned i = 0; i < ARRAY_SIZE(ro); i++) {
		rd(a, ro[i]);
		wr_gp(a, ro[i], 0);
	}
	for (uint32_t m = M(ISR0); m < M(IRR0) + 8; m++)
		wr_gp(a, m, 0);
	rd_gp(a, M(EOI));
	rd_gp(a, M(SELF_IPI));
	for (unsigned i = 0; i < ARRAY_SIZE(reserved); i++) {
		rd_gp(a, reserved[i]);
		wr_gp(a, reserved[i], 0);
	}
}

static void test_reserved_bits(void **state)
{
	struct vlapic *a = *state;
	static const struct { uint32_t msr; uint64_t val; } gp[] = {
		{ M(TPR), 0x100 }, { M(TPR), 1ull << 32 }, /* 63:32 too */
		{ M(EOI), 1 }, { M(ESR), 0x40 }, { M(TIMER_INIT), 1ull << 32 },
		/* bit 12: EOI-broadcast suppression is not offered */
		{ M(SVR), 0x11ff }, { M(SVR), 0x5ff },
		{ M(TIMER_DCR), 0x4 }, { M(TIMER_DCR), 0x10 },
		{ M(LVT_TIMER), 1u << 19 }, { M(LVT_TIMER), 3u << 17 },
		{ M(LVT_TIMER), 0x400 }, { M(LVT_ERROR), 0x100 },
		{ M(LVT_THERMAL), 1u << 13 }, { M(SELF_IPI), 0x140 },
		/* ICR: 12, 13, 16, 17, 20-31 are reserved in x2APIC mode */
		{ M(ICR), 0x1040 }, { M(ICR), 0x2040 }, { M(ICR), 0x10040 },
		{ M(ICR), 0x20040 }, { M(ICR), 0x100040 },
	};
	/* Written, read back. SVR bit 9 (focus) is R/W; in LINT1, delivery
	 * status and remote IRR are read-only and dropped. */
	static const struct { uint32_t msr, val, back; } ok[] = {
		{ M(TPR), 0xff, 0xff }, { M(SVR), 0x3ff, 0x3ff },
		{ M(LVT_CMCI), 0x2f1, 0x2f1 }, { M(LVT_LINT1), 0x5030, 0x30 },
		{ M(LVT_LINT0), 0x1a7ff, 0x1a7ff },
	};

	wr(a, M(SVR), SVR_ON);
	for (unsigned i = 0; i < ARRAY_SIZE(gp); i++)
		wr_gp(a, gp[i].msr, gp[i].val);
	for (unsigned i = 0; i < ARRAY_SIZE(ok); i++) {
		wr(a, ok[i].msr, ok[i].val);
		assert_int_equal(rd(a, ok[i].msr), ok[i].back);
	}
}

static void test_apic_base(void **state)
{
	struct vlapic *a = *state;
	const uint64_t x2 = 0xfee00d00, xapic = 0xfee00900, off = 0xfee00100;

	/* Reserved bits 0, 9, 52; EN=0 with EXTD=1; x2APIC -> xAPIC. */
	const uint64_t bad[] = { x2 | 1, x2 | (1u << 9), x2 | (1ull << 52),
				 0xfee00500, xapic };

	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++)
		wr_gp(a, M(APIC_BASE), bad[i]);
	/* A bit at or above the guest's MAXPHYADDR (kvm-unit-tests apic). */
	vlapic_set_maxphyaddr(a, 40);
	wr_gp(a, M(APIC_BASE), x2 | (1ull << 40));
	wr_gp(a, M(APIC_BASE), x2 | (1ull << 51));
	wr(a, M(APIC_BASE), x2 & ~VLAPIC_BASE_BSP); /* BSP is R/W */
	wr(a, M(APIC_BASE), x2);
	wr(a, M(SVR), SVR_ON);
	wr(a, M(TPR), 0x30);
	vlapic_accept(a, 0x80);
	/* x2APIC -> disabled: allowed, and the register state is lost. */
	wr(a, M(APIC_BASE), off);
	assert_false(vlapic_hw_enabled(a));
	assert_true(vlapic_accepts_pic_interrupts(a));
	assert_int_equal(vlapic_pending_vector(a), -1);
	rd_gp(a, M(TPR));
	wr_gp(a, M(APIC_BASE), x2);     /* disabled -> x2APIC */
	wr(a, M(APIC_BASE), xapic);     /* disabled -> xAPIC */
	rd_gp(a, M(TPR));               /* no MSRs in xAPIC mode */
	wr_gp(a, M(TPR), 0);
	wr(a, M(APIC_BASE), x2);        /* xAPIC -> x2APIC */
	assert_int_equal(rd(a, M(APIC_BASE)), x2);
	assert_int_equal(rd(a, M(TPR)), 0);
	assert_int_equal(rd(a, M(SVR)), 0xff);
	assert_int_equal(rd(a, M(IRR0) + 4), 0);
	/* INIT (11.4.7.3): reset values, but ID and APIC_BASE are kept. */
	wr(a, M(SVR), SVR_ON);
	wr(a, M(TPR), 0x40);
	vlapic_accept(a, 0x90);
	vlapic_init_signal(a);
	assert_int_equal(rd(a, M(APIC_BASE)), x2);
	assert_int_equal(rd(a, M(ID)), ID);
	assert_int_equal(rd(a, M(TPR)), 0);
	assert_false(vlapic_sw_enabled(a));
	assert_int_equal(vlapic_pending_vector(a), -1);
}

static void test_sw_enable(void **state)
{
	struct vlapic *a = *state;

	/* Software-disabled: fixed interrupts are lost, the PIC passes. */
	assert_false(vlapic_accept(a, 0x50));
	assert_false(has(a, M(IRR0), 0x50));
	assert_true(vlapic_accepts_pic_interrupts(a));
	assert_int_equal(wr(a, M(SVR), 0x1ff), VLAPIC_WR_SW_ENABLED);
	assert_true(vlapic_sw_enabled(a));
	assert_false(vlapic_accepts_pic_interrupts(a)); /* LINT0 masked */
	wr(a, M(LVT_LINT0), 0x700);     /* ExtINT: virtual wire mode */
	assert_true(vlapic_accepts_pic_interrupts(a));
	wr(a, M(LVT_LINT0), 0x30);      /* fixed */
	assert_false(vlapic_accepts_pic_interrupts(a));
	assert_int_equal(wr(a, M(SVR), 0x1fe), 0);     /* no edge */
	wr(a, M(LVT_TIMER), 0x30);
	assert_true(vlapic_accept(a, 0x50));
	/* Disabling masks every LVT and keeps them masked... */
	wr(a, M(SVR), 0xff);
	assert_int_equal(rd(a, M(LVT_TIMER)), 0x10030);
	wr(a, M(LVT_LINT0), 0x700);
	assert_int_equal(rd(a, M(LVT_LINT0)), 0x10700);
	/* ...but what the IRR already holds is still delivered. */
	assert_int_equal(vlapic_pending_vector(a), 0x50);
	assert_int_equal(wr(a, M(SVR), 0x100), VLAPIC_WR_SW_ENABLED);
}

static void test_illegal_vectors_and_esr(void **state)
{
	struct vlapic *a = *state;

	wr(a, M(SVR), SVR_ON);
	assert_false(vlapic_accept(a, 15));
	/* Logged errors show only after the next ESR write. */
	assert_int_equal(rd(a, M(ESR)), 0);
	assert_int_equal(esr(a), VLAPIC_ESR_RECV_ILLEGAL);
	assert_int_equal(esr(a), 0);
	assert_true(vlapic_accept(a, 16));
	/* SELF IPI: fixed, to this APIC, no IPI for the caller to route. */
	assert_int_equal(wr(a, M(SELF_IPI), 0x55), 0);
	assert_int_equal(vlapic_pending_vector(a), 0x55);
	wr(a, M(SELF_IPI), 0x03);
	assert_int_equal(esr(a), VLAPIC_ESR_RECV_ILLEGAL);
	/* An unmasked LVT error entry signals errors. */
	wr(a, M(LVT_ERROR), 0xfe);
	vlapic_accept(a, 2);
	assert_true(has(a, M(IRR0), 0xfe));
	/* An illegal vector in it is only logged, not signalled. */
	wr(a, M(LVT_ERROR), 0x03);
	esr(a);
	wr(a, M(SELF_IPI), 0x01);
	assert_int_equal(esr(a), VLAPIC_ESR_RECV_ILLEGAL);
	assert_int_equal(rd(a, M(IRR0)), 1u << 16);
}

static void test_priorities(void **state)
{
	struct vlapic *a = *state;

	wr(a, M(SVR), SVR_ON);
	wr(a, M(TPR), 0x20);
	assert_int_equal(rd(a, M(PPR)), 0x20);
	vlapic_accept(a, 0x25);
	assert_int_equal(vlapic_pending_vector(a), -1); /* class 2 <= 2 */
	vlapic_accept(a, 0x31);
	assert_int_equal(vlapic_pending_vector(a), 0x31);
	wr(a, M(TPR), 0x35);
	assert_int_equal(vlapic_pending_vector(a), -1);
	wr(a, M(TPR), 0);
	vlapic_ack(a, 0x31);
	assert_int_equal(rd(a, M(PPR)), 0x30);  /* ISR class */
	assert_int_equal(vlapic_pending_vector(a), -1);
	wr(a, M(TPR), 0x2f);            /* TPR class below ISR's */
	assert_int_equal(rd(a, M(PPR)), 0x30);
	wr(a, M(TPR), 0x3a);            /* equal class: TPR wins */
	assert_int_equal(rd(a, M(PPR)), 0x3a);
	wr(a, M(TPR), 0);
	wr(a, M(EOI), 0);
	assert_int_equal(rd(a, M(PPR)), 0);
	assert_int_equal(vlapic_pending_vector(a), 0x25);
}

static void test_nested_interrupts(void **state)
{
	struct vlapic *a = *state;

	wr(a, M(SVR), SVR_ON);
	vlapic_accept(a, 0x41);
	vlapic_accept(a, 0x4f);
	assert_int_equal(vlapic_pending_vector(a), 0x4f);
	vlapic_ack(a, 0x4f);
	assert_true(has(a, M(ISR0), 0x4f));
	assert_false(has(a, M(IRR0), 0x4f));
	assert_int_equal(vlapic_pending_vector(a), -1); /* same class */
	vlapic_accept(a, 0x80);                 /* higher class nests */
	assert_int_equal(vlapic_pending_vector(a), 0x80);
	vlapic_ack(a, 0x80);
	assert_int_equal(rd(a, M(ISR0) + 4), 1);
	assert_int_equal(rd(a, M(PPR)), 0x80);
	vlapic_accept(a, 0x45);
	assert_int_equal(vlapic_pending_vector(a), -1);
	/* EOI retires the highest in-service vector first. */
	wr(a, M(EOI), 0);
	assert_false(has(a, M(ISR0), 0x80));
	assert_true(has(a, M(ISR0), 0x4f));
	assert_int_equal(vlapic_pending_vector(a), -1);
	wr(a, M(EOI), 0);
	assert_int_equal(vlapic_pending_vector(a), 0x45);
	ack_and_eoi(a, 0x45);
	assert_int_equal(vlapic_pending_vector(a), 0x41);
	ack_and_eoi(a, 0x41);
	wr(a, M(EOI), 0);               /* nothing in service */
	assert_int_equal(vlapic_pending_vector(a), -1);
}

/* One ICR write; returns whether an IPI came out, in *ipi. */
static bool send(struct vlapic *a, uint64_t icr, struct vlapic_ipi *ipi)
{
	return vlapic_wrmsr(a, M(ICR), icr, now, ipi) == VLAPIC_WR_IPI;
}

/* Sends icr from a: -1 if no IPI, else a as bit 4, b[0..3] as bits 0-3. */
static int reach(struct vlapic *a, const struct vlapic *b, uint64_t icr)
{
	struct vlapic_ipi ipi;
	int mask;

	if (!send(a, icr, &ipi))
		return -1;
	mask = vlapic_ipi_targets(a, &ipi) ? 0x10 : 0;
	for (unsigned i = 0; i < 4; i++)
		mask |= vlapic_ipi_targets(&b[i], &ipi) << i;
	return mask;
}

static void test_icr_destinations(void **state)
{
	struct vlapic *a = *state, b[4];
	const uint32_t ids[4] = { 1, 0x10, 0x11, 0x12 };
	struct vlapic_ipi ipi;

	for (unsigned i = 0; i < 4; i++) {
		vlapic_init(&b[i], ids[i], false, TSC_HZ);
		x2apic_on(&b[i]);
	}
	assert_true(send(a, (1ull << 32) | 0x40, &ipi));
	assert_int_equal(ipi.mode, VLAPIC_IPI_FIXED);
	assert_int_equal(ipi.vector, 0x40);
	assert_int_equal(ipi.dest, 1);
	assert_false(ipi.logical);
	assert_int_equal(ipi.shorthand, VLAPIC_DEST_FIELD);
	assert_int_equal(ipi.source, ID);
	assert_int_equal(rd(a, M(ICR)), (1ull << 32) | 0x40);
	assert_int_equal(reach(a, b, (1ull << 32) | 0x40), 0x01);
	/* Logical: cluster 1, members 0 and 1 (IDs 0x10, 0x11; not 1). */
	assert_int_equal(reach(a, b, (0x10003ull << 32) | 0x841), 0x06);
	/* FFFF_FFFFH broadcasts in both modes. */
	assert_int_equal(reach(a, b, (~0ull << 32) | 0x800 | 0x42), 0x1f);
	assert_int_equal(reach(a, b, (~0ull << 32) | 0x42), 0x1f);
	/* Shorthands (the destination field is ignored). */
	assert_int_equal(reach(a, b, (7ull << 32) | (1u << 18) | 0x43), 0x10);
	assert_int_equal(reach(a, b, (7ull << 32) | (2u << 18) | 0x44), 0x1f);
	assert_int_equal(reach(a, b, (7ull << 32) | (3u << 18) | 0x45), 0x0f);
}

static void test_icr_delivery_modes(void **state)
{
	struct vlapic *a = *state;
	struct vlapic_ipi ipi;
	static const uint64_t dropped[] = {
		(7ull << 32) | 0x8500,                  /* INIT de-assert */
		(1u << 18) | 0x400, (2u << 18) | 0x500, /* self, all: fixed */
		(7ull << 32) | 0x200, (7ull << 32) | 0x340, /* SMI, reserved */
	};

	wr(a, M(SVR), SVR_ON);
	assert_true(send(a, (7ull << 32) | 0x400, &ipi));
	assert_int_equal(ipi.mode, VLAPIC_IPI_NMI);
	/* Linux's AP start: INIT assert, INIT de-assert (dropped), SIPI. */
	assert_true(send(a, (7ull << 32) | 0xc500, &ipi));
	assert_int_equal(ipi.mode, VLAPIC_IPI_INIT);
	assert_true(send(a, (7ull << 32) | 0x69a, &ipi));
	assert_int_equal(ipi.mode, VLAPIC_IPI_SIPI);
	assert_int_equal(ipi.vector, 0x9a);
	assert_true(send(a, (3u << 18) | 0x500, &ipi)); /* all-but-self INIT */
	for (unsigned i = 0; i < ARRAY_SIZE(dropped); i++)
		assert_false(send(a, dropped[i], &ipi));
	assert_int_equal(esr(a), 0);
	/* Illegal fixed vector: "send illegal vector", nothing sent. */
	assert_false(send(a, (7ull << 32) | 0x0f, &ipi));
	assert_int_equal(esr(a), VLAPIC_ESR_SEND_ILLEGAL);
	/* Lowest priority: "redirectable IPI" only, even with vector 5. */
	assert_false(send(a, (7ull << 32) | 0x140, &ipi));
	assert_int_equal(esr(a), VLAPIC_ESR_REDIRECTABLE_IPI);
	assert_false(send(a, (7ull << 32) | 0x105, &ipi));
	assert_int_equal(esr(a), VLAPIC_ESR_REDIRECTABLE_IPI);
	/* No place to put it: still reported, caller chose not to look. */
	assert_int_equal(vlapic_wrmsr(a, M(ICR), 0x40, now, NULL),
			 VLAPIC_WR_IPI);
}

/* CR8 is TPR[7:4] both ways; bits 63:4 of a CR8 write are refused. */
static void test_cr8_is_the_tpr_class(void **state)
{
	struct vlapic *a = *state;

	assert_true(vlapic_write_cr8(a, 0xf));
	assert_int_equal(rd(a, VLAPIC_MSR_TPR), 0xf0);
	wr(a, VLAPIC_MSR_TPR, 0x5a);
	assert_int_equal(vlapic_read_cr8(a), 5);
	assert_false(vlapic_write_cr8(a, 0x10));
	assert_false(vlapic_write_cr8(a, 1ull << 63));
	assert_int_equal(vlapic_read_cr8(a), 5);
	assert_true(vlapic_write_cr8(a, 0));
	assert_int_equal(rd(a, VLAPIC_MSR_TPR), 0);
}

/*
 * SDM 11.8.4: the TMR bit follows the trigger mode of the vector's last
 * acceptance; an EOI sends the EOI message for a level one and leaves the
 * bit (kvm-unit-tests' ioapic test reads it before and in the handler).
 */
static void test_tmr_follows_acceptance(void **state)
{
	struct vlapic *a = *state;

	wr(a, M(SVR), SVR_ON);
	assert_false(has(a, M(TMR0), 0x79));
	assert_true(vlapic_accept_level(a, 0x79));
	assert_true(has(a, M(TMR0), 0x79));
	vlapic_ack(a, 0x79);
	assert_true(has(a, M(TMR0), 0x79));     /* in the handler */
	assert_int_equal(wr(a, M(EOI), 0), VLAPIC_WR_LEVEL_EOI);
	assert_int_equal(a->level_eoi_vector, 0x79);
	assert_true(has(a, M(TMR0), 0x79));     /* still, after the EOI */
	assert_true(vlapic_accept(a, 0x79));    /* edge: cleared */
	assert_false(has(a, M(TMR0), 0x79));
	vlapic_ack(a, 0x79);
	assert_int_equal(wr(a, M(EOI), 0), 0);  /* no EOI message */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_reset_state),
		T(test_cr8_is_the_tpr_class),
		T(test_read_only_write_only_reserved),
		T(test_reserved_bits),
		T(test_apic_base),
		T(test_sw_enable),
		T(test_illegal_vectors_and_esr),
		T(test_priorities),
		T(test_nested_interrupts),
		T(test_icr_destinations),
		T(test_icr_delivery_modes),
		T(test_tmr_follows_acceptance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
