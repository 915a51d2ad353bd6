/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The page-state machine of swap/page_state.h: the count and the names
 * come from its list, and exactly the moves of its transition list are
 * allowed (the rest, out-of-range states included, are caught).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "swap/page_state.h"

/* The list counted again, independently of the enum's last member. */
#define ONE(name, label, has_frame, what) +1
enum { LISTED_STATES = 0 GUEST_PAGE_STATE_LIST(ONE) };
#undef ONE

static void test_count_and_names(void **state)
{
	static const char *const want[] = {
		"untouched", "resident", "writeback", "swapped", "swapin",
		"compressed",
	};

	(void)state;
	assert_int_equal(GUEST_PAGE_STATES, LISTED_STATES);
	assert_int_equal(GUEST_PAGE_STATES, sizeof(want) / sizeof(want[0]));
	for (unsigned s = 0; s < GUEST_PAGE_STATES; s++) {
		char counter[64];

		assert_string_equal(guest_page_state_name(s), want[s]);
		snprintf(counter, sizeof(counter), "pages.%s", want[s]);
		assert_string_equal(guest_page_state_counter(s), counter);
	}
	assert_string_equal(guest_page_state_name(GUEST_PAGE_STATES),
			    "invalid");
	assert_string_equal(guest_page_state_name((enum guest_page_state)-1),
			    "invalid");
	assert_string_equal(guest_page_state_counter(GUEST_PAGE_STATES),
			    "pages.invalid");
}

/* A frame is the page's from its first touch until it is dropped. */
static void test_frames(void **state)
{
	(void)state;
	assert_false(guest_page_state_has_frame(PAGE_UNTOUCHED));
	assert_true(guest_page_state_has_frame(PAGE_RESIDENT));
	assert_true(guest_page_state_has_frame(PAGE_WRITEBACK));
	assert_false(guest_page_state_has_frame(PAGE_SWAPPED));
	assert_true(guest_page_state_has_frame(PAGE_SWAPIN));
	assert_false(guest_page_state_has_frame(PAGE_COMPRESSED));
	assert_false(guest_page_state_has_frame(GUEST_PAGE_STATES));
}

/*
 * Written out by hand from DESIGN.md's "Guest pages": the header's list
 * must say the same, no more.
 */
static const struct {
	enum guest_page_state from, to;
} legal[] = {
	{ PAGE_UNTOUCHED, PAGE_RESIDENT },
	{ PAGE_RESIDENT, PAGE_WRITEBACK },
	{ PAGE_WRITEBACK, PAGE_RESIDENT },
	{ PAGE_WRITEBACK, PAGE_SWAPPED },
	{ PAGE_WRITEBACK, PAGE_UNTOUCHED },
	{ PAGE_SWAPPED, PAGE_SWAPIN },
	{ PAGE_SWAPIN, PAGE_RESIDENT },
	{ PAGE_SWAPIN, PAGE_SWAPPED },
	{ PAGE_WRITEBACK, PAGE_COMPRESSED },
	{ PAGE_COMPRESSED, PAGE_RESIDENT },
	{ PAGE_COMPRESSED, PAGE_SWAPPED },
	{ PAGE_COMPRESSED, PAGE_WRITEBACK },
	/* Reported free by the guest (guest_memory_discard). */
	{ PAGE_SWAPPED, PAGE_UNTOUCHED },
	{ PAGE_COMPRESSED, PAGE_UNTOUCHED },
	/* A store overwrites the whole page (guest_memory_overwrite). */
	{ PAGE_SWAPPED, PAGE_RESIDENT },
};

static bool listed(unsigned from, unsigned to)
{
	for (unsigned i = 0; i < sizeof(legal) / sizeof(legal[0]); i++)
		if (legal[i].from == from && legal[i].to == to)
			return true;
	return false;
}

static void test_transitions(void **state)
{
	unsigned allowed = 0;

	(void)state;
	for (unsigned from = 0; from < GUEST_PAGE_STATES; from++) {
		for (unsigned to = 0; to < GUEST_PAGE_STATES; to++) {
			bool ok = guest_page_transition_ok(from, to);

			if (ok != listed(from, to))
				fail_msg("%s -> %s: %s",
					 guest_page_state_name(from),
					 guest_page_state_name(to),
					 ok ? "allowed" : "refused");
			allowed += ok;
		}
	}
	assert_int_equal(allowed, sizeof(legal) / sizeof(legal[0]));
}

/* Some moves that would be bugs, and states that are none. */
static void test_illegal_caught(void **state)
{
	(void)state;
	/* A read under way ends in a frame or in the slot... */
	assert_false(guest_page_transition_ok(PAGE_SWAPIN, PAGE_UNTOUCHED));
	/* ... and a page is unmapped and judged before it leaves. */
	assert_false(guest_page_transition_ok(PAGE_RESIDENT, PAGE_SWAPPED));
	assert_false(guest_page_transition_ok(PAGE_RESIDENT, PAGE_UNTOUCHED));
	assert_false(guest_page_transition_ok(PAGE_UNTOUCHED, PAGE_SWAPIN));
	for (unsigned s = 0; s < GUEST_PAGE_STATES; s++) {
		assert_false(guest_page_transition_ok(s, s));
		assert_false(guest_page_transition_ok(s, GUEST_PAGE_STATES));
		assert_false(guest_page_transition_ok(GUEST_PAGE_STATES, s));
		assert_false(guest_page_transition_ok(s, 0x100 | s));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_and_names),
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_transitions),
		cmocka_unit_test(test_illegal_caught),
	};

	return cmocka_run_group_tests_name("page_state", tests, NULL, NULL);
}
