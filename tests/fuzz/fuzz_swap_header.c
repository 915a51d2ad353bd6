/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: swap/swap_format.c's check of the swap header, the
 * first 4 KiB of a disk that apfvisor will write to. The input is the
 * device size (8 bytes) and then the header page. An accepted header must
 * describe slots that all lie on the device, at least SWAP_MIN_PAGES of
 * them; a refused one leaves one terminated line in err.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swap/swap_format.h"
#include "tests/fuzz/fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t page[SWAP_HEADER_SIZE];
	struct swap_header_info info;
	uint64_t device_size;
	char err[256];

	if (size < sizeof(device_size))
		return 0;
	memcpy(&device_size, data, sizeof(device_size));
	data += sizeof(device_size);
	size -= sizeof(device_size);
	memset(page, 0, sizeof(page));
	memcpy(page, data, size < sizeof(page) ? size : sizeof(page));
	memset(err, 0x55, sizeof(err));
	if (swap_header_parse(page, device_size, &info, err, sizeof(err))) {
		CHECK(memchr(err, 0, sizeof(err)) != NULL);
		CHECK(err[0] != 0 && !strchr(err, '\n'));
		return 0;
	}
	CHECK(info.page_count >= SWAP_MIN_PAGES);
	CHECK(info.page_count <= (UINT64_MAX - SWAP_HEADER_SIZE) / PAGE_SIZE);
	CHECK(swap_slot_offset(info.page_count) <= info.device_size);
	CHECK(info.device_size <= device_size);
	return 0;
}
