// SPDX-License-Identifier: BSD-2-Clause
#include "boot/ram_map.h"

#define FOUR_GIB GiB(4)

bool ram_map_add(struct phys_range *ranges, unsigned *n, unsigned max,
		 uint64_t base, uint64_t size)
{
	uint64_t end = base + size;

	if (!size)
		return true;
	for (unsigned i = 0; i < *n; i++) {
		struct phys_range *r = &ranges[i];

		if (r->base + r->size == base) {
			r->size += size;
			return true;
		}
		if (end == r->base) {
			r->base = base;
			r->size += size;
			return true;
		}
	}
	if (*n == max)
		return false;
	ranges[(*n)++] = (struct phys_range){ .base = base, .size = size };
	return true;
}

void ram_map_split_4g(const struct phys_range *ranges, unsigned n,
		      uint64_t *below, uint64_t *above)
{
	*below = 0;
	*above = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t base = ranges[i].base, end = base + ranges[i].size;

		if (base < FOUR_GIB)
			*below += MIN(end, FOUR_GIB) - base;
		if (end > FOUR_GIB)
			*above += end - MAX(base, FOUR_GIB);
	}
}
