/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swap/drivers/virtio_blk_queue.c against a fake virtio-blk device that works on
 * the same rings: reads and writes through the descriptors, status bytes,
 * notification suppression, a full queue, index wrap-around; and each
 * thing a broken or hostile device can write into the used ring (an id
 * that was never a request head, one returned twice, an index that runs
 * ahead, a length larger than the buffers, no answer at all), which must
 * stop the device, fail what it had with one error line and never touch
 * memory outside the queue; a read answered OK with a length short of
 * the page, which fails alone; and a device whose reset does not finish,
 * which keeps its reads (and their pages) until it does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/console_capture.h"
#include "swap/drivers/virtio_blk_queue.h"

#define DISK_PAGES   16
#define TIMEOUT      1000

/* ------------------------------------------------------ the fake device */

static struct vblk_queue q;
static void *rings;
static uint8_t disk[DISK_PAGES][PAGE_SIZE];
static uint16_t dev_avail_seen;         /* avail entries the device took */
static uint16_t dev_used_idx;           /* its used->idx */
static uint16_t taken_heads[VBLK_QUEUE_SIZE];
static unsigned ntaken;
static unsigned stops;
static bool reset_finishes;             /* what the next stop reports */
static uint8_t next_status = VIRTIO_BLK_S_OK;

static bool fake_stop(void *ctx)
{
	assert_ptr_equal(ctx, &q);
	stops++;
	return reset_finishes;
}

/* The device takes every new available entry (without answering yet). */
static void device_take(void)
{
	while (dev_avail_seen != q.avail->idx) {
		taken_heads[ntaken++] =
			q.avail->ring[dev_avail_seen & (q.qsize - 1)];
		dev_avail_seen++;
	}
}

static void device_push_used(uint32_t id, uint32_t len)
{
	q.used->ring[dev_used_idx & (q.qsize - 1)] =
		(struct virtq_used_elem){ id, len };
	dev_used_idx++;
	__atomic_store_n(&q.used->idx, dev_used_idx, __ATOMIC_RELEASE);
}

/* Does what the request at `head` asks, as an honest device would. */
static void device_serve(uint16_t head)
{
	struct virtq_desc *d0 = &q.desc[head], *d1, *d2;
	struct virtio_blk_req_hdr *h;
	uint8_t *data;
	uint32_t written = 1;

	assert_true(d0->flags & VIRTQ_DESC_F_NEXT);
	d1 = &q.desc[d0->next];
	assert_true(d1->flags & VIRTQ_DESC_F_NEXT);
	d2 = &q.desc[d1->next];
	assert_int_equal(d0->len, sizeof(*h));
	assert_int_equal(d1->len, PAGE_SIZE);
	assert_int_equal(d2->len, 1);
	assert_true(d2->flags & VIRTQ_DESC_F_WRITE);
	h = (void *)(uintptr_t)d0->addr;
	data = (void *)(uintptr_t)d1->addr;
	assert_true(h->sector % 8 == 0 && h->sector / 8 < DISK_PAGES);
	if (h->type == VIRTIO_BLK_T_IN) {
		assert_true(d1->flags & VIRTQ_DESC_F_WRITE);
		memcpy(data, disk[h->sector / 8], PAGE_SIZE);
		written += PAGE_SIZE;
	} else {
		assert_int_equal(h->type, VIRTIO_BLK_T_OUT);
		assert_false(d1->flags & VIRTQ_DESC_F_WRITE);
		memcpy(disk[h->sector / 8], data, PAGE_SIZE);
	}
	*(uint8_t *)(uintptr_t)d2->addr = next_status;
	device_push_used(head, written);
}

/* Takes and answers everything, in order. */
static void device_run(void)
{
	device_take();
	for (unsigned i = 0; i < ntaken; i++)
		device_serve(taken_heads[i]);
	ntaken = 0;
}

