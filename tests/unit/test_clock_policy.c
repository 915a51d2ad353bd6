/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CLOCK (swap/policy/clock_policy.c) over a made-up history: which page it
 * takes, which it spares (clearing the accessed bit), what it leaves alone,
 * where the hand goes, and that it never looks past its budget.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "swap/policy/clock_policy.h"

#define PAGES 8

struct history {
	bool candidate[PAGES];
	bool accessed[PAGES];
	unsigned looks[PAGES];          /* inspect calls per page */
	unsigned clears;
};

static bool inspect(void *ctx, uint64_t page, struct page_history *h)
{
	struct history *f = ctx;

	assert_true(page < PAGES);
	f->looks[page]++;
	if (!f->candidate[page])
		return false;
	*h = (struct page_history){ .accessed = f->accessed[page] };
	return true;
}

static bool clear_accessed(void *ctx, uint64_t page)
{
	struct history *f = ctx;
	bool was = f->accessed[page];

	/* CLOCK clears only what inspect offered, set. */
	assert_true(f->candidate[page] && was);
	f->accessed[page] = false;
	f->clears++;
	return was;
}

static struct evict_history view(struct history *f)
{
	return (struct evict_history){
		.npages = PAGES,
		.inspect = inspect,
		.clear_accessed = clear_accessed,
		.ctx = f,
	};
}

static void all_candidates(struct history *f, bool accessed)
{
	memset(f, 0, sizeof(*f));
	for (unsigned p = 0; p < PAGES; p++) {
		f->candidate[p] = true;
		f->accessed[p] = accessed;
	}
}

static bool pick(struct clock_policy *c, struct history *f,
		 uint64_t *budget, uint64_t *victim)
{
	struct eviction_policy p = clock_policy(c);
	struct evict_history h = view(f);

	return eviction_policy_pick(&p, &h, budget, victim);
}

/* Cold pages go in hand order; the hand stays after the last victim. */
static void test_cold_pages_in_order(void **state)
{
	struct clock_policy c = { .hand = 5 };
	struct history f;
	uint64_t budget = 100, victim;

	(void)state;
	all_candidates(&f, false);
	for (unsigned i = 0; i < PAGES + 2; i++) {
		assert_true(pick(&c, &f, &budget, &victim));
		assert_int_equal(victim, (5 + i) % PAGES);
	}
	assert_int_equal(c.hand, (5 + PAGES + 2) % PAGES);
	assert_int_equal(budget, 100 - PAGES - 2);
	assert_int_equal(f.clears, 0);
	assert_string_equal(clock_policy_ops.name, "clock");
}

/* A referenced page loses its bit and is passed; next round it goes. */
static void test_second_chance(void **state)
{
	struct clock_policy c = { 0 };
	struct history f;
	uint64_t budget = 100, victim;

	(void)state;
	all_candidates(&f, false);
	f.accessed[0] = f.accessed[1] = true;
	assert_true(pick(&c, &f, &budget, &victim));
	assert_int_equal(victim, 2);
	assert_int_equal(f.clears, 2);
	assert_false(f.accessed[0] || f.accessed[1]);
	assert_int_equal(budget, 97);

	/* Everything referenced: a whole turn clears, the second one takes. */
	all_candidates(&f, true);
	c.hand = 3;
	budget = 2 * PAGES;
	assert_true(pick(&c, &f, &budget, &victim));
	assert_int_equal(victim, 3);
	assert_int_equal(f.clears, PAGES);
	assert_int_equal(budget, PAGES - 1);
}

/* A page that is not a candidate is looked at, not touched, not taken. */
static void test_non_candidates_skipped(void **state)
{
	struct clock_policy c = { 0 };
	struct history f;
	uint64_t budget = 100, victim;

	(void)state;
	all_candidates(&f, true);
	for (unsigned p = 0; p < PAGES; p++)
		f.candidate[p] = p == 6;
	f.accessed[6] = false;
	assert_true(pick(&c, &f, &budget, &victim));
	assert_int_equal(victim, 6);
	assert_int_equal(f.clears, 0);
	for (unsigned p = 0; p <= 6; p++)
		assert_int_equal(f.looks[p], 1);
	assert_int_equal(f.looks[7], 0);

	/* None at all: the budget runs out, two turns of looks. */
	f.candidate[6] = false;
	budget = 2 * PAGES;
	assert_false(pick(&c, &f, &budget, &victim));
	assert_int_equal(budget, 0);
	assert_int_equal(f.looks[7], 2);
	assert_int_equal(c.hand, 7);
}

/* The budget bounds the looks exactly, and 0 looks at nothing. */
static void test_budget(void **state)
{
	struct clock_policy c = { .hand = 2 };
	struct history f;
	uint64_t budget = 3, victim;
	unsigned looks = 0;

	(void)state;
	all_candidates(&f, true);
	assert_false(pick(&c, &f, &budget, &victim));
	for (unsigned p = 0; p < PAGES; p++)
		looks += f.looks[p];
	assert_int_equal(looks, 3);
	assert_int_equal(f.clears, 3);
	assert_int_equal(c.hand, 5);
	budget = 0;
	assert_false(pick(&c, &f, &budget, &victim));
	assert_int_equal(c.hand, 5);
	assert_int_equal(f.looks[5], 0);
}

/* CLOCK needs no events: the accessed bits are its whole history. */
static void test_no_events(void **state)
{
	struct clock_policy c = { .hand = 4 };
	struct eviction_policy p = clock_policy(&c);

	(void)state;
	assert_null(clock_policy_ops.on_fault);
	eviction_policy_fault(&p, 1, true);
	eviction_policy_mapped(&p, 1);
	eviction_policy_evicted(&p, 1);
	eviction_policy_swapped_in(&p, 1);
	assert_int_equal(c.hand, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cold_pages_in_order),
		cmocka_unit_test(test_second_chance),
		cmocka_unit_test(test_non_candidates_skipped),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_no_events),
	};

	return cmocka_run_group_tests_name("clock_policy", tests, NULL, NULL);
}
