/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * boot/config_values.c on its own: each value syntax of apfvisor.cfg,
 * accepted and refused, without a key or a file around it. Every value is
 * a heap copy of exactly its length (no NUL), so ASan catches a parser
 * that reads past a slice. How the keys use them: test_config.c and
 * test_config_swap.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "boot/config_values.h"

/* The last value made by value(), freed by the next call. */
static char *held;

static struct config_slice value(const char *s)
{
	size_t n = strlen(s);

	free(held);
	held = malloc(n ? n : 1);
	assert_non_null(held);
	memcpy(held, s, n);
	return (struct config_slice){ held, n };
}

static int teardown(void **state)
{
	(void)state;
	free(held);
	held = NULL;
	return 0;
}

static void assert_slice(struct config_slice s, const char *want)
{
	if (s.n != strlen(want) || memcmp(s.p, want, s.n))
		fail_msg("got '%.*s', want '%s'", (int)s.n, s.p, want);
}

static void test_slices(void **state)
{
	struct config_slice s;

	(void)state;
	assert_slice(config_trim(value(" \t a b \r\t ")), "a b");
	assert_slice(config_trim(value(" \t\r ")), "");
	assert_slice(config_trim(value("")), "");
	/* A newline is not a blank: the line parser splits on it first. */
	assert_slice(config_trim(value("\na\n")), "\na\n");
	assert_true(config_slice_eq(value("on"), "on"));
	assert_false(config_slice_eq(value("on"), "o"));
	assert_false(config_slice_eq(value("o"), "on"));
	assert_true(config_slice_eq(value(""), ""));
	s = value("a=b=c");
	assert_int_equal(config_slice_find(s, '='), 1);
	assert_int_equal(config_slice_find(s, '#'), s.n);
	assert_int_equal(config_slice_find(value(""), '='), 0);
}

/* config_parse_size's cases (test_config.c) hold for the slice form. */
static void test_size(void **state)
{
	uint64_t v;

	(void)state;
	assert_true(config_value_size(value("64 MiB"), &v));
	assert_int_equal(v, 64 << 20);
	assert_true(config_value_size(value("2k"), &v));
	assert_int_equal(v, 2048);
	assert_false(config_value_size(value(""), &v));
	assert_false(config_value_size(value("64M "), &v));
	assert_false(config_value_size(value("64 "), &v));
	assert_false(config_value_size(value("1Mi"), &v));
	/* Only the slice counts, not what follows it in memory. */
	assert_true(config_value_size((struct config_slice){ "64Mx", 3 }, &v));
	assert_int_equal(v, 64 << 20);
}

static void test_duration(void **state)
{
	static const struct {
		const char *s;
		uint64_t ns;
	} good[] = {
		{ "0", 0 }, { "00", 0 }, { "0 ms", 0 }, { "1ns", 1 },
		{ "5us", 5000 }, { "5ms", 5000000 }, { "5 ms", 5000000 },
		{ "2\ts", 2000000000 }, { "10s", 10000000000ull },
		{ "10000ms", 10000000000ull },
		{ "10000000000ns", 10000000000ull },
	};
	static const char *const bad[] = {
		"", "5", "ms", " 5ms", "5ms ", "5 ms x", "5m", "5MS", "5 S",
		"1min", "-1s", "+1s", "0x1s", "1.5s", "11s", "10001ms",
		"10000000001ns", "99999999999999999999999ns",
	};
	uint64_t ns;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		ns = 1;
		if (!config_value_duration(value(good[i].s), &ns))
			fail_msg("rejected '%s'", good[i].s);
		assert_int_equal(ns, good[i].ns);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (config_value_duration(value(bad[i]), &ns))
			fail_msg("accepted '%s'", bad[i]);
}

static void test_count(void **state)
{
	uint32_t n;

	(void)state;
	assert_true(config_value_count(value("0"), 64, &n));
	assert_int_equal(n, 0);
	assert_true(config_value_count(value("64"), 64, &n));
	assert_int_equal(n, 64);
	assert_true(config_value_count(value("007"), 64, &n));
	assert_int_equal(n, 7);
	assert_true(config_value_count(value("1000000"), 1000000, &n));
	assert_int_equal(n, 1000000);
	assert_false(config_value_count(value("65"), 64, &n));
	assert_false(config_value_count(value("1000001"), 1000000, &n));
	assert_false(config_value_count(value("99999999999"), 64, &n));
	assert_false(config_value_count(value(""), 64, &n));
	assert_false(config_value_count(value("-1"), 64, &n));
	assert_false(config_value_count(value("+1"), 64, &n));
	assert_false(config_value_count(value("2x"), 64, &n));
	assert_false(config_value_count(value("2 "), 64, &n));
	assert_false(config_value_count(value("0x10"), 64, &n));
}

