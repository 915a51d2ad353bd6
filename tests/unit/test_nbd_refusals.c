/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * When the NBD client stops waiting for a server (swap/drivers/nbd.c and
 * nbd_requests.c over the fixture of tests/unit/nbd_test_fixture.h): the
 * give-up after 30 s (or the target's swap.timeout) and the server's
 * return; a server that takes connections but answers nothing, given up
 * all the same; a server that answers a cookie never sent, or changes
 * its export, refused for good; and nbd_open's refusals.
 */
#include "tests/unit/nbd_test_fixture.h"

/*
 * A server away for 30 s: the 3 requests that wait fail with
 * BLK_IO_ERROR then (not before), a new one fails at once, and when the
 * server is back requests work again.
 */
static void test_give_up_and_back(void **state)
{
	uint64_t t0;

	(void)state;
	open_dev();
	fill(fake_nbd_image[5], 5, 5);
	fake_nbd_refuse(true);
	fake_nbd_close_now();
	for (unsigned id = 0; id < 3; id++)
		submit(BLK_READ, id, id);
	poll_until_lines(1);
	t0 = fake_clock_ms();
	assert_int_equal(counter("nbd.requests_resent"), 3);

	run_ms(29990, 10);
	assert_int_equal(ndone, 0);
	assert_int_equal(console_nlines, 1);
	run_ms(10, 10);
	assert_int_equal(fake_clock_ms() - t0, 30000);
	assert_int_equal(ndone, 3);
	expect_status(0, 3, BLK_IO_ERROR);
	assert_int_equal(console_nlines, 2);
	assert_string_equal(console_lines[1], "apfvisor: error: " DEV ": the "
			    "server has been unreachable for 30000 ms: 3 "
			    "request(s) failed, and so will every new one until "
			    "it is back");
	assert_int_equal(counter("nbd.requests_given_up"), 3);
	assert_int_equal(dev->errors, 3);
	assert_true(dev->unavailable);

	/* Fails at once: the first poll, the clock standing. */
	submit(BLK_WRITE, 6, 3);
	assert_int_equal(poll_once(), 1);
	expect_status(3, 1, BLK_IO_ERROR);
	assert_int_equal(counter("nbd.requests_given_up"), 4);
	assert_int_equal(console_nlines, 2);
	for (unsigned c = 0; c < fake_nbd.connects; c++)
		assert_int_equal(fake_nbd.conn[c].requests, 0);

	/* Attempts every 2 s: after 29100 ms, the next at 31100. */
	fake_nbd_refuse(false);
	run_ms(2000, 10);
	assert_int_equal(console_nlines, 3);
	assert_string_equal(console_lines[2], "apfvisor: " DEV ": connected "
			    "again after 31100 ms; 0 request(s) sent again");
	assert_false(dev->unavailable);
	submit(BLK_READ, 5, 4);
	poll_until_done(5);
	expect_status(4, 1, BLK_OK);
	check_page(buf[4], 5, 5);
	expect_cookies(fake_nbd.connects - 1, 4, 1);
}

/* The target's give-up time (swap.timeout) is the one kept to. */
static void test_give_up_time_of_the_target(void **state)
{
	uint64_t t0;

	(void)state;
	open_dev_give_up(5000);
	fake_nbd_refuse(true);
	fake_nbd_close_now();
	submit(BLK_READ, 0, 0);
	poll_until_lines(1);
	t0 = fake_clock_ms();
	run_ms(4990, 10);
	assert_int_equal(ndone, 0);
	run_ms(10, 10);
	assert_int_equal(fake_clock_ms() - t0, 5000);
	assert_int_equal(ndone, 1);
	expect_status(0, 1, BLK_IO_ERROR);
	assert_int_equal(console_nlines, 2);
	assert_string_equal(console_lines[1], "apfvisor: error: " DEV ": the "
			    "server has been unreachable for 5000 ms: 1 "
			    "request(s) failed, and so will every new one until "
			    "it is back");
}

/*
 * A reply to a cookie never sent: one line naming it, the requests
 * that wait fail, and the server is never tried again.
 */
static void test_wrong_cookie_refuses_the_server(void **state)
{
	char want[CONSOLE_LINE_SIZE];

	(void)state;
	open_dev();
	for (unsigned p = 0; p < 8; p++)
		fill(fake_nbd_image[p], 6, p);
	fake_nbd_wrong_cookie_after(3);
	for (unsigned id = 0; id < 8; id++)
		submit(BLK_READ, id, id);
	poll_until_lines(1);
	poll_until_done(8);
	assert_int_equal(fake_nbd.wrong_cookie, (1ull << 32) + 4);
	snprintf(want, sizeof(want), "apfvisor: error: " DEV ": reply for "
		 "cookie %llu which is not in flight (error 0): the server is "
		 "not used again (5 request(s) failed)",
		 (unsigned long long)fake_nbd.wrong_cookie);
	assert_string_equal(console_lines[0], want);
	expect_status(0, 3, BLK_OK);
	for (unsigned id = 0; id < 3; id++)
		check_page(buf[id], 6, id);
	expect_status(3, 5, BLK_IO_ERROR);
	assert_int_equal(counter("nbd.protocol_errors"), 1);
	assert_int_equal(counter("nbd.requests_given_up"), 5);
	assert_true(dev->unavailable);
	assert_int_equal(fake_streams_in_use(), 0);

	run_ms(60000, 100);
	assert_int_equal(fake_nbd.connects, 1);
	submit(BLK_WRITE, 9, 8);
	assert_int_equal(poll_once(), 1);
	expect_status(8, 1, BLK_IO_ERROR);
	assert_int_equal(console_nlines, 1);
	assert_int_equal(fake_nbd.conn[0].requests, 8);
}

/*
 * A server that takes every connection and its handshake but answers no
 * request: the request that waits still fails once the server has not
 * answered for the give-up time, with one line when the connection is
 * first lost and one error line at the give-up (not a line per new
 * connection).
 */
static void test_hung_server_is_given_up(void **state)
{
	(void)state;
	open_dev();
	fake_nbd_hung(true);
	submit(BLK_WRITE, 1, 0);
	while (!ndone && fake_clock_ms() < 2 * NBD_GIVE_UP_MS_DEFAULT)
		run_ms(100, 100);
	/*
	 * Silent drops at 5000 ms, then every 5100 ms (a new connection
	 * after 100 ms, 5000 ms of silence on it): the first drop after
	 * 30 s of outage, at 35600 ms, gives up.
	 */
	assert_int_equal(fake_clock_ms(), 35600);
	assert_int_equal(ndone, 1);
	expect_status(0, 1, BLK_IO_ERROR);
	assert_int_equal(console_nlines, 2);
	assert_string_equal(console_lines[0], LOST("no reply for 5000 ms with "
						      "requests in flight"));
	assert_string_equal(console_lines[1], "apfvisor: error: " DEV ": the "
			    "server has been unreachable for 30600 ms: 1 "
			    "request(s) failed, and so will every new one until "
			    "it is back");
	assert_int_equal(counter("nbd.connections_lost"), 7);
	assert_int_equal(counter("nbd.requests_resent"), 7);
	assert_int_equal(counter("nbd.requests_given_up"), 1);
	assert_int_equal(fake_nbd.connects, 7);
	for (unsigned c = 1; c < fake_nbd.connects; c++)
		expect_cookies(c, 1, 1);
	/*
	 * With nothing left to send again, the next connection's handshake
	 * ends the outage: the server takes connections, which is all that
	 * can be known of it without a request.
	 */
	run_ms(100, 100);
	assert_int_equal(console_nlines, 3);
	assert_string_equal(console_lines[2], "apfvisor: " DEV ": connected "
			    "again after 30700 ms; 0 request(s) sent again");
	assert_false(dev->unavailable);
}

/*
 * A server that comes back with an export of another size is not the
 * same swap area: refused, the write that waits fails.
 */
static void test_export_changed_refused(void **state)
{
	(void)state;
	open_dev();
	fake_nbd_export_pages(32);
	fake_nbd_close_now();
	submit(BLK_WRITE, 3, 0);
	poll_until_lines(1);
	fake_clock_advance_ms(100);
	poll_until_done(1);
	expect_status(0, 1, BLK_IO_ERROR);
	assert_int_equal(console_nlines, 2);
	assert_string_equal(console_lines[1], "apfvisor: error: " DEV ": the "
			    "export is now 131072 bytes, not 262144: not the "
			    "same swap area: the server is not used again (1 "
			    "request(s) failed)");
	assert_int_equal(counter("nbd.protocol_errors"), 1);
	run_ms(10000, 100);
	assert_int_equal(fake_nbd.connects, 2);
	assert_int_equal(fake_nbd.conn[1].requests, 0);
	assert_int_equal(fake_streams_in_use(), 0);
}

/* nbd_open's refusals: their reason in err, no line, no stream left. */
static void expect_open_fails(const char *want)
{
	struct nbd_target t = { .ip = SERVER_IP, .port = SERVER_PORT,
				.export_name = "swap" };
	char err[160] = "";

	assert_null(nbd_open(&t, err, sizeof(err)));
	assert_string_equal(err, want);
	assert_int_equal(console_nlines, 0);
	assert_int_equal(fake_streams_in_use(), 0);
}

static void test_open_refused(void **state)
{
	(void)state;
	fake_nbd_refuse(true);
	expect_open_fails("10.0.2.2:10809: the server refused or reset the "
			  "connection");
	assert_int_equal(fake_nbd.connects, 1);
}

static void test_open_unknown_export(void **state)
{
	(void)state;
	fake_nbd_export_name("other");
	expect_open_fails("10.0.2.2:10809: the server has no export named "
			  "'swap' (NBD_REP_ERR_UNKNOWN)");
}

static void test_open_no_greeting(void **state)
{
	(void)state;
	fake_nbd_silent(true);
	fake_clock_per_poll_ns(1000000);        /* 1 ms a poll */
	expect_open_fails("10.0.2.2:10809: the server sent no greeting");
	assert_true(fake_clock_ms() >= NBD_CONNECT_TIMEOUT_MS);
	assert_true(fake_clock_ms() <= NBD_CONNECT_TIMEOUT_MS + 10);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup(name, setup)
	const struct CMUnitTest tests[] = {
		T(test_give_up_and_back),
		T(test_give_up_time_of_the_target),
		T(test_wrong_cookie_refuses_the_server),
		T(test_hung_server_is_given_up),
		T(test_export_changed_refused),
		T(test_open_refused),
		T(test_open_unknown_export),
		T(test_open_no_greeting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
