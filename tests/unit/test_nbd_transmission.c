/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The transmission phase of swap/drivers/nbd_proto.c, after the
 * handshake (test_nbd_handshake.c): request headers byte for byte, and
 * the simple-reply parser over server byte streams and a small request
 * table: read data split at every offset, several replies in one chunk,
 * error replies and their counters, and the violations that stop it (bad
 * magic, a structured reply, a cookie not in flight).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "swap/drivers/nbd_proto.h"
#include "tests/unit/nbd_stream.h"

static char reason[NBD_REASON_SIZE];

/* --------------------------------------------------------- requests */

static void test_request_encoding(void **state)
{
	uint8_t out[NBD_REQUEST_SIZE];
	const uint8_t read_req[NBD_REQUEST_SIZE] = {
		0x25, 0x60, 0x95, 0x13, 0x00, 0x00, 0x00, 0x00,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0x00, 0x00, 0x00, 0x12, 0x34, 0x56, 0x70, 0x00,
		0x00, 0x00, 0x10, 0x00,
	};
	const uint8_t write_fua[NBD_REQUEST_SIZE] = {
		0x25, 0x60, 0x95, 0x13, 0x00, 0x01, 0x00, 0x01,
		0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88,
		0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x10, 0x00,
	};
	const uint8_t flush[NBD_REQUEST_SIZE] = {
		0x25, 0x60, 0x95, 0x13, 0x00, 0x00, 0x00, 0x03,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a,
	};
	const uint8_t disc[NBD_REQUEST_SIZE] = {
		0x25, 0x60, 0x95, 0x13, 0x00, 0x00, 0x00, 0x02,
	};

	(void)state;
	nbd_encode_request(out, &(struct nbd_request){
		.type = NBD_CMD_READ, .cookie = 0x0102030405060708ull,
		.offset = 0x1234567000ull, .length = 4096 });
	assert_memory_equal(out, read_req, sizeof(out));
	nbd_encode_request(out, &(struct nbd_request){
		.type = NBD_CMD_WRITE, .flags = NBD_CMD_FLAG_FUA,
		.cookie = 0xffeeddccbbaa9988ull, .offset = 1ull << 63,
		.length = 4096 });
	assert_memory_equal(out, write_fua, sizeof(out));
	nbd_encode_request(out, &(struct nbd_request){
		.type = NBD_CMD_FLUSH, .cookie = 42 });
	assert_memory_equal(out, flush, sizeof(out));
	nbd_encode_request(out, &(struct nbd_request){ .type = NBD_CMD_DISC });
	assert_memory_equal(out, disc, sizeof(out));
}

/* ------------------------------------------ replies, over a fake table */

#define GUARD 64

static struct nbd_reply_parser parser;
static struct {
	uint64_t cookie;
	bool in_flight, is_read;
	uint8_t *dest;
	uint32_t length;
} table[4];
static uint8_t pages[2][GUARD + 4096 + GUARD];
static struct {
	uint64_t cookie;
	enum blk_status status;
	uint32_t nbd_error;
} done[16];
static unsigned ndone;

static bool fake_lookup(void *ctx, uint64_t cookie, struct nbd_inflight *req)
{
	assert_ptr_equal(ctx, table);
	for (unsigned i = 0; i < 4; i++) {
		if (table[i].in_flight && table[i].cookie == cookie) {
			req->is_read = table[i].is_read;
			req->dest = table[i].dest;
			req->length = table[i].length;
			return true;
		}
	}
	return false;
}

static void fake_complete(void *ctx, uint64_t cookie, enum blk_status st,
			  uint32_t nbd_error)
{
	assert_ptr_equal(ctx, table);
	assert_true(ndone < 16);
	done[ndone].cookie = cookie;
	done[ndone].status = st;
	done[ndone].nbd_error = nbd_error;
	ndone++;
	for (unsigned i = 0; i < 4; i++)
		if (table[i].in_flight && table[i].cookie == cookie)
			table[i].in_flight = false;
}

static const struct nbd_reply_ops fake_ops = { fake_lookup, fake_complete };

/* Two reads into pages[0] and [1], a write, a flush; a fresh parser. */
static void fresh_table(void)
{
	memset(table, 0, sizeof(table));
	memset(pages, 0xa5, sizeof(pages));
	memset(reason, 0, sizeof(reason));
	ndone = 0;
	for (unsigned i = 0; i < 4; i++) {
		table[i].cookie = 100 + i;
		table[i].in_flight = true;
	}
	for (unsigned i = 0; i < 2; i++) {
		table[i].is_read = true;
		table[i].dest = pages[i] + GUARD;
		table[i].length = 4096;
	}
	nbd_reply_init(&parser, &fake_ops, table, reason, sizeof(reason));
}

static void simple_reply(struct stream *s, uint32_t error, uint64_t cookie)
{
	put_be(s, 4, 0x67446698);
	put_be(s, 4, error);
	put_be(s, 8, cookie);
}

