/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A latency histogram with log2 buckets of TSC cycles: bucket b counts
 * values in [2^b, 2^(b+1)) (bucket 0 also counts 0). Adding a value is a
 * bit scan and two increments, cheap enough for a fault path; the
 * percentiles come out at the end with a bucket's precision (a factor of
 * two), which is what a latency distribution over many orders of
 * magnitude needs, as in the log2 histograms of bpftrace or fio.
 *
 * The registry (lib/counters.h) shows one as counters named
 * "lat.PATH.count", ".p50_tsc", ".p90_tsc", ".p99_tsc", ".max_tsc" and
 * ".bN" (the count of bucket N, only for buckets that are not empty), so
 * tools read it with the other counters.
 */
#ifndef LIB_LATENCY_HIST_H
#define LIB_LATENCY_HIST_H

#include "lib/counters.h"
#include "lib/types.h"

#define LATENCY_BUCKETS 48      /* up to 2^48 cycles: hours at 4 GHz */

struct latency_hist {
	uint64_t bucket[LATENCY_BUCKETS];
	uint64_t count;
	uint64_t max;
};

static inline unsigned latency_bucket(uint64_t cycles)
{
	unsigned b = cycles ? 63u - (unsigned)__builtin_clzll(cycles) : 0;

	return b < LATENCY_BUCKETS ? b : LATENCY_BUCKETS - 1;
}

/* One value; the caller serializes adds to one histogram. */
static inline void latency_hist_add(struct latency_hist *h, uint64_t cycles)
{
	h->bucket[latency_bucket(cycles)]++;
	h->count++;
	if (cycles > h->max)
		h->max = cycles;
}

/* The same, for a histogram several CPUs add to without a lock. */
void latency_hist_add_atomic(struct latency_hist *h, uint64_t cycles);

/* Adds h's values to into. */
void latency_hist_merge(struct latency_hist *into,
			const struct latency_hist *h);

/*
 * The permille-th value (500: the median) as the upper end of its bucket
 * (2^(b+1) - 1), at most max; 0 when the histogram is empty.
 */
uint64_t latency_hist_percentile(const struct latency_hist *h,
				 unsigned permille);

/* Reports h as the counters named above, "lat." path "...". */
void latency_hist_report(const struct latency_hist *h, const char *path,
			 counter_fn fn, void *ctx);

#endif
