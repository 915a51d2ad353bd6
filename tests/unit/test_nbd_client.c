/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The NBD client behind swap/blockdev.h (swap/drivers/nbd.c) against an
 * NBD server played in memory over fake TCP streams
 * (tests/unit/tcp_stream_fake.h), on a clock the test advances: pages
 * written and read back through the server's image; the queue's depth;
 * a connection the server drops, made again after the back-off with
 * every request that was on it sent again; one line per outage;
 * the give-up after 30 s and the server's return; a server that answers
 * a cookie never sent, or changes its export, refused for good; a read
 * cut short by a close; a silent server; fail_fast; offsets out of
 * range; and nbd_open's refusals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "lib/counters.h"
#include "lib/heap.h"
#include "swap/drivers/nbd.h"
#include "tests/unit/console_capture.h"
#include "tests/unit/tcp_stream_fake.h"

#define SERVER_IP       0x0a000202u     /* 10.0.2.2 */
#define SERVER_PORT     10809
#define DEV             "nbd 10.0.2.2:10809/swap"
/* The one line of an outage (an info line: nothing has failed yet). */
#define LOST(why)       "apfvisor: " DEV ": connection lost (" why "); " \
			"connecting again"
#define CLOSED          "the server closed the connection"
#define PAGE            4096u
#define EXPORT_BYTES    ((uint64_t)FAKE_NBD_PAGES * PAGE)
#define NBUF            (2 * NBD_QUEUE_DEPTH)
#define POLLS_MAX       200     /* polls without the clock moving */

/* Bytes of the handshake (doc/proto.md), for the byte counters. */
#define CLIENT_HANDSHAKE_BYTES(name_len) (4 + 16 + 4 + (name_len) + 2 + 4)
#define SERVER_HANDSHAKE_BYTES  (18 + (20 + 12) + (20 + 14) + 20)
#define REQUEST_BYTES   28
#define REPLY_BYTES     16

/* ------------------------------------------------------------- heap */

static uint8_t heap[64 * 1024] __attribute__((aligned(4096)));
static size_t heap_used;

void *hv_alloc(size_t bytes)
{
	void *p = heap + heap_used;

	heap_used += (bytes + 4095) & ~(size_t)4095;
	assert_true(heap_used <= sizeof(heap));
	memset(p, 0, bytes);
	return p;
}

/* ------------------------------------------------------------ requests */

static uint8_t buf[NBUF][PAGE] __attribute__((aligned(4096)));
static struct blockdev *dev;
/* Completions by request id (the cookie is id + 1). */
static bool done[NBUF];
static enum blk_status status[NBUF];
static unsigned ndone;

static int setup(void **state)
{
	(void)state;
	fake_net_reset();
	counters_reset();
	console_forget();
	heap_used = 0;
	dev = NULL;
	memset(done, 0, sizeof(done));
	ndone = 0;
	return 0;
}

/* Word w of page p, as written by round `seed`. */
static uint64_t pattern(unsigned seed, unsigned page, unsigned w)
{
	return (uint64_t)seed << 48 | (uint64_t)page << 32 | (w * 2654435761u);
}

static void fill(void *to, unsigned seed, unsigned page)
{
	uint64_t *words = to;

	for (unsigned w = 0; w < PAGE / 8; w++)
		words[w] = pattern(seed, page, w);
}

static void check_page(const void *at, unsigned seed, unsigned page)
{
	const uint64_t *words = at;

	for (unsigned w = 0; w < PAGE / 8; w++)
		if (words[w] != pattern(seed, page, w))
			fail_msg("page %u word %u: 0x%016llx, not 0x%016llx",
				 page, w, (unsigned long long)words[w],
				 (unsigned long long)pattern(seed, page, w));
}

/* nbd_open of 10.0.2.2:10809/swap, giving up after give_up_ms (0: 30 s). */
static struct blockdev *open_dev_give_up(unsigned give_up_ms)
{
	struct nbd_target t = { .ip = SERVER_IP, .port = SERVER_PORT,
				.export_name = "swap",
				.give_up_ms = give_up_ms };
	char err[160] = "";

	dev = nbd_open(&t, err, sizeof(err));
	if (!dev)
		fail_msg("nbd_open: %s", err);
	assert_int_equal(console_nlines, 1);
	assert_string_equal(console_lines[0], "apfvisor: " DEV ": connected, "
			    "export of 0 MiB, flush");
	console_forget();
	return dev;
}