static int setup(void **state)
{
	(void)state;
	rings = aligned_alloc(PAGE_SIZE, VBLK_RING_PAGES * PAGE_SIZE);
	assert_non_null(rings);
	memset(rings, 0x5a, VBLK_RING_PAGES * PAGE_SIZE);
	memset(&q, 0, sizeof(q));
	memset(disk, 0, sizeof(disk));
	q.name = "virtio-blk 00:04.0";
	q.stop_device = fake_stop;
	q.ctx = &q;
	vblk_queue_init(&q, rings, 256, DISK_PAGES * PAGE_SIZE, TIMEOUT);
	q.used->flags = 0;
	dev_avail_seen = dev_used_idx = 0;
	ntaken = stops = 0;
	reset_finishes = true;
	console_forget();
	next_status = VIRTIO_BLK_S_OK;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(rings);
	return 0;
}

static enum hv_err submit_at(enum blk_op op, unsigned page, void *buf,
			     uintptr_t cookie, uint64_t now, bool *notify)
{
	struct blk_request r = {
		.op = op,
		.offset = (uint64_t)page * PAGE_SIZE,
		.buffer_pa = (uint64_t)(uintptr_t)buf,
		.cookie = (void *)cookie,
	};

	return vblk_queue_submit(&q, &r, now, notify);
}

static enum hv_err submit(enum blk_op op, unsigned page, void *buf,
			  uintptr_t cookie)
{
	bool notify;

	return submit_at(op, page, buf, cookie, 0, &notify);
}

/* The one completion a poll returns; its status. */
static enum blk_status poll_one(uintptr_t cookie)
{
	struct blk_completion c[VBLK_MAX_SLOTS];

	assert_int_equal(vblk_queue_poll(&q, c, VBLK_MAX_SLOTS, 0), 1);
	assert_ptr_equal(c[0].cookie, (void *)cookie);
	return c[0].status;
}

/* Polls once; expects n completions, all failed. */
static void poll_failed(unsigned n)
{
	struct blk_completion c[VBLK_MAX_SLOTS];

	assert_int_equal(vblk_queue_poll(&q, c, VBLK_MAX_SLOTS, 0), n);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(c[i].status, BLK_IO_ERROR);
}

/* ------------------------------------------------------------ the tests */

static void test_layout_and_size(void **state)
{
	(void)state;
	/* 256 offered, 64 taken: 21 requests of three descriptors. */
	assert_int_equal(q.qsize, 64);
	assert_int_equal(q.nslots, 21);
	assert_int_equal(q.avail->flags, VIRTQ_AVAIL_F_NO_INTERRUPT);
	assert_int_equal(q.avail->idx, 0);
	assert_int_equal(q.used->idx, 0);
}

static void test_write_then_read_back(void **state)
{
	static uint8_t out[PAGE_SIZE], in[PAGE_SIZE];
	bool notify;

	(void)state;
	for (unsigned i = 0; i < PAGE_SIZE; i++)
		out[i] = (uint8_t)(i * 7 + 3);
	assert_int_equal(submit_at(BLK_WRITE, 5, out, 11, 0, &notify), HV_OK);
	assert_true(notify);
	assert_int_equal(vblk_queue_poll(&q, NULL, 0, 0), 0);
	device_run();
	assert_int_equal(q.used->ring[0].len, 1);
	assert_int_equal(poll_one(11), BLK_OK);
	assert_memory_equal(disk[5], out, PAGE_SIZE);
	assert_int_equal(submit(BLK_READ, 5, in, 12), HV_OK);
	device_run();
	assert_int_equal(poll_one(12), BLK_OK);
	assert_memory_equal(in, out, PAGE_SIZE);
	assert_int_equal(q.nfree, q.nslots);
	assert_int_equal(console_nlines, 0);
}

static void test_no_notify_when_device_says_so(void **state)
{
	static uint8_t buf[PAGE_SIZE];
	bool notify = true;

	(void)state;
	q.used->flags = VIRTQ_USED_F_NO_NOTIFY;
	assert_int_equal(submit_at(BLK_READ, 0, buf, 1, 0, &notify), HV_OK);
	assert_false(notify);
}

