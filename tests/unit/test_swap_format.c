/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swap/swap_format.c: the swap header's layout byte by byte, a round trip,
 * every refusal with its exact message, CRC-32 against known values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "swap/swap_format.h"

#define MiB64 (64ull << 20)

static const uint8_t test_uuid[SWAP_UUID_LEN] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
};

/* A page on the heap, of exactly the header's size: ASan sees overruns. */
static uint8_t *new_page(void)
{
	uint8_t *p = malloc(SWAP_HEADER_SIZE);

	assert_non_null(p);
	memset(p, 0, SWAP_HEADER_SIZE);
	return p;
}

static uint8_t *built(uint64_t size)
{
	uint8_t *p = new_page();
	char err[160];

	assert_int_equal(swap_header_build(p, size, test_uuid, err,
					   sizeof(err)), HV_OK);
	return p;
}

static void put_le(uint8_t *p, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint64_t get_le(const uint8_t *p, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = bytes; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/* Recomputes the CRC after a field was changed on purpose. */
static void reseal(uint8_t *p)
{
	put_le(p + SWAP_OFF_CRC, 0, 4);
	put_le(p + SWAP_OFF_CRC, swap_crc32(0, p, SWAP_HEADER_SIZE), 4);
}

static void expect_error(const uint8_t *p, uint64_t device_size,
			 const char *message)
{
	struct swap_header_info info;
	char err[160];

	memset(&info, 0x5a, sizeof(info));
	memset(err, 0, sizeof(err));
	assert_int_equal(swap_header_parse(p, device_size, &info, err,
					   sizeof(err)), HV_ERR_BAD_FORMAT);
	assert_string_equal(err, message);
}

static void test_crc32_known_values(void **state)
{
	(void)state;
	/* The CRC-32 check value (zlib, PNG, Ethernet). */
	assert_int_equal(swap_crc32(0, "123456789", 9), 0xcbf43926);
	assert_int_equal(swap_crc32(0, "", 0), 0);
	assert_int_equal(swap_crc32(0, "a", 1), 0xe8b7be43);
	/* In pieces as in one go. */
	assert_int_equal(swap_crc32(swap_crc32(0, "1234", 4), "56789", 5),
			 0xcbf43926);
}

/* The bytes as swap_format.h documents them; CRC as Python's zlib.crc32. */
static void test_layout(void **state)
{
	uint8_t *p = built(MiB64);

	(void)state;
	assert_memory_equal(p, "APFVSWAP", 8);
	assert_int_equal(get_le(p + 8, 4), 1);
	assert_int_equal(get_le(p + 12, 4), 4096);
	assert_int_equal(get_le(p + 16, 8), MiB64);
	assert_int_equal(get_le(p + 24, 8), MiB64 / 4096 - 1);
	assert_memory_equal(p + 32, test_uuid, 16);
	assert_int_equal(get_le(p + 48, 4), 0xcc31ca0f);
	for (unsigned i = 52; i < SWAP_HEADER_SIZE; i++)
		assert_int_equal(p[i], 0);
	free(p);
}

static void test_round_trip(void **state)
{
	uint8_t *p = built(MiB64);
	struct swap_header_info info;
	char err[160] = "";

	(void)state;
	assert_int_equal(swap_header_parse(p, MiB64, &info, err, sizeof(err)),
			 HV_OK);
	assert_int_equal(info.version, 1);
	assert_int_equal(info.device_size, MiB64);
	assert_int_equal(info.page_count, 16383);
	assert_memory_equal(info.uuid, test_uuid, 16);
	assert_string_equal(err, "");
	assert_int_equal(swap_slot_offset(0), 4096);
	assert_int_equal(swap_slot_offset(16382), MiB64 - 4096);
	free(p);
}

/* Build and parse agree on the smallest area; one byte less is refused. */
static void test_minimum_size(void **state)
{
	uint8_t *p = built(SWAP_MIN_DEVICE_SIZE);
	struct swap_header_info info;
	char err[160];

	(void)state;
	assert_int_equal(swap_header_parse(p, SWAP_MIN_DEVICE_SIZE, &info, err,
					   sizeof(err)), HV_OK);
	assert_int_equal(info.page_count, SWAP_MIN_PAGES);
	assert_int_equal(swap_header_build(p, SWAP_MIN_DEVICE_SIZE - 4096,
					   test_uuid, err, sizeof(err)),
			 HV_ERR_INVALID);
	assert_string_equal(err, "size 1048576 bytes is too small: a swap "
			    "area needs at least 1052672 bytes (256 pages and "
			    "the header page)");
	free(p);
}

static void test_build_refuses_unaligned(void **state)
{
	uint8_t *p = new_page();
	char err[160];

	(void)state;
	assert_int_equal(swap_header_build(p, MiB64 + 512, test_uuid, err,
					   sizeof(err)), HV_ERR_INVALID);
	assert_string_equal(err, "size 67109376 is not a multiple of 4096 "
			    "bytes");
	/* Nothing was written. */
	for (unsigned i = 0; i < SWAP_HEADER_SIZE; i++)
		assert_int_equal(p[i], 0);
	free(p);
}

/* A larger device is fine: only the header's size is used. */
static void test_larger_device(void **state)
{
	uint8_t *p = built(MiB64);
	struct swap_header_info info;
	char err[160];

	(void)state;
	assert_int_equal(swap_header_parse(p, 2 * MiB64, &info, err,
					   sizeof(err)), HV_OK);
	assert_int_equal(info.device_size, MiB64);
	free(p);
}

static void test_magic_missing(void **state)
{
	uint8_t *p = new_page();

	(void)state;
	expect_error(p, MiB64, "no apfvisor swap header (magic missing): "
		     "format it with tools/apfswap-format");
	memcpy(p, "APFVSWAQ", 8);
	expect_error(p, MiB64, "no apfvisor swap header (magic missing): "
		     "format it with tools/apfswap-format");
	free(p);
}

static void test_version(void **state)
{
	uint8_t *p = built(MiB64);

	(void)state;
	put_le(p + SWAP_OFF_VERSION, 2, 4);
	reseal(p);
	expect_error(p, MiB64, "swap header version 2 is not supported "
		     "(this apfvisor reads 1)");
	/* Named before the checksum: a newer format may checksum otherwise. */
	put_le(p + SWAP_OFF_VERSION, 7, 4);
	expect_error(p, MiB64, "swap header version 7 is not supported "
		     "(this apfvisor reads 1)");
	free(p);
}

static void test_header_size(void **state)
{
	uint8_t *p = built(MiB64);

	(void)state;
	put_le(p + SWAP_OFF_HEADER_SIZE, 8192, 4);
	reseal(p);
	expect_error(p, MiB64, "swap header size 8192 is not supported "
		     "(this apfvisor reads 4096)");
	free(p);
}

/* A flipped bit anywhere in the 4096 bytes, reserved area included. */
static void test_checksum(void **state)
{
	static const unsigned where[] = { 16, 24, 33, 48, 52, 4095 };

	(void)state;
	for (unsigned i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		uint8_t *p = built(MiB64);

		p[where[i]] ^= 0x10;
		expect_error(p, MiB64, "swap header checksum mismatch");
		free(p);
	}
}

static void test_device_smaller(void **state)
{
	uint8_t *p = built(MiB64);

	(void)state;
	expect_error(p, MiB64 / 2, "swap header says 67108864 bytes but the "
		     "device has 33554432 bytes");
	expect_error(p, MiB64 - 512, "swap header says 67108864 bytes but "
		     "the device has 67108352 bytes");
	free(p);
}

static void test_too_small(void **state)
{
	uint8_t *p = built(MiB64);
	uint64_t size = 32 * 4096;

	(void)state;
	put_le(p + SWAP_OFF_DEVICE_SIZE, size, 8);
	put_le(p + SWAP_OFF_PAGE_COUNT, 31, 8);
	reseal(p);
	expect_error(p, size, "swap area too small: 31 pages, at least 256 "
		     "needed");
	/* One page short of the minimum. */
	put_le(p + SWAP_OFF_DEVICE_SIZE, SWAP_MIN_DEVICE_SIZE - 4096, 8);
	put_le(p + SWAP_OFF_PAGE_COUNT, SWAP_MIN_PAGES - 1, 8);
	reseal(p);
	expect_error(p, MiB64, "swap area too small: 255 pages, at least 256 "
		     "needed");
	free(p);
}

static void test_inconsistent(void **state)
{
	uint8_t *p = built(MiB64);

	(void)state;
	put_le(p + SWAP_OFF_PAGE_COUNT, 16384, 8);      /* one too many */
	reseal(p);
	expect_error(p, MiB64, "swap header is inconsistent: 16384 pages in "
		     "67108864 bytes");
	put_le(p + SWAP_OFF_PAGE_COUNT, 16383, 8);
	put_le(p + SWAP_OFF_DEVICE_SIZE, MiB64 + 100, 8); /* unaligned */
	reseal(p);
	expect_error(p, 2 * MiB64, "swap header is inconsistent: 16383 pages "
		     "in 67108964 bytes");
	put_le(p + SWAP_OFF_DEVICE_SIZE, 0, 8);
	put_le(p + SWAP_OFF_PAGE_COUNT, 0, 8);
	reseal(p);
	expect_error(p, MiB64, "swap header is inconsistent: 0 pages in 0 "
		     "bytes");
	free(p);
}

/* A device that cannot even hold the header page (truncated image). */
static void test_truncated_device(void **state)
{
	uint8_t *p = built(MiB64);

	(void)state;
	expect_error(p, 0, "device too small for a swap header: 0 bytes");
	expect_error(p, 4095, "device too small for a swap header: 4095 "
		     "bytes");
	free(p);
}

/* A short err buffer still gets a terminated prefix; no overrun. */
static void test_short_error_buffer(void **state)
{
	uint8_t *p = new_page();
	struct swap_header_info info;
	char *err = malloc(8);

	(void)state;
	assert_non_null(err);
	assert_int_equal(swap_header_parse(p, MiB64, &info, err, 8),
			 HV_ERR_BAD_FORMAT);
	assert_string_equal(err, "no apfv");
	free(err);
	free(p);
}

static void test_uuid_format(void **state)
{
	static const uint8_t u[SWAP_UUID_LEN] = {
		0x1b, 0x64, 0x6b, 0x9e, 0xfc, 0x58, 0x45, 0x13,
		0x9d, 0x93, 0xf6, 0x4f, 0xe5, 0xe0, 0x43, 0x6b,
	};
	char *text = malloc(SWAP_UUID_STR_LEN);

	(void)state;
	assert_non_null(text);
	swap_uuid_format(u, text);
	assert_string_equal(text, "1b646b9e-fc58-4513-9d93-f64fe5e0436b");
	free(text);
}

/* A trace disk is no swap disk, and the other way round; each says so. */
static void test_trace_disk_header(void **state)
{
	uint8_t *p = new_page();
	struct swap_header_info info;
	char err[160];

	(void)state;
	assert_int_equal(trace_disk_header_build(p, 64ull << 20, test_uuid, err,
						 sizeof(err)), HV_OK);
	assert_memory_equal(p, "APFVTRCD", 8);
	assert_int_equal(trace_disk_header_parse(p, 64ull << 20, &info, err,
						 sizeof(err)), HV_OK);
	assert_int_equal(info.page_count, (64ull << 20) / 4096 - 1);
	expect_error(p, 64ull << 20, "no apfvisor swap header (magic missing): "
		     "format it with tools/apfswap-format");
	free(p);
	p = built(64ull << 20);
	assert_int_equal(trace_disk_header_parse(p, 64ull << 20, &info, err,
						 sizeof(err)),
			 HV_ERR_BAD_FORMAT);
	assert_string_equal(err, "no apfvisor trace header (magic missing): "
			    "format it with tools/apfswap-format --trace");
	free(p);
	p = new_page();
	assert_int_equal(trace_disk_header_build(p, 16 * 4096, test_uuid, err,
						 sizeof(err)), HV_ERR_INVALID);
	assert_string_equal(err, "size 65536 bytes is too small: a trace area "
			    "needs at least 69632 bytes (16 pages and the "
			    "header page)");
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32_known_values),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_minimum_size),
		cmocka_unit_test(test_build_refuses_unaligned),
		cmocka_unit_test(test_larger_device),
		cmocka_unit_test(test_magic_missing),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_header_size),
		cmocka_unit_test(test_checksum),
		cmocka_unit_test(test_device_smaller),
		cmocka_unit_test(test_too_small),
		cmocka_unit_test(test_inconsistent),
		cmocka_unit_test(test_truncated_device),
		cmocka_unit_test(test_short_error_buffer),
		cmocka_unit_test(test_uuid_format),
		cmocka_unit_test(test_trace_disk_header),
	};

	return cmocka_run_group_tests_name("swap_format", tests, NULL, NULL);
}
