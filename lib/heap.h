/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The hypervisor heap: zeroed 4 KiB pages from the region boot/ allocated
 * below 4 GiB. Running out is fatal (hv_fatal: a clear error, then the run
 * stops): every allocation is made at start-up, sized from the
 * configuration. boot/ hands the region over; every layer allocates here.
 */
#ifndef LIB_HEAP_H
#define LIB_HEAP_H

#include "lib/types.h"

void hv_heap_init(uint64_t base, uint64_t size);
uint64_t hv_alloc_pages_low(unsigned npages);    /* host-physical address */
void *hv_alloc(size_t bytes);                    /* page-granular */
uint64_t hv_heap_free_bytes(void);

#endif
