/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Page-aligned memory for the driver targets, from a static pool instead
 * of the allocator (which cost most of each run): up to four contiguous
 * pages per allocation, each allocation followed by a poisoned guard page,
 * everything not handed out poisoned for AddressSanitizer; so an access
 * past an allocation, or to one given back, is caught as with malloc.
 * fuzz_pages_reset() takes every allocation back.
 */
#ifndef TESTS_FUZZ_FUZZ_PAGES_H
#define TESTS_FUZZ_FUZZ_PAGES_H

#include <string.h>

#include <sanitizer/asan_interface.h>

#include "tests/fuzz/fuzz_check.h"

#define FUZZ_SLOTS 160
#define FUZZ_SLOT_PAGES 4
#define FUZZ_PAGE_BYTES 4096u
#define FUZZ_STRIDE ((FUZZ_SLOT_PAGES + 1) * FUZZ_PAGE_BYTES)

static uint8_t fuzz_pool[FUZZ_SLOTS][FUZZ_STRIDE]
	__attribute__((aligned(4096)));
static unsigned fuzz_slot_pages[FUZZ_SLOTS];    /* 0: free */

static inline void fuzz_pages_reset(void)
{
	memset(fuzz_slot_pages, 0, sizeof(fuzz_slot_pages));
	ASAN_POISON_MEMORY_REGION(fuzz_pool, sizeof(fuzz_pool));
}

/* n (1-4) zeroed contiguous pages, or NULL when the pool is out. */
static inline void *fuzz_pages_alloc(unsigned n)
{
	CHECK(n >= 1 && n <= FUZZ_SLOT_PAGES);
	for (unsigned i = 0; i < FUZZ_SLOTS; i++) {
		if (fuzz_slot_pages[i])
			continue;
		fuzz_slot_pages[i] = n;
		ASAN_UNPOISON_MEMORY_REGION(fuzz_pool[i], n * FUZZ_PAGE_BYTES);
		memset(fuzz_pool[i], 0, n * FUZZ_PAGE_BYTES);
		return fuzz_pool[i];
	}
	return NULL;
}

static inline void *fuzz_page_alloc(void)
{
	return fuzz_pages_alloc(1);
}

/* The slot whose allocation holds [a, a + len), or -1. */
static inline int fuzz_pages_holding(uint64_t a, uint64_t len)
{
	uintptr_t base = (uintptr_t)fuzz_pool;
	unsigned i;

	if (a < base || a >= base + sizeof(fuzz_pool))
		return -1;
	i = (unsigned)((a - base) / FUZZ_STRIDE);
	if (!fuzz_slot_pages[i] ||
	    a - (uintptr_t)fuzz_pool[i] + len >
	    fuzz_slot_pages[i] * FUZZ_PAGE_BYTES)
		return -1;
	return (int)i;
}

static inline void fuzz_page_free(void *p)
{
	int i = fuzz_pages_holding((uintptr_t)p, 1);

	CHECK(i >= 0 && p == (void *)fuzz_pool[i]);
	ASAN_POISON_MEMORY_REGION(p, fuzz_slot_pages[i] * FUZZ_PAGE_BYTES);
	fuzz_slot_pages[i] = 0;
}

#endif
