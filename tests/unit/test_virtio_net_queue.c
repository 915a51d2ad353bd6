/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * net/drivers/virtio_net_queue.c against a fake virtio-net device that
 * works on the same rings: frames sent and received byte for byte,
 * padding of short frames, a full transmit queue and its buffers taken
 * back, notification suppression, the 16-bit indexes over several laps;
 * receive lengths a device must not write (dropped, counted, the buffer
 * given back); and each thing a broken or hostile device can write into a
 * used ring (an id out of the queue, one it does not have, an index that
 * runs ahead), which must stop the device with one error line and leave
 * the rings untouched from then on.
 */
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

static void fake_stop(void *ctx)
{
	assert_ptr_equal(ctx, &q);
	stops++;
}

static void push_used(struct vnet_ring *r, uint16_t *used_idx, uint32_t id,
		      uint32_t len)
{
	r->used->ring[*used_idx & (r->size - 1)] =
		(struct virtq_used_elem){ id, len };
	(*used_idx)++;
	__atomic_store_n(&r->used->idx, *used_idx, __ATOMIC_RELEASE);
}

/* The next receive buffer the driver made available: its id, checked. */
static uint16_t take_rx_buffer(void)
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
static void device_deliver(const void *frame, size_t len)
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
static void device_deliver_len(uint32_t used_len)
{
	uint16_t id = take_rx_buffer();

	memset((void *)(uintptr_t)q.rx.desc[id].addr, 0xab, VNET_RX_BUF_LEN);
	push_used(&q.rx, &rx_used_idx, id, used_len);
}

/* Takes every new transmit buffer, keeps its bytes, does not answer. */
static void device_take_tx(void)
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
static void device_tx_done(unsigned k)
{
	push_used(&q.tx, &tx_used_idx, sent_id[k], 0);
}

/* Takes and answers every new transmit buffer, in order. */
static void device_run_tx(void)
{
	unsigned first = nsent;

	device_take_tx();
	for (unsigned k = first; k < nsent; k++)
		device_tx_done(k);
}

static void init_queues(uint16_t rx_size, uint16_t tx_size)
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

static int setup(void **state)
{
	(void)state;
	mem = aligned_alloc(PAGE_SIZE, MEM_BYTES);
	assert_non_null(mem);
	init_queues(256, 256);
	stops = 0;
	console_forget();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ASAN_UNPOISON_MEMORY_REGION(mem, MEM_BYTES);
	free(mem);
	return 0;
}

/* A frame whose bytes depend on seed: destination, source, type, body. */
static void make_frame(uint8_t *f, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		f[i] = (uint8_t)(seed * 31 + i * 7 + 1);
}

static void send_ok(const void *frame, size_t len)
{
	bool notify;

	assert_int_equal(vnet_queue_transmit(&q, frame, len, &notify), HV_OK);
}

static size_t receive(void *buf)
{
	bool notify;

	return vnet_queue_receive(&q, buf, &notify);
}

/* ------------------------------------------------------------ the tests */

