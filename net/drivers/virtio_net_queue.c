// SPDX-License-Identifier: BSD-2-Clause
/*
 * The virtio-net queues (net/drivers/virtio_net_queue.h). Section numbers
 * are those of "Virtual I/O Device (VIRTIO) Version 1.0" (cs04).
 */
#include "net/drivers/virtio_net_queue.h"
#include "lib/console.h"
#include "lib/format.h"
#include "lib/string.h"

static uint64_t ptr_pa(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static uint8_t *ring_buf(const struct vnet_ring *r, uint16_t id)
{
	return r->buf + (size_t)id * VNET_BUF_STRIDE;
}

static void ring_init(struct vnet_ring *r, const char *what, uint8_t *mem,
		      uint16_t size)
{
	while (size > VNET_QUEUE_SIZE)
		size >>= 1;
	r->what = what;
	r->size = size;
	r->desc = (struct virtq_desc *)mem;
	r->avail = (struct vnet_avail *)(mem + VNET_AVAIL_OFFSET);
	r->used = (struct vnet_used *)(mem + VNET_USED_OFFSET);
	r->buf = mem + PAGE_SIZE;
	/* We poll: ask the device not to interrupt (2.4.7). */
	r->avail->flags = VIRTQ_AVAIL_F_NO_INTERRUPT;
	r->avail->idx = 0;
	r->used->flags = 0;
	r->used->idx = 0;
	r->avail_idx = r->used_seen = r->on_device = 0;
	for (unsigned i = 0; i < VNET_QUEUE_SIZE; i++)
		r->posted[i] = false;
}

/*
 * 3.2.1: the ring entry, then idx; the write barrier orders the
 * descriptor and the entry before idx (3.2.1.3), the full barrier orders
 * idx before the read of the used flags (3.2.1.4). True when the device
 * wants to be notified.
 */
static bool publish(struct vnet_ring *r)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	*(volatile uint16_t *)&r->avail->idx = r->avail_idx;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return !(*(volatile uint16_t *)&r->used->flags &
		 VIRTQ_USED_F_NO_NOTIFY);
}

/* Buffer id goes in the available ring (not yet published). */
static void put_avail(struct vnet_ring *r, uint16_t id)
{
	r->avail->ring[r->avail_idx & (r->size - 1)] = id;
	r->avail_idx++;
	r->posted[id] = true;
	r->on_device++;
}

/* A receive buffer, device-writable, for a frame and its header. */
static void fill_rx_desc(struct vnet_ring *r, uint16_t id)
{
	r->desc[id] = (struct virtq_desc){ ptr_pa(ring_buf(r, id)),
					   VNET_RX_BUF_LEN,
					   VIRTQ_DESC_F_WRITE, 0 };
}

void vnet_queue_init(struct vnet_queue *q, void *mem, uint16_t rx_size,
		     uint16_t tx_size)
{
	uint8_t *m = mem;

	ring_init(&q->rx, "receive queue", m, rx_size);
	ring_init(&q->tx, "transmit queue", m + VNET_QUEUE_PAGES * PAGE_SIZE,
		  tx_size);
	q->broken = NULL;
	q->rx_frames = q->tx_frames = q->rx_dropped = q->tx_busy = 0;
	/* Popped from the end: buffer 0 goes first. */
	q->tx_nfree = q->tx.size;
	for (unsigned i = 0; i < q->tx.size; i++)
		q->tx_free[i] = (uint16_t)(q->tx.size - 1 - i);
	/* 5.1.5 step 3: every receive buffer on the device from the start. */
	for (uint16_t id = 0; id < q->rx.size; id++) {
		fill_rx_desc(&q->rx, id);
		put_avail(&q->rx, id);
	}
	publish(&q->rx);
}

/*
 * The device did what an honest one never does: stop it, so it no longer
 * reads or writes the rings and buffers, and never look at them again.
 */
static void break_queues(struct vnet_queue *q, const char *why,
			 const char *fmt, ...) PRINTF_LIKE(3, 4);

static void break_queues(struct vnet_queue *q, const char *why,
			 const char *fmt, ...)
{
	char detail[160];
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	hv_error("net: %s: %s (%s); the interface is not used any more",
		 q->name, why, detail);
	q->broken = why;
	if (q->stop_device)
		q->stop_device(q->ctx);
}

/*
 * The next used element of ring r, checked (3.2.2: the device writes the
 * element, then used->idx; the acquire load of idx orders the reads of
 * the element, and of the buffer it names, after it). True with the
 * buffer's id and used length, taken off the device; false when there is
 * none, or with the queues broken.
 */