static struct blockdev *open_dev(void)
{
	return open_dev_give_up(0);
}

static enum hv_err try_submit(enum blk_op op, uint64_t offset, unsigned id)
{
	struct blk_request r = {
		.op = op,
		.offset = offset,
		.buffer_pa = (uint64_t)(uintptr_t)buf[id],
		.cookie = (void *)(uintptr_t)(id + 1),
	};

	assert_true(id < NBUF);
	if (op == BLK_READ)
		memset(buf[id], 0xa5, PAGE);
	return blk_submit(dev, &r);
}

static void submit(enum blk_op op, unsigned page, unsigned id)
{
	assert_int_equal(try_submit(op, (uint64_t)page * PAGE, id), HV_OK);
}

static unsigned poll_max(unsigned max)
{
	struct blk_completion c[NBD_QUEUE_DEPTH];
	unsigned n = blk_poll(dev, c, max);

	assert_true(n <= max);
	for (unsigned i = 0; i < n; i++) {
		unsigned id = (unsigned)(uintptr_t)c[i].cookie - 1;

		assert_true(id < NBUF);
		if (done[id])
			fail_msg("request %u completed twice", id);
		done[id] = true;
		status[id] = c[i].status;
		ndone++;
	}
	return n;
}

static unsigned poll_once(void)
{
	return poll_max(NBD_QUEUE_DEPTH);
}

static void polls(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		poll_once();
}

/* Polls (the clock standing) until total requests have completed. */
static void poll_until_done(unsigned total)
{
	for (unsigned i = 0; i < POLLS_MAX && ndone < total; i++)
		poll_once();
	assert_int_equal(ndone, total);
	polls(5);
	assert_int_equal(ndone, total);         /* and nothing more */
}

/* Polls (the clock standing) until the console has lines lines. */
static void poll_until_lines(unsigned lines)
{
	for (unsigned i = 0; i < POLLS_MAX && console_nlines < lines; i++)
		poll_once();
	assert_int_equal(console_nlines, lines);
}

/*
 * Moves the clock ms on in steps of step ms, polling 8 times a step
 * (enough for a connection and its handshake within one step).
 */
static void run_ms(uint64_t ms, uint64_t step)
{
	for (uint64_t t = 0; t < ms; t += step) {
		fake_clock_advance_ms(step);
		polls(8);
	}
}

/* The console is as it was: no line since the last console_forget(). */
static void expect_no_line(void)
{
	if (console_nlines)
		fail_msg("%u unexpected line(s), the first: %s", console_nlines,
			 console_lines[0]);
}

static void expect_status(unsigned first, unsigned n, enum blk_status st)
{
	for (unsigned id = first; id < first + n; id++) {
		assert_true(done[id]);
		assert_int_equal(status[id], st);
	}
}

static uint64_t counter(const char *name)
{
	uint64_t v;

	assert_int_equal(counters_find(name, &v), 1);
	return v;
}

/*
 * Connection conn got n requests, in the order they were given: cookies
 * from first on, rising (a flush the client sent between two requests,
 * not logged here, takes a cookie of its own).
 */
static void expect_cookies(unsigned conn, uint64_t first, unsigned n)
{
	const struct fake_conn_log *l = &fake_nbd.conn[conn];

	assert_int_equal(l->requests, n);
	assert_int_equal(l->cookie[0], first);
	for (unsigned i = 1; i < n; i++)
		assert_true(l->cookie[i] > l->cookie[i - 1]);
	assert_true(l->cookie[n - 1] <= first + n - 1 + fake_nbd.flushes);
}

/* ------------------------------------------------------------- tests */

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
		T(test_round_trip),
		T(test_flush_once_idle_after_writes),
		T(test_queue_full_is_busy),
		T(test_dropped_connection_resends),
		T(test_drops_in_the_middle_of_sends),
		T(test_one_line_per_outage),
		T(test_give_up_and_back),
		T(test_give_up_time_of_the_target),
		T(test_wrong_cookie_refuses_the_server),
		T(test_close_in_the_middle_of_a_read),
		T(test_silent_server),
		T(test_hung_server_is_given_up),
		T(test_idle_connection_is_not_silent),
		T(test_fail_fast),
		T(test_out_of_range),
		T(test_error_reply),
		T(test_export_changed_refused),
		T(test_open_refused),
		T(test_open_unknown_export),
		T(test_open_no_greeting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
