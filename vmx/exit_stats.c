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

unsigned exit_stats_open_reason(const struct exit_stats *s)
{
	if (s->open < VMX_EXIT_REASON_MAX)
		return s->open;
	if (s->open < EXIT_STATS_SLOTS)
		return exit_details[s->open - VMX_EXIT_REASON_MAX].reason;
	return EXIT_STATS_NONE;
}

struct slot_sums {
	uint64_t count, cycles, handler;
};

static void add_slot(const struct exit_walk *w, unsigned slot,
		     struct slot_sums *sum)
{
	for (unsigned i = 0; i < w->n; i++) {
		const struct exit_stats *s = instance(w, i);

		sum->count += s->count[slot];
		sum->cycles += s->root_tsc[slot];
		sum->handler += s->handler_tsc[slot];
	}
}

/*
 * Sums one slot over the instances (a reason: with its details, whose
 * slots hold the exits that named one), then reports it under name.
 */
static void each_slot(const struct exit_walk *w, unsigned slot,
		      const char *name)
{
	struct slot_sums sum = { 0 };
	char full[48];

	add_slot(w, slot, &sum);
	for (unsigned d = 0; d < EXIT_DETAILS && slot < VMX_EXIT_REASON_MAX;
	     d++)
		if (exit_details[d].reason == slot)
			add_slot(w, VMX_EXIT_REASON_MAX + d, &sum);
	fmt_snprintf(full, sizeof(full), "exit.%s", name);
	w->fn(w->ctx, full, sum.count);
	fmt_snprintf(full, sizeof(full), "exit.%s.root_tsc", name);
	w->fn(w->ctx, full, sum.cycles);
	fmt_snprintf(full, sizeof(full), "exit.%s.handler_tsc", name);
	w->fn(w->ctx, full, sum.handler);
}

static bool occurred(const struct exit_walk *w, unsigned slot)
{
	for (unsigned i = 0; i < w->n; i++)
		if (instance(w, i)->count[slot])
			return true;
	return false;
}

/* A reason occurred if one of its exits did, with a detail or without. */
static bool reason_occurred(const struct exit_walk *w, unsigned reason)
{
	if (occurred(w, reason))
		return true;
	for (unsigned d = 0; d < EXIT_DETAILS; d++)
		if (exit_details[d].reason == reason &&
		    occurred(w, VMX_EXIT_REASON_MAX + d))
			return true;
	return false;
}

void exit_stats_each(const struct exit_stats *first, unsigned n,
		     size_t stride, counter_fn fn, void *ctx)
{
	const struct exit_walk w = { first, n, stride, fn, ctx };
	uint64_t total = 0;

	/* Every exit is in one slot: its reason's, its detail's or none. */
	for (unsigned i = 0; i < n; i++)
		for (unsigned slot = 0; slot <= EXIT_STATS_NONE; slot++)
			total += instance(&w, i)->count[slot];
	fn(ctx, "exits.total", total);
	for (unsigned r = 0; r < VMX_EXIT_REASON_MAX; r++) {
		if (!reason_occurred(&w, r) && !always_listed(r))
			continue;
		each_slot(&w, r, vmx_exit_reason_name(r));
		for (unsigned d = 0; d < EXIT_DETAILS; d++)
			if (exit_details[d].reason == r)
				each_slot(&w, VMX_EXIT_REASON_MAX + d,
					  exit_details[d].name);
	}
}
