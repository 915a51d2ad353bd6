/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The paging daemon: connects guest memory's eviction and swap-in
 * decisions (swap/guest_memory.c) to the swap device (swap/blockdev.h). Its
 * work runs under the guest lock, on the service CPU when there is one and
 * otherwise on VM exits (the preemption timer guarantees at least 100 per
 * second), and in any vCPU that waits for a page.
 */
#ifndef SWAP_SWAP_DAEMON_H
#define SWAP_SWAP_DAEMON_H

#include "swap/guest_memory.h"

struct guest;
struct boot_info;

#define SWAP_QUEUE_MAX 1024
/* Queue room kept for swap-ins and retries when eviction adds writes. */
#define SWAP_QUEUE_RESERVE 128

struct swap_daemon_stats {
	uint64_t submitted;
	uint64_t completed;
	uint64_t queue_full;            /* device queue full: kept for later */
	uint64_t wait_tsc;              /* vCPUs waiting for their page */
	uint64_t waits;
	uint64_t shootdowns;            /* EPT flushes with IPIs */
	uint64_t evict_steps;
	uint64_t already_mapped;        /* faults on pages mapped meanwhile */
	uint64_t victims;               /* eviction candidates taken */
	uint64_t evict_tsc;             /* time in eviction steps */
	uint64_t io_tsc;                /* time harvesting completions */
};

/*
 * Opens the swap device and turns on eviction when the configuration asks
 * for swap or overcommits; prints one error line and returns false when
 * the guest cannot run (overcommit without a usable swap device).
 */
bool swap_daemon_setup(struct guest *g, const struct boot_info *bi);

/* Moves I/O along and evicts when frames run low. Takes g->lock. */
void swap_daemon_work(struct guest *g);

/*
 * An EPT violation at gpa, handled synchronously: returns once the page is
 * resident (RESOLVED) or cannot be (the other results).
 */
enum guest_fault_result swap_daemon_fault(struct guest *g, uint64_t gpa);

/* Prints the daemon's counters as "stat" lines. */
void swap_daemon_report(const struct guest *g);

#endif
