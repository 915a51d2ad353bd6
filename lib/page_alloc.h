/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An allocator of 4 KiB pages over one contiguous region of host memory that
 * is accessible at its physical address (in the hypervisor phys == virt; in
 * tests/unit the region is an ordinary heap buffer). It serves the
 * hypervisor's own needs (EPT tables, stacks, buffers), which are mostly
 * allocated once at start-up: pages are cut from the region in order, and
 * only single pages can be given back, onto a free list. Not thread-safe:
 * the caller serializes.
 */
#ifndef LIB_PAGE_ALLOC_H
#define LIB_PAGE_ALLOC_H

#include "lib/types.h"

struct page_alloc {
	uint64_t base;          /* first page of the region */
	uint64_t end;           /* end of the region (exclusive) */
	uint64_t next;          /* first page never handed out */
	uint64_t free_list;     /* pages given back, linked through their
				 * first word; 0 = empty */
	uint64_t free_count;    /* pages on free_list */
};

/*
 * Manages the whole pages inside [base, base + size). A page at address 0 is
 * never used (0 means "no page"). The region's contents need not be zero.
 */
void page_alloc_init(struct page_alloc *pa, uint64_t base, uint64_t size);

/*
 * Returns the address of npages physically contiguous, zeroed pages, or 0
 * when there is no such run (or npages is 0). Single pages come from the
 * free list first.
 */
uint64_t page_alloc_get(struct page_alloc *pa, unsigned npages);

/*
 * Gives back one page obtained from page_alloc_get (a page of a multi-page
 * run may be given back page by page). Returns 0, or -1 when addr is not a
 * page this allocator handed out. Giving the same page back twice is not
 * detected.
 */
int page_alloc_put(struct page_alloc *pa, uint64_t addr);

/* The number of pages that can still be allocated (possibly not in a run). */
uint64_t page_alloc_free_pages(const struct page_alloc *pa);

#endif
