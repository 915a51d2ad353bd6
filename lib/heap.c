// SPDX-License-Identifier: BSD-2-Clause
#include "lib/heap.h"
#include "lib/spinlock.h"
#include "lib/console.h"
#include "lib/page_alloc.h"

static struct page_alloc heap;
static struct spinlock heap_lock;

void hv_heap_init(uint64_t base, uint64_t size)
{
	page_alloc_init(&heap, base, size);
}

uint64_t hv_alloc_pages_low(unsigned npages)
{
	uint64_t pa;

	spin_lock(&heap_lock);
	pa = page_alloc_get(&heap, npages);
	spin_unlock(&heap_lock);
	if (!pa) {
		hv_fatal("hypervisor heap exhausted (asked for %u pages, %llu "
			 "KiB left)", npages,
			 (unsigned long long)(hv_heap_free_bytes() >> 10));
	}
	return pa;
}

void *hv_alloc(size_t bytes)
{
	return (void *)(uintptr_t)hv_alloc_pages_low(
		(unsigned)(ALIGN_UP(bytes, PAGE_SIZE) >> PAGE_SHIFT));
}

uint64_t hv_heap_free_bytes(void)
{
	return page_alloc_free_pages(&heap) << PAGE_SHIFT;
}
