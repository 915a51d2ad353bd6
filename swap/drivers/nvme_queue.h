/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One NVMe submission/completion queue pair, polled (NVMe 1.4, 4.1 and
 * 7.2): the host's side of the ring arithmetic, the phase tag, command
 * identifiers, per-command deadlines and the controller's fatal status.
 * Plain C; the doorbells, CSTS and the clock go through struct nvme_regs,
 * so the unit tests drive it with a fake controller.
 *
 * Command identifier = slot number, so a completion names its slot
 * directly. At most entries - 1 commands are in flight, which keeps the
 * submission queue from ever being full (4.1.2: full when tail + 1 ==
 * head).
 *
 * Nothing the controller writes is trusted. A completion for a slot that
 * is not in flight or for another queue, a command left unanswered past
 * its deadline, and CSTS.CFS (or a CSTS of all ones: the controller left
 * the bus) "break" the queue: one "apfvisor: error:" line says what
 * happened, the stop callback disables the controller (which ends its use
 * of every data page, 7.3.1), every command in flight completes with
 * BLK_IO_ERROR, and so does every later one. While the stop callback
 * cannot confirm the controller disabled, a Read of an I/O queue stays
 * in flight instead (its page held, see nvme_queue_hold_all); each later
 * poll asks the callback again.
 */
#ifndef SWAP_NVME_QUEUE_H
#define SWAP_NVME_QUEUE_H

#include "swap/blockdev.h"
#include "swap/drivers/nvme_regs.h"

/* 64 SQ entries of 64 bytes: one page; the CQ (16-byte entries) too. */
#define NVME_QUEUE_ENTRIES  64
#define NVME_QUEUE_SLOTS    (NVME_QUEUE_ENTRIES - 1)

/* nvme_done.status of a command the controller never completed. */
#define NVME_STATUS_NOT_RUN 0xffff

struct nvme_done {
	void *cookie;
	enum blk_status blk;    /* BLK_OK, or why not */
	uint16_t status;        /* the CQE status field (0: success) */
	uint32_t result;        /* the CQE's DW0 */
	/* The command that completed: its opcode, LBA and PRP1 (page). */
	uint8_t opcode;
	uint64_t lba;
	uint64_t prp1;
};

struct nvme_queue {
	const char *name;               /* "nvme 00:04.0 ns1" */
	const struct nvme_regs *regs;
	uint16_t qid;                   /* 0: the admin queue */
	uint16_t entries;               /* of each ring, 2..64 */
	volatile struct nvme_sqe *sq;
	volatile struct nvme_cqe *cq;
	uint16_t sq_tail, cq_head;
	uint16_t phase;                 /* the tag a new CQ entry carries */
	unsigned in_flight;
	uint64_t timeout_ticks;
	/*
	 * The controller's part: disable it when the queue breaks. True
	 * once the controller is confirmed disabled (CSTS.RDY back to 0),
	 * so that it can no longer write into a page.
	 */
	bool (*stop_controller)(void *ctx);
	void *ctx;
	const char *broken;             /* why, once broken */
	struct {
		void *cookie;
		bool busy;              /* the controller has it */
		bool held;              /* failed, kept until it is disabled */
		uint8_t opcode;
		uint64_t lba;           /* of a Read or Write, for messages */
		uint64_t prp1;          /* its page */
		uint64_t deadline;      /* ticks */
	} slot[NVME_QUEUE_SLOTS];
	uint8_t free_slot[NVME_QUEUE_SLOTS];
	unsigned nfree;
	/* Commands completed without the controller, returned by poll. */
	struct {
		uint8_t slot;
		enum blk_status blk;
	} local[NVME_QUEUE_SLOTS];
	unsigned nlocal;
	/* counters */
	uint64_t device_errors;         /* breaks: protocol, timeout, CFS */
	uint64_t frames_held;           /* struct blockdev's, see there */
};

/*
 * Sets up queue qid over sq_mem (entries * 64 bytes) and cq_mem (entries
 * * 16 bytes), both page-aligned and identity-mapped, and zeroes the CQ
 * (so no entry carries phase 1 before the controller writes it). entries
 * above NVME_QUEUE_ENTRIES is cut down to it.
 */
void nvme_queue_init(struct nvme_queue *q, const struct nvme_regs *regs,
		     uint16_t qid, uint16_t entries, void *sq_mem,
		     void *cq_mem, uint64_t timeout_ticks);

/* Requests that may be in flight at once: entries - 1. */
unsigned nvme_queue_depth(const struct nvme_queue *q);

/*
 * Copies cmd into the next SQ entry with its command identifier set and
 * rings the doorbell. HV_OK, or HV_ERR_BUSY when every slot is taken. On a
 * broken queue the command completes at once with BLK_IO_ERROR.
 */
enum hv_err nvme_queue_submit(struct nvme_queue *q, const struct nvme_sqe *cmd,
			      uint64_t lba, void *cookie);

/*
 * Completes a request without the controller (past the end of the
 * namespace, say) through the same poll path. HV_ERR_BUSY when no slot is
 * free.
 */
enum hv_err nvme_queue_complete_locally(struct nvme_queue *q, void *cookie,
					enum blk_status blk);

/* Up to max completions; never blocks. */
unsigned nvme_queue_poll(struct nvme_queue *q, struct nvme_done *out,
			 unsigned max);

/*
 * Fails everything in flight without a message (another queue of the
 * same controller broke and said why, and the controller is disabled);
 * later commands fail too.
 */
void nvme_queue_fail_all(struct nvme_queue *q, const char *why);

/*
 * As nvme_queue_fail_all while the controller is not confirmed disabled:
 * it may still write into the pages of the Reads in flight, so those stay
 * in flight (held, counted once each in frames_held) until
 * nvme_queue_fail_all; everything else fails now. The admin queue's
 * commands all fail: the pages they write (Identify) are the
 * controller's own and never handed to anyone else.
 */
void nvme_queue_hold_all(struct nvme_queue *q, const char *why);

#endif
