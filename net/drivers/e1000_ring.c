// SPDX-License-Identifier: BSD-2-Clause
/*
 * The e1000 descriptor rings (net/drivers/e1000_ring.h). The device
 * writes the descriptors while we read them, so every access to a
 * descriptor is volatile and read once; the fences order the buffer and
 * descriptor contents against the status byte and the tail register, the
 * way swap/drivers/virtio_blk_queue.c orders its ring.
 */
#include "net/drivers/e1000_ring.h"
#include "lib/console.h"
#include "lib/string.h"

static uint64_t ptr_pa(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static uint32_t reg_read(struct e1000_ring *r, uint32_t reg)
{
	return r->ops->read32(r->ctx, reg);
}

static void reg_write(struct e1000_ring *r, uint32_t reg, uint32_t val)
{
	r->ops->write32(r->ctx, reg, val);
}

static uint8_t *rx_buffer(const struct e1000_ring *r, unsigned i)
{
	return r->rx_buf + (size_t)i * E1000_BUF_SIZE;
}

static uint8_t *tx_buffer(const struct e1000_ring *r, unsigned i)
{
	return r->tx_buf + (size_t)i * E1000_BUF_SIZE;
}

void e1000_ring_init(struct e1000_ring *r, void *mem, struct nic *nic,
		     const struct e1000_ring_ops *ops, void *ctx)
{
	uint8_t *base = mem;

	r->nic = nic;
	r->ops = ops;
	r->ctx = ctx;
	r->rx = (struct e1000_rx_desc *)base;
	r->tx = (struct e1000_tx_desc *)(base + E1000_TX_RING_OFFSET);
	r->rx_buf = base + E1000_RX_BUF_OFFSET;
	r->tx_buf = base + E1000_TX_BUF_OFFSET;
	r->rx_next = r->tx_next = r->tx_clean = 0;
	r->rx_discard = false;
	for (unsigned i = 0; i < E1000_RX_DESCS; i++)
		r->rx[i] = (struct e1000_rx_desc){
			.addr = ptr_pa(rx_buffer(r, i)),
		};
	for (unsigned i = 0; i < E1000_TX_DESCS; i++)
		r->tx[i] = (struct e1000_tx_desc){
			.addr = ptr_pa(tx_buffer(r, i)),
		};
	/*
	 * 14.4 and 14.5 (receive and transmit initialization): base, length,
	 * head and tail; the descriptors are written before the device is
	 * told where they are.
	 */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	reg_write(r, E1000_RDBAL, (uint32_t)ptr_pa(r->rx));
	reg_write(r, E1000_RDBAH, (uint32_t)(ptr_pa(r->rx) >> 32));
	reg_write(r, E1000_RDLEN, E1000_RX_DESCS * sizeof(*r->rx));
	reg_write(r, E1000_RDH, 0);
	reg_write(r, E1000_RDT, E1000_RX_DESCS - 1);
	reg_write(r, E1000_TDBAL, (uint32_t)ptr_pa(r->tx));
	reg_write(r, E1000_TDBAH, (uint32_t)(ptr_pa(r->tx) >> 32));
	reg_write(r, E1000_TDLEN, E1000_TX_DESCS * sizeof(*r->tx));
	reg_write(r, E1000_TDH, 0);
	reg_write(r, E1000_TDT, 0);
}

/*
 * The device did what an honest one never does: stop it so it no longer
 * reads or writes the rings, and never use it again.
 */
static void break_device(struct e1000_ring *r, const char *head,
			 uint32_t value, unsigned ring_size)
{
	hv_error("net: %s: the device reports %s %u in a ring of %u "
		 "descriptors; it is reset and not used any more",
		 r->nic->name, head, value, ring_size);
	r->nic->broken = true;
	r->ops->stop(r->ctx);
}

/* False, with the device broken, when a head register reads out of range. */
static bool head_in_range(struct e1000_ring *r, uint32_t reg,
			  const char *head, unsigned ring_size)
{
	uint32_t value = reg_read(r, reg);

	if (value < ring_size)
		return true;
	break_device(r, head, value, ring_size);
	return false;
}

/* ----------------------------------------------------------- transmit */

/*
 * Takes back, oldest first, the transmit descriptors the device has
 * written DD into (3.3.3: written back once their buffer was read,
 * because we set RS); their buffers are free again.
 */
static void reclaim_tx(struct e1000_ring *r)
{
	while (r->tx_clean != r->tx_next) {
		volatile struct e1000_tx_desc *d = &r->tx[r->tx_clean];

		if (!(d->status & E1000_TXD_STAT_DD))
			break;
		d->status = 0;
		r->tx_clean = (uint16_t)((r->tx_clean + 1) % E1000_TX_DESCS);
	}
	/* The buffers are written after DD was seen. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
}

enum hv_err e1000_ring_transmit(struct e1000_ring *r, const void *frame,
				size_t len)
{
	volatile struct e1000_tx_desc *d;
	size_t wire = MAX(len, (size_t)NIC_FRAME_MIN);
	unsigned i;
	uint8_t *buf;

	if (r->nic->broken)
		return HV_ERR_DEVICE;
	if (len < NIC_ETH_HEADER || len > NIC_FRAME_MAX)
		return HV_ERR_INVALID;
	reclaim_tx(r);
	if (e1000_ring_tx_on_device(r) == E1000_TX_DESCS - 1) {
		if (!head_in_range(r, E1000_TDH, "transmit head",
				   E1000_TX_DESCS))
			return HV_ERR_DEVICE;
		r->nic->tx_busy++;
		return HV_ERR_BUSY;
	}
	i = r->tx_next;
	buf = tx_buffer(r, i);
	memcpy(buf, frame, len);
	/* The shortest frame Ethernet carries; the device adds the FCS. */
	memset(buf + len, 0, wire - len);
	d = &r->tx[i];
	d->addr = ptr_pa(buf);
	d->length = (uint16_t)wire;
	d->cso = 0;
	d->cmd = E1000_TXD_CMD_EOP | E1000_TXD_CMD_IFCS | E1000_TXD_CMD_RS;
	d->status = 0;
	d->css = 0;
	d->special = 0;
	/* Buffer and descriptor before the tail that hands them over. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	r->tx_next = (uint16_t)((i + 1) % E1000_TX_DESCS);
	reg_write(r, E1000_TDT, r->tx_next);
	r->nic->tx_frames++;
	return HV_OK;
}

/* ------------------------------------------------------------ receive */

/*
 * What to do with a completed receive descriptor: the length of a frame
 * to deliver, or 0 to drop it (counted). Only a frame in one descriptor
 * is taken: with 2048-byte buffers and long frames off, an honest device
 * never splits one, so a descriptor without EOP starts garbage that ends
 * at the next EOP.
 */
static size_t rx_verdict(struct e1000_ring *r, uint8_t status, uint8_t errors,
			 uint16_t len)
{
	bool eop = status & E1000_RXD_STAT_EOP;

	if (r->rx_discard || !eop) {
		r->rx_discard = !eop;
		r->nic->rx_dropped++;
		return 0;
	}
	if (errors || len < NIC_ETH_HEADER || len > NIC_FRAME_MAX) {
		r->nic->rx_dropped++;
		return 0;
	}
	return len;
}

/* Makes descriptor i ready for the device again (its tail moves later). */
static void rx_recycle(struct e1000_ring *r, unsigned i)
{
	volatile struct e1000_rx_desc *d = &r->rx[i];

	/*
	 * The device ORs its bits into status (Bochs, iodev/network/e1000.cc:
	 * rx_frame), so everything it writes is cleared; the address is
	 * ours and set again whatever the device did to it.
	 */
	d->addr = ptr_pa(rx_buffer(r, i));
	d->length = 0;
	d->csum = 0;
	d->status = 0;
	d->errors = 0;
	d->special = 0;
}

size_t e1000_ring_receive(struct e1000_ring *r, void *buf)
{
	size_t got = 0;
	unsigned given = 0;
	uint16_t last = 0;

	if (r->nic->broken)
		return 0;
	reclaim_tx(r);
	/* One lap at most, whatever the device marks done meanwhile. */
	while (!got && given < E1000_RX_DESCS) {
		unsigned i = r->rx_next;
		volatile struct e1000_rx_desc *d = &r->rx[i];
		uint8_t status = d->status, errors;
		uint16_t len;

		if (!(status & E1000_RXD_STAT_DD))
			break;
		/* 3.2.3: the rest of the descriptor and the data before DD. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		len = d->length;
		errors = d->errors;
		got = rx_verdict(r, status, errors, len);
		if (got)
			memcpy(buf, rx_buffer(r, i), got);
		rx_recycle(r, i);
		last = (uint16_t)i;
		r->rx_next = (uint16_t)((i + 1) % E1000_RX_DESCS);
		given++;
	}
	if (given) {
		/*
		 * The descriptor just taken becomes the one we keep; the one
		 * kept before goes back to the device (RDT: one past its
		 * last). One tail write for the whole batch.
		 */
		__atomic_thread_fence(__ATOMIC_RELEASE);
		reg_write(r, E1000_RDT, last);
	}
	if (got) {
		r->nic->rx_frames++;
		return got;
	}
	/* Nothing to take: is the device where an honest one can be? */
	head_in_range(r, E1000_RDH, "receive head", E1000_RX_DESCS);
	return 0;
}
