/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swap/policy/fault_list.c: the replay prefetch's fault list as
 * tools/apftrace --extract-faults writes it, with CRLF line ends, blank
 * lines and upper-case digits; and every refusal with its line number.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "swap/policy/fault_list.h"

static long parse(const char *text, uint64_t *pages, size_t max, char *err)
{
	return fault_list_parse(text, strlen(text), pages, max, err, 128);
}

static void accepted(void **state)
{
	uint64_t pages[8];
	char err[128] = "";

	(void)state;
	assert_int_equal(parse("apfvisor-faults 1\n1a2b\nFF\n0\n", pages, 8,
			       err), 3);
	assert_int_equal(pages[0], 0x1a2b);
	assert_int_equal(pages[1], 0xff);
	assert_int_equal(pages[2], 0);
	assert_int_equal(parse("apfvisor-faults 1\r\n10 \r\n\r\n11", pages, 8,
			       err), 2);
	assert_int_equal(pages[1], 0x11);
	assert_int_equal(parse("apfvisor-faults 1\n", pages, 8, err), 0);
	assert_int_equal(parse("apfvisor-faults 1", pages, 0, err), 0);
	assert_int_equal(parse("apfvisor-faults 1\nffffffffff\n", pages, 8,
			       err), 1);
	assert_int_equal(pages[0], 0xffffffffffull);
}

static void refused(void **state)
{
	static const struct {
		const char *text;
		const char *why;
	} cases[] = {
		{ "", "line 1: not 'apfvisor-faults 1' (empty file)" },
		{ "apfvisor-faults 2\n1\n", "line 1: not 'apfvisor-faults 1'" },
		{ "1a\n", "line 1: not 'apfvisor-faults 1'" },
		{ "apfvisor-faults 1\n1\n0x10\n",
		  "line 3: not a hex page number" },
		{ "apfvisor-faults 1\n1 2\n", "line 2: not a hex page number" },
		{ "apfvisor-faults 1\n12345678901\n",
		  "line 2: a page number of more than 10 digits" },
		{ "apfvisor-faults 1\n1\n2\n3\n", "line 4: more than 2 pages" },
	};
	uint64_t pages[2];
	char err[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse(cases[i].text, pages, 2, err), -1);
		assert_string_equal(err, cases[i].why);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(accepted),
		cmocka_unit_test(refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
