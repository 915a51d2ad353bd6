/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The NBD client's requests on a connection that stays up
 * (swap/drivers/nbd.c and nbd_requests.c over the fixture of
 * tests/unit/nbd_test_fixture.h): pages written and read back through
 * the server's image, in the order given and with the protocol's byte
 * counts; a flush once the connection is quiet after writes; the
 * queue's depth; offsets out of range; an error reply; reads ahead of
 * writes that have not gone out. Outages are in
 * test_nbd_outages.c, refusals and the give-up in test_nbd_refusals.c.
 */
#include "tests/unit/nbd_test_fixture.h"

/*
 * 64 writes then 64 reads, 32 at a time, answered last first, through a
 * send buffer that takes two writes and a bit: every page lands in the
 * server's image and comes back, the requests go out in the order they
 * were given, and the byte counters are the protocol's sizes.
 */
static void test_round_trip(void **state)
{
	(void)state;
	fake_nbd_reverse(true);
	fake_send_room(10000);
	open_dev();
	assert_string_equal(dev->name, DEV);
	assert_int_equal(dev->size, EXPORT_BYTES);
	assert_int_equal(dev->queue_depth, NBD_QUEUE_DEPTH);
	assert_false(dev->unavailable);

	for (unsigned half = 0; half < 2; half++) {
		for (unsigned i = 0; i < 32; i++) {
			fill(buf[half * 32 + i], 1, half * 32 + i);
			submit(BLK_WRITE, half * 32 + i, half * 32 + i);
		}
		poll_until_done(32 * (half + 1));
	}
	expect_status(0, 64, BLK_OK);
	for (unsigned p = 0; p < FAKE_NBD_PAGES; p++)
		check_page(fake_nbd_image[p], 1, p);

	memset(done, 0, sizeof(done));
	ndone = 0;
	for (unsigned half = 0; half < 2; half++) {
		for (unsigned i = 0; i < 32; i++)
			submit(BLK_READ, 63 - (half * 32 + i), half * 32 + i);
		poll_until_done(32 * (half + 1));
	}
	expect_status(0, 64, BLK_OK);
	for (unsigned id = 0; id < 64; id++)
		check_page(buf[id], 1, 63 - id);

	expect_cookies(0, 1, 128);
	assert_int_equal(fake_nbd.connects, 1);
	assert_int_equal(counter("nbd.connects"), 1);
	assert_int_equal(counter("nbd.connections_lost"), 0);
	assert_int_equal(counter("nbd.requests_resent"), 0);
	/* Flushes (once idle after writes) are requests without a page. */
	assert_int_equal(counter("nbd.flushes"), fake_nbd.flushes);
	assert_int_equal(counter("nbd.reply.ok"), 128 + fake_nbd.flushes);
	assert_int_equal(counter("nbd.bytes_sent"),
			 CLIENT_HANDSHAKE_BYTES(4) +
				 64 * (REQUEST_BYTES + PAGE) +
				 (64 + fake_nbd.flushes) * REQUEST_BYTES);
	assert_int_equal(counter("nbd.bytes_received"),
			 SERVER_HANDSHAKE_BYTES +
				 (128 + fake_nbd.flushes) * REPLY_BYTES +
				 64 * PAGE);
	assert_int_equal(dev->writes, 64);
	assert_int_equal(dev->reads, 64);
	assert_int_equal(dev->errors, 0);
	assert_int_equal(console_nlines, 0);
	assert_int_equal(fake_streams_in_use(), 1);
}

/*
 * NBD_QUEUE_DEPTH requests are taken, the next is HV_ERR_BUSY; so is
 * one while the completions of all of them wait to be collected.
 */
static void test_queue_full_is_busy(void **state)
{
	struct blk_completion none[1];

	(void)state;
	open_dev();
	for (unsigned id = 0; id < NBD_QUEUE_DEPTH; id++)
		submit(BLK_READ, id, id);
	assert_int_equal(try_submit(BLK_READ, 40 * PAGE, 32), HV_ERR_BUSY);
	/* Answered, but nothing collected: the completions fill the ring. */
	for (unsigned i = 0; i < 10; i++)
		assert_int_equal(blk_poll(dev, none, 0), 0);
	assert_int_equal(fake_nbd.replies, NBD_QUEUE_DEPTH);
	assert_int_equal(try_submit(BLK_READ, 40 * PAGE, 32), HV_ERR_BUSY);
	assert_int_equal(poll_max(1), 1);
	assert_true(done[0]);
	submit(BLK_READ, 40, 32);
	assert_int_equal(try_submit(BLK_READ, 41 * PAGE, 33), HV_ERR_BUSY);
	poll_until_done(NBD_QUEUE_DEPTH + 1);
	expect_status(0, NBD_QUEUE_DEPTH + 1, BLK_OK);
	assert_int_equal(console_nlines, 0);
}

/*
 * Once the connection has been idle NBD_FLUSH_QUIET_MS after writes, one
 * NBD_CMD_FLUSH (the fake server offers NBD_FLAG_SEND_FLUSH); none
 * sooner, none after reads only, none while requests are in flight.
 */
