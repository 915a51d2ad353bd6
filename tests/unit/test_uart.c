/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/devices/uart.c: line assembly for the host console (newline, CR, full
 * buffer, flush) and the 16550 register file (DLAB, LSR, IIR, scratch).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "guest/devices/uart.h"

#define THR 0
#define IER 1
#define IIR 2
#define LCR 3
#define MCR 4
#define LSR 5
#define MSR 6
#define SCR 7

#define MAX_LINES 8

/* What the sink received, one entry per call. */
static struct {
	char text[UART_LINE_MAX + 1];
	size_t len;
} lines[MAX_LINES];
static unsigned nlines;

static void sink(void *ctx, const char *line, size_t len)
{
	assert_ptr_equal(ctx, &lines);
	if (nlines == MAX_LINES)
		fail_msg("more than %d lines", MAX_LINES);
	assert_true(len <= UART_LINE_MAX);
	memcpy(lines[nlines].text, line, len);
	lines[nlines].text[len] = '\0';
	lines[nlines].len = len;
	nlines++;
}

static int setup(void **state)
{
	struct uart *u = malloc(sizeof(*u));

	if (!u)
		return -1;
	/* Garbage, so that anything uart_init forgets shows. */
	memset(u, 0xff, sizeof(*u));
	uart_init(u, sink, &lines);
	memset(lines, 0, sizeof(lines));
	nlines = 0;
	*state = u;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

static void put(struct uart *u, const char *s)
{
	while (*s)
		uart_write(u, THR, (uint8_t)*s++);
}

static void put_n(struct uart *u, char c, unsigned n)
{
	while (n--)
		uart_write(u, THR, (uint8_t)c);
}

static void assert_line(unsigned i, const char *text)
{
	assert_true(i < nlines);
	assert_int_equal(lines[i].len, strlen(text));
	assert_string_equal(lines[i].text, text);
}

static void test_init(void **state)
{
	struct uart *u = *state;

	assert_int_equal(u->bytes_out, 0);
	assert_int_equal(u->line_len, 0);
	assert_ptr_equal(u->sink, sink);
	assert_ptr_equal(u->sink_ctx, &lines);
	assert_int_equal(uart_read(u, IER), 0);
	assert_int_equal(uart_read(u, LCR), 0);
	assert_int_equal(uart_read(u, MCR), 0);
	assert_int_equal(uart_read(u, SCR), 0);
	assert_int_equal(uart_read(u, THR), 0);
}

static void test_lines(void **state)
{
	struct uart *u = *state;

	put(u, "hello");
	assert_int_equal(nlines, 0);
	put(u, "\nworld\n\n");
	assert_int_equal(nlines, 3);
	assert_line(0, "hello");
	assert_line(1, "world");
	/* An empty line is a line. */
	assert_line(2, "");
	assert_int_equal(u->line_len, 0);
}

static void test_cr_dropped(void **state)
{
	struct uart *u = *state;

	put(u, "a\r\nb\r\n\r\nx\ry\r\r\n");
	assert_int_equal(nlines, 4);
	assert_line(0, "a");
	assert_line(1, "b");
	assert_line(2, "");
	assert_line(3, "xy");
}

static void test_full_line_flushed(void **state)
{
	struct uart *u = *state;

	put_n(u, 'x', UART_LINE_MAX);
	/* A line of exactly UART_LINE_MAX bytes, then its newline: one line. */
	put(u, "\n");
	assert_int_equal(nlines, 1);
	assert_int_equal(lines[0].len, UART_LINE_MAX);
	for (unsigned i = 0; i < UART_LINE_MAX; i++)
		assert_int_equal(lines[0].text[i], 'x');

	/* Longer: the first UART_LINE_MAX bytes go out on their own. */
	put_n(u, 'y', UART_LINE_MAX);
	assert_int_equal(nlines, 1);
	put(u, "z");
	assert_int_equal(nlines, 2);
	assert_int_equal(lines[1].len, UART_LINE_MAX);
	for (unsigned i = 0; i < UART_LINE_MAX; i++)
		assert_int_equal(lines[1].text[i], 'y');
	put(u, "z\n");
	assert_int_equal(nlines, 3);
	assert_line(2, "zz");

	/* A CR at the limit does not count as a byte of the line. */
	put_n(u, 'w', UART_LINE_MAX);
	put(u, "\r\n");
	assert_int_equal(nlines, 4);
	assert_int_equal(lines[3].len, UART_LINE_MAX);
	assert_int_equal(u->bytes_out, 3 * UART_LINE_MAX + 6);
}

static void test_flush(void **state)
{
	struct uart *u = *state;

	/* Nothing pending: nothing emitted. */
	uart_flush(u);
	assert_int_equal(nlines, 0);

	put(u, "abc");
	uart_flush(u);
	assert_int_equal(nlines, 1);
	assert_line(0, "abc");
	uart_flush(u);
	assert_int_equal(nlines, 1);

	/* The line after a flush starts afresh. */
	put(u, "de\n");
	assert_int_equal(nlines, 2);
	assert_line(1, "de");
	uart_flush(u);
	assert_int_equal(nlines, 2);

	/* A full buffer still waiting for its next byte is flushed. */
	put_n(u, 'q', UART_LINE_MAX);
	uart_flush(u);
	assert_int_equal(nlines, 3);
	assert_int_equal(lines[2].len, UART_LINE_MAX);
	uart_flush(u);
	assert_int_equal(nlines, 3);
}

static void test_bytes_out(void **state)
{
	struct uart *u = *state;

	put(u, "ab\r\n");
	assert_int_equal(u->bytes_out, 4);
	/* Other registers are not output. */
	uart_write(u, IER, 1);
	uart_write(u, SCR, 'x');
	uart_write(u, MCR, 3);
	assert_int_equal(u->bytes_out, 4);
	/* Neither is the divisor latch. */
	uart_write(u, LCR, 0x80);
	uart_write(u, THR, 'y');
	uart_write(u, IER, 'z');
	assert_int_equal(u->bytes_out, 4);
	uart_write(u, LCR, 0x03);
	uart_write(u, THR, 'c');
	assert_int_equal(u->bytes_out, 5);
	assert_int_equal(nlines, 1);
	assert_line(0, "ab");
	uart_flush(u);
	assert_line(1, "c");
}

static void test_dlab(void **state)
{
	struct uart *u = *state;

	uart_write(u, IER, 0x05);
	/* 8N1 with DLAB, divisor 0x340c. */
	uart_write(u, LCR, 0x83);
	assert_int_equal(uart_read(u, LCR), 0x83);
	uart_write(u, THR, 0x0c);
	uart_write(u, IER, 0x34);
	assert_int_equal(uart_read(u, THR), 0x0c);
	assert_int_equal(uart_read(u, IER), 0x34);
	assert_int_equal(nlines, 0);
	assert_int_equal(u->line_len, 0);

	uart_write(u, LCR, 0x03);
	assert_int_equal(uart_read(u, LCR), 0x03);
	/* RBR: no input, ever. IER kept its value under the latch. */
	assert_int_equal(uart_read(u, THR), 0);
	assert_int_equal(uart_read(u, IER), 0x05);
	/* IER has four bits. */
	uart_write(u, IER, 0xff);
	assert_int_equal(uart_read(u, IER), 0x0f);

	/* The divisor is still there. */
	uart_write(u, LCR, 0x80);
	assert_int_equal(uart_read(u, THR), 0x0c);
	assert_int_equal(uart_read(u, IER), 0x34);
	assert_int_equal(u->dll, 0x0c);
	assert_int_equal(u->dlm, 0x34);
	assert_int_equal(u->ier, 0x0f);
}

static void test_status_registers(void **state)
{
	struct uart *u = *state;

	for (unsigned dlab = 0; dlab < 2; dlab++) {
		uart_write(u, LCR, dlab ? 0x80 : 0);
		/* THR empty, transmitter idle (PC16550D, LSR bits 5, 6). */
		assert_int_equal(uart_read(u, LSR), 0x60);
		/* No interrupt pending. */
		assert_int_equal(uart_read(u, IIR), 0x01);
		/* CTS, DSR, DCD. */
		assert_int_equal(uart_read(u, MSR), 0xb0);
	}
	/* Writes to LSR and MSR change nothing; FCR enables the FIFO. */
	uart_write(u, LCR, 0);
	uart_write(u, IIR, 0xc7);
	uart_write(u, LSR, 0x00);
	uart_write(u, MSR, 0x00);
	assert_int_equal(uart_read(u, IIR), 0xc1);
	assert_int_equal(uart_read(u, LSR), 0x60);
	assert_int_equal(uart_read(u, MSR), 0xb0);
	assert_int_equal(u->bytes_out, 0);
}

static void test_scratch_and_mcr(void **state)
{
	struct uart *u = *state;
	const uint8_t values[] = { 0x00, 0xa5, 0x5a, 0xff, 0x01 };

	for (unsigned i = 0; i < ARRAY_SIZE(values); i++) {
		uart_write(u, SCR, values[i]);
		assert_int_equal(uart_read(u, SCR), values[i]);
		uart_write(u, MCR, values[i]);
		/* Bits 7:5 of MCR do not exist (read as 0). */
		assert_int_equal(uart_read(u, MCR), values[i] & 0x1f);
	}
	/* The scratch register is the same under DLAB. */
	uart_write(u, SCR, 0x42);
	uart_write(u, LCR, 0x80);
	assert_int_equal(uart_read(u, SCR), 0x42);
}

static void test_receive(void **state)
{
	struct uart *u = *state;

	assert_int_equal(uart_read(u, LSR) & 0x01, 0);
	assert_true(uart_receive(u, 'a'));
	assert_true(uart_receive(u, 'b'));
	assert_int_equal(uart_read(u, LSR) & 0x01, 1);
	assert_int_equal(uart_read(u, THR), 'a');
	assert_int_equal(uart_read(u, THR), 'b');
	assert_int_equal(uart_read(u, LSR) & 0x01, 0);
	for (unsigned i = 0; i < UART_RX_FIFO; i++)
		assert_true(uart_receive(u, (uint8_t)i));
	assert_false(uart_receive(u, 0xff));     /* full: caller keeps it */
	uart_write(u, IIR, 0x03);                /* FCR: clear RX FIFO */
	assert_int_equal(uart_read(u, LSR) & 0x01, 0);
	assert_int_equal(u->bytes_in, 2 + UART_RX_FIFO);
}

static void test_interrupts(void **state)
{
	struct uart *u = *state;

	/* No IRQ without OUT2, whatever is pending. */
	uart_write(u, IER, 0x03);
	assert_false(uart_irq_line(u));
	uart_write(u, MCR, 0x08);
	/* Enabling THR-empty raises it at once (8250 THRE test). */
	assert_true(uart_irq_line(u));
	assert_int_equal(uart_read(u, IIR), 0x02);
	/* Reading IIR cleared it. */
	assert_int_equal(uart_read(u, IIR), 0x01);
	assert_false(uart_irq_line(u));
	/* Each transmitted byte raises it again. */
	uart_write(u, THR, 'x');
	assert_true(uart_irq_line(u));
	/* Received data has priority over THR empty. */
	uart_receive(u, 'y');
	assert_int_equal(uart_read(u, IIR), 0x04);
	assert_int_equal(uart_read(u, THR), 'y');
	assert_int_equal(uart_read(u, IIR), 0x02);
	assert_int_equal(uart_read(u, IIR), 0x01);
	/* Masked in IER: no interrupt. */
	uart_write(u, IER, 0x00);
	uart_receive(u, 'z');
	assert_false(uart_irq_line(u));
	assert_int_equal(uart_read(u, IIR), 0x01);
}

static void test_loopback(void **state)
{
	struct uart *u = *state;

	/* Linux autoconfig: MCR = LOOP | RTS | OUT2 must read MSR 0x90. */
	uart_write(u, MCR, 0x1a);
	assert_int_equal(uart_read(u, MSR) & 0xf0, 0x90);
	uart_write(u, MCR, 0x1f);
	assert_int_equal(uart_read(u, MSR) & 0xf0, 0xf0);
	/* Bytes written in loopback come back instead of going out. */
	uart_write(u, THR, 'q');
	assert_int_equal(uart_read(u, THR), 'q');
	assert_int_equal(u->bytes_out, 0);
	uart_write(u, MCR, 0x0b);
	assert_int_equal(uart_read(u, MSR), 0xb0);
}

static char raw[64];
static size_t raw_len;

static void byte_sink(void *ctx, uint8_t byte)
{
	assert_ptr_equal(ctx, raw);
	assert_true(raw_len < sizeof(raw));
	raw[raw_len++] = (char)byte;
}

/*
 * A terminal's copy: every transmitted byte, CR and a partial line
 * included, at once; lines are still assembled for the record; loopback
 * bytes are not transmitted, so not copied.
 */
static void test_byte_sink(void **state)
{
	struct uart *u = *state;

	raw_len = 0;
	uart_set_byte_sink(u, byte_sink, raw);
	put(u, "ab\r\nc\t");
	assert_int_equal(raw_len, 6);
	assert_memory_equal(raw, "ab\r\nc\t", 6);
	assert_int_equal(nlines, 1);
	assert_line(0, "ab");
	uart_write(u, MCR, 0x10);               /* loopback */
	put(u, "x");
	assert_int_equal(raw_len, 6);
}

static void test_flush_idle(void **state)
{
	struct uart *u = *state;

	uart_write(u, THR, '$');
	uart_write(u, THR, ' ');
	u->last_out_tsc = 1000;
	uart_flush_idle(u, 1050, 100);          /* not idle long enough */
	assert_int_equal(nlines, 0);
	uart_flush_idle(u, 1100, 100);
	assert_int_equal(nlines, 1);
	assert_string_equal(lines[0].text, "$ ");
	uart_flush_idle(u, 5000, 100);          /* nothing left to flush */
	assert_int_equal(nlines, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_init, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cr_dropped, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_full_line_flushed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_flush, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bytes_out, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dlab, setup, teardown),
		cmocka_unit_test_setup_teardown(test_receive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interrupts, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_loopback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_byte_sink, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_flush_idle, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_status_registers, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_scratch_and_mcr, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
