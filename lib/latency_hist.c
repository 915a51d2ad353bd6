// SPDX-License-Identifier: BSD-2-Clause
/* Log2 latency histograms (lib/latency_hist.h). */
#include "lib/latency_hist.h"
#include "lib/format.h"

void latency_hist_add_atomic(struct latency_hist *h, uint64_t cycles)
{
	uint64_t seen = __atomic_load_n(&h->max, __ATOMIC_RELAXED);

	__atomic_fetch_add(&h->bucket[latency_bucket(cycles)], 1,
			   __ATOMIC_RELAXED);
	__atomic_fetch_add(&h->count, 1, __ATOMIC_RELAXED);
	while (cycles > seen &&
	       !__atomic_compare_exchange_n(&h->max, &seen, cycles, true,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

void latency_hist_merge(struct latency_hist *into,
			const struct latency_hist *h)
{
	for (unsigned b = 0; b < LATENCY_BUCKETS; b++)
		into->bucket[b] += h->bucket[b];
	into->count += h->count;
	if (h->max > into->max)
		into->max = h->max;
}

uint64_t latency_hist_percentile(const struct latency_hist *h,
				 unsigned permille)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	/* The smallest value with at least permille/1000 of them at or below. */
	rank = (h->count * MIN(permille, 1000u) + 999) / 1000;
	if (!rank)
		rank = 1;
	for (unsigned b = 0; b < LATENCY_BUCKETS; b++) {
		seen += h->bucket[b];
		if (seen >= rank) {
			uint64_t top = b >= 63 ? UINT64_MAX : (2ull << b) - 1;

			return MIN(top, h->max);
		}
	}
	return h->max;
}

void latency_hist_report(const struct latency_hist *h, const char *path,
			 counter_fn fn, void *ctx)
{
	static const struct {
		const char *suffix;
		unsigned permille;
	} cuts[] = {
		{ "p50_tsc", 500 }, { "p90_tsc", 900 }, { "p99_tsc", 990 },
	};
	char name[64];

	fmt_snprintf(name, sizeof(name), "lat.%s.count", path);
	fn(ctx, name, h->count);
	if (!h->count)
		return;
	for (unsigned i = 0; i < ARRAY_SIZE(cuts); i++) {
		fmt_snprintf(name, sizeof(name), "lat.%s.%s", path,
			     cuts[i].suffix);
		fn(ctx, name, latency_hist_percentile(h, cuts[i].permille));
	}
	fmt_snprintf(name, sizeof(name), "lat.%s.max_tsc", path);
	fn(ctx, name, h->max);
	for (unsigned b = 0; b < LATENCY_BUCKETS; b++) {
		if (!h->bucket[b])
			continue;
		fmt_snprintf(name, sizeof(name), "lat.%s.b%u", path, b);
		fn(ctx, name, h->bucket[b]);
	}
}
