/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The prefetch policies of swap/policy/prefetch_policy.c on their own:
 * none asks for nothing; sequential asks for the next pages after a fault
 * that started a swap-in, no more than there is room for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "swap/policy/prefetch_policy.h"

static void test_none(void **state)
{
	struct prefetch_policy p = prefetch_none();
	uint64_t more[PREFETCH_MAX_PAGES] = { 0 };

	(void)state;
	assert_string_equal(p.ops->name, "none");
	assert_int_equal(prefetch_policy_fault(&p, 7, true, more,
					       PREFETCH_MAX_PAGES), 0);
	assert_int_equal(prefetch_policy_fault(&p, 7, false, more,
					       PREFETCH_MAX_PAGES), 0);
}

static void test_sequential(void **state)
{
	struct prefetch_sequential s = { .pages = 3 };
	struct prefetch_policy p = prefetch_sequential(&s);
	uint64_t more[PREFETCH_MAX_PAGES];

	(void)state;
	assert_string_equal(p.ops->name, "sequential");
	assert_int_equal(prefetch_policy_fault(&p, 10, true, more,
					       PREFETCH_MAX_PAGES), 3);
	assert_int_equal(more[0], 11);
	assert_int_equal(more[1], 12);
	assert_int_equal(more[2], 13);
	/* A minor fault (zero fill, a page already coming): nothing. */
	assert_int_equal(prefetch_policy_fault(&p, 10, false, more,
					       PREFETCH_MAX_PAGES), 0);
}

/* Never more than room, nor than PREFETCH_MAX_PAGES; 0 pages: off. */
static void test_sequential_bounds(void **state)
{
	struct prefetch_sequential s = { .pages = 1000 };
	struct prefetch_policy p = prefetch_sequential(&s);
	uint64_t more[PREFETCH_MAX_PAGES + 1];

	(void)state;
	memset(more, 0xff, sizeof(more));
	assert_int_equal(prefetch_policy_fault(&p, 0, true, more, 2), 2);
	assert_int_equal(more[2], UINT64_MAX);
	assert_int_equal(prefetch_policy_fault(&p, 0, true, more,
					       PREFETCH_MAX_PAGES + 1),
			 PREFETCH_MAX_PAGES);
	assert_int_equal(more[PREFETCH_MAX_PAGES - 1], PREFETCH_MAX_PAGES);
	assert_int_equal(more[PREFETCH_MAX_PAGES], UINT64_MAX);
	s.pages = 0;
	assert_int_equal(prefetch_policy_fault(&p, 0, true, more,
					       PREFETCH_MAX_PAGES), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_sequential),
		cmocka_unit_test(test_sequential_bounds),
	};

	return cmocka_run_group_tests_name("prefetch_policy", tests, NULL,
					   NULL);
}
