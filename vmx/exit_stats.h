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
 *
 * Every exit pays for this, so an exit charges one slot only: its
 * reason's, or its detail's once the handler names one (the detail's
 * slot then holds the exit, and the walker adds the details back into
 * their reason's figures).
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
 * stands for "none" (no exit open, an unknown reason). Charging the spare
 * slot instead of testing for "none" keeps the branches out of the path
 * every exit takes; it is never reported.
 */
#define EXIT_STATS_SLOTS (VMX_EXIT_REASON_MAX + EXIT_DETAILS)
#define EXIT_STATS_NONE EXIT_STATS_SLOTS

struct exit_stats {
	uint64_t count[EXIT_STATS_SLOTS + 1];
	uint64_t root_tsc[EXIT_STATS_SLOTS + 1];
	uint64_t handler_tsc[EXIT_STATS_SLOTS + 1];
	uint64_t exit_tsc;              /* when the open interval began */
	size_t open;                    /* the slot charged; NONE: none open */
};

static inline void exit_stats_init(struct exit_stats *s)
{
	s->open = EXIT_STATS_NONE;
}

/* A VM exit happened at TSC `now` (its reason is not read yet). */
static inline void exit_stats_exited(struct exit_stats *s, uint64_t now)
{
	s->exit_tsc = now;
}

/* The exit's reason is known: count it and charge the interval to it. */
static inline void exit_stats_reason(struct exit_stats *s, size_t reason)
{
	size_t slot = reason < VMX_EXIT_REASON_MAX ? reason : EXIT_STATS_NONE;

	s->count[slot]++;
	s->open = slot;
}

/*
 * The handler says more about the open exit: the exit moves from its
 * reason's slot to the detail's (once: a second detail is ignored).
 */
static inline void exit_stats_detail(struct exit_stats *s,
				     enum exit_detail detail)
{
	if (s->open >= VMX_EXIT_REASON_MAX || detail >= EXIT_DETAILS)
		return;
	s->count[s->open]--;
	s->open = VMX_EXIT_REASON_MAX + detail;
	s->count[s->open]++;
}

/* The exit's handler returned at TSC `now`. */
static inline void exit_stats_handled(struct exit_stats *s, uint64_t now)
{
	uint64_t spent = now - s->exit_tsc;

	/*
	 * Hidden from the optimizer (as Linux's OPTIMIZER_HIDE_VAR does):
	 * GCC would otherwise reassociate the sum into a load, an add, a
	 * subtract and a store, two instructions more on every exit.
	 */
	__asm__("" : "+r"(spent));
	s->handler_tsc[s->open] += spent;
}

/* The vCPU enters the guest at TSC `now`: close the open interval. */
static inline void exit_stats_entering(struct exit_stats *s, uint64_t now)
{
	s->root_tsc[s->open] += now - s->exit_tsc;
	s->open = EXIT_STATS_NONE;
}

/* The reason of the open exit (a detail's reason); NONE: none open. */
unsigned exit_stats_open_reason(const struct exit_stats *s);

/*
 * Calls fn with "exits.total" (every exit, unknown reasons included),
 * then with "exit.NAME" (count), "exit.NAME.root_tsc" (cycles to the
 * next entry) and "exit.NAME.handler_tsc" (cycles to the handler's
 * return), summed over n instances `stride` bytes apart, for every reason
 * that occurred and for the core ones (CPUID, HLT, I/O, MSRs, EPT
 * violation) even when they did not; each reason's details follow it
 * ("exit.io.in", "exit.io.out", with the same suffixes).
 */
void exit_stats_each(const struct exit_stats *first, unsigned n,
		     size_t stride, counter_fn fn, void *ctx);

#endif