static void test_layout(void **state)
{
	(void)state;
	/* 256 offered, 64 taken; every receive buffer on the device. */
	assert_int_equal(q.rx.size, 64);
	assert_int_equal(q.tx.size, 64);
	assert_ptr_equal(q.rx.desc, mem);
	assert_ptr_equal(q.rx.avail, (uint8_t *)mem + VNET_AVAIL_OFFSET);
	assert_ptr_equal(q.rx.used, (uint8_t *)mem + VNET_USED_OFFSET);
	assert_ptr_equal(q.tx.desc, (uint8_t *)mem + VNET_QUEUE_PAGES *
			 PAGE_SIZE);
	assert_int_equal(q.rx.avail->flags, VIRTQ_AVAIL_F_NO_INTERRUPT);
	assert_int_equal(q.tx.avail->flags, VIRTQ_AVAIL_F_NO_INTERRUPT);
	assert_int_equal(q.rx.avail->idx, 64);
	assert_int_equal(q.tx.avail->idx, 0);
	assert_int_equal(q.rx.used->idx, 0);
	assert_int_equal(q.tx.used->idx, 0);
	for (uint16_t i = 0; i < 64; i++) {
		assert_int_equal(q.rx.avail->ring[i], i);
		assert_int_equal(q.rx.desc[i].addr, (uintptr_t)mem + PAGE_SIZE +
				 i * VNET_BUF_STRIDE);
		assert_int_equal(q.rx.desc[i].len, 1526);
		assert_int_equal(q.rx.desc[i].flags, VIRTQ_DESC_F_WRITE);
	}
	/* The last receive buffer ends inside the receive queue's pages. */
	assert_true(q.rx.desc[63].addr + 1526 <=
		    (uintptr_t)mem + VNET_QUEUE_PAGES * PAGE_SIZE);
	assert_int_equal(q.rx.on_device, 64);
	assert_int_equal(q.tx_nfree, 64);
	/* Smaller queues than the most: as the device offers. */
	init_queues(8, 2);
	assert_int_equal(q.rx.size, 8);
	assert_int_equal(q.tx.size, 2);
	assert_int_equal(q.rx.avail->idx, 8);
}

static void test_round_trip(void **state)
{
	uint8_t out[100], in[NIC_FRAME_MAX], back[98];
	static const uint8_t zero_hdr[VNET_HDR_LEN];
	bool notify = false;

	(void)state;
	make_frame(out, sizeof(out), 1);
	assert_int_equal(vnet_queue_transmit(&q, out, sizeof(out), &notify),
			 HV_OK);
	assert_true(notify);
	assert_int_equal(q.tx_frames, 1);
	assert_int_equal(q.tx_nfree, 63);
	device_take_tx();
	assert_int_equal(nsent, 1);
	assert_int_equal(sent_len[0], 12 + 100);
	assert_memory_equal(sent[0], zero_hdr, VNET_HDR_LEN);
	assert_memory_equal(sent[0] + VNET_HDR_LEN, out, sizeof(out));
	device_tx_done(0);

	/* Nothing received yet; the transmit buffer comes back. */
	assert_int_equal(receive(in), 0);
	assert_int_equal(q.tx_nfree, 64);

	make_frame(back, sizeof(back), 2);
	device_deliver(back, sizeof(back));
	memset(in, 0xee, sizeof(in));
	assert_int_equal(vnet_queue_receive(&q, in, &notify), 98);
	assert_true(notify);
	assert_memory_equal(in, back, sizeof(back));
	assert_int_equal(in[98], 0xee);         /* nothing past the frame */
	assert_int_equal(q.rx_frames, 1);
	/* The buffer went straight back. */
	assert_int_equal(q.rx.avail->idx, 65);
	assert_int_equal(q.rx.avail->ring[0], 0);
	assert_int_equal(q.rx.on_device, 64);
	assert_int_equal(receive(in), 0);
	assert_int_equal(q.rx_dropped, 0);
	assert_int_equal(console_nlines, 0);
}

static void test_frames_wait_in_order(void **state)
{
	uint8_t f[3][200], in[NIC_FRAME_MAX];

	(void)state;
	for (unsigned k = 0; k < 3; k++) {
		make_frame(f[k], 60 + 50 * k, 10 + k);
		device_deliver(f[k], 60 + 50 * k);
	}
	for (unsigned k = 0; k < 3; k++) {
		assert_int_equal(receive(in), 60 + 50 * k);
		assert_memory_equal(in, f[k], 60 + 50 * k);
	}
	assert_int_equal(receive(in), 0);
	assert_int_equal(q.rx_frames, 3);
}

