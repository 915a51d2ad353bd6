/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A bump allocator with a free list of single pages: the simplest allocator
 * that never fragments the run of untouched pages, which is what multi-page
 * requests (stacks, large buffers) need.
 */
#include "lib/page_alloc.h"
#include "lib/string.h"

static void *page_ptr(uint64_t addr)
{
	return (void *)(uintptr_t)addr;
}

void page_alloc_init(struct page_alloc *pa, uint64_t base, uint64_t size)
{
	uint64_t end = size > UINT64_MAX - base ? UINT64_MAX : base + size;

	*pa = (struct page_alloc){ 0 };
	if (base > UINT64_MAX - (PAGE_SIZE - 1))
		return;
	base = ALIGN_UP(base, PAGE_SIZE);
	if (!base)
		base = PAGE_SIZE;
	end = ALIGN_DOWN(end, PAGE_SIZE);
	if (end <= base)
		return;
	pa->base = base;
	pa->end = end;
	pa->next = base;
}

static uint64_t pop_free(struct page_alloc *pa)
{
	uint64_t addr = pa->free_list;

	pa->free_list = *(uint64_t *)page_ptr(addr);
	pa->free_count--;
	return addr;
}

uint64_t page_alloc_get(struct page_alloc *pa, unsigned npages)
{
	uint64_t addr;

	if (!npages)
		return 0;
	if (npages == 1 && pa->free_list) {
		addr = pop_free(pa);
	} else {
		if (npages > (pa->end - pa->next) / PAGE_SIZE)
			return 0;
		addr = pa->next;
		pa->next += npages * PAGE_SIZE;
	}
	memset(page_ptr(addr), 0, npages * PAGE_SIZE);
	return addr;
}

int page_alloc_put(struct page_alloc *pa, uint64_t addr)
{
	if (!IS_ALIGNED(addr, PAGE_SIZE) || addr < pa->base ||
	    addr >= pa->next)
		return -1;
	*(uint64_t *)page_ptr(addr) = pa->free_list;
	pa->free_list = addr;
	pa->free_count++;
	return 0;
}

uint64_t page_alloc_free_pages(const struct page_alloc *pa)
{
	return (pa->end - pa->next) / PAGE_SIZE + pa->free_count;
}
