/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The two virtqueues of the virtio-net driver (virtio 1.0, 5.1.2: queue 0
 * receiveq1, queue 1 transmitq1) in memory the device shares, and the
 * bookkeeping of which buffers are on the device. Plain C without port or
 * MMIO access, so the unit tests and the fuzzer drive it with a fake
 * device; net/drivers/virtio_net.c adds the PCI transport (notification,
 * reset).
 *
 * Descriptor i of a queue always points at that queue's buffer i (one
 * descriptor per buffer, no chains), so a used-ring id names its buffer
 * directly. Each buffer is the 12-byte struct virtio_net_hdr (with
 * num_buffers: VIRTIO_F_VERSION_1, 5.1.6) followed by the frame.
 *
 *  - Receive: every receive buffer is on the device from the start,
 *    device-writable, 12 + 1514 bytes (5.1.6.3.1: "at least 1526 bytes"
 *    without MRG_RXBUF or offloads). A used buffer's frame is copied out
 *    and the buffer goes straight back to the device.
 *  - Transmit: a frame is copied into a free buffer after a zeroed header
 *    (5.1.6.2.1: flags 0, gso_type NONE, num_buffers 0), padded with
 *    zeros to NIC_FRAME_MIN, and handed over as one device-readable
 *    descriptor. Buffers the device has finished are taken back from the
 *    used ring by both transmit() and receive().
 *
 * Nothing the device writes is trusted (net/nic.h). A receive used length
 * shorter than the header and an Ethernet header, or longer than the
 * buffer, drops the buffer (counted in rx_dropped) and gives it back. A
 * used id out of the queue or of a buffer the device does not have, or a
 * used index that runs ahead of the buffers on the device, "breaks" the
 * queues: one "apfvisor: error:" line says what the device did, the stop
 * callback resets the device, and from then on the rings are never read
 * again: transmit fails with HV_ERR_DEVICE, receive finds nothing. The
 * buffers are the driver's own and are never handed to anyone else, so
 * nothing waits for the reset to finish. (A receive buffer is back on the
 * device as soon as its frame is copied out, so the device returning it
 * again is a new use of it, not a repeat: only the transmit queue can
 * tell a buffer returned twice.) The header the device writes in
 * front of a received frame is ignored: with no offload negotiated it
 * carries nothing the driver needs (5.1.6.4: flags 0, gso_type NONE;
 * num_buffers, always 1 without MRG_RXBUF, is not relied on). The used
 * length of a transmit buffer is ignored too: the device writes nothing
 * there, and some devices historically put the buffer's length in it
 * (5.1.6, legacy interface note).
 */
#ifndef NET_DRIVERS_VIRTIO_NET_QUEUE_H
#define NET_DRIVERS_VIRTIO_NET_QUEUE_H

#include "lib/errors.h"
#include "lib/types.h"
#include "lib/virtio_spec.h"
#include "net/nic.h"

/* Buffers per queue at most; a queue's size is a power of two (2.4). */
#define VNET_QUEUE_SIZE     64
#define VNET_RX_QUEUE       0       /* receiveq1 (5.1.2) */
#define VNET_TX_QUEUE       1       /* transmitq1 */

/* struct virtio_net_hdr (5.1.6), num_buffers included: 12 bytes. */
#define VNET_HDR_LEN        12
/* A receive buffer as the device sees it: header and the largest frame. */
#define VNET_RX_BUF_LEN     (VNET_HDR_LEN + NIC_FRAME_MAX)
/* The shortest used length that holds a frame: header, Ethernet header. */
#define VNET_RX_MIN_LEN     (VNET_HDR_LEN + NIC_ETH_HEADER)
/* Buffers lie this far apart, two to a page. */
#define VNET_BUF_STRIDE     2048

/*
 * One queue's memory: a page of rings (descriptors at 0, available ring
 * at VNET_AVAIL_OFFSET, used ring at VNET_USED_OFFSET: more than the
 * alignment 2.4 asks, 16, 2 and 4), then its buffers.
 */
#define VNET_AVAIL_OFFSET   0x400
#define VNET_USED_OFFSET    0x800
#define VNET_QUEUE_PAGES    (1 + VNET_QUEUE_SIZE * VNET_BUF_STRIDE / PAGE_SIZE)
/* Both queues, receive first: what vnet_queue_init lays out. */
#define VNET_MEM_PAGES      (2 * VNET_QUEUE_PAGES)

