/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: swap/policy/fault_list.c, the parser of the replay
 * prefetch's fault list (swap.prefetch_trace, a file from the ESP). Any
 * bytes: a refusal leaves one terminated line in err and no page count; an
 * accepted list holds at most the room given, each page fits the digits
 * allowed, and the same text parsed again gives the same pages.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swap/policy/fault_list.h"
#include "tests/fuzz/fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t room = fault_list_max_pages(size);
	uint64_t *pages = malloc(room * sizeof(*pages));
	uint64_t *again = malloc(room * sizeof(*again));
	char err[128];
	long n, m;

	CHECK(pages && again);
	memset(err, 0x55, sizeof(err));
	n = fault_list_parse((const char *)data, size, pages, room, err,
			     sizeof(err));
	if (n < 0) {
		CHECK(memchr(err, 0, sizeof(err)) != NULL);
		CHECK(err[0] != 0 && !strchr(err, '\n'));
	} else {
		CHECK((size_t)n <= room);
		for (long i = 0; i < n; i++)
			CHECK(pages[i] < 1ull << (4 * FAULT_LIST_DIGITS_MAX));
		m = fault_list_parse((const char *)data, size, again, room,
				     err, sizeof(err));
		CHECK(m == n);
		CHECK(!memcmp(pages, again, (size_t)n * sizeof(*pages)));
		/* One page less room: refused exactly when it was full. */
		if (n > 0)
			CHECK(fault_list_parse((const char *)data, size, again,
					       (size_t)n - 1, err,
					       sizeof(err)) == -1);
	}
	free(pages);
	free(again);
	return 0;
}
