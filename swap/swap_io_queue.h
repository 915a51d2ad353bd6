/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The paging daemon's I/O queues, between guest memory (which asks for
 * page reads and writes) and the block device (which takes a few at a
 * time). Pure C, unit-tested.
 *
 * Order: a swap-in read has a vCPU (or a guest task) waiting for it, an
 * eviction write has not, so reads go to the device before any queued
 * write, and at most SWAP_WRITES_AHEAD_MAX writes are at the device at
 * once: a read never waits behind more than that many writes.
 *
 * Each request at the device has a record (its I/O, when it was handed
 * over), found again from the completion's cookie, so a request that does
 * not complete in time can be named.
 */
#ifndef SWAP_SWAP_IO_QUEUE_H
#define SWAP_SWAP_IO_QUEUE_H

#include "swap/guest_memory.h"

#define SWAP_QUEUE_MAX 1024             /* each of reads and writes */
/* Queue room kept for retries when eviction adds writes. */
#define SWAP_QUEUE_RESERVE 128
#define SWAP_IO_IN_FLIGHT_MAX 64        /* at the device at once */
#define SWAP_WRITES_AHEAD_MAX 8
/* A request not completed within this many seconds is overdue. */
#define SWAP_IO_DEADLINE_S 5u

struct swap_io_ring {
	struct swap_io io[SWAP_QUEUE_MAX];
	unsigned head, count;
};

struct swap_io_in_flight {
	struct swap_io io;
	uint64_t submitted_tsc;
	bool used;
	bool reported;                  /* overdue: said once */
};

struct swap_io_queue {
	struct swap_io_ring reads, writes;
	struct swap_io_in_flight at_device[SWAP_IO_IN_FLIGHT_MAX];
	unsigned device_slots;          /* how many the device may hold */
	unsigned in_flight, writes_in_flight;
	/* The request swap_io_queue_next handed out, until submitted. */
	struct swap_io_ring *next_ring;
	unsigned next_slot;
	uint64_t reads_ahead_of_writes; /* reads that overtook a write */
	uint64_t unknown_completions;   /* a cookie that is not ours */
};

/* device_slots: the device's queue depth (1..SWAP_IO_IN_FLIGHT_MAX). */
void swap_io_queue_init(struct swap_io_queue *q, unsigned device_slots);

/* Queues io; false when its queue is full (the caller must not lose it). */
bool swap_io_queue_add(struct swap_io_queue *q, const struct swap_io *io);

/* Requests queued and not yet at the device. */
unsigned swap_io_queue_waiting(const struct swap_io_queue *q);

/* Writes that may still be queued while the reserve stays free. */
unsigned swap_io_queue_room_for_writes(const struct swap_io_queue *q);

/*
 * The next request for the device, in the order above, with the cookie
 * its completion must carry; false when none may go now. Follow with
 * swap_io_queue_submitted (the device took it) or _unsubmit (it did not).
 */
bool swap_io_queue_next(struct swap_io_queue *q, struct swap_io *io,
			void **cookie);
void swap_io_queue_submitted(struct swap_io_queue *q, uint64_t now);
void swap_io_queue_unsubmit(struct swap_io_queue *q);

/* A completion: fills *io; false for a cookie that is not in flight. */
/* The request behind cookie, still at the device; NULL if unknown. */
const struct swap_io_in_flight *swap_io_queue_peek(const struct swap_io_queue *q,
						   void *cookie);

bool swap_io_queue_complete(struct swap_io_queue *q, void *cookie,
			    struct swap_io *io);

/*
 * The oldest request at the device older than limit ticks: its I/O, its
 * age, and whether this is the first time it was found overdue.
 */
bool swap_io_queue_oldest_overdue(struct swap_io_queue *q, uint64_t now,
				  uint64_t limit, struct swap_io *io,
				  uint64_t *age, bool *first);

#endif
