/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lib/latency_hist.c: the log2 bucket of a value (0 and 1 in bucket 0,
 * 2^b..2^(b+1)-1 in bucket b, the top bucket catching everything above),
 * percentiles as the upper end of their bucket capped by the maximum,
 * merging, the atomic add, and the counters a histogram reports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "lib/latency_hist.h"

static void buckets(void **state)
{
	(void)state;
	assert_int_equal(latency_bucket(0), 0);
	assert_int_equal(latency_bucket(1), 0);
	assert_int_equal(latency_bucket(2), 1);
	assert_int_equal(latency_bucket(3), 1);
	assert_int_equal(latency_bucket(4), 2);
	assert_int_equal(latency_bucket(4095), 11);
	assert_int_equal(latency_bucket(4096), 12);
	assert_int_equal(latency_bucket(UINT64_MAX), LATENCY_BUCKETS - 1);
}

static void percentiles(void **state)
{
	struct latency_hist h;

	memset(&h, 0, sizeof(h));

	(void)state;
	assert_int_equal(latency_hist_percentile(&h, 500), 0);
	/* 90 values in 600..689 (bucket 9), 10 near 100,000 (bucket 16). */
	for (unsigned i = 0; i < 90; i++)
		latency_hist_add(&h, 600 + i);
	for (unsigned i = 0; i < 10; i++)
		latency_hist_add(&h, 100000 + i);
	assert_int_equal(h.count, 100);
	assert_int_equal(h.bucket[9], 90);
	assert_int_equal(h.bucket[16], 10);
	assert_int_equal(h.max, 100009);
	assert_int_equal(latency_hist_percentile(&h, 500), 1023);
	assert_int_equal(latency_hist_percentile(&h, 900), 1023);
	/* The 91st value is in bucket 16, whose top is above the maximum. */
	assert_int_equal(latency_hist_percentile(&h, 910), 100009);
	assert_int_equal(latency_hist_percentile(&h, 990), 100009);
	assert_int_equal(latency_hist_percentile(&h, 0), 1023);
}

static void merge_and_atomic(void **state)
{
	struct latency_hist a, b;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));

	(void)state;
	latency_hist_add(&a, 5);
	latency_hist_add_atomic(&b, 70);
	latency_hist_add_atomic(&b, 6);
	assert_int_equal(b.count, 2);
	assert_int_equal(b.max, 70);
	latency_hist_merge(&a, &b);
	assert_int_equal(a.count, 3);
	assert_int_equal(a.bucket[2], 2);
	assert_int_equal(a.bucket[6], 1);
	assert_int_equal(a.max, 70);
}

static char text[1024];

static void record(void *ctx, const char *name, uint64_t value)
{
	size_t len = strlen(text);

	(void)ctx;
	snprintf(text + len, sizeof(text) - len, "%s=%llu;", name,
		 (unsigned long long)value);
}

static void reported_as_counters(void **state)
{
	struct latency_hist h;

	memset(&h, 0, sizeof(h));

	(void)state;
	text[0] = 0;
	latency_hist_report(&h, "zero_fill", record, NULL);
	assert_string_equal(text, "lat.zero_fill.count=0;");
	latency_hist_add(&h, 3000);
	latency_hist_add(&h, 5000);
	text[0] = 0;
	latency_hist_report(&h, "disk_wait", record, NULL);
	assert_string_equal(text, "lat.disk_wait.count=2;"
			    "lat.disk_wait.p50_tsc=4095;"
			    "lat.disk_wait.p90_tsc=5000;"
			    "lat.disk_wait.p99_tsc=5000;"
			    "lat.disk_wait.max_tsc=5000;"
			    "lat.disk_wait.b11=1;lat.disk_wait.b12=1;");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(buckets),
		cmocka_unit_test(percentiles),
		cmocka_unit_test(merge_and_atomic),
		cmocka_unit_test(reported_as_counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
