/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fixture of the NBD client tests (test_nbd_client.c,
 * test_nbd_outages.c, test_nbd_refusals.c): swap/drivers/nbd.c against
 * an NBD server played in memory over fake TCP streams
 * (tests/unit/tcp_stream_fake.h), on a clock the test advances. The
 * heap nbd_open allocates from, pages to write from and read into, the
 * completions by request id, and the helpers that open the device,
 * submit, poll, move the clock on and check pages, lines, counters and
 * the cookies the server got. Included once by each test program.
 */
#ifndef TESTS_UNIT_NBD_TEST_FIXTURE_H
#define TESTS_UNIT_NBD_TEST_FIXTURE_H

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

static inline int setup(void **state)
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
static inline uint64_t pattern(unsigned seed, unsigned page, unsigned w)
{
	return (uint64_t)seed << 48 | (uint64_t)page << 32 | (w * 2654435761u);
}

static inline void fill(void *to, unsigned seed, unsigned page)
{
	uint64_t *words = to;

	for (unsigned w = 0; w < PAGE / 8; w++)
		words[w] = pattern(seed, page, w);
}

static inline void check_page(const void *at, unsigned seed, unsigned page)
{
	const uint64_t *words = at;

	for (unsigned w = 0; w < PAGE / 8; w++)
		if (words[w] != pattern(seed, page, w))
			fail_msg("page %u word %u: 0x%016llx, not 0x%016llx",
				 page, w, (unsigned long long)words[w],
				 (unsigned long long)pattern(seed, page, w));
}

/* nbd_open of 10.0.2.2:10809/swap, giving up after give_up_ms (0: 30 s). */
static inline struct blockdev *open_dev_give_up(unsigned give_up_ms)
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

static inline struct blockdev *open_dev(void)
{
	return open_dev_give_up(0);
}

static inline enum hv_err try_submit(enum blk_op op, uint64_t offset,
				      unsigned id)
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

static inline void submit(enum blk_op op, unsigned page, unsigned id)
{
	assert_int_equal(try_submit(op, (uint64_t)page * PAGE, id), HV_OK);
}

static inline unsigned poll_max(unsigned max)
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

static inline unsigned poll_once(void)
{
	return poll_max(NBD_QUEUE_DEPTH);
}

static inline void polls(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		poll_once();
}

/* Polls (the clock standing) until total requests have completed. */
static inline void poll_until_done(unsigned total)
{
	for (unsigned i = 0; i < POLLS_MAX && ndone < total; i++)
		poll_once();
	assert_int_equal(ndone, total);
	polls(5);
	assert_int_equal(ndone, total);         /* and nothing more */
}

/* Polls (the clock standing) until the console has lines lines. */
static inline void poll_until_lines(unsigned lines)
{
	for (unsigned i = 0; i < POLLS_MAX && console_nlines < lines; i++)
		poll_once();
	assert_int_equal(console_nlines, lines);
}

/*
 * Moves the clock ms on in steps of step ms, polling 8 times a step
 * (enough for a connection and its handshake within one step).
 */
static inline void run_ms(uint64_t ms, uint64_t step)
{
	for (uint64_t t = 0; t < ms; t += step) {
		fake_clock_advance_ms(step);
		polls(8);
	}
}

/* The console is as it was: no line since the last console_forget(). */
static inline void expect_no_line(void)
{
	if (console_nlines)
		fail_msg("%u unexpected line(s), the first: %s", console_nlines,
			 console_lines[0]);
}

static inline void expect_status(unsigned first, unsigned n,
				 enum blk_status st)
{
	for (unsigned id = first; id < first + n; id++) {
		assert_true(done[id]);
		assert_int_equal(status[id], st);
	}
}

static inline uint64_t counter(const char *name)
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
static inline void expect_cookies(unsigned conn, uint64_t first, unsigned n)
{
	const struct fake_conn_log *l = &fake_nbd.conn[conn];

	assert_int_equal(l->requests, n);
	assert_int_equal(l->cookie[0], first);
	for (unsigned i = 1; i < n; i++)
		assert_true(l->cookie[i] > l->cookie[i - 1]);
	assert_true(l->cookie[n - 1] <= first + n - 1 + fake_nbd.flushes);
}

#endif