static void test_out_of_range_never_reaches_device(void **state)
{
	static uint8_t buf[PAGE_SIZE];
	struct blk_request r = { BLK_READ, 100, (uintptr_t)buf, (void *)3 };
	bool notify;

	(void)state;
	assert_int_equal(submit(BLK_READ, DISK_PAGES, buf, 2), HV_OK);
	assert_int_equal(poll_one(2), BLK_OUT_OF_RANGE);
	assert_int_equal(vblk_queue_submit(&q, &r, 0, &notify), HV_OK);
	assert_int_equal(poll_one(3), BLK_OUT_OF_RANGE);
	assert_int_equal(q.avail->idx, 0);
	assert_int_equal(console_nlines, 0);
}

static void test_device_error_status_is_an_io_error(void **state)
{
	static uint8_t buf[PAGE_SIZE];

	(void)state;
	next_status = VIRTIO_BLK_S_IOERR;
	assert_int_equal(submit(BLK_READ, 1, buf, 4), HV_OK);
	device_run();
	assert_int_equal(poll_one(4), BLK_IO_ERROR);
	next_status = 0x7e;                     /* no such status: an error */
	assert_int_equal(submit(BLK_WRITE, 1, buf, 5), HV_OK);
	device_run();
	assert_int_equal(poll_one(5), BLK_IO_ERROR);
	/* The device said so honestly: the queue still works. */
	next_status = VIRTIO_BLK_S_OK;
	assert_int_equal(submit(BLK_READ, 1, buf, 6), HV_OK);
	device_run();
	assert_int_equal(poll_one(6), BLK_OK);
	assert_null(q.broken);
	assert_int_equal(stops, 0);
}

static void test_full_queue_and_out_of_order_answers(void **state)
{
	static uint8_t buf[VBLK_MAX_SLOTS][PAGE_SIZE];
	struct blk_completion c[VBLK_MAX_SLOTS];
	bool seen[VBLK_MAX_SLOTS] = { false };

	(void)state;
	for (unsigned i = 0; i < q.nslots; i++)
		assert_int_equal(submit(BLK_READ, i % DISK_PAGES, buf[i],
					100 + i), HV_OK);
	assert_int_equal(submit(BLK_READ, 0, buf[0], 999), HV_ERR_BUSY);
	device_take();
	/* Answered last to first. */
	for (unsigned i = ntaken; i-- > 0;)
		device_serve(taken_heads[i]);
	ntaken = 0;
	/* Two per poll: the rest wait in the used ring. */
	for (unsigned got = 0; got < q.nslots;) {
		unsigned n = vblk_queue_poll(&q, c, 2, 0);

		assert_true(n >= 1 && n <= 2);
		for (unsigned i = 0; i < n; i++) {
			uintptr_t k = (uintptr_t)c[i].cookie - 100;

			assert_true(k < q.nslots && !seen[k]);
			seen[k] = true;
			assert_int_equal(c[i].status, BLK_OK);
		}
		got += n;
	}
	assert_int_equal(q.nfree, q.nslots);
	assert_int_equal(console_nlines, 0);
}

static void test_indices_wrap_around(void **state)
{
	static uint8_t buf[PAGE_SIZE];

	(void)state;
	/* Past 65535 on both 16-bit indices, a few requests at a time. */
	for (unsigned i = 0; i < 70000 / 3; i++) {
		for (unsigned k = 0; k < 3; k++)
			assert_int_equal(submit(BLK_WRITE, k, buf, k), HV_OK);
		device_run();
		for (unsigned k = 0; k < 3; k++) {
			struct blk_completion c;

			assert_int_equal(vblk_queue_poll(&q, &c, 1, 0), 1);
			assert_int_equal(c.status, BLK_OK);
		}
	}
	assert_true(q.avail_idx < 70000 - 65536 + 10);
	assert_null(q.broken);
}

