/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/devices/ioapic.c: the registers as QEMU's PC answers them (version 0x20,
 * 24 pins, ID = ARB), read-only bits of the redirection table, masking,
 * edge requests on rising edges only, level requests with remote IRR that
 * an EOI (broadcast or the EOI register) clears and redelivers, polarity
 * kept but not applied (as QEMU),
 * and the message each entry makes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "guest/devices/ioapic.h"

#define MAX_SEEN 16

static struct ioapic io;
static struct ioapic_message seen[MAX_SEEN];
static unsigned nseen;

static void record(void *ctx, const struct ioapic_message *m)
{
	assert_ptr_equal(ctx, &io);
	assert_true(nseen < MAX_SEEN);
	seen[nseen++] = *m;
}

static int setup(void **state)
{
	(void)state;
	memset(&io, 0xa5, sizeof(io));
	ioapic_init(&io, record, &io);
	nseen = 0;
	return 0;
}

static uint32_t reg_read(unsigned reg)
{
	ioapic_write(&io, IOAPIC_IOREGSEL, 4, reg);
	return ioapic_read(&io, IOAPIC_IOWIN, 4);
}

static void reg_write(unsigned reg, uint32_t v)
{
	ioapic_write(&io, IOAPIC_IOREGSEL, 4, reg);
	ioapic_write(&io, IOAPIC_IOWIN, 4, v);
}

static void set_entry(unsigned pin, uint64_t rte)
{
	reg_write(IOAPIC_REG_REDTBL + 2 * pin + 1, (uint32_t)(rte >> 32));
	reg_write(IOAPIC_REG_REDTBL + 2 * pin, (uint32_t)rte);
}

static uint64_t entry(unsigned pin)
{
	return reg_read(IOAPIC_REG_REDTBL + 2 * pin) |
	       (uint64_t)reg_read(IOAPIC_REG_REDTBL + 2 * pin + 1) << 32;
}

static void registers_as_qemu(void **state)
{
	(void)state;
	assert_int_equal(reg_read(IOAPIC_REG_VER), 0x00170020);
	assert_int_equal(reg_read(IOAPIC_REG_ID), 0);
	reg_write(IOAPIC_REG_ID, 0x0a000000);
	assert_int_equal(reg_read(IOAPIC_REG_ID), 0x0a000000);
	assert_int_equal(reg_read(IOAPIC_REG_ARB), 0x0a000000);
	reg_write(IOAPIC_REG_VER, 0);           /* read-only */
	reg_write(IOAPIC_REG_ARB, 0);
	assert_int_equal(reg_read(IOAPIC_REG_VER), 0x00170020);
	assert_int_equal(reg_read(IOAPIC_REG_ARB), 0x0a000000);
	ioapic_write(&io, IOAPIC_IOREGSEL, 4, 0x12);
	assert_int_equal(ioapic_read(&io, IOAPIC_IOREGSEL, 4), 0x12);
	assert_int_equal(ioapic_read(&io, IOAPIC_IOWIN, 2), 0); /* 4 only */
	assert_int_equal(reg_read(0x03), 0);    /* nothing there */
	assert_int_equal(reg_read(0x40), 0);    /* past pin 23 */
	/* QEMU decodes offset bits 7:0 only. */
	ioapic_write(&io, 0x100, 4, IOAPIC_REG_VER);
	assert_int_equal(ioapic_read(&io, 0x110, 4), 0x00170020);
}

static void redirection_entries_reset_masked_and_keep_ro_bits(void **state)
{
	(void)state;
	for (unsigned pin = 0; pin < IOAPIC_PINS; pin++)
		assert_true(entry(pin) == IOAPIC_RTE_MASKED);
	set_entry(5, 0x0300000000000000ull | IOAPIC_RTE_READ_ONLY |
			     IOAPIC_RTE_MASKED | IOAPIC_RTE_LEVEL | 0x45);
	assert_true(entry(5) == (0x0300000000000000ull | IOAPIC_RTE_MASKED |
				 IOAPIC_RTE_LEVEL | 0x45));
	reg_write(IOAPIC_REG_REDTBL + 2 * 5 + 1, 0xff000000);   /* high half */
	assert_true(entry(5) >> 32 == 0xff000000);
	assert_int_equal((uint32_t)entry(5),
			 IOAPIC_RTE_MASKED | IOAPIC_RTE_LEVEL | 0x45);
}

