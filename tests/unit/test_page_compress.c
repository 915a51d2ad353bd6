/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swap/page_compress.c over Debian's lz4 (fetched and built at build
 * time): a zero page, a page of text and a page of small records come
 * back exactly and smaller; a page of random bytes does not fit a room of
 * half a page (it would go to the disk); damaged data, a cut-off buffer
 * or a buffer that makes more or less than a page is refused, never taken
 * as the page.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "swap/page_compress.h"

static uint64_t state[PAGE_COMPRESS_STATE_SIZE / 8];
static uint8_t page[PAGE_SIZE], back[PAGE_SIZE], packed[PAGE_SIZE + 64];

static unsigned round_trip(unsigned room)
{
	unsigned n = page_compress(page, packed, room, state);

	if (n) {
		memset(back, 0xa5, sizeof(back));
		assert_true(page_decompress(packed, n, back));
		assert_memory_equal(back, page, PAGE_SIZE);
	}
	return n;
}

static void compressible_pages(void **state_)
{
	unsigned n;

	(void)state_;
	memset(page, 0, sizeof(page));
	n = round_trip(PAGE_SIZE / 2);
	assert_true(n > 0 && n < 64);
	for (unsigned i = 0; i < PAGE_SIZE; i++)
		page[i] = (uint8_t)"the quick brown fox jumps over "[i % 31];
	n = round_trip(PAGE_SIZE / 2);
	assert_true(n > 0 && n < 256);
	/* 64-byte records: an id and a pointer, the rest zero. */
	memset(page, 0, sizeof(page));
	for (unsigned i = 0; i < PAGE_SIZE / 64; i++) {
		uint64_t id = 1000 + i, next = 0xffff888012340000ull + 64 * i;

		memcpy(page + 64 * i, &id, 8);
		memcpy(page + 64 * i + 8, &next, 8);
	}
	n = round_trip(PAGE_SIZE / 2);
	assert_true(n > 0 && n < PAGE_SIZE / 2);
	print_message("  records page: %u bytes\n", n);
}

static void random_page_does_not_fit(void **state_)
{
	uint64_t x = 88172645463325252ull;

	(void)state_;
	for (unsigned i = 0; i < PAGE_SIZE; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		page[i] = (uint8_t)x;
	}
	assert_int_equal(page_compress(page, packed, PAGE_SIZE / 2, state), 0);
	/* With room for lz4's worst case it is stored, and comes back. */
	assert_true(round_trip(sizeof(packed)) > PAGE_SIZE);
	assert_int_equal(page_compress(page, packed, 0, state), 0);
}

static void damaged_data_refused(void **state_)
{
	unsigned n;

	(void)state_;
	for (unsigned i = 0; i < PAGE_SIZE; i++)
		page[i] = (uint8_t)(i * 7 / 5);
	n = round_trip(PAGE_SIZE);
	assert_true(n > 8);
	/* Cut short: not a whole page. */
	assert_false(page_decompress(packed, n - 1, back));
	assert_false(page_decompress(packed, 0, back));
	/* A run's length made huge: it would go past the page. */
	packed[0] = 0xff;
	packed[1] = 0xff;
	assert_false(page_decompress(packed, n, back));
	/* Bytes after a whole page: they would make more than a page. */
	memset(page, 0, sizeof(page));
	n = round_trip(PAGE_SIZE);
	packed[n] = 0x10;
	packed[n + 1] = 'x';
	assert_false(page_decompress(packed, n + 2, back));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(compressible_pages),
		cmocka_unit_test(random_page_does_not_fit),
		cmocka_unit_test(damaged_data_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
