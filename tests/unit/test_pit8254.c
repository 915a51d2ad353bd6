/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/devices/pit8254.c and guest/devices/port61.c: each mode's OUT and count over time,
 * the counter latch and read-back commands, the three access modes, a
 * count written in mode 2, counter 2's gate and OUT through port 0x61, the
 * IRQ 0 deadline, and one edge (not a storm) after a long gap.
 *
 * Most tests run the TSC at exactly 1000 cycles per PIT clock, so that
 * T(n) is the TSC after n PIT clocks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "guest/devices/pit8254.h"
#include "guest/devices/port61.h"

#define T(n) ((uint64_t)(n) * 1000)
#define CH0 0x40
#define CH2 0x42
#define CTRL 0x43
/* Control words: counter << 6 | access << 4 | mode << 1. */
#define CW(counter, access, mode) \
	((uint8_t)((counter) << 6 | (access) << 4 | (mode) << 1))
#define WORD PIT_ACCESS_WORD
#define READ_BACK(count, status, mask) \
	((uint8_t)(0xc0 | ((count) ? 0 : 0x20) | ((status) ? 0 : 0x10) | \
		   (mask) << 1))

static struct pit pit;
static struct port61 port61;

static int setup(void **state)
{
	(void)state;
	memset(&pit, 0xa5, sizeof(pit));        /* show what init forgets */
	pit_init(&pit, PIT_INPUT_HZ * 1000);
	/* The 8254's own timing; the minimum gap has its test below. */
	assert_int_equal(pit.min_edge_gap,
			 PIT_INPUT_HZ * 1000 / (1000000 / PIT_PERIOD_MIN_US));
	pit.min_edge_gap = 0;
	port61_init(&port61);
	return 0;
}

static void program(uint16_t port, uint8_t mode_cw, uint16_t count,
		    uint64_t now)
{
	pit_write(&pit, CTRL, mode_cw, now);
	pit_write(&pit, port, (uint8_t)count, now);
	pit_write(&pit, port, (uint8_t)(count >> 8), now);
}

static uint16_t read_word(uint16_t port, uint64_t now)
{
	uint16_t lo = pit_read(&pit, port, now);

	return (uint16_t)(lo | pit_read(&pit, port, now) << 8);
}

static uint16_t latched(uint16_t port, unsigned counter, uint64_t now)
{
	pit_write(&pit, CTRL, CW(counter, PIT_ACCESS_LATCH, 0), now);
	return read_word(port, now);
}

static void mode0_out_rises_at_terminal_count(void **state)
{
	(void)state;
	pit_write(&pit, CTRL, CW(0, WORD, 0), T(0));
	assert_false(pit_out(&pit, 0, T(0)));   /* low from the control word */
	pit_write(&pit, CH0, 100, T(0));
	pit_write(&pit, CH0, 0, T(0));
	assert_int_equal(pit_irq0_deadline(&pit, T(0)), T(100));
	assert_false(pit_out(&pit, 0, T(99)));
	assert_int_equal(read_word(CH0, T(10)), 90);
	assert_false(pit_take_irq0_edge(&pit, T(99)));
	assert_true(pit_out(&pit, 0, T(100)));
	assert_true(pit_take_irq0_edge(&pit, T(100)));
	/* The count wraps and goes on; OUT stays high, no second edge. */
	assert_int_equal(read_word(CH0, T(101)), 0xffff);
	assert_true(pit_out(&pit, 0, T(70000)));
	assert_false(pit_take_irq0_edge(&pit, T(70000)));
	assert_int_equal(pit_irq0_deadline(&pit, T(70000)), UINT64_MAX);
}