/* Split virtqueue rings (2.4.6, 2.4.8) of at most VNET_QUEUE_SIZE. */
struct vnet_avail {
	uint16_t flags;
	uint16_t idx;
	uint16_t ring[VNET_QUEUE_SIZE];
};

struct vnet_used {
	uint16_t flags;
	uint16_t idx;
	struct virtq_used_elem ring[VNET_QUEUE_SIZE];
};

_Static_assert(VIRTQ_DESC_BYTES(VNET_QUEUE_SIZE) <= VNET_AVAIL_OFFSET,
	       "the descriptors reach into the available ring");
_Static_assert(VNET_AVAIL_OFFSET + sizeof(struct vnet_avail) <=
	       VNET_USED_OFFSET, "the available ring reaches the used ring");
_Static_assert(VNET_USED_OFFSET + sizeof(struct vnet_used) <= PAGE_SIZE,
	       "the rings do not fit in their page");
_Static_assert(VNET_RX_BUF_LEN <= VNET_BUF_STRIDE,
	       "a receive buffer overlaps the next");

/* One split virtqueue and the buffers of its descriptors. */
struct vnet_ring {
	const char *what;               /* "receive queue" */
	uint16_t size;                  /* descriptors, a power of two */
	struct virtq_desc *desc;
	struct vnet_avail *avail;
	struct vnet_used *used;
	uint8_t *buf;                   /* buffer i at buf + i * STRIDE */
	uint16_t avail_idx;             /* our copy of avail->idx */
	uint16_t used_seen;             /* used->idx consumed up to */
	uint16_t on_device;             /* published, not yet returned */
	bool posted[VNET_QUEUE_SIZE];   /* buffer i is on the device */
};

struct vnet_queue {
	const char *name;               /* "virtio-net 00:04.0" */
	struct vnet_ring rx, tx;
	uint16_t tx_free[VNET_QUEUE_SIZE];  /* transmit buffers we hold */
	unsigned tx_nfree;
	/*
	 * The transport's part: reset the device when the queues break,
	 * so that it no longer reads or writes the rings and buffers.
	 */
	void (*stop_device)(void *ctx);
	void *ctx;
	const char *broken;             /* why, once the device broke them */
	/* counters, as struct nic's */
	uint64_t rx_frames, tx_frames;
	uint64_t rx_dropped;
	uint64_t tx_busy;
};

/*
 * Lays both queues out in `mem` (VNET_MEM_PAGES pages, identity-mapped,
 * so that pointers are the addresses the device uses; receive first) with
 * rx_size and tx_size descriptors (powers of two, 1 or more; more than
 * VNET_QUEUE_SIZE is cut down to it), and puts every receive buffer in
 * the available ring (5.1.5 step 3). The device is told nothing: the
 * caller notifies the receive queue once the device is live (DRIVER_OK).
 */
void vnet_queue_init(struct vnet_queue *q, void *mem, uint16_t rx_size,
		     uint16_t tx_size);

/*
 * Takes back the transmit buffers the device has finished, then copies
 * the frame (NIC_ETH_HEADER..NIC_FRAME_MAX bytes) into a free transmit
 * buffer, padded to NIC_FRAME_MIN, and publishes it. HV_OK;
 * HV_ERR_BUSY when every buffer is still on the device (tx_busy counts
 * it); HV_ERR_INVALID for a length out of range; HV_ERR_DEVICE once the
 * queues are broken. *notify is set when the device asked to be told
 * (the caller writes the transmit queue's notify register).
 */
enum hv_err vnet_queue_transmit(struct vnet_queue *q, const void *frame,
				size_t len, bool *notify);

/*
 * Takes back the transmit buffers the device has finished; returns how
 * many. 0 once the queues are broken.
 */
unsigned vnet_queue_reclaim_tx(struct vnet_queue *q);

/*
 * Takes back finished transmit buffers, then copies the next good frame
 * the device received into buf (room for NIC_FRAME_MAX bytes) and returns
 * its length; 0 when none waits or the queues are broken. Every used
 * receive buffer it looks at goes back to the device; *notify is set when
 * the device asked to be told (the receive queue's notify register).
 */
size_t vnet_queue_receive(struct vnet_queue *q, void *buf, bool *notify);

#endif
