/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swap/swap_slots.c: storage size, exhaustion, double and stray frees,
 * the next-fit order, odd sizes, and a random run against a plain array.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "swap/swap_slots.h"

struct fixture {
	struct swap_slots s;
	uint64_t *storage;
};

/* Storage of exactly the documented size, full of garbage. */
static struct swap_slots *make(void **state, uint32_t nslots)
{
	struct fixture *f = calloc(1, sizeof(*f));
	uint64_t words = swap_slots_storage_words(nslots);

	assert_non_null(f);
	*state = f;
	f->storage = malloc(words ? words * sizeof(uint64_t) : 1);
	assert_non_null(f->storage);
	memset(f->storage, 0xa5, words * sizeof(uint64_t));
	swap_slots_init(&f->s, f->storage, nslots);
	return &f->s;
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
	/* Two bitmaps: used, then retired. */
	assert_int_equal(swap_slots_storage_words(0), 0);
	assert_int_equal(swap_slots_storage_words(1), 2);
	assert_int_equal(swap_slots_storage_words(64), 2);
	assert_int_equal(swap_slots_storage_words(65), 4);
	assert_int_equal(swap_slots_storage_words(UINT32_MAX), 134217728);
}

static void test_fill_and_full(void **state)
{
	struct swap_slots *s = make(state, 130);
	bool seen[130] = { false };
	uint32_t slot;

	for (unsigned i = 0; i < 130; i++) {
		assert_false(swap_slots_is_used(s, i));
		assert_true(swap_slots_alloc(s, &slot));
		assert_true(slot < 130);
		assert_false(seen[slot]);
		seen[slot] = true;
		assert_true(swap_slots_is_used(s, slot));
	}
	assert_int_equal(s->in_use, 130);
	assert_int_equal(s->peak, 130);
	/* Full: reported, nothing changes, and the tail bits stay out. */
	slot = 777;
	assert_false(swap_slots_alloc(s, &slot));
	assert_false(swap_slots_alloc(s, &slot));
	assert_int_equal(slot, 777);
	assert_int_equal(s->full, 2);
	assert_int_equal(s->in_use, 130);
	assert_int_equal(s->allocs, 130);
	/* One freed: exactly that one comes back. */
	assert_int_equal(swap_slots_free(s, 77), HV_OK);
	assert_true(swap_slots_alloc(s, &slot));
	assert_int_equal(slot, 77);
}

static void test_bad_frees(void **state)
{
	struct swap_slots *s = make(state, 100);
	uint32_t a, b;

	assert_true(swap_slots_alloc(s, &a));
	assert_true(swap_slots_alloc(s, &b));
	assert_int_equal(swap_slots_free(s, a), HV_OK);
	assert_int_equal(s->in_use, 1);
	/* Double free, never allocated, past the end, in the tail bits. */
	assert_int_equal(swap_slots_free(s, a), HV_ERR_NOT_FOUND);
	assert_int_equal(swap_slots_free(s, 50), HV_ERR_NOT_FOUND);
	assert_int_equal(swap_slots_free(s, 100), HV_ERR_NOT_FOUND);
	assert_int_equal(swap_slots_free(s, 127), HV_ERR_NOT_FOUND);
	assert_int_equal(swap_slots_free(s, UINT32_MAX), HV_ERR_NOT_FOUND);
	assert_int_equal(s->bad_frees, 5);
	assert_int_equal(s->frees, 1);
	assert_int_equal(s->in_use, 1);
	assert_true(swap_slots_is_used(s, b));
	assert_false(swap_slots_is_used(s, 127));
	assert_int_equal(s->peak, 2);
}

/*
 * Next fit: a slot freed behind the hint is not reused before the slots
 * ahead of it are used up; then the search wraps around to it.
 */
static void test_next_fit(void **state)
{
	struct swap_slots *s = make(state, 130);
	uint32_t slot;

	for (unsigned i = 0; i < 70; i++) {
		assert_true(swap_slots_alloc(s, &slot));
		assert_int_equal(slot, i);
	}
	assert_int_equal(swap_slots_free(s, 3), HV_OK);
	for (unsigned i = 70; i < 130; i++) {
		assert_true(swap_slots_alloc(s, &slot));
		assert_int_equal(slot, i);
	}
	assert_true(swap_slots_alloc(s, &slot));
	assert_int_equal(slot, 3);
	assert_false(swap_slots_alloc(s, &slot));
}