static void test_lengths_accepted_and_refused(void **state)
{
	uint8_t f[NIC_FRAME_MAX + 1];
	bool notify;

	(void)state;
	make_frame(f, sizeof(f), 3);
	assert_int_equal(vnet_queue_transmit(&q, f, NIC_ETH_HEADER - 1,
					     &notify), HV_ERR_INVALID);
	assert_int_equal(vnet_queue_transmit(&q, f, NIC_FRAME_MAX + 1,
					     &notify), HV_ERR_INVALID);
	assert_int_equal(vnet_queue_transmit(&q, f, 0, &notify),
			 HV_ERR_INVALID);
	assert_false(notify);
	assert_int_equal(q.tx.avail->idx, 0);
	assert_int_equal(q.tx_frames, 0);
	send_ok(f, NIC_FRAME_MAX);
	send_ok(f, NIC_ETH_HEADER);
	device_take_tx();
	assert_int_equal(sent_len[0], 12 + 1514);
	assert_memory_equal(sent[0] + VNET_HDR_LEN, f, NIC_FRAME_MAX);
	assert_int_equal(sent_len[1], 12 + 60);
	assert_memory_equal(sent[1] + VNET_HDR_LEN, f, NIC_ETH_HEADER);
}

/*
 * Short frames go out padded with zeros to 60 bytes, even in a buffer
 * that held a longer frame before (its old bytes must not leak).
 */
static void test_short_frames_padded(void **state)
{
	static const uint8_t zeros[NIC_FRAME_MIN];
	uint8_t big[300], small[60];

	(void)state;
	memset(big, 0xff, sizeof(big));
	make_frame(small, sizeof(small), 4);
	init_queues(8, 1);              /* one transmit buffer, reused */
	send_ok(big, sizeof(big));
	device_run_tx();
	send_ok(small, 20);
	device_run_tx();
	send_ok(small, 59);
	device_run_tx();
	send_ok(small, 60);
	device_run_tx();
	send_ok(small, 14);
	device_take_tx();
	assert_int_equal(nsent, 5);
	for (unsigned k = 0; k < nsent; k++)
		assert_int_equal(sent_id[k], 0);
	assert_int_equal(sent_len[1], 12 + 60);
	assert_memory_equal(sent[1] + 12, small, 20);
	assert_memory_equal(sent[1] + 12 + 20, zeros, 40);
	assert_memory_equal(sent[1], zeros, 12);
	assert_int_equal(sent_len[2], 12 + 60);
	assert_memory_equal(sent[2] + 12, small, 59);
	assert_int_equal(sent[2][12 + 59], 0);
	assert_int_equal(sent_len[3], 12 + 60);    /* 60: nothing added */
	assert_memory_equal(sent[3] + 12, small, 60);
	assert_int_equal(sent_len[4], 12 + 60);
	assert_memory_equal(sent[4] + 12 + 14, zeros, 46);
	assert_int_equal(q.tx_frames, 5);
}

static void test_transmit_full_then_reclaimed(void **state)
{
	uint8_t f[64], in[NIC_FRAME_MAX];
	bool notify;

	(void)state;
	make_frame(f, sizeof(f), 5);
	for (unsigned k = 0; k < 64; k++)
		send_ok(f, sizeof(f));
	assert_int_equal(q.tx_nfree, 0);
	assert_int_equal(vnet_queue_transmit(&q, f, sizeof(f), &notify),
			 HV_ERR_BUSY);
	assert_false(notify);
	assert_int_equal(q.tx_busy, 1);
	/* The device has them all, but has finished none. */
	device_take_tx();
	assert_int_equal(nsent, 64);
	assert_int_equal(vnet_queue_transmit(&q, f, sizeof(f), &notify),
			 HV_ERR_BUSY);
	assert_int_equal(q.tx_busy, 2);
	assert_int_equal(vnet_queue_reclaim_tx(&q), 0);
	/* One finished (the 11th): transmit takes it back itself. */
	device_tx_done(10);
	send_ok(f, sizeof(f));
	assert_int_equal(q.tx_nfree, 0);
	device_take_tx();
	assert_int_equal(sent_id[64], sent_id[10]);
	/* The rest, out of order: receive takes them back. */
	for (unsigned k = 65; k-- > 0;)
		if (k != 10)
			device_tx_done(k);
	assert_int_equal(receive(in), 0);
	assert_int_equal(q.tx_nfree, 64);
	assert_int_equal(q.tx.on_device, 0);
	assert_int_equal(q.tx_frames, 65);
	assert_int_equal(q.tx_busy, 2);
	assert_int_equal(console_nlines, 0);
}

