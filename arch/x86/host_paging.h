/* SPDX-License-Identifier: BSD-2-Clause */
/* The hypervisor's own page tables: physical memory mapped 1:1. */
#ifndef ARCH_X86_HOST_PAGING_H
#define ARCH_X86_HOST_PAGING_H

#include "boot/boot_info.h"

/* Builds the tables (below 4 GiB) and returns the CR3 value. */
uint64_t host_paging_build(const struct boot_info *bi);

/*
 * Maps [base, base + size) uncacheable (2 MiB pages) in the current tables
 * where nothing is mapped yet: device registers above what
 * host_paging_build covered. Allocates tables from the heap.
 */
void host_paging_map_mmio(uint64_t base, uint64_t size);

#endif