/*
 * A retired slot (its write failed) is never handed out again, cannot be
 * freed or retired twice, and is counted apart from the slots in use.
 */
static void test_retire(void **state)
{
	struct swap_slots *s = make(state, 70);
	uint32_t slot;

	for (unsigned i = 0; i < 70; i++)
		assert_true(swap_slots_alloc(s, &slot));
	assert_int_equal(swap_slots_retire(s, 65), HV_OK);
	assert_int_equal(swap_slots_retire(s, 3), HV_OK);
	assert_int_equal(s->retired, 2);
	assert_int_equal(s->in_use, 68);
	assert_int_equal(swap_slots_free_count(s), 0);
	assert_false(swap_slots_is_used(s, 3));
	assert_int_equal(swap_slots_free(s, 3), HV_ERR_NOT_FOUND);
	assert_int_equal(swap_slots_retire(s, 3), HV_ERR_NOT_FOUND);
	assert_int_equal(swap_slots_retire(s, 70), HV_ERR_NOT_FOUND);
	assert_int_equal(s->bad_frees, 3);
	assert_int_equal(s->retired, 2);
	/* Everything else freed: all of it comes back, the retired never. */
	for (unsigned i = 0; i < 70; i++)
		if (i != 3 && i != 65)
			assert_int_equal(swap_slots_free(s, i), HV_OK);
	assert_int_equal(s->in_use, 0);
	assert_int_equal(swap_slots_free_count(s), 68);
	for (unsigned i = 0; i < 68; i++) {
		assert_true(swap_slots_alloc(s, &slot));
		assert_true(slot != 3 && slot != 65);
	}
	assert_false(swap_slots_alloc(s, &slot));
	assert_int_equal(s->retired, 2);
}

static void test_tiny_sizes(void **state)
{
	struct swap_slots *s = make(state, 1);
	uint32_t slot = 9;

	assert_true(swap_slots_alloc(s, &slot));
	assert_int_equal(slot, 0);
	assert_false(swap_slots_alloc(s, &slot));
	assert_int_equal(swap_slots_free(s, 0), HV_OK);
	assert_int_equal(s->in_use, 0);
	assert_int_equal(s->peak, 1);
	teardown(state);

	s = make(state, 0);
	assert_false(swap_slots_alloc(s, &slot));
	assert_false(swap_slots_is_used(s, 0));
	assert_int_equal(swap_slots_free(s, 0), HV_ERR_NOT_FOUND);
	teardown(state);

	s = make(state, 64);
	for (unsigned i = 0; i < 64; i++)
		assert_true(swap_slots_alloc(s, &slot));
	assert_false(swap_slots_alloc(s, &slot));
}

static uint64_t rng_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A random run against an array of flags: the allocator agrees always. */
static void test_random_against_model(void **state)
{
	enum { N = 200 };
	struct swap_slots *s = make(state, N);
	bool used[N] = { false };
	uint32_t in_use = 0, peak = 0, slot;
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (unsigned step = 0; step < 200000; step++) {
		uint32_t r = (uint32_t)(rng_next(&x) % N);

		/* Alternate filling and draining phases. */
		if ((step / 5000) % 2 == 0 ? r < N * 2 / 3 : r < N / 3) {
			if (swap_slots_alloc(s, &slot)) {
				assert_false(used[slot]);
				used[slot] = true;
				in_use++;
			} else {
				assert_int_equal(in_use, N);
			}
		} else {
			assert_int_equal(swap_slots_free(s, r),
					 used[r] ? HV_OK : HV_ERR_NOT_FOUND);
			in_use -= used[r];
			used[r] = false;
		}
		peak = MAX(peak, in_use);
		assert_int_equal(s->in_use, in_use);
		assert_int_equal(s->peak, peak);
		assert_int_equal(swap_slots_is_used(s, r), used[r]);
	}
	for (unsigned i = 0; i < N; i++)
		assert_int_equal(swap_slots_is_used(s, i), used[i]);
	assert_int_equal(peak, N);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_storage_words),
		cmocka_unit_test_teardown(test_fill_and_full, teardown),
		cmocka_unit_test_teardown(test_bad_frees, teardown),
		cmocka_unit_test_teardown(test_next_fit, teardown),
		cmocka_unit_test_teardown(test_retire, teardown),
		cmocka_unit_test_teardown(test_tiny_sizes, teardown),
		cmocka_unit_test_teardown(test_random_against_model, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
