/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host RAM ranges as the firmware's memory map gives them, merged where
 * they touch, and what they add up to below and above 4 GiB. Plain C over
 * plain data (tests/unit/test_ram_map.c).
 */
#ifndef BOOT_RAM_MAP_H
#define BOOT_RAM_MAP_H

#include "arch/x86/host_paging.h"

/*
 * Adds [base, base + size) to the n ranges, grown into a range it touches
 * (the map need not be sorted), else as a new range. Returns false, adding
 * nothing, when a new range is needed and max are in use.
 */
bool ram_map_add(struct phys_range *ranges, unsigned *n, unsigned max,
		 uint64_t base, uint64_t size);

/* Bytes of the ranges below 4 GiB and at or above it. */
void ram_map_split_4g(const struct phys_range *ranges, unsigned n,
		      uint64_t *below, uint64_t *above);

#endif
