/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/devices/vlapic.c and guest/devices/vlapic_mmio.c in xAPIC mode: the reset state,
 * the register page's layout and access sizes, reserved bits dropped
 * instead of faulting, LDR/DFR logical destinations, the ICR with its
 * destination in ICR high, the x2APIC mode transitions and their #GP
 * cases, and the relocation of the page through IA32_APIC_BASE.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "guest/devices/vlapic.h"
#include "guest/devices/vlapic_mmio.h"

#define TSC_HZ 2500000000ull
#define APIC_ID 3
#define SVR_ON 0x1ff
#define XAPIC_BSP 0xfee00900ull         /* base, EN, BSP */
#define X2APIC_BSP 0xfee00d00ull        /* and EXTD */
#define OFS(reg) (VLAPIC_REG(reg) * 16u)
#define OFS_DFR (VLAPIC_REG_DFR * 16u)
#define OFS_ICR_HIGH (VLAPIC_REG_ICR_HIGH * 16u)

static struct vlapic apic;
static uint64_t now = 1000000;

static int setup(void **state)
{
	(void)state;
	memset(&apic, 0xa5, sizeof(apic));
	vlapic_init(&apic, APIC_ID, true, TSC_HZ);
	return 0;
}

static uint32_t rd(struct vlapic *a, uint32_t offset)
{
	return (uint32_t)vlapic_mmio_read(a, offset, 4, now);
}

static int wr(struct vlapic *a, uint32_t offset, uint32_t val,
	      struct vlapic_ipi *ipi)
{
	return vlapic_mmio_write(a, offset, 4, val, now, ipi);
}

static int wrmsr(struct vlapic *a, uint32_t msr, uint64_t val)
{
	return vlapic_wrmsr(a, msr, val, now, NULL);
}

static void reset_state_is_xapic_at_fee00000(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(vlapic_rdmsr(&apic, VLAPIC_MSR_APIC_BASE, now, &v),
			 0);
	assert_int_equal(v, XAPIC_BSP);
	assert_true(vlapic_xapic_mode(&apic));
	assert_false(vlapic_x2apic_mode(&apic));
	assert_true(vlapic_mmio_owns(&apic, 0xfee00000));
	assert_true(vlapic_mmio_owns(&apic, 0xfee00fff));
	assert_false(vlapic_mmio_owns(&apic, 0xfee01000));
	assert_false(vlapic_mmio_owns(&apic, 0xfedfffff));
	/* 11.4.6: ID in bits 31:24; version 0x14 with 7 LVT entries. */
	assert_int_equal(rd(&apic, OFS(ID)), APIC_ID << 24);
	assert_int_equal(rd(&apic, OFS(VERSION)), 0x00060014);
	assert_int_equal(rd(&apic, OFS(SVR)), 0xff);
	assert_int_equal(rd(&apic, OFS(LDR)), 0);
	assert_int_equal(rd(&apic, OFS_DFR), 0xffffffff);
	assert_int_equal(rd(&apic, OFS(LVT_TIMER)), VLAPIC_LVT_MASKED);
	/* The x2APIC MSRs fault in xAPIC mode (11.12.1.2). */
	assert_int_equal(vlapic_rdmsr(&apic, VLAPIC_MSR_ID, now, &v),
			 VLAPIC_GP);
	assert_int_equal(wrmsr(&apic, VLAPIC_MSR_EOI, 0), VLAPIC_GP);
}

