/* SPDX-License-Identifier: BSD-2-Clause */
/* lib/format.c: the formatted printer, checked against expected text and,
 * for what C99 defines, against the C library's snprintf. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "lib/format.h"

static char buf[256];

/* Formats fmt with ours and with libc's; both must agree. */
#define SAME(...)                                                           \
	do {                                                                \
		char ref[256];                                              \
		int r1 = fmt_snprintf(buf, sizeof(buf), __VA_ARGS__);      \
		int r2 = snprintf(ref, sizeof(ref), __VA_ARGS__);           \
		assert_string_equal(buf, ref);                              \
		assert_int_equal(r1, r2);                                   \
	} while (0)

#define EXPECT(want, ...)                                                   \
	do {                                                                \
		int r = fmt_snprintf(buf, sizeof(buf), __VA_ARGS__);       \
		assert_string_equal(buf, want);                             \
		assert_int_equal(r, (int)strlen(want));                     \
	} while (0)

/* Without PRINTF_LIKE, so that formats gcc would reject can be tried. */
static int fmt_unchecked(char *b, size_t n, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = fmt_vsnprintf(b, n, fmt, ap);
	va_end(ap);
	return r;
}

#define EXPECT_UNCHECKED(want, ...)                                         \
	do {                                                                \
		int r = fmt_unchecked(buf, sizeof(buf), __VA_ARGS__);      \
		assert_string_equal(buf, want);                             \
		assert_int_equal(r, (int)strlen(want));                     \
	} while (0)

static void test_plain_text(void **state)
{
	(void)state;
	EXPECT("", "%s", "");
	EXPECT("hello, world", "hello, %s", "world");
	EXPECT("100%", "100%%");
	EXPECT("a%b", "a%cb", '%');
}

static void test_decimal(void **state)
{
	(void)state;
	SAME("%d %i %u", 0, -1, 4000000000u);
	SAME("%d", INT32_MIN);
	SAME("%d", INT32_MAX);
	SAME("%ld", (long)INT64_MIN);
	SAME("%lld", (long long)INT64_MAX);
	SAME("%llu", (unsigned long long)UINT64_MAX);
	SAME("%lu", 18446744073709551615ul);
	SAME("%zu %zd", (size_t)123456789012ull, (ssize_t)-5);
	EXPECT("-9223372036854775808", "%lld", (long long)INT64_MIN);
	EXPECT("18446744073709551615", "%llu", (unsigned long long)UINT64_MAX);
}

static void test_hex(void **state)
{
	(void)state;
	SAME("%x %X", 0xdeadbeefu, 0xdeadbeefu);
	SAME("%lx", 0xfedcba9876543210ul);
	SAME("%llX", 0xfedcba9876543210ull);
	SAME("%x", 0u);
	SAME("%016llx", 0x1234ull);
	EXPECT("ffffffff", "%x", -1);
}

static void test_width_and_flags(void **state)
{
	(void)state;
	SAME("[%5d]", 42);
	SAME("[%-5d]", 42);
	SAME("[%05d]", 42);
	SAME("[%05d]", -42);
	EXPECT_UNCHECKED("[-42  ]", "[%-05d]", -42);
	SAME("[%1d]", 12345);
	SAME("[%08x]", 0xabcu);
	SAME("[%-8X]", 0xabcu);
	SAME("[%*d]", 6, 7);
	SAME("[%*d]", -6, 7);
	SAME("[%0*u]", 4, 7u);
	SAME("[%10s]", "abc");
	SAME("[%-10s]", "abc");
	SAME("[%3c]", 'z');
	SAME("[%-3c]", 'z');
	/* The '0' flag pads numbers only. */
	EXPECT_UNCHECKED("[  abc]", "[%05s]", "abc");
}

