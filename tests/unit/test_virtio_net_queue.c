/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * net/drivers/virtio_net_queue.c against a fake virtio-net device that
 * works on the same rings (tests/unit/virtio_net_test_fixture.h), an
 * honest one: frames sent and received byte for byte, padding of short
 * frames, a full transmit queue and its buffers taken back, notification
 * suppression, the 16-bit indexes over several laps, buffers used out of
 * order; and receive lengths a device must not write (dropped, counted,
 * the buffer given back). What a broken or hostile device writes into a
 * used ring is in test_virtio_net_queue_errors.c.
 */
#include "tests/unit/virtio_net_test_fixture.h"

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
		T(test_indexes_wrap_around),
		T(test_out_of_order_returns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
