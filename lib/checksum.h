/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A cheap checksum of a 4 KiB page for debug checks (debug.swap_verify):
 * a rotate-and-xor over its words, each under mask, mixed with its index
 * so that swapped words differ. Never 0, so 0 can mean "none taken".
 */
#ifndef LIB_CHECKSUM_H
#define LIB_CHECKSUM_H

#include "lib/types.h"

static inline uint64_t page_checksum(const uint64_t *w, uint64_t mask)
{
	uint64_t sum = 0x9e3779b97f4a7c15ull;

	for (unsigned i = 0; i < PAGE_SIZE / sizeof(*w); i++)
		sum = ((sum << 7) | (sum >> 57)) ^ ((w[i] & mask) + i);
	return sum | 1;
}

#endif