/* The queue broke: one line, the device stopped, everything failed. */
static void expect_broken(const char *why_part, unsigned in_flight_cookies)
{
	struct blk_completion c[VBLK_MAX_SLOTS];
	static uint8_t buf[PAGE_SIZE];
	unsigned n;

	assert_non_null(q.broken);
	assert_int_equal(stops, 1);
	assert_int_equal(console_nlines, 1);
	assert_non_null(strstr(console_lines[0], "apfvisor: error: virtio-blk "
				"00:04.0: "));
	assert_non_null(strstr(console_lines[0], why_part));
	assert_non_null(strstr(console_lines[0], "the disk is not used any more"));
	n = vblk_queue_poll(&q, c, VBLK_MAX_SLOTS, 0);
	assert_int_equal(n, in_flight_cookies);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(c[i].status, BLK_IO_ERROR);
	/* Later requests fail at once, without the device. */
	assert_int_equal(submit(BLK_READ, 0, buf, 77), HV_OK);
	assert_int_equal(poll_one(77), BLK_IO_ERROR);
	assert_int_equal(q.nfree, q.nslots);
	assert_int_equal(stops, 1);
	assert_int_equal(console_nlines, 1);
	assert_int_equal(q.device_errors, 1);
}

static void test_id_that_is_not_a_request_head(void **state)
{
	static uint8_t buf[PAGE_SIZE];

	(void)state;
	assert_int_equal(submit(BLK_READ, 0, buf, 1), HV_OK);
	device_take();
	device_push_used(taken_heads[0] + 1, 1);        /* the data desc */
	poll_failed(1);
	expect_broken("never a request's first (used id 1)", 0);
}

static void test_id_beyond_the_queue(void **state)
{
	static uint8_t buf[PAGE_SIZE];

	(void)state;
	assert_int_equal(submit(BLK_WRITE, 0, buf, 1), HV_OK);
	device_take();
	device_push_used(0xfffffffd, 1);                /* 3 * a huge slot */
	poll_failed(1);
	expect_broken("used id 4294967293", 0);
}

static void test_id_returned_twice(void **state)
{
	static uint8_t buf[2][PAGE_SIZE];
	struct blk_completion c[2];

	(void)state;
	assert_int_equal(submit(BLK_READ, 0, buf[0], 1), HV_OK);
	assert_int_equal(submit(BLK_READ, 1, buf[1], 2), HV_OK);
	device_take();
	device_serve(taken_heads[0]);
	device_push_used(taken_heads[0], 1);            /* again */
	/* The honest first answer is delivered, the repeat breaks it. */
	assert_int_equal(vblk_queue_poll(&q, c, 2, 0), 2);
	assert_ptr_equal(c[0].cookie, (void *)1);
	assert_int_equal(c[0].status, BLK_OK);
	assert_ptr_equal(c[1].cookie, (void *)2);
	assert_int_equal(c[1].status, BLK_IO_ERROR);
	expect_broken("returned twice or never submitted", 0);
}

static void test_id_never_submitted(void **state)
{
	static uint8_t buf[PAGE_SIZE];

	(void)state;
	assert_int_equal(submit(BLK_READ, 0, buf, 1), HV_OK);
	device_take();
	/* Slot 5 is free: the device makes up an answer for it. */
	device_push_used(5 * VBLK_DESC_PER_REQ, 1);
	poll_failed(1);
	expect_broken("used id 15, returned twice", 0);
	/* The free slots were not disturbed: all 21 are there once. */
	for (unsigned i = 0; i < q.nslots; i++)
		for (unsigned j = i + 1; j < q.nslots; j++)
			assert_int_not_equal(q.free_slot[i], q.free_slot[j]);
}

static void test_used_index_runs_ahead(void **state)
{
	static uint8_t buf[PAGE_SIZE];
	struct blk_completion c[4];

	(void)state;
	assert_int_equal(submit(BLK_READ, 0, buf, 1), HV_OK);
	device_run();
	/* One answer, but the index says three. */
	__atomic_store_n(&q.used->idx, (uint16_t)(dev_used_idx + 2),
			 __ATOMIC_RELEASE);
	assert_int_equal(vblk_queue_poll(&q, c, 4, 0), 1);
	assert_int_equal(c[0].status, BLK_IO_ERROR);
	assert_ptr_equal(c[0].cookie, (void *)1);
	expect_broken("3 new used entries, 1 requests on the device", 0);
}

