/* SPDX-License-Identifier: BSD-2-Clause */
/* The hypervisor's own page tables: physical memory mapped 1:1. */
#ifndef ARCH_X86_HOST_PAGING_H
#define ARCH_X86_HOST_PAGING_H

#include "lib/types.h"

/* A range of host-physical memory. */
struct phys_range {
	uint64_t base;
	uint64_t size;
};

/*
 * Builds the tables (below 4 GiB) and returns the CR3 value: everything up
 * to phys_top (at least 4 GiB), write-back where it overlaps one of the n
 * RAM ranges, uncacheable elsewhere.
 */
uint64_t host_paging_build(const struct phys_range *ram, unsigned n,
			   uint64_t phys_top);

/*
 * The largest device window host_paging_map_mmio maps: an ECAM window of
 * 256 buses, a frame buffer, a disk controller's registers. A device (or
 * firmware) naming more is refused, not mapped 2 MiB at a time for ever.
 */
#define HOST_MMIO_MAP_MAX MiB(256)
/* Physical addresses are at most 52 bits (SDM Vol. 3A, 4.1.4). */
#define HOST_PHYS_LIMIT (1ull << 52)

static inline bool host_mmio_range_ok(uint64_t base, uint64_t size)
{
	return size && size <= HOST_MMIO_MAP_MAX && base < HOST_PHYS_LIMIT &&
	       HOST_PHYS_LIMIT - base >= size;
}

/*
 * Maps [base, base + size) uncacheable (2 MiB pages) in the current tables
 * where nothing is mapped yet: device registers above what
 * host_paging_build covered. Allocates tables from the heap. False, with
 * nothing mapped, when the range is not host_mmio_range_ok: the caller
 * does without the device.
 */
bool host_paging_map_mmio(uint64_t base, uint64_t size);

#endif