static void test_no_notify_when_device_says_so(void **state)
{
	uint8_t f[60], in[NIC_FRAME_MAX];
	bool notify = true;

	(void)state;
	make_frame(f, sizeof(f), 6);
	q.tx.used->flags = VIRTQ_USED_F_NO_NOTIFY;
	q.rx.used->flags = VIRTQ_USED_F_NO_NOTIFY;
	assert_int_equal(vnet_queue_transmit(&q, f, sizeof(f), &notify),
			 HV_OK);
	assert_false(notify);
	device_deliver(f, sizeof(f));
	notify = true;
	assert_int_equal(vnet_queue_receive(&q, in, &notify), 60);
	assert_false(notify);
	/* Nothing re-posted, nothing to tell. */
	q.rx.used->flags = 0;
	assert_int_equal(vnet_queue_receive(&q, in, &notify), 0);
	assert_false(notify);
}

/*
 * Used lengths no honest device writes for a frame: shorter than the
 * header and an Ethernet header, or longer than the buffer. Each buffer
 * is dropped, counted and given back; the next good frame still comes.
 */
static void test_bad_lengths_dropped(void **state)
{
	static const uint32_t bad[] = { 0, 1, 11, 12, 25, 1527, 2048,
					0xffffffff };
	uint8_t good[NIC_FRAME_MAX], in[NIC_FRAME_MAX];
	bool notify = false;

	(void)state;
	for (unsigned k = 0; k < ARRAY_SIZE(bad); k++)
		device_deliver_len(bad[k]);
	make_frame(good, sizeof(good), 7);
	device_deliver(good, 42);
	memset(in, 0xee, sizeof(in));
	assert_int_equal(vnet_queue_receive(&q, in, &notify), 42);
	assert_true(notify);
	assert_memory_equal(in, good, 42);
	assert_int_equal(q.rx_dropped, ARRAY_SIZE(bad));
	assert_int_equal(q.rx_frames, 1);
	/* All nine buffers back on the device, in the order they came. */
	assert_int_equal(q.rx.avail->idx, 64 + 9);
	assert_int_equal(q.rx.on_device, 64);
	for (unsigned k = 0; k < 9; k++)
		assert_int_equal(q.rx.avail->ring[k], k);
	/* Only drops waiting: nothing returned, all counted. */
	device_deliver_len(13);
	device_deliver_len(1526 + 1);
	assert_int_equal(receive(in), 0);
	assert_int_equal(q.rx_dropped, ARRAY_SIZE(bad) + 2);
	/* The bounds themselves are frames: 14 and 1514 bytes. */
	device_deliver(good, 14);
	device_deliver(good, NIC_FRAME_MAX);
	assert_int_equal(receive(in), 14);
	assert_int_equal(receive(in), NIC_FRAME_MAX);
	assert_memory_equal(in, good, NIC_FRAME_MAX);
	assert_int_equal(q.rx_dropped, ARRAY_SIZE(bad) + 2);
	assert_null(q.broken);
	assert_int_equal(stops, 0);
	assert_int_equal(console_nlines, 0);
}

