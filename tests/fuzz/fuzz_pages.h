/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Page-aligned pages for the driver targets, from a static pool instead
 * of the allocator (which cost most of each run): every page not handed
 * out is poisoned for AddressSanitizer, and a poisoned guard page lies
 * after each page, so an access past a page, or to a page given back, is
 * caught as with malloc. fuzz_pages_reset() takes every page back.
 */
#ifndef TESTS_FUZZ_FUZZ_PAGES_H
#define TESTS_FUZZ_FUZZ_PAGES_H

#include <string.h>

#include <sanitizer/asan_interface.h>

#include "tests/fuzz/fuzz_check.h"

#define FUZZ_PAGES 160
#define FUZZ_PAGE_BYTES 4096u

static uint8_t fuzz_pool[2 * FUZZ_PAGES][FUZZ_PAGE_BYTES]
	__attribute__((aligned(4096)));
static bool fuzz_page_used[FUZZ_PAGES];

static inline void fuzz_pages_reset(void)
{
	memset(fuzz_page_used, 0, sizeof(fuzz_page_used));
	ASAN_POISON_MEMORY_REGION(fuzz_pool, sizeof(fuzz_pool));
}

/* A zeroed page, or NULL when all are out. */
static inline void *fuzz_page_alloc(void)
{
	for (unsigned i = 0; i < FUZZ_PAGES; i++) {
		if (fuzz_page_used[i])
			continue;
		fuzz_page_used[i] = true;
		ASAN_UNPOISON_MEMORY_REGION(fuzz_pool[2 * i], FUZZ_PAGE_BYTES);
		memset(fuzz_pool[2 * i], 0, FUZZ_PAGE_BYTES);
		return fuzz_pool[2 * i];
	}
	return NULL;
}

static inline void fuzz_page_free(void *p)
{
	unsigned i = (unsigned)(((uint8_t (*)[FUZZ_PAGE_BYTES])p -
				 fuzz_pool) / 2);

	CHECK(i < FUZZ_PAGES && fuzz_page_used[i] &&
	      p == (void *)fuzz_pool[2 * i]);
	fuzz_page_used[i] = false;
	ASAN_POISON_MEMORY_REGION(p, FUZZ_PAGE_BYTES);
}

/* Whether p is a page handed out and not given back. */
static inline bool fuzz_page_live(const void *p)
{
	uintptr_t a = (uintptr_t)p, base = (uintptr_t)fuzz_pool;

	if (a < base || a >= base + sizeof(fuzz_pool) ||
	    (a - base) % (2 * FUZZ_PAGE_BYTES))
		return false;
	return fuzz_page_used[(a - base) / (2 * FUZZ_PAGE_BYTES)];
}

#endif
