/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The paging daemon's state, shared by its two files: swap/swap_daemon.c
 * (the work: I/O, eviction, faults) and swap/swap_daemon_report.c (what
 * it reports: its counters and the bench figures). Nobody else includes
 * this.
 */
#ifndef SWAP_SWAP_DAEMON_INTERNAL_H
#define SWAP_SWAP_DAEMON_INTERNAL_H

#include "lib/latency_hist.h"
#include "swap/swap_policies.h"
#include "lib/counters.h"
#include "swap/swap_daemon.h"
#include "swap/swap_format.h"
#include "swap/swap_io_queue.h"
#include "swap/swap_slots.h"
#include "swap/swap_thrash.h"
#include "swap/swap_unreadable.h"
#include "swap/swap_verify.h"

#define SWAP_DAEMON_COUNTERS(X)                                              \
	X(struct swap_daemon_stats, submitted, "swap.submitted")              \
	X(struct swap_daemon_stats, completed, "swap.completed")              \
	X(struct swap_daemon_stats, queue_full, "swap.device_queue_full")     \
	X(struct swap_daemon_stats, waits, "swap.waits")                      \
	X(struct swap_daemon_stats, wait_tsc, "swap.wait_tsc")                \
	X(struct swap_daemon_stats, apf_halt_tsc, "swap.apf_halt_tsc")        \
	X(struct swap_daemon_stats, frame_waits, "swap.frame_waits")          \
	X(struct swap_daemon_stats, evict_steps, "swap.evict_steps")          \
	X(struct swap_daemon_stats, shootdowns, "swap.shootdowns")            \
	X(struct swap_daemon_stats, victims, "swap.victims")                  \
	X(struct swap_daemon_stats, evict_tsc, "swap.evict_tsc")              \
	X(struct swap_daemon_stats, io_tsc, "swap.io_tsc")                    \
	X(struct swap_daemon_stats, already_mapped,                          \
	  "swap.faults_already_mapped")                                        \
	X(struct swap_daemon_stats, page_resident_events,                    \
	  "swap.page_resident_events")                                         \
	X(struct swap_daemon_stats, overdue_requests, "swap.overdue_requests") \
	X(struct swap_daemon_stats, verify_mismatches,                       \
	  "swap.verify_mismatches")                                            \
	X(struct swap_daemon_stats, verify_clean_changed,                    \
	  "swap.verify_clean_changed")                                         \
	X(struct swap_daemon_stats, reads_delayed, "swap.reads_delayed")      \
	X(struct swap_daemon_stats, reads_made_to_fail,                       \
	  "swap.reads_made_to_fail")                                           \
	X(struct swap_daemon_stats, pages_lost, "swap.pages_lost")

struct swap_daemon_stats {
	SWAP_DAEMON_COUNTERS(COUNTER_FIELD)
};

struct swap_daemon {
	struct swap_daemon_config cfg;
	struct guest_memory *mem;
	struct spinlock *lock;
	struct blockdev *dev;                   /* NULL: no swap */
	struct swap_header_info hdr;
	struct swap_slots slots;
	struct swap_io_queue io;
	/* Per guest page: the vCPUs waiting for its I/O (bit n = vCPU n). */
	uint64_t *waiters;
	bool verifying;                         /* debug.swap_verify */
	struct swap_policies policies;          /* swap.policy, .prefetch */
	/* Each synchronous wait of a vCPU in swap_fault_wait: "lat.swap_wait". */
	struct latency_hist wait_latency;
	struct counter_source latency_counters;
	struct swap_verify verify;
	unsigned stuck_steps;
	volatile bool stuck;                    /* reported: nothing can go */
	struct swap_thrash thrash;
	/* swap.read_latency: reads done at the device but not yet due. */
	uint64_t read_latency_tsc;
	struct held_read {
		void *cookie;
		bool ok;
		uint64_t due;
	} held[SWAP_IO_IN_FLIGHT_MAX];
	unsigned nheld;
	/* debug.hypercall: pages whose reads are failed on purpose. */
	struct swap_unreadable unreadable;
	struct swap_daemon_stats stats;
	struct counter_source daemon_counters, memory_counters, queue_counters;
	struct counter_source device_counters, injected_counters;
};

/* The vCPUs waiting for RAM page gfn (bit n = vCPU n). */
static inline uint64_t *waiter_word(const struct swap_daemon *d, uint64_t gfn)
{
	return &d->waiters[guest_memory_index(d->mem, gfn)];
}

/*
 * One error line (apfvisor: error: ...), and the guest stopped with it
 * through the daemon's fatal callback.
 */
__attribute__((format(printf, 2, 3)))
void swap_daemon_fatal(struct swap_daemon *d, const char *fmt, ...);

/* Registers the daemon's counters (after the swap device is open). */
void swap_daemon_register_counters(struct swap_daemon *d);
/* Without swap: guest memory's counters only (pc-testdev's flushes). */
void swap_daemon_register_memory_counters(struct swap_daemon *d);

#endif