static void edge_delivers_on_rising_edges_unmasked(void **state)
{
	(void)state;
	set_entry(4, 0x0100000000000000ull | 0x41);
	ioapic_set_pin(&io, 4, true);
	assert_int_equal(nseen, 1);
	assert_int_equal(seen[0].vector, 0x41);
	assert_int_equal(seen[0].dest, 1);
	assert_int_equal(seen[0].pin, 4);
	assert_int_equal(seen[0].delivery, IOAPIC_DELIVERY_FIXED);
	assert_false(seen[0].level);
	assert_false(seen[0].logical);
	ioapic_set_pin(&io, 4, true);           /* no edge: nothing */
	assert_int_equal(nseen, 1);
	ioapic_set_pin(&io, 4, false);
	ioapic_set_pin(&io, 4, true);
	assert_int_equal(nseen, 2);
	/* A masked pin drops its edge, and the unmask does not bring it. */
	ioapic_set_pin(&io, 4, false);
	set_entry(4, IOAPIC_RTE_MASKED | 0x41);
	ioapic_set_pin(&io, 4, true);
	set_entry(4, 0x41);
	assert_int_equal(nseen, 2);
	/* Polarity is kept but not applied (as QEMU): asserted is high. */
	set_entry(6, IOAPIC_RTE_ACTIVE_LOW | IOAPIC_RTE_LOGICAL |
			     (1ull << IOAPIC_RTE_DELIVERY_SHIFT) | 0x50);
	assert_true(entry(6) & IOAPIC_RTE_ACTIVE_LOW);
	ioapic_set_pin(&io, 6, false);
	assert_int_equal(nseen, 2);
	ioapic_set_pin(&io, 6, true);
	assert_int_equal(nseen, 3);
	assert_true(seen[2].logical);
	assert_int_equal(seen[2].delivery, IOAPIC_DELIVERY_LOWEST);
}

static void level_sets_remote_irr_until_eoi(void **state)
{
	(void)state;
	set_entry(9, IOAPIC_RTE_LEVEL | 0x59);
	ioapic_set_pin(&io, 9, true);
	assert_int_equal(nseen, 1);
	assert_true(seen[0].level);
	assert_true(entry(9) & IOAPIC_RTE_REMOTE_IRR);
	ioapic_set_pin(&io, 9, true);           /* in service: held */
	assert_int_equal(nseen, 1);
	ioapic_eoi(&io, 0x58);                  /* another vector */
	assert_true(entry(9) & IOAPIC_RTE_REMOTE_IRR);
	ioapic_eoi(&io, 0x59);                  /* still high: again */
	assert_int_equal(nseen, 2);
	assert_true(entry(9) & IOAPIC_RTE_REMOTE_IRR);
	ioapic_set_pin(&io, 9, false);
	ioapic_eoi(&io, 0x59);                  /* low now: done */
	assert_int_equal(nseen, 2);
	assert_false(entry(9) & IOAPIC_RTE_REMOTE_IRR);
	/* The EOI register (version 0x20) does the same. */
	ioapic_set_pin(&io, 9, true);
	assert_int_equal(nseen, 3);
	ioapic_write(&io, IOAPIC_EOI, 4, 0x59);
	assert_int_equal(nseen, 4);
}

static void level_masked_waits_for_unmask(void **state)
{
	(void)state;
	set_entry(10, IOAPIC_RTE_MASKED | IOAPIC_RTE_LEVEL | 0x60);
	ioapic_set_pin(&io, 10, true);
	assert_int_equal(nseen, 0);
	set_entry(10, IOAPIC_RTE_LEVEL | 0x60);
	assert_int_equal(nseen, 1);
	assert_true(entry(10) & IOAPIC_RTE_REMOTE_IRR);
	/* Switched to edge, the entry drops remote IRR (Linux's trick). */
	set_entry(10, IOAPIC_RTE_MASKED | 0x60);
	assert_false(entry(10) & IOAPIC_RTE_REMOTE_IRR);
}

/*
 * A line set to the level it has changes nothing (the UART's line is set
 * on every register access); pins pending together go out in pin order;
 * ioapic.messages counts what was sent.
 */
static void held_lines_send_nothing_and_pins_go_in_order(void **state)
{
	(void)state;
	set_entry(5, 0x35);
	ioapic_set_pin(&io, 5, true);
	ioapic_set_pin(&io, 5, true);
	assert_int_equal(nseen, 1);
	set_entry(3, IOAPIC_RTE_MASKED | 0x33);
	ioapic_set_pin(&io, 3, true);           /* masked edge: lost */
	set_entry(3, 0x33);
	assert_int_equal(nseen, 1);
	/* Two level pins on one vector: one EOI releases both, pin 6 first. */
	set_entry(7, IOAPIC_RTE_LEVEL | 0x48);
	set_entry(6, IOAPIC_RTE_LEVEL | 0x48);
	ioapic_set_pin(&io, 7, true);
	ioapic_set_pin(&io, 6, true);
	assert_int_equal(nseen, 3);
	assert_int_equal(seen[1].pin, 7);
	assert_int_equal(seen[2].pin, 6);
	ioapic_set_pin(&io, 6, true);
	ioapic_set_pin(&io, 7, true);
	assert_int_equal(nseen, 3);
	ioapic_eoi(&io, 0x48);
	assert_int_equal(nseen, 5);
	assert_int_equal(seen[3].pin, 6);
	assert_int_equal(seen[4].pin, 7);
	assert_int_equal(io.messages, 5);
}

static void pins_out_of_range_are_ignored(void **state)
{
	(void)state;
	ioapic_set_pin(&io, IOAPIC_PINS, true);
	ioapic_set_pin(&io, 1000, true);
	assert_int_equal(nseen, 0);
}

#define T(name) cmocka_unit_test_setup(name, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(registers_as_qemu),
		T(redirection_entries_reset_masked_and_keep_ro_bits),
		T(edge_delivers_on_rising_edges_unmasked),
		T(level_sets_remote_irr_until_eoi),
		T(level_masked_waits_for_unmask),
		T(held_lines_send_nothing_and_pins_go_in_order),
		T(pins_out_of_range_are_ignored),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