static void test_length_larger_than_buffers(void **state)
{
	static uint8_t buf[2][PAGE_SIZE];

	(void)state;
	/* A write gives the device one byte (status); a read 4097. */
	assert_int_equal(submit(BLK_WRITE, 0, buf[0], 1), HV_OK);
	device_take();
	device_push_used(taken_heads[0], 2);    /* a well-formed status... */
	q.dma->status[0] = VIRTIO_BLK_S_OK;
	poll_failed(1);
	expect_broken("length 2 of at most 1", 0);
}

static void test_read_length_limit(void **state)
{
	static uint8_t buf[PAGE_SIZE];

	(void)state;
	assert_int_equal(submit(BLK_READ, 0, buf, 1), HV_OK);
	device_take();
	device_serve(taken_heads[0]);           /* length 4097: fine */
	assert_int_equal(q.used->ring[0].len, PAGE_SIZE + 1);
	assert_int_equal(poll_one(1), BLK_OK);
	assert_int_equal(submit(BLK_READ, 0, buf, 2), HV_OK);
	device_take();
	device_push_used(taken_heads[1], PAGE_SIZE + 2);
	poll_failed(1);
	expect_broken("length 4098 of at most 4097", 0);
}

static void test_no_answer_times_out(void **state)
{
	static uint8_t buf[2][PAGE_SIZE];
	struct blk_completion c[2];
	bool notify;

	(void)state;
	assert_int_equal(submit_at(BLK_READ, 3, buf[0], 1, 50, &notify), HV_OK);
	assert_int_equal(submit_at(BLK_WRITE, 4, buf[1], 2, 60, &notify),
			 HV_OK);
	device_take();
	assert_int_equal(vblk_queue_poll(&q, c, 2, 50 + TIMEOUT), 0);
	assert_null(q.broken);
	assert_int_equal(vblk_queue_poll(&q, c, 2, 51 + TIMEOUT), 2);
	assert_int_equal(c[0].status, BLK_IO_ERROR);
	assert_int_equal(c[1].status, BLK_IO_ERROR);
	assert_int_equal(stops, 1);
	assert_non_null(strstr(console_lines[0], "did not answer in time (a read of "
				"sector 24)"));
	assert_non_null(strstr(console_lines[0], "its 2 request(s) in flight fail"));
	/* A late answer after the reset changes nothing. */
	device_serve(taken_heads[0]);
	assert_int_equal(vblk_queue_poll(&q, c, 2, 0), 0);
	expect_broken("did not answer in time", 0);
}

/*
 * A read answered "OK" with a used length that does not cover the page
 * and the status byte: the device did not write all of the page (here it
 * wrote none of it, the buffer keeps its stale bytes). The read fails as
 * if the device had said IOERR, and is counted; the queue goes on.
 */
static void test_short_read_fails(void **state)
{
	static const uint32_t lens[] = { 0, 1, PAGE_SIZE, PAGE_SIZE / 2 + 1 };
	static uint8_t buf[PAGE_SIZE];

	(void)state;
	memset(disk[2], 0x77, PAGE_SIZE);
	for (unsigned i = 0; i < ARRAY_SIZE(lens); i++) {
		memset(buf, 0xee, PAGE_SIZE);   /* what the frame held */
		assert_int_equal(submit(BLK_READ, 2, buf, 10 + i), HV_OK);
		device_take();
		q.dma->status[taken_heads[0] / VBLK_DESC_PER_REQ] =
			VIRTIO_BLK_S_OK;
		device_push_used(taken_heads[0], lens[i]);
		ntaken = 0;
		assert_int_equal(poll_one(10 + i), BLK_IO_ERROR);
	}
	assert_int_equal(q.short_transfers, ARRAY_SIZE(lens));
	assert_null(q.broken);
	assert_int_equal(stops, 0);
	assert_int_equal(console_nlines, 1);
	assert_string_equal(console_lines[0], "apfvisor: error: virtio-blk "
			    "00:04.0: a short read: the read of sector 16 was "
			    "answered OK with a used length of 0, not 4097; it "
			    "fails (later ones are only counted)");
	/* An honest answer still brings the page. */
	assert_int_equal(submit(BLK_READ, 2, buf, 20), HV_OK);
	device_run();
	assert_int_equal(poll_one(20), BLK_OK);
	assert_memory_equal(buf, disk[2], PAGE_SIZE);
}

