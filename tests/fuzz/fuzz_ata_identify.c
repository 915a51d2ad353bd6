/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: swap/drivers/ata_identify.c over arbitrary IDENTIFY DEVICE
 * data (512 bytes, zero-padded). An accepted disk has at least one 4 KiB
 * page, a 28-bit disk stays below the 28-bit limit, and the model string
 * is printable, terminated and without trailing blanks; a refusal is a
 * non-empty phrase.
 */
#include <stdint.h>
#include <string.h>

#include "swap/drivers/ata_identify.h"
#include "tests/fuzz/fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint16_t words[ATA_IDENTIFY_WORDS];
	struct ata_identity id;
	const char *why;
	size_t n;

	memset(words, 0, sizeof(words));
	memcpy(words, data, size < sizeof(words) ? size : sizeof(words));
	memset(&id, 0x55, sizeof(id));
	why = ata_identity_parse(words, &id);
	if (why) {
		CHECK(why[0] != 0);
		return 0;
	}
	CHECK(id.sectors >= 4096 / ATA_SECTOR_SIZE);
	CHECK(id.lba48 || id.sectors <= ATA_LBA28_LIMIT);
	n = strnlen(id.model, sizeof(id.model));
	CHECK(n < sizeof(id.model));
	for (size_t i = 0; i < n; i++)
		CHECK(id.model[i] >= 0x20 && id.model[i] < 0x7f);
	CHECK(n == 0 || id.model[n - 1] != ' ');
	return 0;
}
