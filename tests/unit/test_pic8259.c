/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/devices/pic8259.c: Linux's exact probe and init sequence
 * (arch/x86/kernel/i8259.c), then edge and level requests, masking,
 * priorities and nesting, the slave behind IR2, OCW2 EOIs and rotation,
 * OCW3 register reads, poll and special mask, AEOI, the ELCR.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "guest/devices/pic8259.h"

#define OCW3_READ_IRR 0x0a
#define OCW3_READ_ISR 0x0b
#define OCW3_POLL 0x0c
#define EOI 0x20
#define SPECIFIC_EOI(ir) (0x60 + (ir))

static int setup(void **state)
{
	struct pic *p = malloc(sizeof(*p));

	if (!p)
		return -1;
	/* Garbage, so that anything pic_init forgets shows. */
	memset(p, 0xa5, sizeof(*p));
	pic_init(p);
	*state = p;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

static void out(struct pic *p, uint8_t val, uint16_t port)
{
	assert_true(pic_owns_port(port));
	pic_write(p, port, val);
}

static uint8_t in(struct pic *p, uint16_t port)
{
	assert_true(pic_owns_port(port));
	return pic_read(p, port);
}

/* i8259A_irq_real: OCW3 "read ISR", read, OCW3 "read IRR". */
static uint8_t isr(struct pic *p, uint16_t cmd)
{
	uint8_t v;

	out(p, OCW3_READ_ISR, cmd);
	v = in(p, cmd);
	out(p, OCW3_READ_IRR, cmd);
	return v;
}

/* probe_8259A, then init_8259A(0) with its cached masks (all masked). */
static void linux_init(struct pic *p)
{
	out(p, 0xff, PIC_SLAVE_DATA);
	out(p, 0xfb, PIC_MASTER_DATA);
	assert_int_equal(in(p, PIC_MASTER_DATA), 0xfb);
	out(p, 0xff, PIC_MASTER_DATA);
	out(p, 0x11, PIC_MASTER_CMD);   /* ICW1: edge, cascade, ICW4 */
	out(p, 0x30, PIC_MASTER_DATA);  /* ICW2: ISA_IRQ_VECTOR(0) */
	out(p, 0x04, PIC_MASTER_DATA);  /* ICW3: slave on IR2 */
	out(p, 0x01, PIC_MASTER_DATA);  /* ICW4: 8086, normal EOI */
	out(p, 0x11, PIC_SLAVE_CMD);
	out(p, 0x38, PIC_SLAVE_DATA);   /* ISA_IRQ_VECTOR(8) */
	out(p, 0x02, PIC_SLAVE_DATA);   /* slave ID 2 */
	out(p, 0x01, PIC_SLAVE_DATA);
	out(p, 0xff, PIC_MASTER_DATA);
	out(p, 0xff, PIC_SLAVE_DATA);
	assert_int_equal(in(p, PIC_MASTER_DATA), 0xff);
	assert_int_equal(in(p, PIC_SLAVE_DATA), 0xff);
}

/* mask_and_ack_8259A's EOI part: specific EOIs, slave then master. */
static void linux_eoi(struct pic *p, unsigned irq)
{
	if (irq & 8) {
		out(p, SPECIFIC_EOI(irq & 7), PIC_SLAVE_CMD);
		out(p, SPECIFIC_EOI(PIC_CASCADE_IR), PIC_MASTER_CMD);
	} else {
		out(p, SPECIFIC_EOI(irq), PIC_MASTER_CMD);
	}
}

static void pulse(struct pic *p, unsigned irq)
{
	pic_set_irq(p, irq, true);
	pic_set_irq(p, irq, false);
}

static void test_reset_state(void **state)
{
	struct pic *p = *state;

	assert_int_equal(in(p, PIC_MASTER_DATA), 0xff);
	assert_int_equal(in(p, PIC_SLAVE_DATA), 0xff);
	assert_int_equal(in(p, PIC_MASTER_CMD), 0);     /* IRR */
	assert_int_equal(in(p, PIC_ELCR_MASTER), 0);
	assert_int_equal(in(p, PIC_ELCR_SLAVE), 0);
	assert_int_equal(pic_pending_vector(p), -1);
	assert_false(pic_owns_port(0x22));
	assert_false(pic_owns_port(0x4d2));
	/* Firmware-like state: BIOS vectors once unmasked. */
	out(p, 0xfe, PIC_MASTER_DATA);
	pulse(p, 0);
	assert_int_equal(pic_pending_vector(p), 0x08);
	out(p, 0xfb, PIC_MASTER_DATA);
	out(p, 0xfe, PIC_SLAVE_DATA);
	pulse(p, 8);
	assert_int_equal(pic_pending_vector(p), 0x70);
}

static void test_linux_irq4(void **state)
{
	struct pic *p = *state;

	linux_init(p);
	out(p, 0xeb, PIC_MASTER_DATA);  /* cascade and IRQ 4 unmasked */
	pic_set_irq(p, 4, true);
	assert_int_equal(in(p, PIC_MASTER_CMD), 0x10);  /* IRR */
	assert_int_equal(pic_pending_vector(p), 0x34);
	assert_int_equal(pic_ack(p), 0x34);
	assert_int_equal(isr(p, PIC_MASTER_CMD), 0x10);
	assert_int_equal(in(p, PIC_MASTER_CMD), 0);     /* back to IRR */
	/* Edge: the line still high is no new request. */
	assert_int_equal(pic_pending_vector(p), -1);
	/* A new edge waits for the EOI of the one in service. */
	pic_set_irq(p, 4, false);
	pic_set_irq(p, 4, true);
	assert_int_equal(pic_pending_vector(p), -1);
	out(p, EOI, PIC_MASTER_CMD);
	assert_int_equal(pic_ack(p), 0x34);
	assert_int_equal(in(p, PIC_MASTER_DATA), 0xeb); /* the dummy read */
	out(p, 0xfb, PIC_MASTER_DATA);
	linux_eoi(p, 4);
	assert_int_equal(isr(p, PIC_MASTER_CMD), 0);
	out(p, 0xeb, PIC_MASTER_DATA);
	assert_int_equal(pic_pending_vector(p), -1);
	pic_set_irq(p, 4, false);
	pic_set_irq(p, 4, true);
	assert_int_equal(pic_pending_vector(p), 0x34);
	/* A falling edge before INTA keeps the request latched. */
	assert_int_equal(pic_ack(p), 0x34);
	out(p, EOI, PIC_MASTER_CMD);
	pic_set_irq(p, 4, false);
	pulse(p, 4);
	assert_int_equal(pic_ack(p), 0x34);
	out(p, EOI, PIC_MASTER_CMD);
	assert_int_equal(isr(p, PIC_MASTER_CMD), 0);
}

static void test_masking(void **state)
{
	struct pic *p = *state;

	linux_init(p);
	out(p, 0xfb, PIC_MASTER_DATA);
	pulse(p, 4);
	/* Masked: latched in the IRR, not signalled. */
	assert_int_equal(in(p, PIC_MASTER_CMD), 0x10);
	assert_int_equal(pic_pending_vector(p), -1);
	out(p, 0xeb, PIC_MASTER_DATA);
	assert_int_equal(pic_pending_vector(p), 0x34);
	out(p, 0xfb, PIC_MASTER_DATA);
	assert_int_equal(pic_pending_vector(p), -1);
	/* IRQ 2 is the cascade wire, and there are only 16 lines. */
	out(p, 0x00, PIC_MASTER_DATA);
	pic_set_irq(p, 2, true);
	pic_set_irq(p, 16, true);
	assert_int_equal(in(p, PIC_MASTER_CMD), 0x10);
	assert_int_equal(pic_pending_vector(p), 0x34);
}

static void test_priorities(void **state)
{
	struct pic *p = *state;

	linux_init(p);
	out(p, 0x00, PIC_MASTER_DATA);
	pulse(p, 3);
	pulse(p, 1);
	assert_int_equal(pic_pending_vector(p), 0x31);  /* IR1 first */
	assert_int_equal(pic_ack(p), 0x31);
	/* IR3 waits behind IR1 in service; IR0 nests. */
	assert_int_equal(pic_pending_vector(p), -1);
	pulse(p, 0);
	assert_int_equal(pic_ack(p), 0x30);
	assert_int_equal(isr(p, PIC_MASTER_CMD), 0x03);
	/* A non-specific EOI retires the highest-priority IR: IR0. */
	out(p, EOI, PIC_MASTER_CMD);
	assert_int_equal(isr(p, PIC_MASTER_CMD), 0x02);
	assert_int_equal(pic_pending_vector(p), -1);
	out(p, EOI, PIC_MASTER_CMD);
	assert_int_equal(pic_ack(p), 0x33);
	out(p, EOI, PIC_MASTER_CMD);
	out(p, EOI, PIC_MASTER_CMD);    /* nothing in service: no-op */
	assert_int_equal(isr(p, PIC_MASTER_CMD), 0);
}

static void test_slave_cascade(void **state)
{
	struct pic *p = *state;

	linux_init(p);
	out(p, 0xf9, PIC_SLAVE_DATA);   /* IRQ 9 and 10 */
	pulse(p, 9);
	/* The master's IR2 is masked: nothing reaches the CPU. */
	assert_int_equal(in(p, PIC_SLAVE_CMD), 0x02);
	assert_int_equal(pic_pending_vector(p), -1);
	out(p, 0xfb, PIC_MASTER_DATA);
	assert_int_equal(in(p, PIC_MASTER_CMD), 0x04);
	assert_int_equal(pic_pending_vector(p), 0x39);
	assert_int_equal(pic_ack(p), 0x39);
	assert_int_equal(isr(p, PIC_MASTER_CMD), 0x04);
	assert_int_equal(isr(p, PIC_SLAVE_CMD), 0x02);
	/* IR2 in service holds off the slave's IRQ 10 and master IR3... */
	pulse(p, 10);
	out(p, 0xf3, PIC_MASTER_DATA);
	pulse(p, 3);
	assert_int_equal(pic_pending_vector(p), -1);
	/* ...but not master IR1. */
	out(p, 0xf1, PIC_MASTER_DATA);
	pulse(p, 1);
	assert_int_equal(pic_ack(p), 0x31);
	linux_eoi(p, 1);
	linux_eoi(p, 9);
	assert_int_equal(isr(p, PIC_MASTER_CMD), 0);
	assert_int_equal(isr(p, PIC_SLAVE_CMD), 0);
	assert_int_equal(pic_ack(p), 0x3a);
	linux_eoi(p, 10);
	assert_int_equal(pic_ack(p), 0x33);
	/* A slave IRQ masked after its request withdraws IR2 too. */
	linux_eoi(p, 3);
	pulse(p, 9);
	assert_int_equal(in(p, PIC_MASTER_CMD), 0x04);
	out(p, 0xff, PIC_SLAVE_DATA);
	assert_int_equal(in(p, PIC_MASTER_CMD), 0);
	assert_int_equal(pic_pending_vector(p), -1);
}

static void test_special_fully_nested(void **state)
{
	struct pic *p = *state;

	linux_init(p);
	out(p, 0xfb, PIC_MASTER_DATA);
	out(p, 0xf9, PIC_SLAVE_DATA);
	/* Fully nested: IR2 in service holds off even a higher slave IRQ. */
	pulse(p, 10);
	assert_int_equal(pic_ack(p), 0x3a);
	pulse(p, 9);
	assert_int_equal(pic_pending_vector(p), -1);
	linux_eoi(p, 10);
	assert_int_equal(pic_ack(p), 0x39);
	linux_eoi(p, 9);
	/* ICW4.SFNM on the master: the slave's own priorities decide. */
	out(p, 0x11, PIC_MASTER_CMD);
	out(p, 0x30, PIC_MASTER_DATA);
	out(p, 0x04, PIC_MASTER_DATA);
	out(p, 0x11, PIC_MASTER_DATA);
	out(p, 0xfb, PIC_MASTER_DATA);
	pulse(p, 10);
	assert_int_equal(pic_ack(p), 0x3a);
	pulse(p, 9);
	assert_int_equal(pic_ack(p), 0x39);
	assert_int_equal(isr(p, PIC_SLAVE_CMD), 0x06);
	/* ...and a lower one still waits behind the slave's IR1. */
	out(p, 0xf1, PIC_SLAVE_DATA);
	pulse(p, 11);
	assert_int_equal(pic_pending_vector(p), -1);
}

static void test_spurious(void **state)
{
	struct pic *p = *state;

	linux_init(p);
	out(p, 0xeb, PIC_MASTER_DATA);
	/* INTA with nothing to give: IR7's vector, ISR untouched, which
	 * is what mask_and_ack_8259A's i8259A_irq_real check relies on. */
	assert_int_equal(pic_ack(p), 0x37);
	assert_int_equal(isr(p, PIC_MASTER_CMD), 0);
	pic_set_irq(p, 4, true);
	out(p, 0xfb, PIC_MASTER_DATA);  /* masked before the INTA */
	assert_int_equal(pic_ack(p), 0x37);
	assert_int_equal(isr(p, PIC_MASTER_CMD), 0);
}

static void test_elcr_and_level(void **state)
{
	struct pic *p = *state;

	/* IRQ 0, 1, 2, 8 and 13 are edge only (as save_ELCR masks). */
	out(p, 0xff, PIC_ELCR_MASTER);
	out(p, 0xff, PIC_ELCR_SLAVE);
	assert_int_equal(in(p, PIC_ELCR_MASTER), 0xf8);
	assert_int_equal(in(p, PIC_ELCR_SLAVE), 0xde);
	out(p, 0x20, PIC_ELCR_MASTER);
	out(p, 0x04, PIC_ELCR_SLAVE);
	assert_int_equal(in(p, PIC_ELCR_MASTER), 0x20);
	assert_int_equal(in(p, PIC_ELCR_SLAVE), 0x04);
	linux_init(p);
	out(p, 0xdb, PIC_MASTER_DATA);  /* IRQ 2 and 5 */
	out(p, 0xfb, PIC_SLAVE_DATA);   /* IRQ 10 */
	/* Level IRQ 10: requests for as long as the line is high. */
	pic_set_irq(p, 10, true);
	assert_int_equal(pic_ack(p), 0x3a);
	assert_int_equal(in(p, PIC_SLAVE_CMD), 0x04);
	assert_int_equal(pic_pending_vector(p), -1);    /* until the EOI */
	linux_eoi(p, 10);
	assert_int_equal(pic_ack(p), 0x3a);
	pic_set_irq(p, 10, false);
	linux_eoi(p, 10);
	assert_int_equal(in(p, PIC_SLAVE_CMD), 0);
	assert_int_equal(pic_pending_vector(p), -1);
	/* A line dropped before the INTA withdraws its request. */
	pic_set_irq(p, 5, true);
	assert_int_equal(pic_pending_vector(p), 0x35);
	pic_set_irq(p, 5, false);
	assert_int_equal(pic_pending_vector(p), -1);
	/* ICW1.LTIM makes every line of that chip level-triggered. */
	out(p, 0x19, PIC_MASTER_CMD);
	out(p, 0x30, PIC_MASTER_DATA);
	out(p, 0x04, PIC_MASTER_DATA);
	out(p, 0x01, PIC_MASTER_DATA);
	pic_set_irq(p, 4, true);
	pic_set_irq(p, 4, false);
	assert_int_equal(in(p, PIC_MASTER_CMD), 0);
}

static void test_icw_sequences(void **state)
{
	struct pic *p = *state;

	/* ICW1 clears the IMR and resets edge sensing. */
	pic_set_irq(p, 3, true);
	out(p, 0x11, PIC_MASTER_CMD);
	assert_int_equal(in(p, PIC_MASTER_DATA), 0);
	assert_int_equal(in(p, PIC_MASTER_CMD), 0);
	out(p, 0x30, PIC_MASTER_DATA);
	out(p, 0x04, PIC_MASTER_DATA);
	out(p, 0x01, PIC_MASTER_DATA);
	out(p, 0x00, PIC_MASTER_DATA);  /* OCW1 now */
	assert_int_equal(in(p, PIC_MASTER_DATA), 0);
	assert_int_equal(pic_pending_vector(p), -1);    /* no new edge */
	pic_set_irq(p, 3, false);
	pic_set_irq(p, 3, true);
	assert_int_equal(pic_pending_vector(p), 0x33);
	pic_set_irq(p, 3, false);
	/* Single mode without ICW4: only ICW2, and no cascade. */
	out(p, 0x12, PIC_MASTER_CMD);
	out(p, 0x47, PIC_MASTER_DATA);  /* bits 2-0 are not the base */
	out(p, 0xf7, PIC_MASTER_DATA);  /* OCW1 */
	assert_int_equal(in(p, PIC_MASTER_DATA), 0xf7);
	pulse(p, 3);
	assert_int_equal(pic_ack(p), 0x43);
	/* Single mode with ICW4 (AEOI): ICW2, ICW4, then OCW1. */
	out(p, 0x13, PIC_MASTER_CMD);
	out(p, 0x50, PIC_MASTER_DATA);
	out(p, 0x03, PIC_MASTER_DATA);
	out(p, 0xf7, PIC_MASTER_DATA);
	assert_int_equal(in(p, PIC_MASTER_DATA), 0xf7);
	pulse(p, 3);
	assert_int_equal(pic_ack(p), 0x53);
	assert_int_equal(isr(p, PIC_MASTER_CMD), 0);    /* auto EOI */
}

static void test_poll_and_special_mask(void **state)
{
	struct pic *p = *state;

	linux_init(p);
	out(p, 0x00, PIC_MASTER_DATA);
	/* Poll: the read acknowledges and returns 0x80 | IR. */
	out(p, OCW3_POLL, PIC_MASTER_CMD);
	assert_int_equal(in(p, PIC_MASTER_CMD), 0);
	pulse(p, 4);
	out(p, OCW3_POLL, PIC_MASTER_CMD);
	assert_int_equal(in(p, PIC_MASTER_CMD), 0x84);
	assert_int_equal(isr(p, PIC_MASTER_CMD), 0x10);
	/* IR6 waits behind IR4 in service... */
	pulse(p, 6);
	assert_int_equal(pic_pending_vector(p), -1);
	/* ...unless special mask mode is on and IR4 masked. */
	out(p, 0x68, PIC_MASTER_CMD);
	out(p, 0x10, PIC_MASTER_DATA);
	assert_int_equal(pic_pending_vector(p), 0x36);
	out(p, 0x48, PIC_MASTER_CMD);
	assert_int_equal(pic_pending_vector(p), -1);
}

static void test_rotation(void **state)
{
	struct pic *p = *state;

	linux_init(p);
	out(p, 0x00, PIC_MASTER_DATA);
	/* Set priority: IR3 lowest, so IR4 is highest. */
	out(p, 0xc3, PIC_MASTER_CMD);
	pulse(p, 1);
	pulse(p, 5);
	assert_int_equal(pic_ack(p), 0x35);
	/* Rotate on specific EOI: IR5 becomes lowest, IR6 highest. */
	out(p, 0xe5, PIC_MASTER_CMD);
	pulse(p, 5);
	assert_int_equal(pic_ack(p), 0x31);
	/* Rotate on non-specific EOI: IR1 lowest; IR5 now outranks. */
	out(p, 0xa0, PIC_MASTER_CMD);
	pulse(p, 1);
	assert_int_equal(pic_ack(p), 0x35);
	assert_int_equal(pic_pending_vector(p), -1);    /* IR1: lowest */
	out(p, EOI, PIC_MASTER_CMD);
	assert_int_equal(pic_ack(p), 0x31);
	assert_int_equal(isr(p, PIC_MASTER_CMD), 0x02);
	/* Rotate in AEOI mode: each INTA makes its IR the lowest. */
	out(p, 0x11, PIC_MASTER_CMD);
	out(p, 0x30, PIC_MASTER_DATA);
	out(p, 0x04, PIC_MASTER_DATA);
	out(p, 0x03, PIC_MASTER_DATA);
	out(p, 0x00, PIC_MASTER_DATA);
	out(p, 0x80, PIC_MASTER_CMD);
	pulse(p, 0);
	assert_int_equal(pic_ack(p), 0x30);
	pulse(p, 0);
	pulse(p, 7);
	assert_int_equal(pic_ack(p), 0x37);     /* IR0 went last */
	out(p, 0x00, PIC_MASTER_CMD);           /* rotate in AEOI: off */
	assert_int_equal(pic_ack(p), 0x30);
	pulse(p, 0);
	pulse(p, 7);
	assert_int_equal(pic_ack(p), 0x30);     /* IR7 still lowest */
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_reset_state),
		T(test_linux_irq4),
		T(test_masking),
		T(test_priorities),
		T(test_slave_cascade),
		T(test_special_fully_nested),
		T(test_spurious),
		T(test_elcr_and_level),
		T(test_icw_sequences),
		T(test_poll_and_special_mask),
		T(test_rotation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