/* A descriptor the device scribbled on is written afresh when re-posted. */
static void test_repost_rewrites_descriptor(void **state)
{
	uint8_t f[80], in[NIC_FRAME_MAX];

	(void)state;
	make_frame(f, sizeof(f), 8);
	device_deliver(f, sizeof(f));
	q.rx.desc[0] = (struct virtq_desc){ 0x1234, 99999, 0, 7 };
	assert_int_equal(receive(in), 80);
	assert_int_equal(q.rx.desc[0].addr, (uintptr_t)q.rx.buf);
	assert_int_equal(q.rx.desc[0].len, 1526);
	assert_int_equal(q.rx.desc[0].flags, VIRTQ_DESC_F_WRITE);
}

/*
 * The queues broke: exactly this one line, the device stopped once, and
 * from then on nothing reads or writes the rings (poisoned: ASan would
 * report a touch), transmit fails with HV_ERR_DEVICE, receive finds
 * nothing.
 */
static void expect_broken(const char *line)
{
	uint8_t f[60] = { 0 }, in[NIC_FRAME_MAX];
	bool notify = true;

	assert_non_null(q.broken);
	assert_int_equal(stops, 1);
	assert_int_equal(console_nlines, 1);
	assert_string_equal(console_lines[0], line);
	ASAN_POISON_MEMORY_REGION(mem, MEM_BYTES);
	assert_int_equal(vnet_queue_transmit(&q, f, sizeof(f), &notify),
			 HV_ERR_DEVICE);
	assert_false(notify);
	notify = true;
	assert_int_equal(vnet_queue_receive(&q, in, &notify), 0);
	assert_false(notify);
	assert_int_equal(vnet_queue_reclaim_tx(&q), 0);
	ASAN_UNPOISON_MEMORY_REGION(mem, MEM_BYTES);
	assert_int_equal(stops, 1);
	assert_int_equal(console_nlines, 1);
}

#define BROKEN(text) ("apfvisor: error: net: virtio-net 00:04.0: " text \
		      "; the interface is not used any more")

static void test_rx_id_out_of_range(void **state)
{
	uint8_t in[NIC_FRAME_MAX];

	(void)state;
	take_rx_buffer();
	push_used(&q.rx, &rx_used_idx, 64, 60);
	assert_int_equal(receive(in), 0);
	expect_broken(BROKEN("the device returned a descriptor that is not "
			     "in the queue (receive queue: used id 64 of 64)"));
}

static void test_rx_huge_id(void **state)
{
	uint8_t in[NIC_FRAME_MAX];

	(void)state;
	push_used(&q.rx, &rx_used_idx, 0xffffffff, 60);
	assert_int_equal(receive(in), 0);
	expect_broken(BROKEN("the device returned a descriptor that is not "
			     "in the queue (receive queue: used id "
			     "4294967295 of 64)"));
}

static void test_rx_used_index_runs_ahead(void **state)
{
	uint8_t f[60], in[NIC_FRAME_MAX];

	(void)state;
	make_frame(f, sizeof(f), 11);
	device_deliver(f, sizeof(f));
	/* One answer, but the index says 65: more than the 64 buffers. */
	__atomic_store_n(&q.rx.used->idx, (uint16_t)(rx_used_idx + 64),
			 __ATOMIC_RELEASE);
	assert_int_equal(receive(in), 0);
	assert_int_equal(q.rx_frames, 0);
	expect_broken(BROKEN("the device's used index ran ahead of the "
			     "buffers it had (receive queue: 65 new used "
			     "entries, 64 buffers on the device)"));
}

static void test_tx_id_never_posted(void **state)
{
	uint8_t f[60];
	bool notify;

	(void)state;
	make_frame(f, sizeof(f), 12);
	send_ok(f, sizeof(f));
	device_take_tx();
	/* Buffer 0 is on the device; it answers for 5, which is not. */
	push_used(&q.tx, &tx_used_idx, 5, 0);
	assert_int_equal(vnet_queue_transmit(&q, f, sizeof(f), &notify),
			 HV_ERR_DEVICE);
	assert_false(notify);
	assert_int_equal(q.tx_frames, 1);
	expect_broken(BROKEN("the device returned a buffer it did not have "
			     "(transmit queue: used id 5, returned twice or "
			     "never posted)"));
}

