/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/guest_console.c: a guest's bytes are shown escaped, so no byte it
 * sends can start a host line or pass for one of apfvisor's; lines wait in
 * the queue until drained, in order, and a full queue loses nothing. An
 * attached terminal gets every byte as it is, and loses none either.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "guest/guest_console.h"

#define MAX_PRINTED 64

static char printed[MAX_PRINTED][GUEST_CONSOLE_ESCAPED_MAX];
static unsigned nprinted;
static struct guest_console con;

static void print(const char *escaped, size_t len)
{
	if (nprinted == MAX_PRINTED)
		fail_msg("too many lines printed");
	assert_int_equal(strlen(escaped), len);
	memcpy(printed[nprinted++], escaped, len + 1);
}

static int setup(void **state)
{
	(void)state;
	nprinted = 0;
	guest_console_init(&con, print);
	return 0;
}

static const char *escape(const char *in, size_t len)
{
	static char out[GUEST_CONSOLE_ESCAPED_MAX];
	size_t n = guest_console_escape(in, len, out, sizeof(out));

	assert_int_equal(n, strlen(out));
	return out;
}

static void printable_ascii_is_kept(void **state)
{
	const char *s = "hostile: PASS ~ [x] {y} 'q' \"z\" 0123";

	(void)state;
	assert_string_equal(escape(s, strlen(s)), s);
}

static void every_other_byte_is_escaped(void **state)
{
	char in[1], want[8];

	(void)state;
	for (unsigned b = 0; b < 256; b++) {
		in[0] = (char)b;
		if (b == '\\')
			strcpy(want, "\\\\");
		else if ((b >= 0x20 && b < 0x7f) || b == '\t')
			snprintf(want, sizeof(want), "%c", b);
		else
			snprintf(want, sizeof(want), "\\x%02x", b);
		assert_string_equal(escape(in, 1), want);
	}
}

/* What would start a new line for a terminal or for Python's splitlines. */
static void line_breakers_cannot_forge_a_line(void **state)
{
	static const char forged[] =
		"ok\x0b" "apfvisor: error: a\x0c" "apfvisor: b\x1c" "c\x1d"
		"d\x1e" "e\xc2\x85" "apfvisor: f\xe2\x80\xa8" "g\xe2\x80\xa9"
		"h\r" "i\x1b[2K" "j\x00k";
	const char *out = escape(forged, sizeof(forged) - 1);

	(void)state;
	assert_string_equal(out, "ok\\x0bapfvisor: error: a\\x0capfvisor: "
			    "b\\x1cc\\x1dd\\x1ee\\xc2\\x85apfvisor: "
			    "f\\xe2\\x80\\xa8g\\xe2\\x80\\xa9h\\x0di\\x1b[2Kj"
			    "\\x00k");
	for (const char *p = out; *p; p++)
		assert_true((*p >= 0x20 && *p < 0x7f) || *p == '\t');
}

static void a_full_line_fits_and_cuts_whole(void **state)
{
	char in[UART_LINE_MAX], out[GUEST_CONSOLE_ESCAPED_MAX], small[10];

	(void)state;
	memset(in, 0xff, sizeof(in));
	assert_int_equal(guest_console_escape(in, sizeof(in), out,
					      sizeof(out)),
			 4 * UART_LINE_MAX);
	/* 9 characters of room: two escapes, never half of a third. */
	assert_int_equal(guest_console_escape(in, sizeof(in), small,
					      sizeof(small)), 8);
	assert_string_equal(small, "\\xff\\xff");
}

static void lines_wait_for_the_drain_in_order(void **state)
{
	(void)state;
	guest_console_push(&con, "one", 3);
	guest_console_push(&con, "two\\", 4);
	assert_int_equal(nprinted, 0);
	guest_console_drain(&con);
	assert_int_equal(nprinted, 2);
	assert_string_equal(printed[0], "one");
	assert_string_equal(printed[1], "two\\\\");
	guest_console_drain(&con);
	assert_int_equal(nprinted, 2);
	assert_int_equal(con.lines, 2);
}

static void a_full_queue_prints_the_oldest_and_loses_nothing(void **state)
{
	char line[16];

	(void)state;
	for (unsigned i = 0; i < GUEST_CONSOLE_QUEUE + 3; i++) {
		snprintf(line, sizeof(line), "line %u", i);
		guest_console_push(&con, line, strlen(line));
	}
	assert_int_equal(nprinted, 3);
	assert_int_equal(con.printed_in_place, 3);
	guest_console_drain(&con);
	assert_int_equal(nprinted, GUEST_CONSOLE_QUEUE + 3);
	for (unsigned i = 0; i < nprinted; i++) {
		snprintf(line, sizeof(line), "line %u", i);
		assert_string_equal(printed[i], line);
	}
}

