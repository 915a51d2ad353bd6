/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The thrashing rule of the paging daemon (swap_daemon.h has the numbers):
 * while the swap area is full, time is cut into windows; a window in which
 * the vCPUs that waited spent at least SWAP_THRASH_PERCENT of their time
 * waiting for swap (faults waited for, and halts with async page faults
 * outstanding) counts, and SWAP_THRASH_WINDOWS such windows in a row mean
 * the guest is thrashing. A window below the mark, or a slot freed, starts
 * the count again. Plain C over TSC values: the daemon supplies the clock
 * and prints.
 */
#ifndef SWAP_SWAP_THRASH_H
#define SWAP_SWAP_THRASH_H

#include "lib/types.h"

struct swap_thrash {
	uint64_t start;                 /* 0: no window open */
	uint64_t waited_then;           /* the waited total at start */
	uint64_t vcpus;                 /* vCPUs that waited since (bits) */
	unsigned windows;               /* in a row above the mark */
};

enum swap_thrash_verdict {
	SWAP_THRASH_NOTHING,            /* no window ended above the mark */
	SWAP_THRASH_WINDOW_HIGH,        /* one did; not yet enough in a row */
	SWAP_THRASH_THRASHING,          /* SWAP_THRASH_WINDOWS in a row */
};

/* A vCPU waited (any CPU, any time): it counts in the window's budget. */
static inline void swap_thrash_note_vcpu(struct swap_thrash *t,
					 unsigned vcpu)
{
	if (vcpu < 64)
		__atomic_fetch_or(&t->vcpus, BIT(vcpu), __ATOMIC_RELAXED);
}

/*
 * One look at time now (TSC) with the swap area full or not and waited,
 * the total TSC the vCPUs have spent waiting so far; window is the
 * window's length in TSC. *percent gets the last window's figure when a
 * window ended.
 */
enum swap_thrash_verdict swap_thrash_check(struct swap_thrash *t,
					   bool swap_full, uint64_t waited,
					   uint64_t now, uint64_t window,
					   unsigned *percent);

#endif