static void registers_and_access_sizes(void **state)
{
	(void)state;
	wr(&apic, OFS(SVR), SVR_ON, NULL);
	wr(&apic, OFS(TPR), 0x20, NULL);
	assert_int_equal(rd(&apic, OFS(TPR)), 0x20);
	assert_int_equal(rd(&apic, OFS(PPR)), 0x20);
	assert_int_equal(vlapic_read_cr8(&apic), 2);
	/* Reserved bits are dropped, not faulted: nothing can fault here. */
	wr(&apic, OFS(TPR), 0x1ff, NULL);
	assert_int_equal(rd(&apic, OFS(TPR)), 0xff);
	wr(&apic, OFS(SVR), 0xffff11ff, NULL);
	assert_int_equal(rd(&apic, OFS(SVR)), 0x1ff);
	wr(&apic, OFS(LVT_LINT0), 0xffffffff, NULL);
	assert_int_equal(rd(&apic, OFS(LVT_LINT0)), 0x1a7ff);
	wr(&apic, OFS(TPR), 0, NULL);
	/* Byte and word loads see the register's bytes; bytes 4-15 of a
	 * slot and write-only or reserved registers read 0. */
	assert_int_equal(vlapic_mmio_read(&apic, OFS(VERSION) + 2, 1, now),
			 6);
	assert_int_equal(vlapic_mmio_read(&apic, OFS(ID) + 2, 2, now),
			 APIC_ID << 8);
	assert_int_equal(vlapic_mmio_read(&apic, OFS(VERSION), 8, now),
			 0x00060014);
	assert_int_equal(rd(&apic, OFS(VERSION) + 4), 0);
	assert_int_equal(rd(&apic, OFS(EOI)), 0);
	assert_int_equal(rd(&apic, 0x3f0), 0);  /* SELF IPI: x2APIC only */
	assert_int_equal(rd(&apic, 0xff0), 0);
	/* Only aligned 32-bit stores reach a register (11.4.1). */
	vlapic_mmio_write(&apic, OFS(TPR), 1, 0x40, now, NULL);
	vlapic_mmio_write(&apic, OFS(TPR) + 4, 4, 0x40, now, NULL);
	assert_int_equal(rd(&apic, OFS(TPR)), 0);
	/* Read-only registers ignore stores; the ID keeps its value. */
	wr(&apic, OFS(ID), 7u << 24, NULL);
	wr(&apic, OFS(VERSION), 0, NULL);
	assert_int_equal(rd(&apic, OFS(ID)), APIC_ID << 24);
	assert_int_equal(rd(&apic, OFS(VERSION)), 0x00060014);
}

static void interrupts_eoi_and_esr(void **state)
{
	(void)state;
	wr(&apic, OFS(SVR), SVR_ON, NULL);
	assert_true(vlapic_accept(&apic, 0x41));
	assert_int_equal(rd(&apic, OFS(IRR0) + 0x20), 1u << 1); /* 0x41 */
	assert_int_equal(vlapic_pending_vector(&apic), 0x41);
	vlapic_ack(&apic, 0x41);
	assert_int_equal(rd(&apic, OFS(ISR0) + 0x20), 1u << 1);
	/* Any value written to EOI ends the interrupt in xAPIC mode. */
	assert_int_equal(wr(&apic, OFS(EOI), 0x1234, NULL), 0);
	assert_int_equal(rd(&apic, OFS(ISR0) + 0x20), 0);
	/* An illegal vector sent shows in ESR after a write of any value. */
	wr(&apic, OFS(ICR), 0x0000000f, NULL);
	wr(&apic, OFS(ESR), 0xffffffff, NULL);
	assert_int_equal(rd(&apic, OFS(ESR)), VLAPIC_ESR_SEND_ILLEGAL);
}

static void timer_periodic_through_the_page(void **state)
{
	(void)state;
	wr(&apic, OFS(SVR), SVR_ON, NULL);
	wr(&apic, OFS(TIMER_DCR), 0xb, NULL);           /* divide by 1 */
	wr(&apic, OFS(LVT_TIMER), (1u << 17) | 0xec, NULL);
	wr(&apic, OFS(TIMER_INIT), 100000, NULL);       /* 4 ms at 25 MHz */
	assert_int_equal(rd(&apic, OFS(TIMER_INIT)), 100000);
	assert_int_equal(rd(&apic, OFS(TIMER_CUR)), 100000);
	now += 100 * 50000;                             /* half a period */
	assert_int_equal(rd(&apic, OFS(TIMER_CUR)), 50000);
	now += 100 * 50000;
	vlapic_timer_check(&apic, now);
	assert_int_equal(vlapic_pending_vector(&apic), 0xec);
	assert_int_equal(rd(&apic, OFS(TIMER_CUR)), 100000);
}

