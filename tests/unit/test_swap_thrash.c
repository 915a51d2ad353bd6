/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swap/swap_thrash.c: windows open only while the swap area is full; a
 * window counts when the vCPUs that waited spent SWAP_THRASH_PERCENT of
 * their time waiting; SWAP_THRASH_WINDOWS in a row are thrashing; a low
 * window, an idle one or a slot freed starts again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "swap/swap_daemon.h"
#include "swap/swap_thrash.h"

#define WINDOW 1000u

static struct swap_thrash t;
static uint64_t now, waited;

static int setup(void **state)
{
	(void)state;
	t = (struct swap_thrash){ 0 };
	now = 5000;
	waited = 0;
	return 0;
}

/* One window: the swap area full, vcpus waiting `percent` of it each. */
static enum swap_thrash_verdict window(unsigned vcpus, unsigned percent,
				       unsigned *shown)
{
	assert_int_equal(swap_thrash_check(&t, true, waited, now, WINDOW,
					   shown), SWAP_THRASH_NOTHING);
	for (unsigned v = 0; v < vcpus; v++)
		swap_thrash_note_vcpu(&t, v);
	waited += (uint64_t)vcpus * WINDOW * percent / 100;
	now += WINDOW;
	return swap_thrash_check(&t, true, waited, now, WINDOW, shown);
}

static void three_high_windows_are_thrashing(void **state)
{
	unsigned percent = 0;

	(void)state;
	assert_int_equal(window(1, 90, &percent), SWAP_THRASH_WINDOW_HIGH);
	assert_int_equal(percent, 90);
	assert_int_equal(window(1, SWAP_THRASH_PERCENT, &percent),
			 SWAP_THRASH_WINDOW_HIGH);
	assert_int_equal(window(1, 100, &percent), SWAP_THRASH_THRASHING);
	assert_int_equal(percent, 100);
}

static void a_low_window_starts_again(void **state)
{
	unsigned percent = 0;

	(void)state;
	assert_int_equal(window(1, 90, &percent), SWAP_THRASH_WINDOW_HIGH);
	assert_int_equal(window(1, 90, &percent), SWAP_THRASH_WINDOW_HIGH);
	assert_int_equal(window(1, SWAP_THRASH_PERCENT - 1, &percent),
			 SWAP_THRASH_NOTHING);
	assert_int_equal(window(1, 90, &percent), SWAP_THRASH_WINDOW_HIGH);
	assert_int_equal(window(1, 90, &percent), SWAP_THRASH_WINDOW_HIGH);
	assert_int_equal(window(1, 90, &percent), SWAP_THRASH_THRASHING);
}

/* The budget is the window times the vCPUs that waited. */
static void the_budget_counts_waiting_vcpus(void **state)
{
	unsigned percent = 0;

	(void)state;
	/* Two vCPUs waited 80% each: 80%, not 160%. */
	assert_int_equal(window(2, 80, &percent), SWAP_THRASH_WINDOW_HIGH);
	assert_int_equal(percent, 80);
	/* Nobody waited: nothing, whatever the total says. */
	assert_int_equal(window(0, 0, &percent), SWAP_THRASH_NOTHING);
	assert_int_equal(t.windows, 0);
}

static void a_freed_slot_starts_again(void **state)
{
	unsigned percent = 0;

	(void)state;
	assert_int_equal(window(1, 90, &percent), SWAP_THRASH_WINDOW_HIGH);
	assert_int_equal(window(1, 90, &percent), SWAP_THRASH_WINDOW_HIGH);
	assert_int_equal(swap_thrash_check(&t, false, waited, now, WINDOW,
					   &percent), SWAP_THRASH_NOTHING);
	assert_int_equal(t.windows, 0);
	assert_int_equal(window(1, 90, &percent), SWAP_THRASH_WINDOW_HIGH);
}

static void a_window_ends_only_after_its_length(void **state)
{
	unsigned percent = 0;

	(void)state;
	assert_int_equal(swap_thrash_check(&t, true, 0, now, WINDOW,
					   &percent), SWAP_THRASH_NOTHING);
	swap_thrash_note_vcpu(&t, 0);
	assert_int_equal(swap_thrash_check(&t, true, WINDOW, now + WINDOW - 1,
					   WINDOW, &percent),
			 SWAP_THRASH_NOTHING);
	assert_int_equal(swap_thrash_check(&t, true, WINDOW, now + WINDOW,
					   WINDOW, &percent),
			 SWAP_THRASH_WINDOW_HIGH);
}

#define T(name) cmocka_unit_test_setup(name, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(three_high_windows_are_thrashing),
		T(a_low_window_starts_again),
		T(the_budget_counts_waiting_vcpus),
		T(a_freed_slot_starts_again),
		T(a_window_ends_only_after_its_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
