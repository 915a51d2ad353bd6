/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lib/ratelimit.c: the first lines of a kind are printed, the rest are
 * counted and reported at powers of two and at the end, and the printed
 * lines plus the reported counts always add up to every line asked for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/ratelimit.h"
#include "tests/unit/console_capture.h"

static int setup(void **state)
{
	(void)state;
	console_forget();
	ratelimit_forget_all();
	return 0;
}

/* The N of a report line "apfvisor: <kind>: N similar lines suppressed". */
static uint64_t reported_count(const char *line, const char *kind)
{
	char prefix[128];
	char *end;
	uint64_t n;

	snprintf(prefix, sizeof(prefix), "apfvisor: %s: ", kind);
	if (strncmp(line, prefix, strlen(prefix)))
		fail_msg("not a report line of '%s': %s", kind, line);
	n = strtoull(line + strlen(prefix), &end, 10);
	if (strcmp(end, " similar lines suppressed") &&
	    strcmp(end, " similar line suppressed"))
		fail_msg("not a report line: %s", line);
	return n;
}

static void the_burst_is_printed_then_lines_are_held(void **state)
{
	struct ratelimit rl = RATELIMIT("restarts", 8);

	(void)state;
	for (unsigned i = 0; i < 8; i++)
		assert_true(ratelimit_allow(&rl));
	for (unsigned i = 8; i < 15; i++)
		assert_false(ratelimit_allow(&rl));
	assert_int_equal(console_nlines, 0);
	assert_int_equal(ratelimit_unreported(&rl), 7);
}

static void reports_come_at_powers_of_two(void **state)
{
	struct ratelimit rl = RATELIMIT("restarts", 8);
	uint64_t suppressed = 0;
	unsigned reports = 0;

	(void)state;
	for (uint64_t n = 1; n <= 1024; n++) {
		enum ratelimit_verdict v = ratelimit_judge(&rl, &suppressed);

		if (n <= 8) {
			assert_int_equal(v, RATELIMIT_PRINT);
		} else if (n == 16 || n == 32 || n == 64 || n == 128 ||
			   n == 256 || n == 512 || n == 1024) {
			assert_int_equal(v, RATELIMIT_REPORT);
			/* 9..16, then 17..32, 33..64, ... */
			assert_int_equal(suppressed, n == 16 ? 8 : n / 2);
			reports++;
		} else {
			assert_int_equal(v, RATELIMIT_HOLD);
		}
	}
	assert_int_equal(reports, 7);
	assert_int_equal(ratelimit_unreported(&rl), 0);
}

/* A burst that is not a power of two: the first report counts from it. */
static void an_odd_burst_reports_from_its_end(void **state)
{
	struct ratelimit rl = RATELIMIT("odd", 5);

	(void)state;
	for (unsigned i = 0; i < 8; i++)
		ratelimit_allow(&rl);
	assert_int_equal(console_nlines, 1);
	assert_string_equal(console_lines[0],
			    "apfvisor: odd: 3 similar lines suppressed");
	ratelimit_allow(&rl);
	assert_int_equal(ratelimit_unreported(&rl), 1);
	ratelimit_report_all();
	assert_int_equal(console_nlines, 2);
	assert_string_equal(console_lines[1],
			    "apfvisor: odd: 1 similar line suppressed");
}

/*
 * A guest doing something 10,000 times gets a bounded number of lines,
 * and what they say adds up to the 10,000.
 */
static void ten_thousand_lines_give_a_few_and_add_up(void **state)
{
	struct ratelimit rl = RATELIMIT("vcpu INIT/SIPI restarts", 8);
	uint64_t printed = 0, suppressed = 0;

	(void)state;
	for (unsigned i = 0; i < 10000; i++)
		printed += ratelimit_allow(&rl);
	ratelimit_report_all();
	assert_int_equal(printed, 8);
	/* Reports at 16, 32, ..., 8192, and the rest at the end. */
	assert_int_equal(console_nlines, 10 + 1);
	for (unsigned i = 0; i < console_nlines; i++)
		suppressed += reported_count(console_lines[i],
					     "vcpu INIT/SIPI restarts");
	assert_int_equal(printed + suppressed, 10000);
	assert_int_equal(reported_count(console_lines[console_nlines - 1],
					"vcpu INIT/SIPI restarts"),
			 10000 - 8192);
}

static void kinds_are_counted_apart(void **state)
{
	struct ratelimit a = RATELIMIT("a", 1), b = RATELIMIT("b", 1);

	(void)state;
	assert_true(ratelimit_allow(&a));
	assert_false(ratelimit_allow(&a));
	assert_true(ratelimit_allow(&b));
	assert_false(ratelimit_allow(&a));  /* a's 3rd: held */
	assert_int_equal(console_nlines, 1);
	assert_string_equal(console_lines[0],
			    "apfvisor: a: 1 similar line suppressed");
	ratelimit_report_all();
	assert_int_equal(console_nlines, 2);
	assert_string_equal(console_lines[1],
			    "apfvisor: a: 1 similar line suppressed");
}

/* Nothing held back, nothing to say; a kind within its burst says nothing. */
static void the_end_report_is_silent_without_suppression(void **state)
{
	struct ratelimit quiet = RATELIMIT("quiet", 4);
	struct ratelimit even = RATELIMIT("even", 2);

	(void)state;
	ratelimit_allow(&quiet);
	for (unsigned i = 0; i < 4; i++)
		ratelimit_allow(&even);
	assert_int_equal(console_nlines, 1);            /* at 4 */
	ratelimit_report_all();
	assert_int_equal(console_nlines, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(the_burst_is_printed_then_lines_are_held,
				       setup),
		cmocka_unit_test_setup(reports_come_at_powers_of_two, setup),
		cmocka_unit_test_setup(an_odd_burst_reports_from_its_end,
				       setup),
		cmocka_unit_test_setup(ten_thousand_lines_give_a_few_and_add_up,
				       setup),
		cmocka_unit_test_setup(kinds_are_counted_apart, setup),
		cmocka_unit_test_setup(
			the_end_report_is_silent_without_suppression, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
