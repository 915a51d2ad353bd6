/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The request queue of the virtio-blk driver: one split virtqueue (virtio
 * 1.0, 2.4) in memory the device shares, and the bookkeeping of which
 * requests are on the device. Plain C without port or MMIO access, so the
 * unit tests and the fuzzer drive it with a fake device; swap/drivers/virtio_blk.c
 * adds the PCI transport (notification, reset).
 *
 * Request slot r always uses descriptors 3r, 3r+1 and 3r+2 (header, data
 * page, status byte), so a used-ring id names its slot directly.
 *
 * Nothing the device writes is trusted. A used entry whose id was never a
 * request head or is not on the device, a used index that runs ahead of
 * the requests on the device, a used length larger than the request's
 * device-writable bytes, and a request left unanswered for longer than
 * the timeout all "break" the queue: one "apfvisor: error:" line says
 * what the device did, the stop callback resets the device so it can no
 * longer write into the pages, every request that was on the device
 * completes with BLK_IO_ERROR, and so does every later one. A read stays
 * on the device (its page held) while the stop callback cannot confirm
 * the device stopped; each later poll asks it again.
 *
 * A read answered OK with a used length short of the page and the status
 * byte completes with BLK_IO_ERROR (counted in short_transfers); the
 * queue goes on.
 */
#ifndef SWAP_VIRTIO_BLK_QUEUE_H
#define SWAP_VIRTIO_BLK_QUEUE_H

#include "lib/types.h"
#include "lib/virtio_spec.h"
#include "swap/blockdev.h"

#define VBLK_QUEUE_SIZE     64      /* descriptors at most; a power of two */
#define VBLK_DESC_PER_REQ   3
#define VBLK_MAX_SLOTS      (VBLK_QUEUE_SIZE / VBLK_DESC_PER_REQ)
#define VBLK_RING_PAGES     4       /* desc, avail, used, headers+status */

/* Split virtqueue (2.4.5 - 2.4.8): descriptors and flags in lib/virtio_spec.h. */
/* Request types and status values (5.2.6). */
#define VIRTIO_BLK_T_IN     0
#define VIRTIO_BLK_T_OUT    1
#define VIRTIO_BLK_S_OK     0
#define VIRTIO_BLK_S_IOERR  1
#define VIRTIO_BLK_S_UNSUPP 2
#define VBLK_SECTOR_SHIFT   9

struct virtq_avail {
	uint16_t flags;
	uint16_t idx;
	uint16_t ring[VBLK_QUEUE_SIZE];
};

struct virtq_used {
	uint16_t flags;
	uint16_t idx;
	struct virtq_used_elem ring[VBLK_QUEUE_SIZE];
};

struct virtio_blk_req_hdr {
	uint32_t type;
	uint32_t reserved;
	uint64_t sector;
};

/* What the device reads and writes besides the data pages: one page. */
struct vblk_dma {
	struct virtio_blk_req_hdr hdr[VBLK_MAX_SLOTS];
	uint8_t status[VBLK_MAX_SLOTS];
};

struct vblk_queue {
	const char *name;               /* "virtio-blk 00:04.0" */
	uint64_t device_size;           /* bytes */
	uint16_t qsize;                 /* descriptors in the queue */
	unsigned nslots;                /* requests in flight at most */
	struct virtq_desc *desc;
	struct virtq_avail *avail;
	struct virtq_used *used;
	struct vblk_dma *dma;
	uint16_t avail_idx;             /* our copy of avail->idx */
	uint16_t used_seen;             /* used->idx consumed up to */
	unsigned on_device;             /* published, not yet returned */
	uint64_t timeout_ticks;         /* a request's answer, at most */
	/*
	 * The transport's part: reset the device when the queue breaks.
	 * True once the device is confirmed stopped (its reset finished),
	 * so that it can no longer write into a page.
	 */
	bool (*stop_device)(void *ctx);
	void *ctx;
	const char *broken;             /* why, once the device broke it */
	struct {
		void *cookie;
		bool published;         /* the device has it */
		bool held;              /* failed, kept until the device stops */
		enum blk_op op;
		uint64_t deadline;      /* ticks */
	} slot[VBLK_MAX_SLOTS];
	uint8_t free_slot[VBLK_MAX_SLOTS];
	unsigned nfree;
	/*
	 * Requests completed without the device (past the end, or the
	 * queue broken): returned by poll in a slot each, so the caller sees
	 * one path.
	 */
	struct {
		uint8_t slot;
		enum blk_status status;
	} local[VBLK_MAX_SLOTS];
	unsigned nlocal;
	/* counters */
	uint64_t device_errors;         /* protocol violations and timeouts */
	uint64_t short_transfers;       /* struct blockdev's, see there */
	uint64_t frames_held;           /* struct blockdev's, see there */
};

/*
 * Lays the rings out in `rings` (VBLK_RING_PAGES pages, identity-mapped,
 * so that pointers are the addresses the device uses) for a queue of
 * `qsize` descriptors (a power of two, 3 or more; more than
 * VBLK_QUEUE_SIZE is cut down to it).
 */
void vblk_queue_init(struct vblk_queue *q, void *rings, uint16_t qsize,
		     uint64_t device_size, uint64_t timeout_ticks);

/*
 * Queues one request at time `now`. HV_OK, or HV_ERR_BUSY when every slot
 * is taken.
 * *notify is set when the device asked to be told (the caller writes the
 * queue's notify register).
 */
enum hv_err vblk_queue_submit(struct vblk_queue *q,
			      const struct blk_request *req, uint64_t now,
			      bool *notify);

/* Up to max completions at time `now`; never blocks. */
unsigned vblk_queue_poll(struct vblk_queue *q, struct blk_completion *out,
			 unsigned max, uint64_t now);

#endif
