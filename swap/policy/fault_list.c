// SPDX-License-Identifier: BSD-2-Clause
/* The replay prefetch's fault list (swap/policy/fault_list.h). */
#include "swap/policy/fault_list.h"
#include "lib/format.h"

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Line [s, e) without its trailing spaces and CR. */
static size_t trimmed(const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\r' || s[n - 1] == '\t'))
		n--;
	return n;
}

static bool is_magic(const char *s, size_t n)
{
	const char *m = FAULT_LIST_MAGIC;
	size_t i = 0;

	while (m[i] && i < n && s[i] == m[i])
		i++;
	return !m[i] && i == n;
}

long fault_list_parse(const char *text, size_t len, uint64_t *pages,
		      size_t max, char *err, size_t err_len)
{
	size_t at = 0, count = 0;
	unsigned line = 0;

	while (at < len) {
		size_t end = at, n;
		uint64_t page = 0;

		while (end < len && text[end] != '\n')
			end++;
		n = trimmed(text + at, end - at);
		line++;
		if (line == 1 && !is_magic(text + at, n)) {
			fmt_snprintf(err, err_len, "line 1: not '%s'",
				     FAULT_LIST_MAGIC);
			return -1;
		}
		if (line > 1 && n) {
			if (n > FAULT_LIST_DIGITS_MAX) {
				fmt_snprintf(err, err_len, "line %u: a page "
					     "number of more than %u digits",
					     line, FAULT_LIST_DIGITS_MAX);
				return -1;
			}
			for (size_t i = 0; i < n; i++) {
				int d = hex_digit(text[at + i]);

				if (d < 0) {
					fmt_snprintf(err, err_len, "line %u: "
						     "not a hex page number",
						     line);
					return -1;
				}
				page = page << 4 | (uint64_t)d;
			}
			if (count == max) {
				fmt_snprintf(err, err_len, "line %u: more than "
					     "%zu pages", line, max);
				return -1;
			}
			pages[count++] = page;
		}
		at = end + 1;
	}
	if (!line) {
		fmt_snprintf(err, err_len, "line 1: not '%s' (empty file)",
			     FAULT_LIST_MAGIC);
		return -1;
	}
	return (long)count;
}
