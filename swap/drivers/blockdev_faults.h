/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fault injection for the swap device (debug.swap_fail_reads and
 * debug.swap_fail_writes): a struct blockdev that passes requests to the
 * real driver, except every Nth read and every Mth write, which it never
 * hands to the driver and completes at the next poll with BLK_IO_ERROR
 * (no data moves: the buffer is left as it was). The paging daemon sees a
 * driver-level I/O error and runs its retry and give-up paths.
 *
 * Requests are counted when accepted: one the real driver refused with
 * "queue full" (HV_ERR_BUSY) is not counted, so its resubmission does not shift
 * which request fails. Reads and writes are counted separately.
 *
 * With a torn page (debug.isolation_secret, blockdev_faults_set_torn_page)
 * a failed request does leave something behind, as a transfer cut short
 * may: a failed read copies the torn page into the caller's buffer, and a
 * failed write goes to the driver with the torn page in place of the
 * caller's buffer (the slot gets it) and completes with BLK_IO_ERROR all
 * the same. A page read from such a slot, or a buffer whose read failed
 * and that is used anyway, then shows the torn page's contents.
 */
#ifndef SWAP_BLOCKDEV_FAULTS_H
#define SWAP_BLOCKDEV_FAULTS_H

#include "swap/blockdev.h"

/* Injected failures not yet returned by poll: at least any queue depth. */
#define BLOCKDEV_FAULTS_PENDING 64

struct blockdev_fault_counts {
	uint64_t injected_read_failures;        /* swap.injected_read_failures */
	uint64_t injected_write_failures;       /* swap.injected_write_failures */
};

struct blockdev_faults {
	struct blockdev dev;            /* what the caller submits to */
	struct blockdev *inner;         /* the real driver */
	uint32_t fail_reads, fail_writes;       /* every Nth; 0 = never */
	uint64_t reads_seen, writes_seen;       /* accepted requests */
	struct blockdev_fault_counts injected;
	void *pending[BLOCKDEV_FAULTS_PENDING]; /* cookies, FIFO */
	unsigned pending_head, pending_count;
	uint64_t torn_pa;               /* 4 KiB, host-physical; 0: none */
	/* Failed writes of the torn page in the driver: callers' cookies. */
	struct blockdev_torn_write {
		void *cookie;
		bool busy;
	} torn[BLOCKDEV_FAULTS_PENDING];
};

/*
 * Makes f a wrapper over inner that fails every fail_reads-th read and
 * every fail_writes-th write (0 = none). f->dev has inner's name, size and
 * queue depth; its reads/writes, short_transfers and frames_held counters
 * follow inner's (a torn write is one of the driver's writes), its errors
 * count inner's plus the injected ones. No torn page: set f->torn_pa after
 * this for one. Pure: no output.
 */
void blockdev_faults_init(struct blockdev_faults *f, struct blockdev *inner,
			  uint32_t fail_reads, uint32_t fail_writes);

/*
 * The hook for the swap device: returns dev itself when both counts are 0
 * (or dev is NULL); otherwise wraps dev in the one wrapper instance, prints
 *   "apfvisor: debug: failing every Nth swap read, every Mth swap write"
 * ("no swap read" / "no swap write" for a 0 count) and returns the wrapper.
 * Called once, where the paging daemon opens its device.
 */
struct blockdev *blockdev_faults_wrap(struct blockdev *dev,
				      uint32_t fail_reads,
				      uint32_t fail_writes);

/*
 * Gives the wrapper instance a torn page (host-physical, 4 KiB, which must
 * stay as it is): see the top. Returns false, doing nothing, when no
 * failure is injected (blockdev_faults_wrap returned the device itself).
 */
bool blockdev_faults_set_torn_page(uint64_t torn_pa);

/* The wrapper instance's injected failures (zeroes when it is not in use). */
struct blockdev_fault_counts blockdev_faults_injected(void);

#endif