static void icr_sends_to_icr_high_destination(void **state)
{
	struct vlapic_ipi ipi;

	(void)state;
	wr(&apic, OFS(SVR), SVR_ON, NULL);
	/* A write to ICR high sends nothing; the low write sends. */
	assert_int_equal(wr(&apic, OFS_ICR_HIGH, 0x01abcdef, &ipi), 0);
	assert_int_equal(rd(&apic, OFS_ICR_HIGH), 0x01000000);
	assert_int_equal(wr(&apic, OFS(ICR), 0x4041, &ipi), VLAPIC_WR_IPI);
	assert_int_equal(ipi.mode, VLAPIC_IPI_FIXED);
	assert_int_equal(ipi.vector, 0x41);
	assert_int_equal(ipi.dest, 1);
	assert_false(ipi.logical);
	assert_int_equal(ipi.source, APIC_ID);
	/* Delivery status (bit 12) reads idle; reserved bits are dropped. */
	assert_int_equal(rd(&apic, OFS(ICR)), 0x4041);
	wr(&apic, OFS(ICR), 0xfffff041, &ipi);
	assert_int_equal(rd(&apic, OFS(ICR)), 0x000cc041);
	assert_int_equal(ipi.shorthand, VLAPIC_DEST_ALL_BUT_SELF);
	/* INIT, SIPI (vector = start page), NMI; 0xff broadcasts. */
	wr(&apic, OFS_ICR_HIGH, 0xff000000, NULL);
	assert_int_equal(wr(&apic, OFS(ICR), 0x4500, &ipi), VLAPIC_WR_IPI);
	assert_int_equal(ipi.mode, VLAPIC_IPI_INIT);
	assert_int_equal(ipi.dest, VLAPIC_BROADCAST_ID);
	wr(&apic, OFS_ICR_HIGH, 0x01000000, NULL);
	assert_int_equal(wr(&apic, OFS(ICR), 0x8500, &ipi), 0); /* deassert */
	assert_int_equal(wr(&apic, OFS(ICR), 0x4608, &ipi), VLAPIC_WR_IPI);
	assert_int_equal(ipi.mode, VLAPIC_IPI_SIPI);
	assert_int_equal(ipi.vector, 0x08);
	assert_int_equal(ipi.dest, 1);
	wr(&apic, OFS(ICR), 0x4400, &ipi);
	assert_int_equal(ipi.mode, VLAPIC_IPI_NMI);
	/* Self shorthand, fixed; lowest priority is delivered in xAPIC. */
	wr(&apic, OFS(ICR), 0x44051, &ipi);
	assert_int_equal(ipi.shorthand, VLAPIC_DEST_SELF);
	assert_true(vlapic_ipi_targets(&apic, &ipi));
	assert_int_equal(wr(&apic, OFS(ICR), 0x4151, &ipi), VLAPIC_WR_IPI);
	assert_int_equal(ipi.mode, VLAPIC_IPI_LOWEST);
}

static void logical_destinations_flat_and_cluster(void **state)
{
	struct vlapic b;
	struct vlapic_ipi ipi = {
		.mode = VLAPIC_IPI_FIXED, .logical = true, .source = APIC_ID,
	};

	(void)state;
	vlapic_init(&b, 1, false, TSC_HZ);
	wr(&b, OFS(LDR), 0x04ffffff, NULL);     /* bits 23:0 reserved */
	assert_int_equal(rd(&b, OFS(LDR)), 0x04000000);
	ipi.dest = 0x04;
	assert_true(vlapic_ipi_targets(&b, &ipi));      /* flat: MDA & LDR */
	ipi.dest = 0x0b;
	assert_false(vlapic_ipi_targets(&b, &ipi));
	/* Cluster model: cluster 2, member bit 1. */
	wr(&b, OFS_DFR, 0x0fffffff, NULL);
	wr(&b, OFS(LDR), 0x22000000, NULL);
	assert_int_equal(rd(&b, OFS_DFR), 0x0fffffff);
	ipi.dest = 0x23;
	assert_true(vlapic_ipi_targets(&b, &ipi));
	ipi.dest = 0x32;
	assert_false(vlapic_ipi_targets(&b, &ipi));
	ipi.dest = VLAPIC_BROADCAST_ID;
	assert_true(vlapic_ipi_targets(&b, &ipi));
	/* Physical: the 8-bit ID. */
	ipi.logical = false;
	ipi.dest = 1;
	assert_true(vlapic_ipi_targets(&b, &ipi));
}

