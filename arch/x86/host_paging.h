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
 * Maps [base, base + size) uncacheable (2 MiB pages) in the current tables
 * where nothing is mapped yet: device registers above what
 * host_paging_build covered. Allocates tables from the heap.
 */
void host_paging_map_mmio(uint64_t base, uint64_t size);

#endif