static void mode2_rate_generator(void **state)
{
	(void)state;
	program(CH0, CW(0, WORD, 2), 10, T(0));
	assert_true(pit_out(&pit, 0, T(0)));
	assert_int_equal(read_word(CH0, T(3)), 7);
	/* OUT is low for the last clock of each period, count 1. */
	assert_int_equal(read_word(CH0, T(9)), 1);
	assert_false(pit_out(&pit, 0, T(9)));
	assert_true(pit_out(&pit, 0, T(10)));
	assert_int_equal(read_word(CH0, T(10)), 10);
	assert_true(pit_take_irq0_edge(&pit, T(10)));
	for (unsigned k = 2; k <= 5; k++) {
		assert_int_equal(pit_irq0_deadline(&pit, T(10 * k - 1)),
				 T(10 * k));
		assert_false(pit_take_irq0_edge(&pit, T(10 * k - 1)));
		assert_true(pit_take_irq0_edge(&pit, T(10 * k)));
		assert_false(pit_take_irq0_edge(&pit, T(10 * k)));
	}
	/* Mode 6 is mode 2. */
	pit_write(&pit, CTRL, CW(0, WORD, 6), T(100));
	pit_write(&pit, CTRL, READ_BACK(false, true, 1), T(100));
	assert_int_equal((pit_read(&pit, CH0, T(100)) >> 1) & 7, 2);
}

static void mode3_square_wave(void **state)
{
	(void)state;
	program(CH0, CW(0, WORD, 3), 10, T(0));
	assert_int_equal(read_word(CH0, T(1)), 8);      /* two per clock */
	assert_int_equal(read_word(CH0, T(6)), 8);      /* second half */
	assert_int_equal(pit_irq0_deadline(&pit, T(6)), T(10));
	assert_true(pit_take_irq0_edge(&pit, T(10)));
	assert_int_equal(pit_irq0_deadline(&pit, T(10)), T(20));
	for (unsigned t = 10; t < 30; t++)
		assert_int_equal(pit_out(&pit, 0, T(t)), t % 10 < 5);
}

static void mode4_strobe_is_one_low_clock(void **state)
{
	(void)state;
	program(CH0, CW(0, WORD, 4), 10, T(0));
	assert_true(pit_out(&pit, 0, T(9)));
	assert_false(pit_out(&pit, 0, T(10)));
	assert_int_equal(pit_irq0_deadline(&pit, T(10)), T(11));
	assert_true(pit_out(&pit, 0, T(11)));
	assert_true(pit_take_irq0_edge(&pit, T(11)));
	assert_int_equal(pit_irq0_deadline(&pit, T(12)), UINT64_MAX);
}

/* Modes 1 and 5 wait for a rising gate: counter 2's, from port 0x61. */
static void modes1_and_5_start_on_the_gate(void **state)
{
	(void)state;
	program(CH2, CW(2, WORD, 1), 10, T(0));
	assert_true(pit_out(&pit, 2, T(50)));           /* no trigger yet */
	port61_write(&port61, &pit, PORT61_GATE2, T(50));
	assert_false(pit_out(&pit, 2, T(50)));
	assert_int_equal(read_word(CH2, T(53)), 7);
	port61_write(&port61, &pit, 0, T(55));          /* ignored now */
	assert_false(pit_out(&pit, 2, T(59)));
	assert_true(pit_out(&pit, 2, T(60)));
	/* Retriggered: a new one-shot. */
	port61_write(&port61, &pit, PORT61_GATE2, T(70));
	assert_false(pit_out(&pit, 2, T(79)));
	assert_true(pit_out(&pit, 2, T(80)));

	program(CH2, CW(2, WORD, 5), 10, T(100));
	port61_write(&port61, &pit, 0, T(100));
	port61_write(&port61, &pit, PORT61_GATE2, T(110));
	assert_true(pit_out(&pit, 2, T(119)));
	assert_false(pit_out(&pit, 2, T(120)));
	assert_true(pit_out(&pit, 2, T(121)));
}

