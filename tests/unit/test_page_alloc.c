/* SPDX-License-Identifier: BSD-2-Clause */
/* lib/page_alloc.c over a heap buffer standing in for host memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/page_alloc.h"

#define ARENA_PAGES 16

struct fixture {
	uint8_t *arena;
	uint64_t base;
	struct page_alloc pa;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->arena = aligned_alloc(PAGE_SIZE, ARENA_PAGES * PAGE_SIZE);
	if (!f->arena)
		return -1;
	/* Dirty memory: every page handed out must come back zeroed. */
	memset(f->arena, 0xaa, ARENA_PAGES * PAGE_SIZE);
	f->base = (uintptr_t)f->arena;
	page_alloc_init(&f->pa, f->base, ARENA_PAGES * PAGE_SIZE);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	free(f->arena);
	free(f);
	return 0;
}

static void assert_zeroed(uint64_t addr, unsigned npages)
{
	const uint8_t *p = (const uint8_t *)(uintptr_t)addr;

	for (size_t i = 0; i < npages * PAGE_SIZE; i++) {
		if (p[i])
			fail_msg("byte %zu of %#llx is %#x", i,
				 (unsigned long long)addr, p[i]);
	}
}

static void test_get_in_order(void **state)
{
	struct fixture *f = *state;
	uint64_t a, b, c;

	assert_int_equal(page_alloc_free_pages(&f->pa), ARENA_PAGES);
	a = page_alloc_get(&f->pa, 1);
	assert_int_equal(a, f->base);
	assert_zeroed(a, 1);
	b = page_alloc_get(&f->pa, 3);
	assert_int_equal(b, f->base + PAGE_SIZE);
	assert_zeroed(b, 3);
	c = page_alloc_get(&f->pa, 1);
	assert_int_equal(c, f->base + 4 * PAGE_SIZE);
	/* Untouched pages stay as they were. */
	assert_int_equal(f->arena[5 * PAGE_SIZE], 0xaa);
	assert_int_equal(page_alloc_free_pages(&f->pa), ARENA_PAGES - 5);
	assert_int_equal(page_alloc_get(&f->pa, 0), 0);
}

static void test_exhaustion(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(page_alloc_get(&f->pa, ARENA_PAGES + 1), 0);
	assert_int_equal(page_alloc_get(&f->pa, ~0u), 0);
	assert_int_equal(page_alloc_free_pages(&f->pa), ARENA_PAGES);
	assert_int_equal(page_alloc_get(&f->pa, ARENA_PAGES - 1), f->base);
	assert_int_equal(page_alloc_get(&f->pa, 2), 0);
	assert_int_equal(page_alloc_get(&f->pa, 1),
			 f->base + (ARENA_PAGES - 1) * PAGE_SIZE);
	assert_int_equal(page_alloc_get(&f->pa, 1), 0);
	assert_int_equal(page_alloc_free_pages(&f->pa), 0);
}

static void test_put_and_reuse(void **state)
{
	struct fixture *f = *state;
	uint64_t a, run, p;

	a = page_alloc_get(&f->pa, 1);
	run = page_alloc_get(&f->pa, 4);
	assert_int_equal(page_alloc_put(&f->pa, a), 0);
	assert_int_equal(page_alloc_free_pages(&f->pa), ARENA_PAGES - 4);
	/* The page on the free list comes back first, zeroed again. */
	p = page_alloc_get(&f->pa, 1);
	assert_int_equal(p, a);
	assert_zeroed(p, 1);

	/* Pages of a run go back one by one; the list is LIFO. */
	memset((void *)(uintptr_t)run, 0x55, 4 * PAGE_SIZE);
	assert_int_equal(page_alloc_put(&f->pa, run + PAGE_SIZE), 0);
	assert_int_equal(page_alloc_put(&f->pa, run + 3 * PAGE_SIZE), 0);
	assert_int_equal(page_alloc_get(&f->pa, 1), run + 3 * PAGE_SIZE);
	assert_zeroed(run + 3 * PAGE_SIZE, 1);
	/* A run never comes from the free list. */
	assert_int_equal(page_alloc_get(&f->pa, 2), f->base + 5 * PAGE_SIZE);
	assert_int_equal(page_alloc_get(&f->pa, 1), run + PAGE_SIZE);
	assert_int_equal(page_alloc_free_pages(&f->pa), ARENA_PAGES - 7);
}

static void test_put_checks(void **state)
{
	struct fixture *f = *state;
	uint64_t a = page_alloc_get(&f->pa, 2);

	assert_int_equal(page_alloc_put(&f->pa, a + 8), -1);
	assert_int_equal(page_alloc_put(&f->pa, f->base - PAGE_SIZE), -1);
	/* Not handed out yet. */
	assert_int_equal(page_alloc_put(&f->pa, a + 2 * PAGE_SIZE), -1);
	assert_int_equal(page_alloc_put(&f->pa, 0), -1);
	assert_int_equal(page_alloc_free_pages(&f->pa), ARENA_PAGES - 2);
}

static void test_free_list_only(void **state)
{
	struct fixture *f = *state;
	uint64_t all = page_alloc_get(&f->pa, ARENA_PAGES);

	assert_int_equal(all, f->base);
	assert_int_equal(page_alloc_put(&f->pa, all), 0);
	assert_int_equal(page_alloc_put(&f->pa, all + PAGE_SIZE), 0);
	assert_int_equal(page_alloc_free_pages(&f->pa), 2);
	/* Two free pages, but not a contiguous run the allocator knows. */
	assert_int_equal(page_alloc_get(&f->pa, 2), 0);
	assert_int_equal(page_alloc_get(&f->pa, 1), all + PAGE_SIZE);
	assert_int_equal(page_alloc_get(&f->pa, 1), all);
	assert_int_equal(page_alloc_get(&f->pa, 1), 0);
}

static void test_unaligned_region(void **state)
{
	struct fixture *f = *state;
	struct page_alloc pa;

	/* Only whole pages inside the region are used. */
	page_alloc_init(&pa, f->base + 100, 4 * PAGE_SIZE);
	assert_int_equal(page_alloc_free_pages(&pa), 3);
	assert_int_equal(page_alloc_get(&pa, 3), f->base + PAGE_SIZE);

	page_alloc_init(&pa, f->base, PAGE_SIZE - 1);
	assert_int_equal(page_alloc_free_pages(&pa), 0);
	assert_int_equal(page_alloc_get(&pa, 1), 0);
	page_alloc_init(&pa, f->base + 1, PAGE_SIZE);
	assert_int_equal(page_alloc_free_pages(&pa), 0);

	/* Address 0 means "none", so page 0 is skipped (never touched). */
	page_alloc_init(&pa, 0, 3 * PAGE_SIZE);
	assert_int_equal(pa.base, PAGE_SIZE);
	assert_int_equal(page_alloc_free_pages(&pa), 2);
	/* A region reaching the top of the address space. */
	page_alloc_init(&pa, 0xffffffffffffe000ull, 0x10000);
	assert_int_equal(page_alloc_free_pages(&pa), 1);
	page_alloc_init(&pa, 0xfffffffffffffff0ull, 0x10);
	assert_int_equal(page_alloc_free_pages(&pa), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_get_in_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_exhaustion, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_put_and_reuse, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_put_checks, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_free_list_only, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_unaligned_region, setup,
						teardown),
	};

	return cmocka_run_group_tests_name("page_alloc", tests, NULL, NULL);
}
