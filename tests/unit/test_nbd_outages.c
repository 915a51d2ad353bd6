/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The NBD client's outages and reconnection (swap/drivers/nbd.c and
 * nbd_requests.c over the fixture of tests/unit/nbd_test_fixture.h): a
 * connection the server drops, made again after the back-off with every
 * request that was on it sent again (even one half in the send buffer);
 * one line per outage and one when it is over; a read cut short by a
 * close; a silent server, and an idle connection that is not one;
 * fail_fast.
 */
#include "tests/unit/nbd_test_fixture.h"

/*
 * The server closes the connection after 5 of 20 writes: one line,
 * nothing tried before the back-off's 100 ms, then a new connection
 * with the 15 others sent again (and only them, oldest first).
 */
static void test_dropped_connection_resends(void **state)
{
	(void)state;
	open_dev();
	fake_nbd_drop_after(5);
	for (unsigned id = 0; id < 20; id++) {
		fill(buf[id], 2, id);
		submit(BLK_WRITE, id, id);
	}
	poll_until_lines(1);
	assert_string_equal(console_lines[0], LOST(CLOSED));
	assert_int_equal(ndone, 5);
	expect_status(0, 5, BLK_OK);
	assert_true(dev->unavailable);
	assert_int_equal(counter("nbd.connections_lost"), 1);
	assert_int_equal(counter("nbd.requests_resent"), 15);
	assert_int_equal(fake_streams_in_use(), 0);

	fake_clock_advance_ms(99);
	polls(10);
	assert_int_equal(fake_nbd.connects, 1);
	fake_clock_advance_ms(1);
	poll_until_done(20);
	expect_status(0, 20, BLK_OK);
	assert_int_equal(fake_nbd.connects, 2);
	expect_cookies(1, 6, 15);
	assert_int_equal(console_nlines, 2);
	assert_string_equal(console_lines[1], "apfvisor: " DEV ": connected "
			    "again after 100 ms; 15 request(s) sent again");
	assert_false(dev->unavailable);
	for (unsigned p = 0; p < 20; p++)
		check_page(fake_nbd_image[p], 2, p);
	assert_int_equal(counter("nbd.connects"), 2);
	assert_int_equal(counter("nbd.reply.ok"), 20 + fake_nbd.flushes);
	assert_int_equal(counter("nbd.requests_resent"), 15);
}

/*
 * Drops while writes are half in the send buffer: each request goes out
 * again from its first byte (the server checks every byte it gets), and
 * the data is right in the end.
 */
static void test_drops_in_the_middle_of_sends(void **state)
{
	unsigned next = 0, drops = 0;

	(void)state;
	fake_send_room(5000);
	open_dev();
	fake_nbd_drop_after(3);
	for (unsigned round = 0; round < 400 && ndone < FAKE_NBD_PAGES;
	     round++) {
		unsigned before = fake_nbd.connects;

		while (next < FAKE_NBD_PAGES && next - ndone < 8) {
			fill(buf[next], 3, next);
			submit(BLK_WRITE, next, next);
			next++;
		}
		fake_clock_advance_ms(50);
		polls(3);
		if (fake_nbd.connects != before && drops < 5) {
			drops++;
			fake_nbd_drop_after(3 + drops);
		}
	}
	assert_int_equal(ndone, FAKE_NBD_PAGES);
	expect_status(0, FAKE_NBD_PAGES, BLK_OK);
	for (unsigned p = 0; p < FAKE_NBD_PAGES; p++)
		check_page(fake_nbd_image[p], 3, p);
	assert_int_equal(counter("nbd.connections_lost"), 6);
	assert_int_equal(fake_nbd.connects, 7);
	/* A line when lost and a line when back per outage, nothing else. */
	assert_int_equal(console_nlines, 12);
	for (unsigned i = 0; i < 12; i += 2) {
		assert_string_equal(console_lines[i], LOST(CLOSED));
		assert_non_null(strstr(console_lines[i + 1], ": connected "
				       "again after "));
	}
}

/*
 * The server refuses connections for 3 s after closing one: attempts
 * after 100, 300, 700, 1500 and 3100 ms (the back-off doubling), one
 * line for the whole outage, one line when it is over.
 */
static void test_one_line_per_outage(void **state)
{
	static const uint64_t attempts[] = { 100, 300, 700, 1500, 3100 };
	uint64_t t0;

	(void)state;
	open_dev();
	fill(buf[0], 4, 0);
	submit(BLK_WRITE, 0, 0);
	poll_until_done(1);
	fake_nbd_refuse(true);
	fake_nbd_close_now();
	submit(BLK_READ, 0, 1);
	poll_until_lines(1);
	t0 = fake_clock_ms();
	assert_string_equal(console_lines[0], LOST(CLOSED));
	run_ms(3000, 10);
	fake_nbd_refuse(false);
	run_ms(1000, 10);

	assert_int_equal(fake_nbd.connects, 1 + ARRAY_SIZE(attempts));
	for (unsigned i = 0; i < ARRAY_SIZE(attempts); i++)
		assert_int_equal(fake_nbd.conn[1 + i].opened_ms - t0,
				 attempts[i]);
	for (unsigned i = 1; i < ARRAY_SIZE(attempts); i++)
		assert_true(fake_nbd.conn[i].refused);
	assert_int_equal(console_nlines, 2);
	assert_string_equal(console_lines[1], "apfvisor: " DEV ": connected "
			    "again after 3100 ms; 1 request(s) sent again");
	assert_int_equal(ndone, 2);
	expect_status(0, 2, BLK_OK);
	check_page(buf[1], 4, 0);
	assert_int_equal(counter("nbd.connections_lost"), 1);
	assert_int_equal(counter("nbd.requests_resent"), 1);
	assert_int_equal(counter("nbd.connects"), 1 + ARRAY_SIZE(attempts));
	assert_int_equal(fake_streams_in_use(), 1);
}

