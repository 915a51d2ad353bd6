/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Per exit reason: how many exits, and how many TSC cycles the hypervisor
 * spent in root mode handling them, from the VM exit to just before the
 * next VM entry (whatever runs in between, requests and retried entries
 * included, is charged to the exit that opened the interval); of those,
 * the cycles until the handler returned (the rest is the vCPU loop's work
 * before the entry: requests, event injection, the shootdown check).
 * Plain C over plain data: the vCPU loop feeds it TSC values, the
 * registry reads it.
 */
#ifndef VMX_EXIT_STATS_H
#define VMX_EXIT_STATS_H

#include "lib/counters.h"
#include "vmx/exit_reasons.h"

/*
 * Details a handler may add to its exit's reason, counted and timed as
 * well: port I/O by direction (a console write costs far more than reading
 * a device register, and a mean over both would describe neither), and the
 * EPT violations that are emulated MMIO rather than guest memory.
 */
enum exit_detail {
	EXIT_DETAIL_IO_IN,
	EXIT_DETAIL_IO_OUT,
	EXIT_DETAIL_EPT_MMIO,           /* an emulated device's page */
	EXIT_DETAIL_EPT_MEMORY,         /* guest RAM: zero-fill, swap-in */
	EXIT_DETAILS,
	EXIT_DETAIL_NONE = EXIT_DETAILS,
};

/* Slots: one per exit reason, then one per detail. */
#define EXIT_STATS_SLOTS (VMX_EXIT_REASON_MAX + EXIT_DETAILS)

struct exit_stats {
	uint64_t count[EXIT_STATS_SLOTS];
	uint64_t root_tsc[EXIT_STATS_SLOTS];
	uint64_t handler_tsc[EXIT_STATS_SLOTS];
	uint64_t exit_tsc;              /* when the open interval began */
	unsigned open_reason;           /* VMX_EXIT_REASON_MAX: none open */
	unsigned open_detail;           /* EXIT_DETAIL_NONE: none */
};

static inline void exit_stats_init(struct exit_stats *s)
{
	s->open_reason = VMX_EXIT_REASON_MAX;
	s->open_detail = EXIT_DETAIL_NONE;
}

/* A VM exit happened at TSC `now` (its reason is not read yet). */
static inline void exit_stats_exited(struct exit_stats *s, uint64_t now)
{
	s->exit_tsc = now;
}

/* The exit's reason is known: count it and charge the interval to it. */
static inline void exit_stats_reason(struct exit_stats *s, unsigned reason)
{
	s->open_detail = EXIT_DETAIL_NONE;
	if (reason >= VMX_EXIT_REASON_MAX)
		return;
	s->count[reason]++;
	s->open_reason = reason;
}

/* The handler says more about the open exit: count and time that too. */
static inline void exit_stats_detail(struct exit_stats *s,
				     enum exit_detail detail)
{
	if (s->open_reason >= VMX_EXIT_REASON_MAX || detail >= EXIT_DETAILS)
		return;
	s->count[VMX_EXIT_REASON_MAX + detail]++;
	s->open_detail = detail;
}

/* Adds cycles to the open reason's sum (and its detail's) in sums. */
static inline void exit_stats_charge(const struct exit_stats *s,
				     uint64_t *sums, uint64_t cycles)
{
	sums[s->open_reason] += cycles;
	if (s->open_detail != EXIT_DETAIL_NONE)
		sums[VMX_EXIT_REASON_MAX + s->open_detail] += cycles;
}

/* The exit's handler returned at TSC `now`. */
static inline void exit_stats_handled(struct exit_stats *s, uint64_t now)
{
	if (s->open_reason < VMX_EXIT_REASON_MAX)
		exit_stats_charge(s, s->handler_tsc, now - s->exit_tsc);
}

/* The vCPU enters the guest at TSC `now`: close the open interval. */
static inline void exit_stats_entering(struct exit_stats *s, uint64_t now)
{
	if (s->open_reason >= VMX_EXIT_REASON_MAX)
		return;
	exit_stats_charge(s, s->root_tsc, now - s->exit_tsc);
	s->open_reason = VMX_EXIT_REASON_MAX;
	s->open_detail = EXIT_DETAIL_NONE;
}

/*
 * Calls fn with "exit.NAME" (count), "exit.NAME.root_tsc" (cycles to the
 * next entry) and "exit.NAME.handler_tsc" (cycles to the handler's
 * return), summed over n instances `stride` bytes apart, for every reason
 * that occurred and for the core ones (CPUID, HLT, I/O, MSRs, EPT
 * violation) even when they did not; each reason's details follow it
 * ("exit.io.in", "exit.io.out", with the same suffixes).
 */
void exit_stats_each(const struct exit_stats *first, unsigned n,
		     size_t stride, counter_fn fn, void *ctx);

#endif
