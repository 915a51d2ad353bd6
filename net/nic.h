/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The network interface under the TCP/IP stack (net/netif.c, lwIP): one
 * small polled interface, the Ethernet drivers behind it (e1000 in
 * net/drivers/e1000.c for Bochs, QEMU and real 8254x cards, virtio-net in
 * net/drivers/virtio_net.c for QEMU and KVM hosts).
 *
 * Frames are copied into and out of the driver's own DMA buffers, so no
 * buffer of the stack is ever on the device. Frames are Ethernet II
 * without the FCS (the device adds and strips it). No interrupts: whoever
 * drives the stack polls receive(), which also takes back finished
 * transmit buffers.
 *
 * Nothing the device writes is trusted: a descriptor whose length is
 * zero, larger than a frame or larger than the buffer, or that claims an
 * error, is dropped and counted (rx_dropped); a device that writes what
 * an honest one never does (a ring index out of range) is "broken": one
 * "apfvisor: error:" line, the device is reset so it no longer touches
 * memory, and every later call fails with HV_ERR_DEVICE.
 */
#ifndef NET_NIC_H
#define NET_NIC_H

#include "lib/errors.h"
#include "lib/types.h"

#define NIC_ETH_HEADER   14
#define NIC_MTU          1500
/* Destination, source, type and the MTU's payload; no FCS. */
#define NIC_FRAME_MAX    (NIC_ETH_HEADER + NIC_MTU)
/* The shortest frame Ethernet carries, without the FCS (padded if less). */
#define NIC_FRAME_MIN    60
#define NIC_MAX          4      /* network interfaces apfvisor drives */

struct nic;

struct nic_ops {
	/*
	 * Copies the frame (len bytes, NIC_ETH_HEADER..NIC_FRAME_MAX; the
	 * driver pads it to NIC_FRAME_MIN) into a transmit buffer and hands
	 * it to the device, after taking back the transmit buffers the
	 * device has finished. HV_OK; HV_ERR_BUSY when every transmit buffer
	 * is still on the device (retry: the device is sending them);
	 * HV_ERR_INVALID for a length out of range; HV_ERR_DEVICE once the
	 * device is broken.
	 */
	enum hv_err (*transmit)(struct nic *nic, const void *frame,
				size_t len);
	/*
	 * Copies the next frame the device received into buf (room for
	 * NIC_FRAME_MAX bytes) and returns its length; 0 when none waits
	 * (or the device is broken). Never blocks. Gives the buffer back to
	 * the device, and takes back the transmit buffers it has finished.
	 */
	size_t (*receive)(struct nic *nic, void *buf);
	/* Whether the device reports its link up (true if it cannot tell). */
	bool (*link_up)(struct nic *nic);
};

struct nic {
	const struct nic_ops *ops;
	const char *name;       /* "e1000 00:03.0", "virtio-net 00:04.0" */
	uint8_t mac[6];
	void *driver;           /* the driver's own state */
	bool broken;            /* the device misbehaved and was reset */
	/* counters */
	uint64_t rx_frames, tx_frames;
	uint64_t rx_dropped;    /* errored, empty or oversized descriptors */
	uint64_t tx_busy;       /* transmit() found no free buffer */
};

static inline enum hv_err nic_transmit(struct nic *nic, const void *frame,
				       size_t len)
{
	return nic->ops->transmit(nic, frame, len);
}

static inline size_t nic_receive(struct nic *nic, void *buf)
{
	return nic->ops->receive(nic, buf);
}

static inline bool nic_link_up(struct nic *nic)
{
	return nic->ops->link_up(nic);
}

#endif
