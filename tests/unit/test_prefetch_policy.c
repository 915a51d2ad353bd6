/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The prefetch policies of swap/policy/prefetch_policy.c on their own:
 * none asks for nothing; sequential asks for the next pages after a fault
 * that started a swap-in, no more than there is room for; stride asks for
 * the next pages of a walk once two faults in a row were the same distance
 * apart, keeps recognising the walk past the pages it read ahead, either
 * direction, never past page 0.
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

static void test_stride(void **state)
{
	struct prefetch_stride st = { .pages = 3 };
	struct prefetch_policy p = prefetch_stride(&st);
	uint64_t more[PREFETCH_MAX_PAGES];

	(void)state;
	assert_string_equal(p.ops->name, "stride");
	/* Two faults make one distance: nothing to go on yet. */
	assert_int_equal(prefetch_policy_fault(&p, 100, true, more, 16), 0);
	assert_int_equal(prefetch_policy_fault(&p, 108, true, more, 16), 0);
	/* The same distance again: the walk's next three pages. */
	assert_int_equal(prefetch_policy_fault(&p, 116, true, more, 16), 3);
	assert_int_equal(more[0], 124);
	assert_int_equal(more[1], 132);
	assert_int_equal(more[2], 140);
	/* Read ahead, those do not fault: the walk's next fault is 148. */
	assert_int_equal(prefetch_policy_fault(&p, 148, true, more, 16), 3);
	assert_int_equal(more[0], 156);
	/* A minor fault says nothing about the walk. */
	assert_int_equal(prefetch_policy_fault(&p, 5, false, more, 16), 0);
	assert_int_equal(prefetch_policy_fault(&p, 180, true, more, 16), 3);
	/*
	 * Another distance breaks it (181 is 23 before the walk's end, 204);
	 * the same one twice (+1, +1) starts a new walk.
	 */
	assert_int_equal(prefetch_policy_fault(&p, 181, true, more, 16), 0);
	assert_int_equal(prefetch_policy_fault(&p, 182, true, more, 16), 0);
	assert_int_equal(prefetch_policy_fault(&p, 183, true, more, 16), 3);
	assert_int_equal(more[0], 184);
}

static void test_stride_backwards_stops_at_zero(void **state)
{
	struct prefetch_stride st = { .pages = 16 };
	struct prefetch_policy p = prefetch_stride(&st);
	uint64_t more[PREFETCH_MAX_PAGES];

	(void)state;
	prefetch_policy_fault(&p, 30, true, more, 16);
	prefetch_policy_fault(&p, 20, true, more, 16);
	assert_int_equal(prefetch_policy_fault(&p, 10, true, more, 16), 1);
	assert_int_equal(more[0], 0);
	/* Upwards, the page numbers would wrap: it stops short too. */
	st = (struct prefetch_stride){ .pages = 4 };
	prefetch_policy_fault(&p, UINT64_MAX - 20, true, more, 16);
	prefetch_policy_fault(&p, UINT64_MAX - 10, true, more, 16);
	assert_int_equal(prefetch_policy_fault(&p, UINT64_MAX, true, more, 16),
			 0);
}

/* A list 5, 9, 2, 7, 3 (and 60, past a 16-page guest): what follows. */
static void test_replay(void **state)
{
	static const uint64_t order[] = { 5, 9, 2, 60, 7, 3 };
	uint32_t position[16] = { 0 };
	struct prefetch_replay r;
	struct prefetch_policy p = prefetch_replay(&r);
	uint64_t more[PREFETCH_MAX_PAGES];

	(void)state;
	assert_true(prefetch_replay_init(&r, order, 6, position, 16, 2));
	assert_int_equal(position[5], 1);
	assert_int_equal(position[3], 6);
	assert_int_equal(position[4], 0);
	assert_string_equal(p.ops->name, "replay");
	/* 5 faults: the two pages after it (60 is outside: skipped). */
	assert_int_equal(prefetch_policy_fault(&p, 5, true, more, 16), 2);
	assert_int_equal(more[0], 9);
	assert_int_equal(more[1], 2);
	/* 9 was asked already: the stretch goes on past it. */
	assert_int_equal(prefetch_policy_fault(&p, 9, true, more, 16), 2);
	assert_int_equal(more[0], 7);
	assert_int_equal(more[1], 3);
	/* The end of the list; a page not on it; a minor fault. */
	assert_int_equal(prefetch_policy_fault(&p, 3, true, more, 16), 0);
	assert_int_equal(prefetch_policy_fault(&p, 4, true, more, 16), 0);
	assert_int_equal(prefetch_policy_fault(&p, 5, false, more, 16), 0);
	/* Back to the start: from 5 again. */
	assert_int_equal(prefetch_policy_fault(&p, 5, true, more, 1), 1);
	assert_int_equal(more[0], 9);
}

/*
 * Pages refused for lack of frames are asked for again, from the first
 * refused, when frames come back; never past the stretch the fault asked.
 */
static void test_replay_refused_then_resumed(void **state)
{
	static const uint64_t order[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint32_t position[16] = { 0 };
	struct prefetch_replay r;
	struct prefetch_policy p = prefetch_replay(&r);
	uint64_t more[PREFETCH_MAX_PAGES];

	(void)state;
	assert_true(prefetch_replay_init(&r, order, 8, position, 16, 4));
	assert_true(prefetch_policy_resumes(&p));
	assert_int_equal(prefetch_policy_fault(&p, 1, true, more, 16), 4);
	assert_int_equal(more[0], 2);
	assert_int_equal(more[3], 5);
	/* 2 and 3 were read; 4 and 5 were not. */
	prefetch_policy_refused(&p, 2);
	assert_int_equal(prefetch_policy_frames(&p, more, 16), 2);
	assert_int_equal(more[0], 4);
	assert_int_equal(more[1], 5);
	/* The stretch is done: nothing more until the next fault. */
	assert_int_equal(prefetch_policy_frames(&p, more, 16), 0);
	/* Refused again, one at a time, room for one. */
	prefetch_policy_refused(&p, 1);
	assert_int_equal(prefetch_policy_frames(&p, more, 1), 1);
	assert_int_equal(more[0], 5);
	/* A fault on 5 goes on past the stretch. */
	assert_int_equal(prefetch_policy_fault(&p, 5, true, more, 16), 3);
	assert_int_equal(more[0], 6);
	assert_int_equal(more[2], 8);
	/* A policy without the hooks takes nothing back. */
	assert_false(prefetch_policy_resumes(
		&(struct prefetch_policy){ .ops = &prefetch_sequential_ops }));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_sequential),
		cmocka_unit_test(test_sequential_bounds),
		cmocka_unit_test(test_stride),
		cmocka_unit_test(test_stride_backwards_stops_at_zero),
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_replay_refused_then_resumed),
	};

	return cmocka_run_group_tests_name("prefetch_policy", tests, NULL,
					   NULL);
}
