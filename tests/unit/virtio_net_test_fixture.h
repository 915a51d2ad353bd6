/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fixture of the virtio-net queue tests (test_virtio_net_queue.c,
 * test_virtio_net_queue_errors.c): the driver's queues
 * (net/drivers/virtio_net_queue.c) over their memory, and a fake
 * virtio-net device working on the same rings, which takes and keeps the
 * frames it is given to send, answers them, and delivers frames (or
 * buffers with any used length) into the receive buffers; helpers that
 * make, send and receive frames. Included once by each test program.
 */
#ifndef TESTS_UNIT_VIRTIO_NET_TEST_FIXTURE_H
#define TESTS_UNIT_VIRTIO_NET_TEST_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sanitizer/asan_interface.h>

#include "tests/unit/console_capture.h"
#include "net/drivers/virtio_net_queue.h"

#define MEM_BYTES (VNET_MEM_PAGES * PAGE_SIZE)

/* ------------------------------------------------------ the fake device */

static struct vnet_queue q;
static void *mem;
static unsigned stops;
/* What the device has taken from each available ring, and given back. */
static uint16_t rx_avail_seen, rx_used_idx;
static uint16_t tx_avail_seen, tx_used_idx;
/* The frames it was given to send, in order. */
#define SENT_MAX 128
static uint8_t sent[SENT_MAX][VNET_HDR_LEN + NIC_FRAME_MAX];
static uint32_t sent_len[SENT_MAX];
static uint16_t sent_id[SENT_MAX];
static unsigned nsent;

static inline void fake_stop(void *ctx)
{
	assert_ptr_equal(ctx, &q);
	stops++;
}

static inline void push_used(struct vnet_ring *r, uint16_t *used_idx,
			     uint32_t id, uint32_t len)
{
	r->used->ring[*used_idx & (r->size - 1)] =
		(struct virtq_used_elem){ id, len };
	(*used_idx)++;
	__atomic_store_n(&r->used->idx, *used_idx, __ATOMIC_RELEASE);
}

/* The next receive buffer the driver made available: its id, checked. */
static inline uint16_t take_rx_buffer(void)
{
	uint16_t avail = __atomic_load_n(&q.rx.avail->idx, __ATOMIC_ACQUIRE);
	uint16_t id;
	struct virtq_desc *d;

	assert_int_not_equal(rx_avail_seen, avail);
	id = q.rx.avail->ring[rx_avail_seen & (q.rx.size - 1)];
	rx_avail_seen++;
	assert_true(id < q.rx.size);
	d = &q.rx.desc[id];
	assert_int_equal(d->flags, VIRTQ_DESC_F_WRITE);
	assert_int_equal(d->len, VNET_HDR_LEN + NIC_FRAME_MAX);
	assert_int_equal(d->addr, (uintptr_t)q.rx.buf + id * VNET_BUF_STRIDE);
	return id;
}

/* Receives a frame from the wire, as an honest device does (5.1.6.4). */
static inline void device_deliver(const void *frame, size_t len)
{
	uint16_t id = take_rx_buffer();
	uint8_t *b = (uint8_t *)(uintptr_t)q.rx.desc[id].addr;

	/* flags 0, gso_type NONE, num_buffers 1; the rest zero. */
	memset(b, 0, VNET_HDR_LEN);
	b[10] = 1;
	memcpy(b + VNET_HDR_LEN, frame, len);
	push_used(&q.rx, &rx_used_idx, id, (uint32_t)(VNET_HDR_LEN + len));
}

/* A receive buffer taken and given back with any length. */
static inline void device_deliver_len(uint32_t used_len)
{
	uint16_t id = take_rx_buffer();

	memset((void *)(uintptr_t)q.rx.desc[id].addr, 0xab, VNET_RX_BUF_LEN);
	push_used(&q.rx, &rx_used_idx, id, used_len);
}

/* Takes every new transmit buffer, keeps its bytes, does not answer. */
static inline void device_take_tx(void)
{
	uint16_t avail = __atomic_load_n(&q.tx.avail->idx, __ATOMIC_ACQUIRE);

	while (tx_avail_seen != avail) {
		uint16_t id = q.tx.avail->ring[tx_avail_seen & (q.tx.size - 1)];
		struct virtq_desc *d;

		tx_avail_seen++;
		assert_true(id < q.tx.size);
		d = &q.tx.desc[id];
		assert_int_equal(d->flags, 0);  /* device-readable, alone */
		assert_true(d->len <= sizeof(sent[0]));
		assert_true(nsent < SENT_MAX);
		memcpy(sent[nsent], (void *)(uintptr_t)d->addr, d->len);
		sent_len[nsent] = d->len;
		sent_id[nsent] = id;
		nsent++;
	}
}

/* Answers sent frame k (the used length of a transmit buffer is 0). */
static inline void device_tx_done(unsigned k)
{
	push_used(&q.tx, &tx_used_idx, sent_id[k], 0);
}

/* Takes and answers every new transmit buffer, in order. */
static inline void device_run_tx(void)
{
	unsigned first = nsent;

	device_take_tx();
	for (unsigned k = first; k < nsent; k++)
		device_tx_done(k);
}

static inline void init_queues(uint16_t rx_size, uint16_t tx_size)
{
	memset(mem, 0x5a, MEM_BYTES);
	memset(&q, 0, sizeof(q));
	q.name = "virtio-net 00:04.0";
	q.stop_device = fake_stop;
	q.ctx = &q;
	vnet_queue_init(&q, mem, rx_size, tx_size);
	rx_avail_seen = rx_used_idx = tx_avail_seen = tx_used_idx = 0;
	nsent = 0;
}

static inline int setup(void **state)
{
	(void)state;
	mem = aligned_alloc(PAGE_SIZE, MEM_BYTES);
	assert_non_null(mem);
	init_queues(256, 256);
	stops = 0;
	console_forget();
	return 0;
}

static inline int teardown(void **state)
{
	(void)state;
	ASAN_UNPOISON_MEMORY_REGION(mem, MEM_BYTES);
	free(mem);
	return 0;
}

/* A frame whose bytes depend on seed: destination, source, type, body. */
static inline void make_frame(uint8_t *f, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		f[i] = (uint8_t)(seed * 31 + i * 7 + 1);
}

static inline void send_ok(const void *frame, size_t len)
{
	bool notify;

	assert_int_equal(vnet_queue_transmit(&q, frame, len, &notify), HV_OK);
}

static inline size_t receive(void *buf)
{
	bool notify;

	return vnet_queue_receive(&q, buf, &notify);
}

#endif