static void test_hex64(void **state)
{
	static const char *const bad[] = {
		"", "0", "0x", "x12", "0x12g", "1234", "-0x1", " 0x1", "0x1 ",
		"0x11112222333344445", "0b1",
	};
	uint64_t v;

	(void)state;
	assert_true(config_value_hex64(value("0xB7838dba56ebb95e"), &v));
	assert_true(v == 0xb7838dba56ebb95eull);
	assert_true(config_value_hex64(value("0XFFFFFFFFFFFFFFFF"), &v));
	assert_true(v == UINT64_MAX);
	assert_true(config_value_hex64(value("0x0000000000000001"), &v));
	assert_int_equal(v, 1);
	/* 0 is a hex word; debug.isolation_secret is the one to refuse it. */
	assert_true(config_value_hex64(value("0x0"), &v));
	assert_int_equal(v, 0);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (config_value_hex64(value(bad[i]), &v))
			fail_msg("accepted '%s'", bad[i]);
}

static void test_ipv4(void **state)
{
	static const char *const bad[] = {
		"", "1.2.3", "1.2.3.4.", "1.2.3.4.5", "1..2.3", ".1.2.3.4",
		"256.0.0.1", "1.2.3.256", "0001.2.3.4", "a.b.c.d", "1.2.3.4 ",
		" 1.2.3.4", "1.2.3.4/8", "1.2.3.-4", "none",
	};
	uint32_t ip;

	(void)state;
	assert_true(config_value_ipv4(value("10.0.2.2"), &ip));
	assert_int_equal(ip, 0x0a000202);
	assert_true(config_value_ipv4(value("0.0.0.0"), &ip));
	assert_int_equal(ip, 0);
	assert_true(config_value_ipv4(value("255.255.255.255"), &ip));
	assert_int_equal(ip, 0xffffffff);
	assert_true(config_value_ipv4(value("010.001.002.003"), &ip));
	assert_int_equal(ip, 0x0a010203);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (config_value_ipv4(value(bad[i]), &ip))
			fail_msg("accepted '%s'", bad[i]);
}

static void test_ipv4_prefix(void **state)
{
	static const char *const bad[] = {
		"", "10.0.2.15", "10.0.2.15/", "10.0.2.15/0", "10.0.2.15/33",
		"10.0.2.15/100", "10.0.2.15/24 ", "10.0.2.15 /24", "/24",
		"10.0.2/24", "10.0.2.15/-1", "10.0.2.15/2x", "dhcp",
	};
	uint32_t ip;
	unsigned prefix;

	(void)state;
	assert_true(config_value_ipv4_prefix(value("10.0.2.15/24"), &ip,
					     &prefix));
	assert_int_equal(ip, 0x0a00020f);
	assert_int_equal(prefix, 24);
	assert_true(config_value_ipv4_prefix(value("192.168.1.1/1"), &ip,
					     &prefix));
	assert_int_equal(prefix, 1);
	assert_true(config_value_ipv4_prefix(value("1.2.3.4/32"), &ip,
					     &prefix));
	assert_int_equal(prefix, 32);
	assert_true(config_value_ipv4_prefix(value("1.2.3.4/08"), &ip,
					     &prefix));
	assert_int_equal(prefix, 8);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (config_value_ipv4_prefix(value(bad[i]), &ip, &prefix))
			fail_msg("accepted '%s'", bad[i]);
}

static void test_nbd_url(void **state)
{
	static const char *const bad[] = {
		"", "nbd://", "nbd:/1.2.3.4", "NBD://1.2.3.4", "nbd://1.2.3",
		"nbd://1.2.3.4:", "nbd://1.2.3.4:0", "nbd://1.2.3.4:65536",
		"nbd://1.2.3.4:123456", "nbd://1.2.3.4:065535",
		"nbd://1.2.3.4:80x", "nbd://1.2.3.4x",
		"nbd://1.2.3.4/a b", "nbd://1.2.3.4/a,b", "nbd://1.2.3.4/a\"b",
		"nbd://1.2.3.4/a#b", "nbd://1.2.3.4/\x7f", "nbd://host/x",
		" nbd://1.2.3.4",
	};
	char name[SWAP_EXPORT_NAME_MAX + 16];
	struct swap_remote r;

	(void)state;
	assert_true(config_value_nbd_url(value("nbd://10.0.2.2:10810/swap"),
					 &r));
	assert_int_equal(r.ip, 0x0a000202);
	assert_int_equal(r.port, 10810);
	assert_string_equal(r.export_name, "swap");
	/* *r is cleared first: nothing of what it held is left. */
	memset(&r, 'x', sizeof(r));
	assert_true(config_value_nbd_url(value("nbd://192.168.1.20"), &r));
	assert_int_equal(r.ip, 0xc0a80114);
	assert_int_equal(r.port, SWAP_NBD_DEFAULT_PORT);
	assert_string_equal(r.export_name, "");
	assert_true(config_value_nbd_url(value("nbd://1.2.3.4:1/"), &r));
	assert_int_equal(r.port, 1);
	assert_string_equal(r.export_name, "");
	assert_true(config_value_nbd_url(value("nbd://1.2.3.4:65535/a-b_c.d"),
					 &r));
	assert_int_equal(r.port, 65535);
	assert_string_equal(r.export_name, "a-b_c.d");
	/* Up to 5 digits, leading zeros included. */
	assert_true(config_value_nbd_url(value("nbd://1.2.3.4:08080"), &r));
	assert_int_equal(r.port, 8080);
	assert_true(config_value_nbd_url(value("nbd://1.2.3.4/~!$%&'()*+-./:;"
					       "<=>?@[\\]^_`{|}"), &r));
	assert_string_equal(r.export_name, "~!$%&'()*+-./:;<=>?@[\\]^_`{|}");
	/* The longest export name leaves room for its NUL. */
	snprintf(name, sizeof(name), "nbd://1.2.3.4/%0*d",
		 SWAP_EXPORT_NAME_MAX - 1, 0);
	assert_true(config_value_nbd_url(value(name), &r));
	assert_int_equal(strlen(r.export_name), SWAP_EXPORT_NAME_MAX - 1);
	snprintf(name, sizeof(name), "nbd://1.2.3.4/%0*d",
		 SWAP_EXPORT_NAME_MAX, 0);
	assert_false(config_value_nbd_url(value(name), &r));
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (config_value_nbd_url(value(bad[i]), &r))
			fail_msg("accepted '%s'", bad[i]);
}

