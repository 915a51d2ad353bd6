/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lib/console.c as a sink sees it: every line apfvisor prints, its own or
 * a guest's, reaches the sinks whole and ends with "\n", however long it
 * is, so the line after it starts at column 0. A guest's escaped line may
 * be four times as long as the guest's 256 bytes (guest/guest_console.h);
 * a cut one would leave the next apfvisor line glued onto its end.
 */
#define _GNU_SOURCE             /* memmem */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "guest/guest_console.h"
#include "lib/console.h"

/* Everything the sink was handed, as one stream. */
static char seen[64 * 1024];
static size_t seen_len;

static void capture_sink(const char *s, size_t len)
{
	if (len > sizeof(seen) - 1 - seen_len)
		fail_msg("the console wrote more than %zu bytes", sizeof(seen));
	memcpy(seen + seen_len, s, len);
	seen_len += len;
	seen[seen_len] = 0;
}

static int setup(void **state)
{
	(void)state;
	seen_len = 0;
	seen[0] = 0;
	console_add_sink(capture_sink);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	console_remove_sink(capture_sink);
	return 0;
}

/*
 * Every line of the stream is whole: it ends with "\n", starts with
 * "guest: " or "apfvisor: ", and no "apfvisor:" stands inside it (the
 * lines here carry none of their own). Returns the number of lines.
 */
static unsigned check_whole_lines(void)
{
	unsigned lines = 0;
	const char *line = seen;

	assert_true(seen_len > 0);
	assert_int_equal(seen[seen_len - 1], '\n');
	while (*line) {
		const char *end = strchr(line, '\n');
		char *inside;

		assert_non_null(end);
		if (strncmp(line, "guest: ", 7) && strncmp(line, "apfvisor: ", 10))
			fail_msg("line %u starts with neither prefix: %.40s",
				 lines + 1, line);
		inside = memmem(line + 1, (size_t)(end - line - 1), "apfvisor:",
				9);
		if (inside)
			fail_msg("line %u has 'apfvisor:' at column %td",
				 lines + 1, inside - line);
		lines++;
		line = end + 1;
	}
	return lines;
}

static void fill(char *text, size_t len, char c)
{
	memset(text, c, len);
	text[len] = 0;
}

static void a_1025_character_guest_line_ends_with_a_newline(void **state)
{
	static char text[1025 + 1], want[sizeof(text) + 16];

	(void)state;
	fill(text, 1025, 'g');
	guest_console_print_host(text, 1025);
	snprintf(want, sizeof(want), "guest: %s\n", text);
	assert_string_equal(seen, want);
	assert_int_equal(check_whole_lines(), 1);
}

static void an_info_line_after_a_long_guest_line_starts_at_column_0(
	void **state)
{
	static char text[1025 + 1];
	const char *host = "apfvisor: guest halted: test-exit code 0\n";

	(void)state;
	fill(text, 1025, 'g');
	guest_console_print_host(text, 1025);
	hv_info("guest halted: test-exit code %u", 0);
	assert_int_equal(check_whole_lines(), 2);
	assert_int_equal(seen_len, 7 + 1025 + 1 + strlen(host));
	assert_string_equal(seen + 7 + 1025 + 1, host);
}

/* 256 ESC bytes, the longest escape there is, through the guest's queue. */
static void a_line_of_256_escapes_is_printed_whole(void **state)
{
	struct guest_console con;
	char line[UART_LINE_MAX];
	static char want[8 + GUEST_CONSOLE_ESCAPED_MAX];
	size_t n = 0;

	(void)state;
	memset(line, 0x1b, sizeof(line));
	guest_console_init(&con, guest_console_print_host);
	guest_console_push(&con, line, sizeof(line));
	guest_console_drain(&con);
	hv_error("after the escapes");
	n += (size_t)snprintf(want, sizeof(want), "guest: ");
	for (unsigned i = 0; i < UART_LINE_MAX; i++)
		n += (size_t)snprintf(want + n, sizeof(want) - n, "\\x1b");
	snprintf(want + n, sizeof(want) - n, "\n");
	assert_int_equal(strlen(want), 7 + 4 * UART_LINE_MAX + 1);
	assert_memory_equal(seen, want, strlen(want));
	assert_string_equal(seen + strlen(want),
			    "apfvisor: error: after the escapes\n");
	assert_int_equal(check_whole_lines(), 2);
}

static void an_overlong_info_line_is_cut_but_keeps_its_newline(void **state)
{
	static char text[3000 + 1];

	(void)state;
	fill(text, 3000, 'i');
	hv_info("%s", text);
	hv_error("%s", text);
	hv_info("short");
	assert_int_equal(check_whole_lines(), 3);
	assert_true(seen_len < 2 * 3000);
	assert_string_equal(seen + seen_len - strlen("apfvisor: short\n"),
			    "apfvisor: short\n");
	assert_memory_equal(seen, "apfvisor: iii", 13);
	assert_non_null(strstr(seen, "i\napfvisor: error: iii"));
	assert_non_null(strstr(seen, "i\napfvisor: short\n"));
}

/* Raw text cut short still ends its line: what follows is a line anew. */
static void an_overlong_con_printf_keeps_its_newline(void **state)
{
	static char text[3000 + 1];

	(void)state;
	fill(text, 3000, 'r');
	con_printf("guest: %s\n", text);
	hv_info("next");
	assert_int_equal(check_whole_lines(), 2);
	assert_non_null(strstr(seen, "r\napfvisor: next\n"));
}

/* What fits is written as it is, newline or not. */
static void short_raw_text_is_unchanged(void **state)
{
	(void)state;
	con_printf("guest: %s", "part");
	con_printf(" and %u more\n", 2);
	assert_string_equal(seen, "guest: part and 2 more\n");
}

/*
 * A buffering sink's hooks (console_set_buffered): con_poll runs the poll
 * hook and nothing else; an info line flushes nothing; an error flushes
 * what was held, its own line included (it was written first); the end's
 * flush runs its hook once.
 */
static unsigned polls, flushes;
static size_t seen_at_flush;

static void count_poll(void)
{
	polls++;
}

static void count_flush(void)
{
	flushes++;
	seen_at_flush = seen_len;
}

static void buffered_sink_hooks(void **state)
{
	(void)state;
	polls = flushes = 0;
	con_poll();
	assert_int_equal(polls, 0);             /* no hooks yet */
	console_set_buffered(count_poll, count_flush);
	con_poll();
	con_poll();
	assert_int_equal(polls, 2);
	hv_info("held %u", 1);
	assert_int_equal(flushes, 0);
	hv_error("at once");
	assert_int_equal(flushes, 1);
	assert_int_equal(seen_at_flush, seen_len);
	assert_non_null(strstr(seen, "apfvisor: error: at once\n"));
	con_flush_at_end(count_flush);
	assert_int_equal(flushes, 2);
	assert_int_equal(polls, 2);
	console_set_buffered(NULL, NULL);
	con_poll();
	assert_int_equal(polls, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			a_1025_character_guest_line_ends_with_a_newline, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			an_info_line_after_a_long_guest_line_starts_at_column_0,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			a_line_of_256_escapes_is_printed_whole, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			an_overlong_info_line_is_cut_but_keeps_its_newline,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			an_overlong_con_printf_keeps_its_newline, setup,
			teardown),
		cmocka_unit_test_setup_teardown(short_raw_text_is_unchanged,
						setup, teardown),
		cmocka_unit_test_setup_teardown(buffered_sink_hooks, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
