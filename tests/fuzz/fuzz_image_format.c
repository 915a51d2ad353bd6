/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: guest/loaders/image_format.c, which looks at any file named
 * as guest.kernel before anything else does. Whatever the bytes, the
 * answer is one of the formats (never flat unless asked), and a refusal is
 * one terminated line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest/loaders/image_format.h"
#include "tests/fuzz/fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum guest_format wanted[] = {
		GUEST_FORMAT_AUTO, GUEST_FORMAT_BZIMAGE, GUEST_FORMAT_MULTIBOOT,
		GUEST_FORMAT_ELF, GUEST_FORMAT_FLAT,
	};
	char looks[96], err[256];
	enum guest_format f = image_format_detect(data, size, looks,
						  sizeof(looks));

	CHECK(f == GUEST_FORMAT_BZIMAGE || f == GUEST_FORMAT_MULTIBOOT ||
	      f == GUEST_FORMAT_ELF || f == GUEST_FORMAT_UNKNOWN);
	CHECK(f != GUEST_FORMAT_UNKNOWN || (looks[0] && memchr(looks, 0, 96)));
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		enum guest_format c;

		memset(err, 0x55, sizeof(err));
		c = image_format_choose(wanted[i], data, size, "k", err,
					sizeof(err));
		if (c == GUEST_FORMAT_UNKNOWN) {
			CHECK(memchr(err, 0, sizeof(err)) != NULL);
			CHECK(err[0] && !strchr(err, '\n'));
			continue;
		}
		CHECK(c == (wanted[i] == GUEST_FORMAT_AUTO ? f : wanted[i]));
	}
	return 0;
}