static void mode_transitions(void **state)
{
	uint64_t v;

	(void)state;
	wr(&apic, OFS(SVR), SVR_ON, NULL);
	wr(&apic, OFS(TPR), 0x30, NULL);
	/* Invalid: EN=0 with EXTD=1; reserved bits. */
	assert_int_equal(wrmsr(&apic, VLAPIC_MSR_APIC_BASE, 0xfee00500),
			 VLAPIC_GP);
	assert_int_equal(wrmsr(&apic, VLAPIC_MSR_APIC_BASE, XAPIC_BSP | 1),
			 VLAPIC_GP);
	/* xAPIC -> x2APIC keeps the state; the page is no longer the APIC. */
	assert_int_equal(wrmsr(&apic, VLAPIC_MSR_APIC_BASE, X2APIC_BSP), 0);
	assert_false(vlapic_mmio_owns(&apic, 0xfee00000));
	assert_int_equal(vlapic_rdmsr(&apic, VLAPIC_MSR_TPR, now, &v), 0);
	assert_int_equal(v, 0x30);
	assert_int_equal(vlapic_rdmsr(&apic, VLAPIC_MSR_ID, now, &v), 0);
	assert_int_equal(v, APIC_ID);
	assert_int_equal(vlapic_rdmsr(&apic, VLAPIC_MSR_LDR, now, &v), 0);
	assert_int_equal(v, 1u << APIC_ID);
	/* x2APIC -> xAPIC is #GP; x2APIC -> disabled resets the state. */
	assert_int_equal(wrmsr(&apic, VLAPIC_MSR_APIC_BASE, XAPIC_BSP),
			 VLAPIC_GP);
	assert_int_equal(wrmsr(&apic, VLAPIC_MSR_APIC_BASE, 0xfee00100), 0);
	assert_false(vlapic_mmio_owns(&apic, 0xfee00000));
	/* disabled -> x2APIC is #GP; disabled -> xAPIC gives the page. */
	assert_int_equal(wrmsr(&apic, VLAPIC_MSR_APIC_BASE, X2APIC_BSP),
			 VLAPIC_GP);
	assert_int_equal(wrmsr(&apic, VLAPIC_MSR_APIC_BASE, XAPIC_BSP), 0);
	assert_true(vlapic_mmio_owns(&apic, 0xfee00000));
	assert_int_equal(rd(&apic, OFS(TPR)), 0);
	assert_int_equal(rd(&apic, OFS(SVR)), 0xff);
	assert_int_equal(rd(&apic, OFS(ID)), APIC_ID << 24);
}

static void relocation_of_the_page(void **state)
{
	(void)state;
	wr(&apic, OFS(TPR), 0x50, NULL);
	assert_int_equal(wrmsr(&apic, VLAPIC_MSR_APIC_BASE, 0xfec80900), 0);
	assert_int_equal(vlapic_mmio_base(&apic), 0xfec80000);
	assert_false(vlapic_mmio_owns(&apic, 0xfee00000));
	assert_true(vlapic_mmio_owns(&apic, 0xfec80080));
	/* The registers move with the page; above 4 GiB too (52 bits). */
	assert_int_equal(rd(&apic, OFS(TPR)), 0x50);
	assert_int_equal(wrmsr(&apic, VLAPIC_MSR_APIC_BASE,
			       0x000ffffffffff900ull), 0);
	assert_true(vlapic_mmio_owns(&apic, 0x000ffffffffff080ull));
	assert_int_equal(wrmsr(&apic, VLAPIC_MSR_APIC_BASE,
			       0x0010000000000900ull), VLAPIC_GP);
}

#define T(name) cmocka_unit_test_setup(name, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(reset_state_is_xapic_at_fee00000),
		T(registers_and_access_sizes),
		T(interrupts_eoi_and_esr),
		T(timer_periodic_through_the_page),
		T(icr_sends_to_icr_high_destination),
		T(logical_destinations_flat_and_cluster),
		T(mode_transitions),
		T(relocation_of_the_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