static void counter_latch_holds_until_read(void **state)
{
	(void)state;
	program(CH0, CW(0, WORD, 2), 1000, T(0));
	assert_int_equal(latched(CH0, 0, T(100)), 900);
	pit_write(&pit, CTRL, CW(0, PIT_ACCESS_LATCH, 0), T(200));
	/* A second latch before the read changes nothing. */
	pit_write(&pit, CTRL, CW(0, PIT_ACCESS_LATCH, 0), T(250));
	assert_int_equal(pit_read(&pit, CH0, T(300)), 800 & 0xff);
	assert_int_equal(pit_read(&pit, CH0, T(400)), 800 >> 8);
	/* Released: the count runs again. */
	assert_int_equal(read_word(CH0, T(500)), 500);
	/* Two latches decrease. */
	assert_true(latched(CH0, 0, T(700)) > latched(CH0, 0, T(800)));
}

static void read_back_status_and_count(void **state)
{
	uint8_t status;

	(void)state;
	port61_write(&port61, &pit, PORT61_GATE2, T(0));
	program(CH2, CW(2, WORD, 0), 100, T(0));
	pit_write(&pit, CTRL, READ_BACK(false, true, 4), T(0));
	/* OUT low, null count (not loaded yet), word access, mode 0. */
	assert_int_equal(pit_read(&pit, CH2, T(0)), 0x70);
	pit_write(&pit, CTRL, READ_BACK(true, true, 4), T(40));
	status = pit_read(&pit, CH2, T(90));            /* status first */
	assert_int_equal(status, 0x30);
	assert_int_equal(read_word(CH2, T(90)), 60);    /* then the count */
	pit_write(&pit, CTRL, READ_BACK(true, true, 4), T(150));
	assert_int_equal(pit_read(&pit, CH2, T(150)), 0xb0);    /* OUT high */
	assert_int_equal(read_word(CH2, T(150)), (uint16_t)(100 - 150));
	/* Counters not selected are left alone; BCD is reported. */
	pit_write(&pit, CTRL, CW(0, PIT_ACCESS_LOBYTE, 2) | 1, T(150));
	pit_write(&pit, CTRL, READ_BACK(false, true, 1), T(150));
	assert_int_equal(pit_read(&pit, CH0, T(150)), 0xd5);
	assert_int_equal(read_word(CH2, T(160)), (uint16_t)(100 - 160));
}

static void lobyte_hibyte_and_word_access(void **state)
{
	(void)state;
	pit_write(&pit, CTRL, CW(0, PIT_ACCESS_LOBYTE, 0), T(0));
	pit_write(&pit, CH0, 0x34, T(0));
	assert_int_equal(pit_read(&pit, CH0, T(4)), 0x30);
	assert_int_equal(pit_read(&pit, CH0, T(4)), 0x30);
	pit_write(&pit, CTRL, CW(0, PIT_ACCESS_HIBYTE, 0), T(10));
	pit_write(&pit, CH0, 0x12, T(10));
	assert_int_equal(pit_irq0_deadline(&pit, T(10)), T(10 + 0x1200));
	assert_int_equal(pit_read(&pit, CH0, T(10 + 0x100)), 0x11);
	/* Word: LSB then MSB, for writes and for reads alike. */
	pit_write(&pit, CTRL, CW(0, WORD, 0), T(20));
	pit_write(&pit, CH0, 0x78, T(20));
	assert_int_equal(pit_irq0_deadline(&pit, T(20)), UINT64_MAX);
	pit_write(&pit, CH0, 0x56, T(20));
	assert_int_equal(pit_read(&pit, CH0, T(21)), 0x77);
	assert_int_equal(pit_read(&pit, CH0, T(21 + 0x100)), 0x55);
	assert_int_equal(pit_read(&pit, CH0, T(22)), 0x76);
	/* A count of 0 is 65536. */
	program(CH0, CW(0, WORD, 2), 0, T(100));
	assert_int_equal(pit_irq0_deadline(&pit, T(100)), T(100 + 65536));
	assert_int_equal(read_word(CH0, T(101)), 0xffff);
}

