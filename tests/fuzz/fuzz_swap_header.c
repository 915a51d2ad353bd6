/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: swap/swap_format.c's checks of the swap header and of
 * the trace-disk header, the first 4 KiB of a disk that apfvisor will
 * write to. The input is the device size (8 bytes) and then the header
 * page. An accepted header must describe pages that all lie on the device,
 * at least the kind's minimum of them; a refused one leaves one terminated
 * line in err.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swap/swap_format.h"
#include "tests/fuzz/fuzz_check.h"

typedef enum hv_err (*blockdev_parse_fn)(const void *page,
					 uint64_t device_size,
					 struct swap_header_info *out,
					 char *err, size_t err_len);

static void check(blockdev_parse_fn parse, const uint8_t *page,
		  uint64_t device_size, uint64_t min_pages)
{
	struct swap_header_info info;
	char err[256];

	memset(err, 0x55, sizeof(err));
	if (parse(page, device_size, &info, err, sizeof(err)) != HV_OK) {
		CHECK(memchr(err, 0, sizeof(err)) != NULL);
		CHECK(err[0] != 0 && !strchr(err, '\n'));
		return;
	}
	CHECK(info.page_count >= min_pages);
	CHECK(info.page_count <= (UINT64_MAX - SWAP_HEADER_SIZE) / PAGE_SIZE);
	CHECK(swap_slot_offset(info.page_count) <= info.device_size);
	CHECK(info.device_size <= device_size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t page[SWAP_HEADER_SIZE];
	uint64_t device_size;

	if (size < sizeof(device_size))
		return 0;
	memcpy(&device_size, data, sizeof(device_size));
	data += sizeof(device_size);
	size -= sizeof(device_size);
	memset(page, 0, sizeof(page));
	memcpy(page, data, size < sizeof(page) ? size : sizeof(page));
	check(swap_header_parse, page, device_size, SWAP_MIN_PAGES);
	check(trace_disk_header_parse, page, device_size, TRACE_DISK_MIN_PAGES);
	return 0;
}