static void test_tx_id_returned_twice(void **state)
{
	uint8_t f[60], in[NIC_FRAME_MAX];

	(void)state;
	make_frame(f, sizeof(f), 13);
	send_ok(f, sizeof(f));
	send_ok(f, sizeof(f));
	device_take_tx();
	device_tx_done(0);
	device_tx_done(0);
	/* The honest answer is taken back before the repeat breaks it. */
	assert_int_equal(receive(in), 0);
	assert_int_equal(q.tx_nfree, 63);
	expect_broken(BROKEN("the device returned a buffer it did not have "
			     "(transmit queue: used id 0, returned twice or "
			     "never posted)"));
}

static void test_tx_id_out_of_range(void **state)
{
	uint8_t f[60], in[NIC_FRAME_MAX];

	(void)state;
	make_frame(f, sizeof(f), 14);
	init_queues(4, 4);
	send_ok(f, sizeof(f));
	device_take_tx();
	push_used(&q.tx, &tx_used_idx, 4, 0);
	assert_int_equal(receive(in), 0);
	expect_broken(BROKEN("the device returned a descriptor that is not "
			     "in the queue (transmit queue: used id 4 of 4)"));
}

static void test_tx_used_index_runs_ahead(void **state)
{
	uint8_t f[60], in[NIC_FRAME_MAX];

	(void)state;
	make_frame(f, sizeof(f), 15);
	send_ok(f, sizeof(f));
	device_take_tx();
	device_tx_done(0);
	__atomic_store_n(&q.tx.used->idx, (uint16_t)(tx_used_idx + 1),
			 __ATOMIC_RELEASE);
	/* A frame waits too; it is not delivered from a broken device. */
	device_deliver(f, sizeof(f));
	assert_int_equal(receive(in), 0);
	assert_int_equal(q.rx_frames, 0);
	expect_broken(BROKEN("the device's used index ran ahead of the "
			     "buffers it had (transmit queue: 2 new used "
			     "entries, 1 buffers on the device)"));
}

/* Without a stop callback (a device not yet live) it still breaks. */
static void test_break_without_stop_callback(void **state)
{
	uint8_t in[NIC_FRAME_MAX];

	(void)state;
	q.stop_device = NULL;
	push_used(&q.rx, &rx_used_idx, 99, 60);
	assert_int_equal(receive(in), 0);
	assert_non_null(q.broken);
	assert_int_equal(stops, 0);
	assert_int_equal(console_nlines, 1);
}

/*
 * Three and a half laps of the 16-bit indexes on small queues, a frame
 * each way per round, every byte checked; then the rings' indexes are
 * where the count says.
 */
static void test_indexes_wrap_around(void **state)
{
	enum { ROUNDS = 3 * 65536 + 32768 + 5 };
	uint8_t out[NIC_FRAME_MAX], in[NIC_FRAME_MAX];

	(void)state;
	init_queues(4, 2);
	for (unsigned i = 0; i < ROUNDS; i++) {
		size_t len = 14 + (i * 13) % (NIC_FRAME_MAX - 13);
		size_t got;

		make_frame(out, len, i);
		send_ok(out, len);
		device_take_tx();
		nsent--;
		assert_int_equal(sent_len[nsent], 12 + MAX(len, 60));
		assert_memory_equal(sent[nsent] + 12, out, len);
		device_tx_done(nsent);

		make_frame(out, len, i + 1);
		device_deliver(out, len);
		/* A bad one now and then, too. */
		if (i % 1000 == 0)
			device_deliver_len(5);
		got = receive(in);
		assert_int_equal(got, len);
		assert_memory_equal(in, out, len);
		if (i % 1000 == 0)
			assert_int_equal(receive(in), 0);
	}
	assert_int_equal(q.tx_frames, ROUNDS);
	assert_int_equal(q.rx_frames, ROUNDS);
	assert_int_equal(q.rx_dropped, (ROUNDS + 999) / 1000);
	assert_int_equal(q.tx.avail_idx, (uint16_t)ROUNDS);
	assert_int_equal(q.tx.used_seen, (uint16_t)ROUNDS);
	assert_int_equal(q.rx.avail_idx,
			 (uint16_t)(4 + ROUNDS + (ROUNDS + 999) / 1000));
	assert_int_equal(q.rx.used->idx,
			 (uint16_t)(ROUNDS + (ROUNDS + 999) / 1000));
	assert_int_equal(q.tx_nfree, 2);
	assert_int_equal(q.rx.on_device, 4);
	assert_null(q.broken);
	assert_int_equal(console_nlines, 0);
}

