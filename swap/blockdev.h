/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The block layer under the paging daemon: one small asynchronous
 * interface, the drivers behind it (swap/drivers/virtio_blk.c for QEMU and cloud
 * hosts, swap/drivers/ahci.c for SATA disks, swap/drivers/ata.c for Bochs). Requests are
 * whole 4 KiB pages at page-aligned byte offsets; several may be in
 * flight; completions are collected by polling (from the service CPU, or
 * on VM exits when there is only one host CPU). No interrupts are used.
 */
#ifndef SWAP_BLOCKDEV_H
#define SWAP_BLOCKDEV_H

#include "lib/errors.h"
#include "lib/types.h"

enum blk_op {
	BLK_READ,
	BLK_WRITE,
};

enum blk_status {
	BLK_OK = 0,
	BLK_IO_ERROR,           /* the device reported an error */
	BLK_OUT_OF_RANGE,       /* past the end of the device */
};

struct blk_request {
	enum blk_op op;
	uint64_t offset;        /* bytes, multiple of 4096 */
	uint64_t buffer_pa;     /* host-physical address of one 4 KiB page */
	void *cookie;           /* the submitter's, returned on completion */
};

struct blk_completion {
	void *cookie;
	enum blk_status status;
};

struct blockdev;

struct blockdev_ops {
	/*
	 * HV_OK: accepted (its outcome comes back as a completion); or
	 * HV_ERR_BUSY when the queue is full (retry after polling).
	 */
	enum hv_err (*submit)(struct blockdev *dev,
			      const struct blk_request *req);
	/* Fills up to max completions; returns how many. Never blocks. */
	unsigned (*poll)(struct blockdev *dev, struct blk_completion *out,
			 unsigned max);
};

struct blockdev {
	const struct blockdev_ops *ops;
	const char *name;       /* "virtio-blk 00:04.0", "ata0-slave", ... */
	uint64_t size;          /* bytes */
	unsigned queue_depth;   /* requests that may be in flight at once */
	void *driver;           /* the driver's own state */
	/*
	 * Devices with the same non-zero bus share one command interface
	 * (two disks of an ATA channel): only one of them may have requests
	 * in flight at a time. 0: independent of every other device.
	 */
	unsigned bus;
	/*
	 * A device that can go away for a while (a server over the network):
	 * true while it cannot serve requests, so that a replicated set
	 * (swap/blockdev_stripe.c) reads and writes the other copies. A
	 * local disk leaves it false.
	 */
	bool unavailable;
	/*
	 * Set by a replicated set over the device: when it loses its server
	 * the device fails its requests at once (BLK_IO_ERROR) instead of
	 * keeping them for the next connection, since the set has other
	 * copies.
	 */
	bool fail_fast;
	/* counters */
	uint64_t reads, writes, errors;
	/*
	 * Requests the device reported done without moving the whole page
	 * (a byte count short of 4 KiB, or words of a read it never wrote):
	 * each failed with BLK_IO_ERROR, and counted in errors as well.
	 */
	uint64_t short_transfers;
	/*
	 * Reads that failed while the device could not be confirmed stopped
	 * (a timeout, or a reset that did not finish): the device may still
	 * write into their pages, so the driver keeps them in flight, and
	 * their frames out of everyone's reach, until it is. Counted once
	 * each, when held.
	 */
	uint64_t frames_held;
};

/* For drivers: count a request they accepted, and the failed completions. */
static inline void blk_count_submitted(struct blockdev *dev,
				       const struct blk_request *r)
{
	if (r->op == BLK_WRITE)
		dev->writes++;
	else
		dev->reads++;
}

static inline void blk_count_errors(struct blockdev *dev,
				    const struct blk_completion *c, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (c[i].status != BLK_OK)
			dev->errors++;
}

static inline enum hv_err blk_submit(struct blockdev *dev,
				     const struct blk_request *r)
{
	return dev->ops->submit(dev, r);
}

static inline unsigned blk_poll(struct blockdev *dev,
				struct blk_completion *out, unsigned max)
{
	return dev->ops->poll(dev, out, max);
}

#endif