/*
 * A read times out and the reset does not finish: the device may still
 * write into the page, so the read stays on it (its frame held, counted)
 * until a later poll finds the reset done; then it fails. A write in
 * flight fails at once: the device only reads its page.
 */
static void test_timed_out_read_held_until_reset_finishes(void **state)
{
	static uint8_t buf[3][PAGE_SIZE];
	struct blk_completion c[VBLK_MAX_SLOTS];
	bool notify;

	(void)state;
	reset_finishes = false;
	assert_int_equal(submit_at(BLK_READ, 3, buf[0], 1, 0, &notify), HV_OK);
	assert_int_equal(submit_at(BLK_WRITE, 4, buf[1], 2, 0, &notify), HV_OK);
	device_take();
	assert_int_equal(vblk_queue_poll(&q, c, VBLK_MAX_SLOTS, TIMEOUT + 1),
			 1);
	assert_ptr_equal(c[0].cookie, (void *)2);
	assert_int_equal(c[0].status, BLK_IO_ERROR);
	assert_non_null(q.broken);
	assert_int_equal(q.frames_held, 1);
	/* Still not stopped: asked again, the read still held. */
	for (int i = 0; i < 3; i++)
		assert_int_equal(vblk_queue_poll(&q, c, VBLK_MAX_SLOTS,
						 2 * TIMEOUT), 0);
	assert_true(stops >= 2);
	/* Requests after the break fail at once, held or not. */
	assert_int_equal(submit(BLK_READ, 5, buf[2], 3), HV_OK);
	assert_int_equal(poll_one(3), BLK_IO_ERROR);
	/* The late transfer lands in the page still held, nowhere else. */
	device_serve(taken_heads[0]);
	reset_finishes = true;
	assert_int_equal(poll_one(1), BLK_IO_ERROR);
	assert_int_equal(q.on_device, 0);
	assert_int_equal(q.nfree, q.nslots);
	assert_int_equal(q.frames_held, 1);     /* counted once */
	assert_int_equal(console_nlines, 1);
}

static void test_answers_waiting_in_ring_are_not_late(void **state)
{
	static uint8_t buf[2][PAGE_SIZE];
	struct blk_completion c[2];
	bool notify;

	(void)state;
	assert_int_equal(submit_at(BLK_READ, 3, buf[0], 1, 0, &notify), HV_OK);
	assert_int_equal(submit_at(BLK_READ, 4, buf[1], 2, 0, &notify), HV_OK);
	device_run();
	/* Polled long after, one at a time: both answered, nothing late. */
	assert_int_equal(vblk_queue_poll(&q, c, 1, 10 * TIMEOUT), 1);
	assert_int_equal(vblk_queue_poll(&q, c + 1, 1, 10 * TIMEOUT), 1);
	assert_int_equal(c[0].status, BLK_OK);
	assert_int_equal(c[1].status, BLK_OK);
	assert_null(q.broken);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_layout_and_size),
		T(test_write_then_read_back),
		T(test_no_notify_when_device_says_so),
		T(test_out_of_range_never_reaches_device),
		T(test_device_error_status_is_an_io_error),
		T(test_full_queue_and_out_of_order_answers),
		T(test_indices_wrap_around),
		T(test_id_that_is_not_a_request_head),
		T(test_id_beyond_the_queue),
		T(test_id_returned_twice),
		T(test_id_never_submitted),
		T(test_used_index_runs_ahead),
		T(test_length_larger_than_buffers),
		T(test_read_length_limit),
		T(test_no_answer_times_out),
		T(test_answers_waiting_in_ring_are_not_late),
		T(test_short_read_fails),
		T(test_timed_out_read_held_until_reset_finishes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