/*
 * The device may use buffers in any order (2.4.8): small queues, each
 * round's buffers returned last first, so that the driver puts them back
 * in an order that differs lap after lap; every byte still arrives.
 */
static void test_out_of_order_returns(void **state)
{
	uint8_t out[3][200], in[NIC_FRAME_MAX];

	(void)state;
	init_queues(4, 4);
	for (unsigned i = 0; i < 5000; i++) {
		uint16_t ids[3];
		unsigned first = nsent;

		for (unsigned k = 0; k < 3; k++) {
			make_frame(out[k], 60 + k + i % 100, i * 3 + k);
			send_ok(out[k], 60 + k + i % 100);
		}
		device_take_tx();
		assert_int_equal(nsent, first + 3);
		for (unsigned k = 0; k < 3; k++)
			assert_memory_equal(sent[first + k] + 12, out[k],
					    60 + k + i % 100);
		for (unsigned k = 3; k-- > 0;)
			device_tx_done(first + k);
		nsent = 0;

		/* Three buffers filled, returned third, first, second. */
		for (unsigned k = 0; k < 3; k++) {
			uint8_t *b;

			ids[k] = take_rx_buffer();
			b = (uint8_t *)(uintptr_t)q.rx.desc[ids[k]].addr;
			memset(b, 0, VNET_HDR_LEN);
			memcpy(b + VNET_HDR_LEN, out[k], 60 + k);
		}
		push_used(&q.rx, &rx_used_idx, ids[2], 12 + 62);
		push_used(&q.rx, &rx_used_idx, ids[0], 12 + 60);
		push_used(&q.rx, &rx_used_idx, ids[1], 12 + 61);
		assert_int_equal(receive(in), 62);
		assert_memory_equal(in, out[2], 62);
		assert_int_equal(receive(in), 60);
		assert_memory_equal(in, out[0], 60);
		assert_int_equal(receive(in), 61);
		assert_memory_equal(in, out[1], 61);
		assert_int_equal(receive(in), 0);
		assert_int_equal(q.tx_nfree, 4);
	}
	assert_int_equal(q.tx_frames, 15000);
	assert_int_equal(q.rx_frames, 15000);
	assert_null(q.broken);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_layout),
		T(test_round_trip),
		T(test_frames_wait_in_order),
		T(test_lengths_accepted_and_refused),
		T(test_short_frames_padded),
		T(test_transmit_full_then_reclaimed),
		T(test_no_notify_when_device_says_so),
		T(test_bad_lengths_dropped),
		T(test_repost_rewrites_descriptor),
		T(test_rx_id_out_of_range),
		T(test_rx_huge_id),
		T(test_rx_used_index_runs_ahead),
		T(test_tx_id_never_posted),
		T(test_tx_id_returned_twice),
		T(test_tx_id_out_of_range),
		T(test_tx_used_index_runs_ahead),
		T(test_break_without_stop_callback),
		T(test_indexes_wrap_around),
		T(test_out_of_order_returns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