static void test_string_precision(void **state)
{
	char not_terminated[3] = { 'a', 'b', 'c' };

	(void)state;
	SAME("[%.2s]", "abcdef");
	SAME("[%.0s]", "abcdef");
	SAME("[%.10s]", "abc");
	SAME("[%6.2s]", "abcdef");
	SAME("[%-6.2s]", "abcdef");
	SAME("[%.*s]", 3, "abcdef");
	SAME("[%.*s]", -1, "abcdef");
	/* With a precision, %s reads no further than it (ASan checks). */
	EXPECT("[abc]", "[%.3s]", not_terminated);
	EXPECT("[ab]", "[%.*s]", 2, not_terminated);
}

static void test_null_string(void **state)
{
	const char *null = NULL;

	(void)state;
	EXPECT_UNCHECKED("(null)", "%s", null);
	EXPECT_UNCHECKED("[  (null)]", "[%8s]", null);
	EXPECT_UNCHECKED("(nu", "%.3s", null);
}

static void test_pointer(void **state)
{
	(void)state;
	EXPECT("0x1234abcd", "%p", (void *)0x1234abcd);
	EXPECT("0xffff800000000000", "%p", (void *)0xffff800000000000ull);
	EXPECT("0x0", "%p", (void *)0);
	EXPECT("[    0x10]", "[%8p]", (void *)0x10);
	EXPECT("[0x10    ]", "[%-8p]", (void *)0x10);
	EXPECT_UNCHECKED("[0x000010]", "[%08p]", (void *)0x10);
}

static void test_char_nul(void **state)
{
	(void)state;
	/* A NUL character is output and counted, as by C99. */
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(fmt_snprintf(buf, sizeof(buf), "a%cb", '\0'), 3);
	assert_memory_equal(buf, "a\0b", 4);
}

static void test_truncation(void **state)
{
	char small[8];

	(void)state;
	memset(small, 'x', sizeof(small));
	assert_int_equal(fmt_snprintf(small, 5, "%s-%d", "abcdef", 12), 9);
	assert_string_equal(small, "abcd");
	/* Nothing is written past n. */
	assert_int_equal(small[5], 'x');

	memset(small, 'x', sizeof(small));
	assert_int_equal(fmt_snprintf(small, 1, "hello"), 5);
	assert_int_equal(small[0], '\0');
	assert_int_equal(small[1], 'x');

	/* n == 0: no write at all, not even the terminator. */
	assert_int_equal(fmt_snprintf(NULL, 0, "%d", 123456), 6);
	memset(small, 'x', sizeof(small));
	assert_int_equal(fmt_snprintf(small, 0, "abc"), 3);
	assert_int_equal(small[0], 'x');

	/* Exactly fitting. */
	assert_int_equal(fmt_snprintf(small, 4, "abc"), 3);
	assert_string_equal(small, "abc");
	assert_int_equal(fmt_snprintf(small, 3, "%5d", 1), 5);
	assert_string_equal(small, "  ");
}

static void test_unknown_conversion(void **state)
{
	(void)state;
	assert_int_equal(fmt_unchecked(buf, sizeof(buf), "a%qb"), 4);
	assert_string_equal(buf, "a%qb");
	assert_int_equal(fmt_unchecked(buf, sizeof(buf), "a%-5"), 4);
	assert_string_equal(buf, "a%-5");
	assert_int_equal(fmt_unchecked(buf, sizeof(buf), "%"), 1);
	assert_string_equal(buf, "%");
	/* The argument of an unknown conversion is not consumed. */
	assert_int_equal(fmt_unchecked(buf, sizeof(buf), "%y%d", 5), 3);
	assert_string_equal(buf, "%y5");
}

static void test_huge_width(void **state)
{
	(void)state;
	/* Saturates instead of overflowing int (UBSan would stop here). */
	assert_int_equal(fmt_unchecked(buf, 4, "%99999999999999d", 1),
			 100000);
	assert_string_equal(buf, "   ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_text),
		cmocka_unit_test(test_decimal),
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_width_and_flags),
		cmocka_unit_test(test_string_precision),
		cmocka_unit_test(test_null_string),
		cmocka_unit_test(test_pointer),
		cmocka_unit_test(test_char_nul),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_unknown_conversion),
		cmocka_unit_test(test_huge_width),
	};

	return cmocka_run_group_tests_name("format", tests, NULL, NULL);
}