static void test_nbd_list(void **state)
{
	static const char *const bad[] = {
		"", " ", ",", "nbd://1.2.3.4,", "nbd://1.2.3.4, ",
		",nbd://1.2.3.4", "nbd://1.2.3.4,,nbd://1.2.3.5",
		"nbd://1.2.3.4 nbd://1.2.3.5", "nbd://1.2.3.4, bogus",
		"nbd://1.0.0.1,nbd://1.0.0.2,nbd://1.0.0.3,nbd://1.0.0.4,"
		"nbd://1.0.0.5",
	};
	struct swap_remote at[SWAP_REMOTE_MAX];
	unsigned count;

	(void)state;
	_Static_assert(SWAP_REMOTE_MAX == 4, "the lists below have 4 and 5");
	assert_true(config_value_nbd_list(value("nbd://1.2.3.4"), at, &count));
	assert_int_equal(count, 1);
	assert_int_equal(at[0].ip, 0x01020304);
	assert_true(config_value_nbd_list(
		value("nbd://192.168.1.20, nbd://10.0.2.2:1/ ,"
		      "nbd://255.255.255.255:65535/x"), at, &count));
	assert_int_equal(count, 3);
	assert_int_equal(at[0].port, SWAP_NBD_DEFAULT_PORT);
	assert_int_equal(at[1].ip, 0x0a000202);
	assert_int_equal(at[1].port, 1);
	assert_string_equal(at[2].export_name, "x");
	assert_true(config_value_nbd_list(
		value("nbd://1.0.0.1,nbd://1.0.0.2,nbd://1.0.0.3,"
		      "\tnbd://1.0.0.4"), at, &count));
	assert_int_equal(count, 4);
	assert_int_equal(at[3].ip, 0x01000004);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (config_value_nbd_list(value(bad[i]), at, &count))
			fail_msg("accepted '%s'", bad[i]);
}

static void test_path(void **state)
{
	static const char *const bad[] = {
		"\"", "\"abc", "abc\"", "a\"b", "\"a\"b\"", "\"\"\"",
	};
	struct config_slice out;

	(void)state;
	assert_true(config_value_path(value("\\EFI\\apf\\vmlinuz"), &out));
	assert_slice(out, "\\EFI\\apf\\vmlinuz");
	assert_true(config_value_path(value("\"a b #2\""), &out));
	assert_slice(out, "a b #2");
	/* Empty, quoted or not: whether that is allowed is the key's call. */
	assert_true(config_value_path(value("\"\""), &out));
	assert_slice(out, "");
	assert_true(config_value_path(value(""), &out));
	assert_slice(out, "");
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (config_value_path(value(bad[i]), &out))
			fail_msg("accepted '%s'", bad[i]);
}

static void test_text(void **state)
{
	static const struct {
		const char *s, *want;
	} cases[] = {
		{ "quiet ro", "quiet ro" },
		{ "\"quiet ro\"", "quiet ro" },
		{ "a=\"b c\" d", "a=\"b c\" d" },
		{ "\"a\" \"b\"", "\"a\" \"b\"" },
		{ "\"a=\"b\"\"", "\"a=\"b\"\"" },
		{ "\"\"", "" },
		{ "\"", "\"" },
		{ "\"a", "\"a" },
		{ "", "" },
		{ "# kept", "# kept" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		assert_slice(config_value_text(value(cases[i].s)),
			     cases[i].want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_slices, teardown),
		cmocka_unit_test_teardown(test_size, teardown),
		cmocka_unit_test_teardown(test_duration, teardown),
		cmocka_unit_test_teardown(test_count, teardown),
		cmocka_unit_test_teardown(test_hex64, teardown),
		cmocka_unit_test_teardown(test_ipv4, teardown),
		cmocka_unit_test_teardown(test_ipv4_prefix, teardown),
		cmocka_unit_test_teardown(test_nbd_url, teardown),
		cmocka_unit_test_teardown(test_nbd_list, teardown),
		cmocka_unit_test_teardown(test_path, teardown),
		cmocka_unit_test_teardown(test_text, teardown),
	};

	return cmocka_run_group_tests_name("config_values", tests, NULL, NULL);
}
