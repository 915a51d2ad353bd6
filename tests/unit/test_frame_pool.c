/* SPDX-License-Identifier: BSD-2-Clause */
/* swap/frame_pool.c: ranges, allocation, frees and their checks, counters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "swap/frame_pool.h"

struct fixture {
	struct frame_pool pool;
	uint64_t *storage;
};

/* Storage of exactly the documented size on the heap: ASan sees overruns. */
static struct fixture *make_pool(uint64_t capacity)
{
	struct fixture *f = calloc(1, sizeof(*f));
	uint64_t words = frame_pool_storage_words(capacity);

	assert_non_null(f);
	f->storage = malloc(words ? words * sizeof(uint64_t) : 1);
	assert_non_null(f->storage);
	/* Garbage, so that relying on zeroed storage shows. */
	memset(f->storage, 0xff, words * sizeof(uint64_t));
	frame_pool_init(&f->pool, f->storage, capacity);
	return f;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (f) {
		free(f->storage);
		free(f);
	}
	return 0;
}

static void test_storage_words(void **state)
{
	(void)state;
	assert_int_equal(frame_pool_storage_words(0), 0);
	assert_int_equal(frame_pool_storage_words(1), 2);
	assert_int_equal(frame_pool_storage_words(64), 65);
	assert_int_equal(frame_pool_storage_words(65), 67);
	assert_int_equal(frame_pool_storage_words(1000), 1016);
}

static void test_add_range_checks(void **state)
{
	struct fixture *f = make_pool(40);
	struct frame_pool *p = &f->pool;

	*state = f;
	assert_int_equal(frame_pool_add_range(p, 0x100800, 4), -1);
	assert_int_equal(frame_pool_add_range(p, 0x100000, 0), -1);
	assert_int_equal(frame_pool_add_range(p, 0x100000, 41), -1);
	assert_int_equal(frame_pool_add_range(p, 0xfffffffffffff000ull, 2),
			 -1);
	assert_int_equal(p->nranges, 0);
	assert_int_equal(p->total, 0);

	assert_int_equal(frame_pool_add_range(p, 0x100000, 4), 0);
	/* Overlaps at the start, the end, inside and around. */
	assert_int_equal(frame_pool_add_range(p, 0x0fe000, 3), -1);
	assert_int_equal(frame_pool_add_range(p, 0x103000, 1), -1);
	assert_int_equal(frame_pool_add_range(p, 0x101000, 1), -1);
	assert_int_equal(frame_pool_add_range(p, 0x0f0000, 100 - 64), -1);
	/* Adjacent is fine. */
	assert_int_equal(frame_pool_add_range(p, 0x0ff000, 1), 0);
	assert_int_equal(frame_pool_add_range(p, 0x104000, 1), 0);
	/* A range must end below 2^64 (addresses are 52 bits anyway). */
	assert_int_equal(frame_pool_add_range(p, 0xfffffffffffff000ull, 1),
			 -1);
	assert_int_equal(frame_pool_add_range(p, 0xffffffffffffe000ull, 1), 0);
	assert_true(frame_pool_contains(p, 0xffffffffffffefffull));
	assert_false(frame_pool_contains(p, 0xfffffffffffff000ull));
	assert_int_equal(p->total, 7);
	assert_int_equal(p->nfree, 7);
	/* No room for more than the capacity. */
	assert_int_equal(frame_pool_add_range(p, 0x200000, 34), -1);
	assert_int_equal(frame_pool_add_range(p, 0x200000, 33), 0);
	assert_int_equal(frame_pool_add_range(p, 0x300000, 1), -1);
	assert_int_equal(p->total, 40);
}

static void test_too_many_ranges(void **state)
{
	struct fixture *f = make_pool(100);

	*state = f;
	for (unsigned i = 0; i < FRAME_POOL_MAX_RANGES; i++)
		assert_int_equal(frame_pool_add_range(&f->pool,
						      0x1000000 * (i + 1), 2),
				 0);
	assert_int_equal(frame_pool_add_range(&f->pool, 0x80000000, 1), -1);
	assert_int_equal(f->pool.total, 2 * FRAME_POOL_MAX_RANGES);
}

static void test_alloc_until_empty(void **state)
{
	struct fixture *f = make_pool(8);
	struct frame_pool *p = &f->pool;
	uint64_t pa;

	*state = f;
	assert_false(frame_pool_alloc(p, &pa));
	assert_int_equal(frame_pool_add_range(p, 0x200000, 8), 0);
	/* A new range is handed out lowest address first. */
	for (unsigned i = 0; i < 8; i++) {
		assert_true(frame_pool_alloc(p, &pa));
		assert_int_equal(pa, 0x200000 + i * PAGE_SIZE);
		assert_int_equal(frame_pool_in_use(p), i + 1);
	}
	assert_false(frame_pool_alloc(p, &pa));
	assert_int_equal(p->nfree, 0);
	assert_int_equal(p->allocs, 8);
	assert_int_equal(p->peak_in_use, 8);
}