static void test_flush_once_idle_after_writes(void **state)
{
	(void)state;
	open_dev();
	for (unsigned i = 0; i < 4; i++) {
		fill(buf[i], 1, i);
		submit(BLK_WRITE, i, i);
	}
	poll_until_done(4);
	/* Quiet for less than NBD_FLUSH_QUIET_MS: not yet. */
	fake_clock_advance_ms(NBD_FLUSH_QUIET_MS - 1);
	polls(3);
	assert_int_equal(fake_nbd.flushes, 0);
	fake_clock_advance_ms(1);
	polls(3);
	assert_int_equal(fake_nbd.flushes, 1);
	assert_int_equal(counter("nbd.flushes"), 1);
	assert_int_equal(counter("nbd.flush_errors"), 0);
	polls(10);
	assert_int_equal(fake_nbd.flushes, 1);
	for (unsigned i = 0; i < 4; i++)
		submit(BLK_READ, i, 4 + i);
	poll_until_done(8);
	polls(10);
	assert_int_equal(fake_nbd.flushes, 1);
	/* The flush is no request of the caller's: 8 completions, no more. */
	assert_int_equal(ndone, 8);
}

/* Offsets past the export's end (or not page-aligned) never go out. */
static void test_out_of_range(void **state)
{
	static const uint64_t bad[] = {
		EXPORT_BYTES, EXPORT_BYTES + PAGE, ~(uint64_t)PAGE + 1, 4097,
	};

	(void)state;
	open_dev();
	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(try_submit(BLK_READ, bad[i], i), HV_OK);
	fill(buf[4], 11, 63);
	submit(BLK_WRITE, 63, 4);
	poll_until_done(5);
	expect_status(0, ARRAY_SIZE(bad), BLK_OUT_OF_RANGE);
	expect_status(4, 1, BLK_OK);
	check_page(fake_nbd_image[63], 11, 63);
	assert_int_equal(fake_nbd.conn[0].requests, 1);
	assert_int_equal(dev->errors, ARRAY_SIZE(bad));
	assert_int_equal(console_nlines, 0);
}

/* An error reply fails its request with one line, and nothing else. */
static void test_error_reply(void **state)
{
	(void)state;
	open_dev();
	fill(fake_nbd_image[3], 12, 3);
	fake_nbd_error_next(5);                 /* NBD_EIO */
	submit(BLK_READ, 3, 0);
	poll_until_done(1);
	expect_status(0, 1, BLK_IO_ERROR);
	assert_int_equal(console_nlines, 1);
	assert_string_equal(console_lines[0], "apfvisor: error: " DEV ": the "
			    "server failed the read at offset 0x3000: NBD_EIO");
	submit(BLK_READ, 3, 1);
	poll_until_done(2);
	expect_status(1, 1, BLK_OK);
	check_page(buf[1], 12, 3);
	assert_int_equal(counter("nbd.reply.eio"), 1);
	assert_int_equal(counter("nbd.reply.ok"), 1);
	assert_int_equal(counter("nbd.connections_lost"), 0);
}

/*
 * Reads first: with the network's window full (fake_window(0): nothing
 * goes out before the server's next poll), ten writes wait in the
 * client but one, and a read submitted after them reaches the server
 * second, ahead of the nine; with room in the window every write is
 * already out, and the read simply follows them.
 */
static void test_reads_go_ahead_of_writes(void **state)
{
	(void)state;
	fake_window(0);
	open_dev();
	for (unsigned id = 0; id < 10; id++) {
		fill(buf[id], 3, id);
		submit(BLK_WRITE, id, id);
	}
	submit(BLK_READ, 20, 10);
	poll_until_done(11);
	expect_status(0, 11, BLK_OK);
	assert_int_equal(fake_nbd.conn[0].requests, 11);
	assert_true(fake_nbd.conn[0].is_write[0]);
	assert_false(fake_nbd.conn[0].is_write[1]);
	assert_int_equal(fake_nbd.conn[0].offset[1], 20 * PAGE);
	assert_int_equal(fake_nbd.conn[0].cookie[1], 11);
	for (unsigned i = 2; i < 11; i++)
		assert_true(fake_nbd.conn[0].is_write[i]);
	assert_int_equal(counter("nbd.reads_ahead_of_writes"), 1);
	for (unsigned p = 0; p < 10; p++)
		check_page(fake_nbd_image[p], 3, p);

	/* The window open: the writes are all out when the read comes. */
	memset(done, 0, sizeof(done));
	ndone = 0;
	fake_window(FAKE_SEND_ROOM_DEFAULT);
	for (unsigned id = 0; id < 10; id++) {
		fill(buf[id], 4, id);
		submit(BLK_WRITE, id, id);
	}
	submit(BLK_READ, 5, 10);
	poll_until_done(11);
	assert_int_equal(counter("nbd.reads_ahead_of_writes"), 1);
	check_page(buf[10], 4, 5);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup(name, setup)
	const struct CMUnitTest tests[] = {
		T(test_round_trip),
		T(test_flush_once_idle_after_writes),
		T(test_queue_full_is_busy),
		T(test_out_of_range),
		T(test_error_reply),
		T(test_reads_go_ahead_of_writes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
