// SPDX-License-Identifier: BSD-2-Clause
/* The counters of apf/ in the registry (lib/counters.h), named once. */
#include "apf/apf.h"
#include "lib/string.h"

#define APF_SYNC_COUNTER_DEF(reason, name)                                   \
	{ "apf.sync." name, offsetof(struct apf_stats, sync[reason]) },

static const struct counter_def apf_counter_defs[] = {
	APF_COUNTERS(COUNTER_DEF)
	APF_SYNC_REASONS(APF_SYNC_COUNTER_DEF)
};

#define APF_VERDICT_NAME(reason, name) [reason] = name,

static const char *const verdict_names[APF_VERDICT_COUNT] = {
	[APF_DELIVER] = "deliver",
	APF_SYNC_REASONS(APF_VERDICT_NAME)
};

const char *apf_verdict_name(enum apf_verdict verdict)
{
	if ((unsigned)verdict >= APF_VERDICT_COUNT)
		return "unknown";
	return verdict_names[verdict];
}

/*
 * What a sum over vCPUs would not give: the largest peak, and the vCPUs'
 * latency histograms merged.
 */
static void each_peak(const void *obj, counter_fn fn, void *ctx)
{
	const struct apf_counter_sources *src = obj;
	const char *base = (const char *)src->first;
	struct latency_hist ready;
	uint64_t peak = 0;

	memset(&ready, 0, sizeof(ready));
	for (unsigned i = 0; i < src->nvcpus; i++) {
		const struct apf_vcpu *v =
			(const struct apf_vcpu *)(base + i * src->stride);

		peak = MAX(peak, v->stats.peak_outstanding);
		latency_hist_merge(&ready, &v->stats.ready_latency);
	}
	fn(ctx, "apf.peak_outstanding", peak);
	latency_hist_report(&ready, "apf_ready", fn, ctx);
}

void apf_counters_register(struct apf_counter_sources *src,
			   const struct apf_vcpu *first, unsigned nvcpus,
			   size_t stride)
{
	src->first = first;
	src->nvcpus = nvcpus;
	src->stride = stride;
	src->sums = (struct counter_source){
		.defs = apf_counter_defs,
		.ndefs = ARRAY_SIZE(apf_counter_defs),
		.instances = nvcpus,
		.stride = stride,
		.obj = &first->stats,
	};
	src->peak = (struct counter_source){ .each = each_peak, .obj = src };
	counters_register(&src->sums);
	counters_register(&src->peak);
}