/* A count written in mode 2 loads at the end of the running period. */
static void mode2_reload_waits_for_the_period_end(void **state)
{
	(void)state;
	program(CH0, CW(0, WORD, 2), 100, T(0));
	assert_true(pit_take_irq0_edge(&pit, T(100)));
	pit_write(&pit, CH0, 40, T(150));
	pit_write(&pit, CH0, 0, T(150));
	pit_write(&pit, CTRL, READ_BACK(false, true, 1), T(151));
	assert_true(pit_read(&pit, CH0, T(151)) & 0x40);        /* null count */
	assert_int_equal(read_word(CH0, T(199)), 1);
	assert_int_equal(pit_irq0_deadline(&pit, T(199)), T(200));
	assert_int_equal(read_word(CH0, T(200)), 40);
	assert_int_equal(read_word(CH0, T(210)), 30);
	assert_true(pit_take_irq0_edge(&pit, T(210)));
	assert_int_equal(pit_irq0_deadline(&pit, T(210)), T(240));
	/* A new control word stops the counter until a count comes. */
	pit_write(&pit, CTRL, CW(0, WORD, 2), T(220));
	assert_int_equal(pit_irq0_deadline(&pit, T(300)), UINT64_MAX);
	assert_false(pit_take_irq0_edge(&pit, T(300)));
}

static void counter2_gate_and_out_through_port61(void **state)
{
	uint8_t v;

	(void)state;
	program(CH2, CW(2, WORD, 0), 100, T(0));
	/* Gate low since reset: mode 0 does not count. */
	assert_int_equal(read_word(CH2, T(500)), 100);
	v = port61_read(&port61, &pit, T(500));
	assert_int_equal(v & (PORT61_GATE2 | PORT61_OUT2), 0);
	port61_write(&port61, &pit, PORT61_GATE2 | PORT61_SPEAKER_DATA,
		     T(500));
	assert_int_equal(read_word(CH2, T(540)), 60);
	port61_write(&port61, &pit, PORT61_SPEAKER_DATA, T(550));
	assert_int_equal(read_word(CH2, T(900)), 50);   /* held */
	port61_write(&port61, &pit, PORT61_GATE2, T(900));
	assert_false(port61_read(&port61, &pit, T(949)) & PORT61_OUT2);
	v = port61_read(&port61, &pit, T(950));
	assert_true(v & PORT61_OUT2);
	assert_int_equal(v & ~PORT61_REFRESH, PORT61_OUT2 | PORT61_GATE2);
	/* Mode 2 with the gate low: OUT high, a rising gate reloads. */
	program(CH2, CW(2, WORD, 2), 10, T(1000));
	port61_write(&port61, &pit, 0, T(1005));
	assert_true(pit_out(&pit, 2, T(1009)));
	port61_write(&port61, &pit, PORT61_GATE2, T(1050));
	assert_int_equal(read_word(CH2, T(1052)), 8);
}

/* Bit 4 flips on every read, as QEMU's; bits 2, 3, 6, 7 read 0. */
static void port61_refresh_and_speaker_bits(void **state)
{
	uint8_t a, b;

	(void)state;
	port61_write(&port61, &pit, 0xff, T(0));
	a = port61_read(&port61, &pit, T(0));
	b = port61_read(&port61, &pit, T(0));
	assert_int_equal(a & 0xcc, 0);
	assert_int_equal(a & 0x13, 0x13);               /* first read: 1 */
	assert_int_equal(b & 0x13, 0x03);
}

/* A TSC rate that is no multiple of the PIT's: edges neither early nor drifting. */
static void deadlines_at_an_odd_tsc_rate(void **state)
{
	const uint64_t hz = 2394457000ull;
	uint64_t deadline = 0;

	(void)state;
	pit_init(&pit, hz);
	program(CH0, CW(0, WORD, 2), 1193, 1000);
	for (uint64_t k = 1; k <= 1000; k++) {
		/* The k-th edge: ceil(k * 1193 * hz / PIT_INPUT_HZ) after. */
		uint64_t exact = 1000 + (k * 1193 * hz + PIT_INPUT_HZ - 1) /
					PIT_INPUT_HZ;

		deadline = pit_irq0_deadline(&pit, deadline);
		assert_int_equal(deadline, exact);
		assert_false(pit_take_irq0_edge(&pit, deadline - 1));
		assert_true(pit_take_irq0_edge(&pit, deadline));
	}
}

