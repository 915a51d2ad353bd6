// SPDX-License-Identifier: BSD-2-Clause
/* Exit reason names and the per-reason counters (vmx/exit_stats.h). */
#include "vmx/exit_stats.h"
#include "lib/format.h"

#define VMX_EXIT_NAME(suffix, number, name) [number] = name,

static const char *const exit_reason_names[VMX_EXIT_REASON_MAX] = {
	VMX_EXIT_REASONS(VMX_EXIT_NAME)
};

const char *vmx_exit_reason_name(unsigned reason)
{
	if (reason < VMX_EXIT_REASON_MAX && exit_reason_names[reason])
		return exit_reason_names[reason];
	return "unknown";
}

/* Core exit reasons are always listed, the others when they occurred. */
static bool always_listed(unsigned reason)
{
	return reason == VMX_EXIT_CPUID || reason == VMX_EXIT_HLT ||
	       reason == VMX_EXIT_IO || reason == VMX_EXIT_EPT_VIOLATION ||
	       reason == VMX_EXIT_RDMSR || reason == VMX_EXIT_WRMSR;
}

/* The details, each after the reason it belongs to. */
static const struct {
	unsigned reason;
	const char *name;
} exit_details[EXIT_DETAILS] = {
	[EXIT_DETAIL_IO_IN] = { VMX_EXIT_IO, "io.in" },
	[EXIT_DETAIL_IO_OUT] = { VMX_EXIT_IO, "io.out" },
	[EXIT_DETAIL_EPT_MMIO] = { VMX_EXIT_EPT_VIOLATION,
				   "ept_violation.mmio" },
	[EXIT_DETAIL_EPT_MEMORY] = { VMX_EXIT_EPT_VIOLATION,
				     "ept_violation.memory" },
};

struct exit_walk {
	const struct exit_stats *first;
	unsigned n;
	size_t stride;
	counter_fn fn;
	void *ctx;
};

static const struct exit_stats *instance(const struct exit_walk *w,
					 unsigned i)
{
	return (const struct exit_stats *)((const char *)w->first +
					   i * w->stride);
}

/* Sums one slot over the instances, then reports it under name. */
static void each_slot(const struct exit_walk *w, unsigned slot,
		      const char *name)
{
	uint64_t count = 0, cycles = 0, handler = 0;
	char full[48];

	for (unsigned i = 0; i < w->n; i++) {
		const struct exit_stats *s = instance(w, i);

		count += s->count[slot];
		cycles += s->root_tsc[slot];
		handler += s->handler_tsc[slot];
	}
	fmt_snprintf(full, sizeof(full), "exit.%s", name);
	w->fn(w->ctx, full, count);
	fmt_snprintf(full, sizeof(full), "exit.%s.root_tsc", name);
	w->fn(w->ctx, full, cycles);
	fmt_snprintf(full, sizeof(full), "exit.%s.handler_tsc", name);
	w->fn(w->ctx, full, handler);
}

static bool occurred(const struct exit_walk *w, unsigned slot)
{
	for (unsigned i = 0; i < w->n; i++)
		if (instance(w, i)->count[slot])
			return true;
	return false;
}

void exit_stats_each(const struct exit_stats *first, unsigned n,
		     size_t stride, counter_fn fn, void *ctx)
{
	const struct exit_walk w = { first, n, stride, fn, ctx };

	for (unsigned r = 0; r < VMX_EXIT_REASON_MAX; r++) {
		if (!occurred(&w, r) && !always_listed(r))
			continue;
		each_slot(&w, r, vmx_exit_reason_name(r));
		for (unsigned d = 0; d < EXIT_DETAILS; d++)
			if (exit_details[d].reason == r)
				each_slot(&w, VMX_EXIT_REASON_MAX + d,
					  exit_details[d].name);
	}
}
