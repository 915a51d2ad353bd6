/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A test's guest-physical RAM as one array, behind the read and write
 * callbacks guest/ takes (ctx: the struct flat_ram): an access of len
 * bytes at gpa copies when it lies inside (0) and is refused when any
 * byte lies outside (-1).
 */
#ifndef TESTS_UNIT_FLAT_RAM_H
#define TESTS_UNIT_FLAT_RAM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct flat_ram {
	uint8_t *bytes;
	size_t size;
};

static inline int flat_ram_read(void *ctx, uint64_t gpa, void *buf,
				unsigned len)
{
	const struct flat_ram *r = ctx;

	if (gpa >= r->size || r->size - gpa < len)
		return -1;
	memcpy(buf, r->bytes + gpa, len);
	return 0;
}

static inline int flat_ram_write(void *ctx, uint64_t gpa, const void *buf,
				 unsigned len)
{
	const struct flat_ram *r = ctx;

	if (gpa >= r->size || r->size - gpa < len)
		return -1;
	memcpy(r->bytes + gpa, buf, len);
	return 0;
}

#endif