/*
 * The server closes in the middle of a read's data: one line saying how
 * much came, and the read (with the one behind it) is sent again.
 */
static void test_close_in_the_middle_of_a_read(void **state)
{
	(void)state;
	open_dev();
	for (unsigned p = 0; p < 4; p++)
		fill(fake_nbd_image[p], 7, p);
	fake_nbd_short_read_after(2, 1000);
	for (unsigned id = 0; id < 4; id++)
		submit(BLK_READ, id, id);
	poll_until_lines(1);
	assert_string_equal(console_lines[0], LOST(CLOSED " in the middle of "
						      "a read's data (1000 of "
						      "4096 bytes came)"));
	assert_int_equal(ndone, 2);
	assert_int_equal(counter("nbd.requests_resent"), 2);

	fake_clock_advance_ms(100);
	poll_until_done(4);
	expect_status(0, 4, BLK_OK);
	for (unsigned id = 0; id < 4; id++)
		check_page(buf[id], 7, id);
	expect_cookies(1, 3, 2);
	assert_int_equal(console_nlines, 2);
	assert_string_equal(console_lines[1], "apfvisor: " DEV ": connected "
			    "again after 100 ms; 2 request(s) sent again");
}

/*
 * A server that takes a request and says nothing: dropped after
 * NBD_SILENT_MS (not before), and the request is sent again.
 */
static void test_silent_server(void **state)
{
	(void)state;
	open_dev();
	fake_nbd_silent(true);
	fill(buf[0], 8, 1);
	submit(BLK_WRITE, 1, 0);
	run_ms(NBD_SILENT_MS - 100, 100);
	assert_int_equal(console_nlines, 0);
	run_ms(100, 100);
	assert_int_equal(console_nlines, 1);
	assert_string_equal(console_lines[0], LOST("no reply for 5000 ms with "
						      "requests in flight"));
	fake_nbd_silent(false);
	fake_clock_advance_ms(100);
	poll_until_done(1);
	expect_status(0, 1, BLK_OK);
	check_page(fake_nbd_image[1], 8, 1);
	assert_int_equal(console_nlines, 2);
	assert_string_equal(console_lines[1], "apfvisor: " DEV ": connected "
			    "again after 100 ms; 1 request(s) sent again");
}

/*
 * A connection idle for longer than NBD_SILENT_MS is no silent server:
 * the next request is answered, the connection kept.
 */
static void test_idle_connection_is_not_silent(void **state)
{
	(void)state;
	open_dev();
	fill(buf[0], 9, 2);
	submit(BLK_WRITE, 2, 0);
	poll_until_done(1);
	run_ms(3 * NBD_SILENT_MS, 500);
	submit(BLK_READ, 2, 1);
	polls(3);
	expect_no_line();
	poll_until_done(2);
	expect_status(0, 2, BLK_OK);
	check_page(buf[1], 9, 2);
	assert_int_equal(console_nlines, 0);
	assert_int_equal(counter("nbd.connections_lost"), 0);
	assert_int_equal(fake_nbd.connects, 1);
}

/*
 * fail_fast (a replicated set over the device): on a lost connection
 * the requests fail at once and the device says it is unavailable,
 * until it is connected again; nothing is sent again.
 */
static void test_fail_fast(void **state)
{
	(void)state;
	open_dev();
	dev->fail_fast = true;
	for (unsigned p = 0; p < 6; p++)
		fill(fake_nbd_image[p], 10, p);
	fake_nbd_drop_after(1);
	for (unsigned id = 0; id < 4; id++)
		submit(BLK_READ, id, id);
	poll_until_lines(1);
	assert_string_equal(console_lines[0], LOST(CLOSED) " (its requests "
			    "fail at once: the other copies serve them)");
	assert_int_equal(ndone, 4);
	expect_status(0, 1, BLK_OK);
	check_page(buf[0], 10, 0);
	expect_status(1, 3, BLK_IO_ERROR);
	assert_true(dev->unavailable);
	assert_int_equal(counter("nbd.requests_failed_fast"), 3);
	assert_int_equal(counter("nbd.requests_resent"), 0);

	submit(BLK_READ, 4, 4);
	assert_int_equal(poll_once(), 1);
	expect_status(4, 1, BLK_IO_ERROR);
	assert_true(dev->unavailable);

	fake_clock_advance_ms(99);
	polls(5);
	assert_true(dev->unavailable);
	fake_clock_advance_ms(1);
	polls(5);
	assert_false(dev->unavailable);
	assert_int_equal(console_nlines, 2);
	assert_string_equal(console_lines[1], "apfvisor: " DEV ": connected "
			    "again after 100 ms; 0 request(s) sent again");
	assert_int_equal(fake_nbd.conn[1].requests, 0);
	submit(BLK_READ, 5, 5);
	poll_until_done(6);
	expect_status(5, 1, BLK_OK);
	check_page(buf[5], 10, 5);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup(name, setup)
	const struct CMUnitTest tests[] = {
		T(test_dropped_connection_resends),
		T(test_drops_in_the_middle_of_sends),
		T(test_one_line_per_outage),
		T(test_close_in_the_middle_of_a_read),
		T(test_silent_server),
		T(test_idle_connection_is_not_silent),
		T(test_fail_fast),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