static char terminal[3 * GUEST_CONSOLE_TERMINAL_BYTES];
static size_t terminal_len;
static unsigned terminal_writes;
/* How many bytes the terminal takes per call without a wait (0: all). */
static size_t terminal_takes;

static size_t terminal_write(const char *bytes, size_t len, bool wait)
{
	if (!wait && terminal_takes)
		len = MIN(len, terminal_takes);
	assert_true(terminal_len + len <= sizeof(terminal));
	memcpy(terminal + terminal_len, bytes, len);
	terminal_len += len;
	terminal_writes++;
	return len;
}

static void push_bytes(const char *bytes, size_t len)
{
	for (size_t i = 0; i < len; i++)
		guest_console_push_byte(&con, (uint8_t)bytes[i]);
}

static void attach_terminal(void)
{
	terminal_len = 0;
	terminal_writes = 0;
	terminal_takes = 0;
	guest_console_attach_terminal(&con, terminal_write);
}

/* Without a terminal, bytes are not queued at all. */
static void no_terminal_queues_no_bytes(void **state)
{
	(void)state;
	push_bytes("abc", 3);
	assert_int_equal(con.terminal_count, 0);
	assert_int_equal(con.terminal_bytes, 0);
}

/*
 * The terminal gets every byte as it is (escape sequences, CR, BS, NUL,
 * a prompt without a newline) at the drain; the record's line stays
 * escaped.
 */
static void the_terminal_gets_the_bytes_raw_and_the_record_stays_escaped(
	void **state)
{
	static const char bytes[] = "/ # \x1b[6n\x08 \x08\x00!\r\n";

	(void)state;
	attach_terminal();
	push_bytes(bytes, sizeof(bytes) - 1);
	guest_console_push(&con, "/ # \x1b[6n", 8);
	assert_int_equal(terminal_len, 0);
	guest_console_drain(&con);
	assert_int_equal(terminal_len, sizeof(bytes) - 1);
	assert_memory_equal(terminal, bytes, sizeof(bytes) - 1);
	assert_int_equal(nprinted, 1);
	assert_string_equal(printed[0], "/ # \\x1b[6n");
	assert_int_equal(con.terminal_bytes, sizeof(bytes) - 1);
}

/*
 * More bytes than the ring holds before a drain: the pusher writes the
 * ring out itself; every byte arrives once, in order.
 */
static void a_full_ring_is_written_in_place_and_loses_nothing(void **state)
{
	size_t total = 2 * GUEST_CONSOLE_TERMINAL_BYTES + 77;

	(void)state;
	attach_terminal();
	for (size_t i = 0; i < total; i++)
		guest_console_push_byte(&con, (uint8_t)(i * 7));
	assert_int_equal(con.terminal_in_place, 2);
	guest_console_drain(&con);
	assert_int_equal(terminal_len, total);
	for (size_t i = 0; i < total; i++)
		assert_int_equal((uint8_t)terminal[i], (uint8_t)(i * 7));
	assert_int_equal(con.terminal_count, 0);
}

#define T(name) cmocka_unit_test_setup(name, setup)

/*
 * A terminal that takes 5 bytes a call without waiting (a UART's FIFO):
 * a drain sends what it takes and keeps the rest queued, in order, and
 * still prints the record's lines; the next drain goes on; the end's
 * flush waits until every byte is out.
 */
static void a_slow_terminal_keeps_the_rest_for_the_next_drain(void **state)
{
	static const char bytes[] = "0123456789abcdefghij";

	(void)state;
	attach_terminal();
	terminal_takes = 5;
	push_bytes(bytes, 20);
	guest_console_push(&con, "line", 4);
	guest_console_drain(&con);
	assert_int_equal(terminal_len, 5);
	assert_int_equal(con.terminal_count, 15);
	assert_int_equal(nprinted, 1);
	guest_console_drain(&con);
	assert_int_equal(terminal_len, 10);
	guest_console_flush(&con);
	assert_int_equal(terminal_len, 20);
	assert_memory_equal(terminal, bytes, 20);
	assert_int_equal(con.terminal_count, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(a_slow_terminal_keeps_the_rest_for_the_next_drain),
		T(printable_ascii_is_kept),
		T(every_other_byte_is_escaped),
		T(line_breakers_cannot_forge_a_line),
		T(a_full_line_fits_and_cuts_whole),
		T(lines_wait_for_the_drain_in_order),
		T(a_full_queue_prints_the_oldest_and_loses_nothing),
		T(no_terminal_queues_no_bytes),
		T(the_terminal_gets_the_bytes_raw_and_the_record_stays_escaped),
		T(a_full_ring_is_written_in_place_and_loses_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
