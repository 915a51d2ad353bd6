/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lib/counters.c: a table source yields its fields under their names, a
 * per-vCPU table is summed over its instances, a walker adds what it
 * wants, and sources come out in registration order, each once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/counters_seen.h"

#include "lib/counters.h"

#define DEMO_COUNTERS(X)                                                     \
	X(struct demo_stats, faults, "demo.faults")                           \
	X(struct demo_stats, waits, "demo.waits")

struct demo_stats {
	DEMO_COUNTERS(COUNTER_FIELD)
};

static const struct counter_def demo_defs[] = { DEMO_COUNTERS(COUNTER_DEF) };

struct per_vcpu {
	char other[24];
	struct demo_stats stats;
};

static void walker(const void *obj, counter_fn fn, void *ctx)
{
	fn(ctx, "walk.value", *(const uint64_t *)obj);
}

static void table_walker_and_sum(void **state)
{
	struct demo_stats one = { .faults = 3, .waits = 4 };
	struct per_vcpu vcpus[3] = {
		{ .stats = { 1, 10 } }, { .stats = { 2, 20 } },
		{ .stats = { 4, 40 } },
	};
	uint64_t walked = 99;
	struct counter_source a = { .defs = demo_defs,
				    .ndefs = ARRAY_SIZE(demo_defs),
				    .obj = &one };
	struct counter_source b = { .defs = demo_defs,
				    .ndefs = ARRAY_SIZE(demo_defs),
				    .instances = 3,
				    .stride = sizeof(struct per_vcpu),
				    .obj = &vcpus[0].stats };
	struct counter_source c = { .each = walker, .obj = &walked };
	struct seen s = { "" };

	(void)state;
	counters_reset();
	counters_register(&a);
	counters_register(&c);
	counters_register(&b);
	counters_each(record, &s);
	assert_string_equal(s.text, "demo.faults=3;demo.waits=4;"
			    "walk.value=99;"
			    "demo.faults=7;demo.waits=70;");
	/* Values are read at walk time, not at registration. */
	one.faults = 5;
	s.text[0] = 0;
	counters_reset();
	counters_register(&a);
	counters_each(record, &s);
	assert_string_equal(s.text, "demo.faults=5;demo.waits=4;");
}

static void empty_registry_calls_nothing(void **state)
{
	struct seen s = { "" };

	(void)state;
	counters_reset();
	counters_each(record, &s);
	assert_string_equal(s.text, "");
}

/*
 * A mark's line: the names asked for, in their order, each with the value
 * counters_find gives (a per-vCPU table summed); a name no counter has is
 * left out; a short buffer cuts the line and keeps it terminated.
 */
static void line_of_named_counters(void **state)
{
	struct demo_stats one = { .faults = 3, .waits = 4 };
	struct counter_source a = { .defs = demo_defs,
				    .ndefs = ARRAY_SIZE(demo_defs),
				    .obj = &one };
	static const char *const names[] = { "demo.waits", "no.such",
					     "demo.faults" };
	char buf[64], tiny[12];

	(void)state;
	counters_reset();
	counters_register(&a);
	assert_int_equal(counters_line(buf, sizeof(buf), names, 3),
			 strlen(" demo.waits 4 demo.faults 3"));
	assert_string_equal(buf, " demo.waits 4 demo.faults 3");
	assert_int_equal(counters_line(tiny, sizeof(tiny), names, 3), 11);
	assert_string_equal(tiny, " demo.waits");
	assert_int_equal(counters_line(buf, sizeof(buf), names + 1, 1), 0);
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(line_of_named_counters),
		cmocka_unit_test(table_walker_and_sum),
		cmocka_unit_test(empty_registry_calls_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