static void test_free_checks(void **state)
{
	struct fixture *f = make_pool(8);
	struct frame_pool *p = &f->pool;
	uint64_t a, b, pa;

	*state = f;
	assert_int_equal(frame_pool_add_range(p, 0x200000, 4), 0);
	/* Frames that were never handed out are free already. */
	assert_int_equal(frame_pool_free(p, 0x201000), -1);
	assert_true(frame_pool_alloc(p, &a));
	assert_true(frame_pool_alloc(p, &b));
	/* Foreign, misaligned, just past the end, just before the start. */
	assert_int_equal(frame_pool_free(p, 0x300000), -1);
	assert_int_equal(frame_pool_free(p, a + 8), -1);
	assert_int_equal(frame_pool_free(p, 0x204000), -1);
	assert_int_equal(frame_pool_free(p, 0x1ff000), -1);
	assert_int_equal(p->nfree, 2);

	assert_int_equal(frame_pool_free(p, a), 0);
	assert_int_equal(frame_pool_free(p, a), -1);
	assert_int_equal(p->nfree, 3);
	assert_int_equal(p->frees, 1);
	/* LIFO: the frame just freed comes back first. */
	assert_true(frame_pool_alloc(p, &pa));
	assert_int_equal(pa, a);
	assert_int_equal(frame_pool_free(p, b), 0);
	assert_int_equal(frame_pool_free(p, a), 0);
	assert_int_equal(frame_pool_free(p, b), -1);
	assert_int_equal(frame_pool_in_use(p), 0);
	assert_int_equal(p->peak_in_use, 2);
	assert_int_equal(p->allocs, 3);
	assert_int_equal(p->frees, 3);
}

static void test_many_ranges(void **state)
{
	struct fixture *f = make_pool(200);
	struct frame_pool *p = &f->pool;
	uint64_t pa, got[200];
	unsigned n = 0;

	*state = f;
	/* Ranges not in address order, sizes across bitmap words. */
	assert_int_equal(frame_pool_add_range(p, 0x40000000, 70), 0);
	assert_int_equal(frame_pool_add_range(p, 0x10000000, 1), 0);
	assert_int_equal(frame_pool_add_range(p, 0x20000000, 129), 0);
	while (frame_pool_alloc(p, &pa))
		got[n++] = pa;
	assert_int_equal(n, 200);
	for (unsigned i = 0; i < n; i++) {
		assert_true(frame_pool_contains(p, got[i]));
		for (unsigned j = 0; j < i; j++)
			assert_int_not_equal(got[i], got[j]);
	}
	/*
	 * Free one frame of each range: if frame numbers collided across
	 * ranges, one of these would look like a double free.
	 */
	assert_int_equal(frame_pool_free(p, 0x40000000), 0);
	assert_int_equal(frame_pool_free(p, 0x10000000), 0);
	assert_int_equal(frame_pool_free(p, 0x20000000), 0);
	assert_int_equal(frame_pool_free(p, 0x20000000 + 128 * PAGE_SIZE), 0);
	assert_int_equal(frame_pool_free(p, 0x40000000 + 69 * PAGE_SIZE), 0);
	assert_int_equal(frame_pool_free(p, 0x40000000 + 69 * PAGE_SIZE), -1);
	assert_int_equal(frame_pool_free(p, 0x10000000), -1);
	assert_int_equal(frame_pool_in_use(p), 195);
	assert_int_equal(p->peak_in_use, 200);
	/* Everything back, then everything out again. */
	for (unsigned i = 0; i < n; i++) {
		int ret = frame_pool_free(p, got[i]);

		assert_true(ret == 0 || ret == -1);
	}
	assert_int_equal(frame_pool_in_use(p), 0);
	assert_int_equal(p->frees, 200);
	n = 0;
	while (frame_pool_alloc(p, &pa))
		n++;
	assert_int_equal(n, 200);
}

static void test_contains(void **state)
{
	struct fixture *f = make_pool(8);
	struct frame_pool *p = &f->pool;

	*state = f;
	assert_false(frame_pool_contains(p, 0));
	assert_int_equal(frame_pool_add_range(p, 0x300000, 2), 0);
	assert_int_equal(frame_pool_add_range(p, 0x500000, 1), 0);
	assert_true(frame_pool_contains(p, 0x300000));
	assert_true(frame_pool_contains(p, 0x301fff));
	assert_false(frame_pool_contains(p, 0x302000));
	assert_false(frame_pool_contains(p, 0x2fffff));
	assert_true(frame_pool_contains(p, 0x500abc));
	assert_false(frame_pool_contains(p, 0x501000));
	assert_false(frame_pool_contains(p, 0x400000));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_storage_words),
		cmocka_unit_test_teardown(test_add_range_checks, teardown),
		cmocka_unit_test_teardown(test_too_many_ranges, teardown),
		cmocka_unit_test_teardown(test_alloc_until_empty, teardown),
		cmocka_unit_test_teardown(test_free_checks, teardown),
		cmocka_unit_test_teardown(test_many_ranges, teardown),
		cmocka_unit_test_teardown(test_contains, teardown),
	};

	return cmocka_run_group_tests_name("frame_pool", tests, NULL, NULL);
}