static void page_data(struct stream *s, uint8_t seed)
{
	for (unsigned i = 0; i < 4096; i++)
		s->b[s->n + i] = (uint8_t)(i * 7 + seed);
	s->n += 4096;
}

static void assert_page(unsigned which, uint8_t seed)
{
	for (unsigned i = 0; i < GUARD; i++) {
		assert_int_equal(pages[which][i], 0xa5);
		assert_int_equal(pages[which][GUARD + 4096 + i], 0xa5);
	}
	for (unsigned i = 0; i < 4096; i++)
		assert_int_equal(pages[which][GUARD + i],
				 (uint8_t)(i * 7 + seed));
}

static void test_read_reply_split_at_every_offset(void **state)
{
	struct stream s = { .n = 0 };

	(void)state;
	simple_reply(&s, 0, 100);
	page_data(&s, 3);
	for (size_t cut = 0; cut <= s.n; cut++) {
		fresh_table();
		assert_true(nbd_reply_feed(&parser, s.b, cut));
		assert_int_equal(ndone, cut == s.n);
		assert_true(nbd_reply_feed(&parser, s.b + cut, s.n - cut));
		assert_int_equal(ndone, 1);
		assert_int_equal(done[0].cookie, 100);
		assert_int_equal(done[0].status, BLK_OK);
		assert_int_equal(done[0].nbd_error, 0);
		assert_page(0, 3);
		/* pages[1] untouched. */
		for (size_t i = 0; i < sizeof(pages[1]); i++)
			assert_int_equal(pages[1][i], 0xa5);
	}
}

static void test_replies_one_byte_at_a_time(void **state)
{
	struct stream s = { .n = 0 };

	(void)state;
	simple_reply(&s, 0, 102);               /* the write */
	simple_reply(&s, 0, 101);
	page_data(&s, 9);
	simple_reply(&s, 0, 103);               /* the flush */
	simple_reply(&s, 0, 100);
	page_data(&s, 1);
	fresh_table();
	for (size_t i = 0; i < s.n; i++)
		assert_true(nbd_reply_feed(&parser, s.b + i, 1));
	assert_int_equal(ndone, 4);
	assert_int_equal(done[0].cookie, 102);
	assert_int_equal(done[1].cookie, 101);
	assert_int_equal(done[2].cookie, 103);
	assert_int_equal(done[3].cookie, 100);
	assert_page(0, 1);
	assert_page(1, 9);
	assert_int_equal(parser.stats.ok, 4);

	/* And all in one chunk. */
	fresh_table();
	assert_true(nbd_reply_feed(&parser, s.b, s.n));
	assert_int_equal(ndone, 4);
	assert_page(0, 1);
	assert_page(1, 9);
}

static void test_error_replies(void **state)
{
	struct stream s = { .n = 0 };

	(void)state;
	/* A failed read has no data: the next header follows at once. */
	simple_reply(&s, 5, 100);               /* NBD_EIO */
	simple_reply(&s, 28, 102);              /* NBD_ENOSPC on the write */
	simple_reply(&s, 99, 103);              /* not a defined value */
	simple_reply(&s, 0, 101);
	page_data(&s, 4);
	fresh_table();
	assert_true(nbd_reply_feed(&parser, s.b, s.n));
	assert_int_equal(ndone, 4);
	assert_int_equal(done[0].cookie, 100);
	assert_int_equal(done[0].status, BLK_IO_ERROR);
	assert_int_equal(done[0].nbd_error, 5);
	assert_int_equal(done[1].status, BLK_IO_ERROR);
	assert_int_equal(done[1].nbd_error, 28);
	assert_int_equal(done[2].status, BLK_IO_ERROR);
	assert_int_equal(done[2].nbd_error, 99);
	assert_int_equal(done[3].status, BLK_OK);
	assert_page(1, 4);
	/* The failed read's page was never written. */
	for (size_t i = 0; i < sizeof(pages[0]); i++)
		assert_int_equal(pages[0][i], 0xa5);
	assert_int_equal(parser.stats.ok, 1);
	assert_int_equal(parser.stats.eio, 1);
	assert_int_equal(parser.stats.enospc, 1);
	assert_int_equal(parser.stats.other_error, 1);
	assert_int_equal(parser.stats.eperm, 0);
	assert_false(parser.server_shutting_down);

	s.n = 0;
	simple_reply(&s, 108, 102);             /* NBD_ESHUTDOWN */
	fresh_table();
	assert_true(nbd_reply_feed(&parser, s.b, s.n));
	assert_true(parser.server_shutting_down);
	assert_int_equal(parser.stats.eshutdown, 1);

	assert_string_equal(nbd_error_name(5), "NBD_EIO");
	assert_string_equal(nbd_error_name(108), "NBD_ESHUTDOWN");
	assert_string_equal(nbd_error_name(0), "no error");
	assert_string_equal(nbd_error_name(99), "an unknown NBD error");
}