static bool take_used(struct vnet_queue *q, struct vnet_ring *r,
		      uint16_t *id, uint32_t *len)
{
	uint16_t used_idx = __atomic_load_n(&r->used->idx, __ATOMIC_ACQUIRE);
	uint16_t ready = (uint16_t)(used_idx - r->used_seen);
	const volatile struct virtq_used_elem *e;
	uint32_t used_id;

	if (!ready)
		return false;
	if (ready > r->on_device) {
		break_queues(q, "the device's used index ran ahead of the "
			     "buffers it had", "%s: %u new used entries, %u "
			     "buffers on the device", r->what, ready,
			     r->on_device);
		return false;
	}
	/* Read once: the device may be writing the ring. */
	e = &r->used->ring[r->used_seen & (r->size - 1)];
	used_id = e->id;
	*len = e->len;
	if (used_id >= r->size) {
		break_queues(q, "the device returned a descriptor that is not "
			     "in the queue", "%s: used id %u of %u", r->what,
			     used_id, r->size);
		return false;
	}
	if (!r->posted[used_id]) {
		break_queues(q, "the device returned a buffer it did not have",
			     "%s: used id %u, returned twice or never posted",
			     r->what, used_id);
		return false;
	}
	r->used_seen++;
	r->posted[used_id] = false;
	r->on_device--;
	*id = (uint16_t)used_id;
	return true;
}

unsigned vnet_queue_reclaim_tx(struct vnet_queue *q)
{
	unsigned n = 0;
	uint16_t id;
	uint32_t len;

	/* Each element takes a buffer off the device: at most tx.size. */
	while (!q->broken && take_used(q, &q->tx, &id, &len)) {
		q->tx_free[q->tx_nfree++] = id;
		n++;
	}
	return n;
}

enum hv_err vnet_queue_transmit(struct vnet_queue *q, const void *frame,
				size_t len, bool *notify)
{
	size_t padded = MAX(len, (size_t)NIC_FRAME_MIN);
	uint16_t id;
	uint8_t *b;

	*notify = false;
	if (q->broken)
		return HV_ERR_DEVICE;
	if (len < NIC_ETH_HEADER || len > NIC_FRAME_MAX)
		return HV_ERR_INVALID;
	vnet_queue_reclaim_tx(q);
	if (q->broken)
		return HV_ERR_DEVICE;
	if (!q->tx_nfree) {
		q->tx_busy++;
		return HV_ERR_BUSY;
	}
	id = q->tx_free[--q->tx_nfree];
	b = ring_buf(&q->tx, id);
	/* 5.1.6.2.1: flags 0, gso_type NONE (0), num_buffers 0. */
	memset(b, 0, VNET_HDR_LEN);
	memcpy(b + VNET_HDR_LEN, frame, len);
	memset(b + VNET_HDR_LEN + len, 0, padded - len);
	/* 5.1.6.2: header and frame as one device-readable descriptor. */
	q->tx.desc[id] = (struct virtq_desc){
		ptr_pa(b), (uint32_t)(VNET_HDR_LEN + padded), 0, 0 };
	put_avail(&q->tx, id);
	*notify = publish(&q->tx);
	q->tx_frames++;
	return HV_OK;
}

/* Buffer id back to the device (its descriptor rewritten: ours alone). */
static bool repost_rx(struct vnet_queue *q, uint16_t id)
{
	fill_rx_desc(&q->rx, id);
	put_avail(&q->rx, id);
	return publish(&q->rx);
}

size_t vnet_queue_receive(struct vnet_queue *q, void *buf, bool *notify)
{
	size_t got = 0;
	uint16_t id;
	uint32_t len;

	*notify = false;
	vnet_queue_reclaim_tx(q);
	/*
	 * Dropped buffers are given back and the next one looked at; one lap
	 * at most, so that a device that keeps returning bad buffers cannot
	 * hold the caller here.
	 */
	for (unsigned n = 0; n < q->rx.size && !q->broken; n++) {
		if (!take_used(q, &q->rx, &id, &len))
			break;
		if (len < VNET_RX_MIN_LEN || len > VNET_RX_BUF_LEN) {
			q->rx_dropped++;
			*notify |= repost_rx(q, id);
			continue;
		}
		/* The frame after the header; the header itself is ignored. */
		got = len - VNET_HDR_LEN;
		memcpy(buf, ring_buf(&q->rx, id) + VNET_HDR_LEN, got);
		*notify |= repost_rx(q, id);
		q->rx_frames++;
		break;
	}
	/* A device reset meanwhile is not told anything. */
	if (q->broken)
		*notify = false;
	return got;
}
