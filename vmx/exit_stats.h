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
};

/*
 * Slots: one per exit reason, then one per detail, then a spare one that
 * stands for "none" (no exit open, no detail, an unknown reason). Charging
 * the spare slot instead of testing for "none" keeps the branches out of
 * the path every exit takes; it is never reported.
 */
#define EXIT_STATS_SLOTS (VMX_EXIT_REASON_MAX + EXIT_DETAILS)
#define EXIT_STATS_NONE EXIT_STATS_SLOTS

struct exit_stats {
	uint64_t count[EXIT_STATS_SLOTS + 1];
	uint64_t root_tsc[EXIT_STATS_SLOTS + 1];
	uint64_t handler_tsc[EXIT_STATS_SLOTS + 1];
	uint64_t exit_tsc;              /* when the open interval began */
	uint64_t handled_tsc;           /* when its handler returned */
	unsigned open_reason;           /* a slot; EXIT_STATS_NONE: none open */
	unsigned open_detail;           /* a slot; EXIT_STATS_NONE: none */
};

static inline void exit_stats_init(struct exit_stats *s)
{
	s->open_reason = EXIT_STATS_NONE;
	s->open_detail = EXIT_STATS_NONE;
}

/* A VM exit happened at TSC `now` (its reason is not read yet). */
static inline void exit_stats_exited(struct exit_stats *s, uint64_t now)
{
	s->exit_tsc = now;
}

/* The exit's reason is known: count it and charge the interval to it. */
static inline void exit_stats_reason(struct exit_stats *s, unsigned reason)
{
	unsigned slot = reason < VMX_EXIT_REASON_MAX ? reason : EXIT_STATS_NONE;

	s->count[slot]++;
	s->open_reason = slot;
	s->open_detail = EXIT_STATS_NONE;
}

/* The handler says more about the open exit: count and time that too. */
static inline void exit_stats_detail(struct exit_stats *s,
				     enum exit_detail detail)
{
	if (s->open_reason >= VMX_EXIT_REASON_MAX || detail >= EXIT_DETAILS)
		return;
	s->count[VMX_EXIT_REASON_MAX + detail]++;
	s->open_detail = VMX_EXIT_REASON_MAX + detail;
}

/* The exit's handler returned at TSC `now`. */
static inline void exit_stats_handled(struct exit_stats *s, uint64_t now)
{
	s->handled_tsc = now;
}

/* The vCPU enters the guest at TSC `now`: close the open interval. */
static inline void exit_stats_entering(struct exit_stats *s, uint64_t now)
{
	uint64_t root = now - s->exit_tsc;
	uint64_t handler = s->handled_tsc - s->exit_tsc;

	s->root_tsc[s->open_reason] += root;
	s->handler_tsc[s->open_reason] += handler;
	s->root_tsc[s->open_detail] += root;
	s->handler_tsc[s->open_detail] += handler;
	s->open_reason = EXIT_STATS_NONE;
	s->open_detail = EXIT_STATS_NONE;
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