static void test_unknown_cookie(void **state)
{
	struct stream s = { .n = 0 };

	(void)state;
	simple_reply(&s, 0, 77);
	page_data(&s, 0);
	fresh_table();
	assert_false(nbd_reply_feed(&parser, s.b, s.n));
	assert_int_equal(parser.violation, NBD_VIOLATION_UNKNOWN_COOKIE);
	assert_string_equal(reason, "reply for cookie 77 which is not in "
			    "flight (error 0)");
	assert_int_equal(ndone, 0);
	/* Stopped: nothing more is taken. */
	s.n = 0;
	simple_reply(&s, 0, 102);
	assert_false(nbd_reply_feed(&parser, s.b, s.n));
	assert_int_equal(ndone, 0);
}

static void test_second_reply_for_same_cookie(void **state)
{
	struct stream s = { .n = 0 };

	(void)state;
	simple_reply(&s, 0, 102);
	simple_reply(&s, 0, 103);
	simple_reply(&s, 0, 102);
	simple_reply(&s, 0, 101);
	page_data(&s, 0);
	fresh_table();
	assert_false(nbd_reply_feed(&parser, s.b, s.n));
	assert_int_equal(ndone, 2);
	assert_int_equal(parser.violation, NBD_VIOLATION_UNKNOWN_COOKIE);
	assert_string_equal(reason, "reply for cookie 102 which is not in "
			    "flight (error 0)");
	/* Cookie 101's page was not touched. */
	for (size_t i = 0; i < sizeof(pages[1]); i++)
		assert_int_equal(pages[1][i], 0xa5);
}

static void test_bad_reply_magic(void **state)
{
	struct stream s = { .n = 0 };

	(void)state;
	/* Caught on its fourth byte, before any lookup. */
	put_be(&s, 4, 0x67446699);
	put_be(&s, 4, 0);
	put_be(&s, 8, 100);
	fresh_table();
	assert_true(nbd_reply_feed(&parser, s.b, 3));
	assert_false(nbd_reply_feed(&parser, s.b + 3, 1));
	assert_int_equal(parser.violation, NBD_VIOLATION_BAD_MAGIC);
	assert_string_equal(reason, "bad magic 0x67446699 in a reply from the "
			    "server, not 0x67446698");

	/* A good reply, then garbage: the first completes, then the stop. */
	s.n = 0;
	simple_reply(&s, 0, 102);
	put_zeroes(&s, 16);
	fresh_table();
	assert_false(nbd_reply_feed(&parser, s.b, s.n));
	assert_int_equal(ndone, 1);
	assert_int_equal(parser.violation, NBD_VIOLATION_BAD_MAGIC);
}

static void test_structured_reply_is_a_violation(void **state)
{
	struct stream s = { .n = 0 };

	(void)state;
	put_be(&s, 4, 0x668e33ef);
	put_be(&s, 2, 1);                       /* NBD_REPLY_FLAG_DONE */
	put_be(&s, 2, 0);                       /* NBD_REPLY_TYPE_NONE */
	put_be(&s, 8, 102);
	put_be(&s, 4, 0);
	fresh_table();
	assert_false(nbd_reply_feed(&parser, s.b, s.n));
	assert_int_equal(parser.violation, NBD_VIOLATION_STRUCTURED);
	assert_string_equal(reason, "the server sent a structured reply (magic "
			    "0x668e33ef), which the client never negotiated");
	assert_int_equal(ndone, 0);
}

static void test_counter_names(void **state)
{
	static const char *const names[] = {
		"nbd.reply.ok", "nbd.reply.eperm", "nbd.reply.eio",
		"nbd.reply.enomem", "nbd.reply.einval", "nbd.reply.enospc",
		"nbd.reply.eoverflow", "nbd.reply.enotsup",
		"nbd.reply.eshutdown", "nbd.reply.other_error",
	};

	(void)state;
	assert_int_equal(nbd_reply_counter_count, 10);
	for (unsigned i = 0; i < 10; i++) {
		assert_string_equal(nbd_reply_counter_defs[i].name, names[i]);
		assert_int_equal(nbd_reply_counter_defs[i].offset,
				 i * sizeof(uint64_t));
	}
	assert_int_equal(sizeof(struct nbd_reply_stats), 10 * sizeof(uint64_t));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request_encoding),
		cmocka_unit_test(test_read_reply_split_at_every_offset),
		cmocka_unit_test(test_replies_one_byte_at_a_time),
		cmocka_unit_test(test_error_replies),
		cmocka_unit_test(test_unknown_cookie),
		cmocka_unit_test(test_second_reply_for_same_cookie),
		cmocka_unit_test(test_bad_reply_magic),
		cmocka_unit_test(test_structured_reply_is_a_violation),
		cmocka_unit_test(test_counter_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