/* After a long gap one edge is reported, and the next deadline is ahead. */
static void no_tick_storm_after_a_long_gap(void **state)
{
	uint64_t later = T(10 * 1000 * 1000) + T(3);
	unsigned edges = 0;

	(void)state;
	program(CH0, CW(0, WORD, 2), 10, T(0));
	while (pit_take_irq0_edge(&pit, later))
		edges++;
	assert_int_equal(edges, 1);
	assert_int_equal(pit.irq0_edges, 1);
	assert_int_equal(pit.ch[0].edges_merged, 1000 * 1000 - 1);
	assert_int_equal(pit_irq0_deadline(&pit, later), later + T(7));
	/* A very long gap (hours of TSC) does not overflow either. */
	later = T(1193182ull * 3600 * 24);
	assert_true(pit_take_irq0_edge(&pit, later));
	assert_false(pit_take_irq0_edge(&pit, later));
	assert_int_equal(pit_irq0_deadline(&pit, later), later + T(10));
}

static void reset_state(void **state)
{
	(void)state;
	assert_true(pit_gate(&pit, 0));
	assert_false(pit_gate(&pit, 2));
	assert_int_equal(pit_irq0_deadline(&pit, T(0)), UINT64_MAX);
	assert_false(pit_take_irq0_edge(&pit, T(100000)));
	assert_int_equal(pit_read(&pit, CTRL, T(0)), 0);
	assert_true(pit_owns_port(0x40) && pit_owns_port(0x43));
	assert_false(pit_owns_port(0x44) || pit_owns_port(0x3f));
}

/*
 * A count of 2 (1.7 us periods): IRQ 0 edges are reported no closer than
 * PIT_PERIOD_MIN_US apart (KVM's min_timer_period_us), the deadline says
 * so, and the ones in between are held, not lost or queued.
 */
static void irq0_edges_held_to_the_minimum_period(void **state)
{
	uint64_t gap = PIT_INPUT_HZ * 1000 / (1000000 / PIT_PERIOD_MIN_US);
	uint64_t first, deadline;
	unsigned reported = 0;

	(void)state;
	pit.min_edge_gap = gap;
	program(CH0, CW(0, WORD, 2), 2, T(0));
	first = pit_irq0_deadline(&pit, T(0));
	assert_int_equal(first, T(2));
	assert_true(pit_take_irq0_edge(&pit, first));
	deadline = pit_irq0_deadline(&pit, first + T(5));
	assert_int_equal(deadline, first + gap);
	for (uint64_t t = first + T(2); t < first + gap; t += T(2))
		reported += pit_take_irq0_edge(&pit, t);
	assert_int_equal(reported, 0);
	assert_true(pit.irq0_edges_held > 0);
	assert_true(pit_take_irq0_edge(&pit, first + gap));
	assert_int_equal(pit_irq0_deadline(&pit, first + gap + T(1)),
			 first + 2 * gap);
	assert_int_equal(pit.irq0_edges, 2);
}

#define TEST(name) cmocka_unit_test_setup(name, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(reset_state),
		TEST(mode0_out_rises_at_terminal_count),
		TEST(mode2_rate_generator),
		TEST(mode3_square_wave),
		TEST(mode4_strobe_is_one_low_clock),
		TEST(modes1_and_5_start_on_the_gate),
		TEST(counter_latch_holds_until_read),
		TEST(read_back_status_and_count),
		TEST(lobyte_hibyte_and_word_access),
		TEST(mode2_reload_waits_for_the_period_end),
		TEST(counter2_gate_and_out_through_port61),
		TEST(port61_refresh_and_speaker_bits),
		TEST(deadlines_at_an_odd_tsc_rate),
		TEST(no_tick_storm_after_a_long_gap),
		TEST(irq0_edges_held_to_the_minimum_period),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
