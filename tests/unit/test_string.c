/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lib/string.c as the hypervisor builds it (without APF_HOSTED). unit.mk
 * compiles it with every function renamed fs_<name>, so that these tests
 * call our code, not the C library's, and it is checked against libc's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

void *fs_memset(void *dst, int c, size_t n);
void *fs_memcpy(void *dst, const void *src, size_t n);
void *fs_memmove(void *dst, const void *src, size_t n);
int fs_memcmp(const void *a, const void *b, size_t n);
size_t fs_strlen(const char *s);
size_t fs_strnlen(const char *s, size_t max);
int fs_strcmp(const char *a, const char *b);
int fs_strncmp(const char *a, const char *b, size_t n);
char *fs_strchr(const char *s, int c);
size_t fs_str_copy(char *dst, const char *src, size_t size);

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

static void test_memset_memcpy(void **state)
{
	unsigned char a[64], b[64];

	(void)state;
	memset(a, 1, sizeof(a));
	assert_ptr_equal(fs_memset(a + 3, 0x1ff, 10), a + 3);
	for (size_t i = 0; i < sizeof(a); i++)
		assert_int_equal(a[i], i >= 3 && i < 13 ? 0xff : 1);
	assert_ptr_equal(fs_memset(a, 7, 0), a);
	assert_int_equal(a[0], 1);

	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = (unsigned char)(i * 7);
	memset(b, 0, sizeof(b));
	assert_ptr_equal(fs_memcpy(b + 1, a, 62), b + 1);
	assert_memory_equal(b + 1, a, 62);
	assert_int_equal(b[0], 0);
	assert_int_equal(b[63], 0);
}

/* The quadword paths (aligned, a multiple of 8) and their neighbours. */
static void test_memset_memcpy_quadwords(void **state)
{
	_Alignas(8) unsigned char a[4096 + 16], b[4096 + 16];

	(void)state;
	memset(a, 0x11, sizeof(a));
	assert_ptr_equal(fs_memset(a + 8, 0x2c5, 4096), a + 8);
	for (size_t i = 0; i < sizeof(a); i++)
		assert_int_equal(a[i], i >= 8 && i < 4104 ? 0xc5 : 0x11);
	assert_ptr_equal(fs_memset(a + 8, 0, 8), a + 8);
	assert_int_equal(a[7], 0x11);
	assert_int_equal(a[8], 0);
	assert_int_equal(a[15], 0);
	assert_int_equal(a[16], 0xc5);

	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = (unsigned char)(i * 13 + 5);
	memset(b, 0x77, sizeof(b));
	assert_ptr_equal(fs_memcpy(b + 8, a, 4096), b + 8);
	assert_memory_equal(b + 8, a, 4096);
	assert_int_equal(b[7], 0x77);
	assert_int_equal(b[4104], 0x77);
	/* Aligned but not a multiple of 8, and a multiple but misaligned. */
	memset(b, 0, sizeof(b));
	assert_ptr_equal(fs_memcpy(b, a, 4092), b);
	assert_memory_equal(b, a, 4092);
	assert_int_equal(b[4092], 0);
	assert_ptr_equal(fs_memcpy(b + 3, a + 3, 4096), b + 3);
	assert_memory_equal(b + 3, a + 3, 4096);
}

static void test_memmove_overlap(void **state)
{
	unsigned char mine[100], ref[100];

	(void)state;
	for (size_t off = 0; off < 8; off++) {
		for (size_t i = 0; i < sizeof(mine); i++)
			mine[i] = ref[i] = (unsigned char)i;
		/* Forward overlap (dst after src) and backward. */
		fs_memmove(mine + off, mine + 4, 50);
		memmove(ref + off, ref + 4, 50);
		assert_memory_equal(mine, ref, sizeof(mine));
		fs_memmove(mine + 40, mine + off, 50);
		memmove(ref + 40, ref + off, 50);
		assert_memory_equal(mine, ref, sizeof(mine));
	}
	assert_ptr_equal(fs_memmove(mine, mine, 10), mine);
}

static void test_compare(void **state)
{
	static const char *const s[] = {
		"", "a", "ab", "abc", "abd", "b", "\x80", "\x01", "ab\x80",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		for (size_t j = 0; j < sizeof(s) / sizeof(s[0]); j++) {
			size_t n = strlen(s[i]) < strlen(s[j]) ?
				   strlen(s[i]) + 1 : strlen(s[j]) + 1;

			assert_int_equal(sign(fs_strcmp(s[i], s[j])),
					 sign(strcmp(s[i], s[j])));
			for (size_t k = 0; k <= 4; k++) {
				int mine = fs_strncmp(s[i], s[j], k);

				assert_int_equal(sign(mine),
						 sign(strncmp(s[i], s[j], k)));
			}
			assert_int_equal(sign(fs_memcmp(s[i], s[j], n)),
					 sign(memcmp(s[i], s[j], n)));
		}
	}
	assert_int_equal(fs_memcmp("abc", "abd", 2), 0);
	assert_int_equal(fs_strncmp("abc", "abd", 2), 0);
	/* Bytes compare as unsigned char. */
	assert_true(fs_memcmp("\x80", "\x01", 1) > 0);
	assert_true(fs_strcmp("\x80", "\x01") > 0);
}

static void test_lengths_and_search(void **state)
{
	const char *s = "hello", *s8 = "a\xe9";
	char unterminated[4] = { 'a', 'b', 'c', 'd' };

	(void)state;
	assert_int_equal(fs_strlen(""), 0);
	assert_int_equal(fs_strlen(s), 5);
	assert_int_equal(fs_strnlen(s, 3), 3);
	assert_int_equal(fs_strnlen(s, 10), 5);
	assert_int_equal(fs_strnlen(s, 0), 0);
	/* strnlen never reads past max (ASan checks). */
	assert_int_equal(fs_strnlen(unterminated, 4), 4);
	assert_ptr_equal(fs_strchr(s, 'l'), s + 2);
	assert_ptr_equal(fs_strchr(s, 'h'), s);
	assert_null(fs_strchr(s, 'z'));
	assert_ptr_equal(fs_strchr(s, '\0'), s + 5);
	/* c is converted to char, so a byte >= 0x80 is found. */
	assert_ptr_equal(fs_strchr(s8, 0xe9), s8 + 1);
}

static void test_str_copy(void **state)
{
	char dst[8];

	(void)state;
	memset(dst, 'x', sizeof(dst));
	assert_int_equal(fs_str_copy(dst, "abc", sizeof(dst)), 3);
	assert_string_equal(dst, "abc");
	assert_int_equal(dst[4], 'x');

	assert_int_equal(fs_str_copy(dst, "abcdefghij", sizeof(dst)), 10);
	assert_string_equal(dst, "abcdefg");

	assert_int_equal(fs_str_copy(dst, "abcdefg", sizeof(dst)), 7);
	assert_string_equal(dst, "abcdefg");

	memset(dst, 'x', sizeof(dst));
	assert_int_equal(fs_str_copy(dst, "abc", 1), 3);
	assert_int_equal(dst[0], '\0');
	assert_int_equal(dst[1], 'x');
	/* size 0: nothing written. */
	assert_int_equal(fs_str_copy(dst, "abc", 0), 3);
	assert_int_equal(dst[1], 'x');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memset_memcpy),
		cmocka_unit_test(test_memset_memcpy_quadwords),
		cmocka_unit_test(test_memmove_overlap),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_lengths_and_search),
		cmocka_unit_test(test_str_copy),
	};

	return cmocka_run_group_tests_name("string", tests, NULL, NULL);
}
