/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swap/drivers/nbd_proto.c against server byte streams built here from
 * the NBD protocol's layouts (doc/proto.md of NetworkBlockDevice/nbd):
 * the fixed newstyle handshake with NBD_OPT_GO fed whole, one byte at a
 * time and split at every offset, the client's bytes compared exactly;
 * each refusal and each export swap cannot use, with its reason; request
 * headers byte for byte; and the simple-reply parser over a small
 * request table: read data split at every offset, several replies in one
 * chunk, error replies and their counters, and the violations that stop
 * it (bad magic, a structured reply, a cookie not in flight).
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

/* ------------------------------------------------- server byte streams */

struct stream {
	uint8_t b[16384];
	size_t n;
};

static void put_be(struct stream *s, unsigned bytes, uint64_t v)
{
	for (unsigned i = 0; i < bytes; i++)
		s->b[s->n + i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
	s->n += bytes;
}

static void put_zeroes(struct stream *s, size_t n)
{
	memset(s->b + s->n, 0, n);
	s->n += n;
}

static void put_bytes(struct stream *s, const void *p, size_t n)
{
	if (n)
		memcpy(s->b + s->n, p, n);
	s->n += n;
}

static void greeting(struct stream *s, uint16_t flags)
{
	put_be(s, 8, 0x4e42444d41474943ull);    /* NBDMAGIC */
	put_be(s, 8, 0x49484156454F5054ull);    /* IHAVEOPT */
	put_be(s, 2, flags);
}

static void opt_reply(struct stream *s, uint32_t type, const void *data,
		      uint32_t len)
{
	put_be(s, 8, 0x3e889045565a9ull);
	put_be(s, 4, 7);                        /* NBD_OPT_GO */
	put_be(s, 4, type);
	put_be(s, 4, len);
	put_bytes(s, data, len);
}

static void info_export(struct stream *s, uint64_t size, uint16_t flags)
{
	struct stream d = { .n = 0 };

	put_be(&d, 2, 0);                       /* NBD_INFO_EXPORT */
	put_be(&d, 8, size);
	put_be(&d, 2, flags);
	opt_reply(s, 3, d.b, (uint32_t)d.n);    /* NBD_REP_INFO */
}

static void info_block_size(struct stream *s, uint32_t min, uint32_t pref,
			    uint32_t max)
{
	struct stream d = { .n = 0 };

	put_be(&d, 2, 3);                       /* NBD_INFO_BLOCK_SIZE */
	put_be(&d, 4, min);
	put_be(&d, 4, pref);
	put_be(&d, 4, max);
	opt_reply(s, 3, d.b, (uint32_t)d.n);
}

static void ack(struct stream *s)
{
	opt_reply(s, 1, NULL, 0);               /* NBD_REP_ACK */
}

#define FLAGS_OK (0x0001 | 0x0004)              /* HAS_FLAGS, SEND_FLUSH */
#define SIZE_OK  (64ull << 20)

/* A server's yes: 64 MiB, flush, and a block size info. */
static void good_replies(struct stream *s)
{
	info_export(s, SIZE_OK, FLAGS_OK);
	info_block_size(s, 512, 4096, 32u << 20);
	ack(s);
}

static void good_server(struct stream *s, uint16_t hs_flags)
{
	greeting(s, hs_flags);
	good_replies(s);
}

/* What the client must send: its flags, then NBD_OPT_GO for name. */
static size_t expected_client(uint8_t *out, uint32_t client_flags,
			      const char *name)
{
	struct stream s = { .n = 0 };
	uint32_t len = (uint32_t)strlen(name);

	put_be(&s, 4, client_flags);
	put_be(&s, 8, 0x49484156454F5054ull);
	put_be(&s, 4, 7);
	put_be(&s, 4, 4 + len + 2 + 4);
	put_be(&s, 4, len);
	put_bytes(&s, name, len);
	put_be(&s, 2, 2);                       /* two information requests */
	put_be(&s, 2, 0);                       /* NBD_INFO_EXPORT */
	put_be(&s, 2, 3);                       /* NBD_INFO_BLOCK_SIZE */
	memcpy(out, s.b, s.n);
	return s.n;
}

/* ------------------------------------------------------ handshake runs */

static struct nbd_handshake hs;
static char reason[NBD_REASON_SIZE];
static uint8_t sent[4096];
static size_t nsent;

static void start(const char *name)
{
	memset(reason, 0, sizeof(reason));
	nsent = 0;
	assert_true(nbd_handshake_init(&hs, name, reason, sizeof(reason)));
}

/* Feeds s[from, to) in one call; collects what the client sends. */
static enum nbd_progress feed(const struct stream *s, size_t from,
			      size_t to, size_t *used)
{
	size_t out_len = 99;
	enum nbd_progress st;

	st = nbd_handshake_feed(&hs, s->b + from, to - from, used,
				sent + nsent, NBD_HANDSHAKE_OUT_MAX, &out_len);
	assert_true(out_len <= NBD_HANDSHAKE_OUT_MAX);
	nsent += out_len;
	return st;
}

static enum nbd_progress feed_all(const struct stream *s)
{
	size_t used;
	enum nbd_progress st = feed(s, 0, s->n, &used);

	if (st == NBD_IN_PROGRESS)
		assert_int_equal(used, s->n);
	return st;
}

static void assert_sent_go(uint32_t client_flags, const char *name)
{
	uint8_t want[NBD_HANDSHAKE_OUT_MAX];
	size_t n = expected_client(want, client_flags, name);

	assert_int_equal(nsent, n);
	assert_memory_equal(sent, want, n);
}

static void assert_good_export(void)
{
	assert_int_equal(hs.export.size, SIZE_OK);
	assert_int_equal(hs.export.flags, FLAGS_OK);
	assert_true(hs.export.can_flush);
	assert_false(hs.export.can_fua);
	assert_int_equal(hs.export.min_block, 512);
	assert_int_equal(hs.export.preferred_block, 4096);
	assert_int_equal(hs.export.max_block, 32u << 20);
}

static void test_handshake_in_one_chunk(void **state)
{
	struct stream s = { .n = 0 };
	size_t used;

	(void)state;
	good_server(&s, 0x0001);
	start("swap");
	assert_int_equal(feed(&s, 0, s.n, &used), NBD_DONE);
	assert_int_equal(used, s.n);
	assert_sent_go(0x00000001, "swap");
	assert_good_export();
	assert_string_equal(reason, "");
}

static void test_handshake_one_byte_at_a_time(void **state)
{
	struct stream s = { .n = 0 };
	size_t used;

	(void)state;
	good_server(&s, 0x0001);
	start("swap");
	for (size_t i = 0; i < s.n; i++) {
		enum nbd_progress st = feed(&s, i, i + 1, &used);

		assert_int_equal(used, 1);
		/* The client answers the greeting's last byte, not before. */
		assert_int_equal(nsent, i < 17 ? 0 : 4 + 16 + 4 + 4 + 2 + 4);
		assert_int_equal(st, i + 1 == s.n ? NBD_DONE : NBD_IN_PROGRESS);
	}
	assert_sent_go(0x00000001, "swap");
	assert_good_export();
}

static void test_handshake_split_at_every_offset(void **state)
{
	struct stream s = { .n = 0 };
	size_t used;

	(void)state;
	good_server(&s, 0x0001);
	for (size_t cut = 0; cut <= s.n; cut++) {
		start("swap");
		assert_int_equal(feed(&s, 0, cut, &used),
				 cut == s.n ? NBD_DONE : NBD_IN_PROGRESS);
		assert_int_equal(used, cut);
		if (cut < s.n) {
			assert_int_equal(feed(&s, cut, s.n, &used), NBD_DONE);
			assert_int_equal(used, s.n - cut);
		}
		assert_sent_go(0x00000001, "swap");
		assert_good_export();
	}
}

static void test_no_zeroes_only_when_offered(void **state)
{
	struct stream s = { .n = 0 };

	(void)state;
	good_server(&s, 0x0003);        /* FIXED_NEWSTYLE | NO_ZEROES */
	start("swap");
	assert_int_equal(feed_all(&s), NBD_DONE);
	assert_sent_go(0x00000003, "swap");

	/* Unknown handshake flags are ignored, and never echoed. */
	s.n = 0;
	good_server(&s, 0x8001);
	start("swap");
	assert_int_equal(feed_all(&s), NBD_DONE);
	assert_sent_go(0x00000001, "swap");
}

static void test_default_export_and_longest_name(void **state)
{
	struct stream s = { .n = 0 };
	char name[NBD_EXPORT_NAME_MAX + 1];

	(void)state;
	good_server(&s, 0x0001);
	start("");
	assert_int_equal(feed_all(&s), NBD_DONE);
	assert_sent_go(0x00000001, "");

	memset(name, 'n', NBD_EXPORT_NAME_MAX);
	name[NBD_EXPORT_NAME_MAX] = '\0';
	start(name);
	assert_int_equal(feed_all(&s), NBD_DONE);
	assert_int_equal(nsent, NBD_HANDSHAKE_OUT_MAX);
	assert_sent_go(0x00000001, name);
}

static void test_bad_export_names(void **state)
{
	char name[NBD_EXPORT_NAME_MAX + 2];
	size_t used, out_len;
	uint8_t out[NBD_HANDSHAKE_OUT_MAX];

	(void)state;
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_false(nbd_handshake_init(&hs, name, reason, sizeof(reason)));
	assert_string_equal(reason,
			    "the export name is longer than 255 bytes");
	/* A failed start stays failed. */
	assert_int_equal(nbd_handshake_feed(&hs, (const uint8_t *)"NBD", 3,
					    &used, out, sizeof(out), &out_len),
			 NBD_FAILED);
	assert_int_equal(used, 0);
	assert_int_equal(out_len, 0);

	assert_false(nbd_handshake_init(&hs, "sw\nap", reason,
					sizeof(reason)));
	assert_string_equal(reason, "the export name has a control character "
			    "(byte 2)");
}

static void test_output_buffer_too_small(void **state)
{
	struct stream s = { .n = 0 };
	size_t used, out_len;
	uint8_t out[32];

	(void)state;
	good_server(&s, 0x0001);
	start("swap");
	assert_int_equal(nbd_handshake_feed(&hs, s.b, s.n, &used, out,
					    sizeof(out), &out_len),
			 NBD_FAILED);
	assert_int_equal(out_len, 0);
	assert_string_equal(reason, "the caller's output buffer has room for "
			    "32 bytes, the handshake needs 34");
}

/* A fresh "swap" handshake fed s whole fails, with exactly why. */
static void assert_refused(const struct stream *s, const char *why)
{
	start("swap");
	assert_int_equal(feed_all(s), NBD_FAILED);
	assert_string_equal(reason, why);
}

/* The greeting, then one option reply: refused with why. */
static void assert_reply_refused(uint32_t type, const void *data,
				 uint32_t len, const char *why)
{
	struct stream s = { .n = 0 };

	greeting(&s, 0x0001);
	opt_reply(&s, type, data, len);
	assert_refused(&s, why);
}

/*
 * An export's information (and its block sizes, when max is not 0),
 * then NBD_REP_ACK: refused with why, or accepted when why is NULL.
 */
static void assert_export(uint64_t size, uint16_t flags, uint32_t min,
			  uint32_t max, const char *why)
{
	struct stream s = { .n = 0 };

	greeting(&s, 0x0001);
	info_export(&s, size, flags);
	if (max)
		info_block_size(&s, min, 4096, max);
	ack(&s);
	if (why) {
		assert_refused(&s, why);
		return;
	}
	start("swap");
	assert_int_equal(feed_all(&s), NBD_DONE);
	assert_int_equal(hs.export.size, size);
	assert_int_equal(hs.export.flags, flags);
}

static void test_bad_nbdmagic_fails_at_once(void **state)
{
	struct stream s = { .n = 0 };
	size_t used;

	(void)state;
	put_bytes(&s, "SSH-2.0-OpenSSH_9.2\r\n", 21);
	start("swap");
	assert_int_equal(feed(&s, 0, 7, &used), NBD_IN_PROGRESS);
	assert_int_equal(feed(&s, 7, 8, &used), NBD_FAILED);
	assert_string_equal(reason, "bad magic 0x5353482d322e302d from the "
			    "server, not NBDMAGIC: is it an NBD server?");
	/* Failed: takes nothing more. */
	assert_int_equal(feed(&s, 8, s.n, &used), NBD_FAILED);
	assert_int_equal(used, 0);
	assert_int_equal(nsent, 0);
}

static void test_bad_second_magic(void **state)
{
	struct stream s = { .n = 0 };

	(void)state;
	put_be(&s, 8, 0x4e42444d41474943ull);
	put_be(&s, 8, 0x1122334455667788ull);
	put_be(&s, 2, 1);
	assert_refused(&s, "bad magic 0x1122334455667788 from the server "
		       "after NBDMAGIC, not IHAVEOPT");
}

static void test_oldstyle_server(void **state)
{
	struct stream s = { .n = 0 };

	(void)state;
	put_be(&s, 8, 0x4e42444d41474943ull);
	put_be(&s, 8, 0x00420281861253ull);
	put_be(&s, 8, SIZE_OK);
	assert_refused(&s, "the server does not speak fixed newstyle (it "
		       "sent the oldstyle greeting)");
}

static void test_missing_fixed_newstyle(void **state)
{
	struct stream s = { .n = 0 };

	(void)state;
	good_server(&s, 0x0002);        /* NO_ZEROES alone */
	assert_refused(&s, "the server does not speak fixed newstyle "
		       "(handshake flags 0x0002)");
	assert_int_equal(nsent, 0);
}

static void test_unknown_export(void **state)
{
	(void)state;
	assert_reply_refused(0x80000006, NULL, 0, "the server has no export "
			     "named 'swap' (NBD_REP_ERR_UNKNOWN)");
	/* With the server's words, control characters made harmless. */
	assert_reply_refused(0x80000006, "no such\texport", 14, "the server "
			     "has no export named 'swap' (NBD_REP_ERR_UNKNOWN);"
			     " it says \"no such?export\"");
}

static void test_other_refusals(void **state)
{
	struct stream s = { .n = 0 };
	char words[1000];

	(void)state;
	assert_reply_refused(0x80000005, NULL, 0, "the server refused "
			     "NBD_OPT_GO for export 'swap': it requires TLS, "
			     "which this client does not speak "
			     "(NBD_REP_ERR_TLS_REQD, 0x80000005)");

	/* An error we do not know, with a long message: cut short. */
	memset(words, 'w', sizeof(words));
	memset(words, 'x', 70);
	assert_reply_refused(0x80000063, words, sizeof(words), "the server "
			     "refused NBD_OPT_GO for export 'swap': an error "
			     "unknown to this client (an unknown NBD_REP_ERR, "
			     "0x80000063); it says \"xxxxxxxxxxxxxxxxxxxxxxxxx"
			     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxw"
			     "...\"");

	/* Info before an error changes nothing. */
	greeting(&s, 0x0001);
	info_export(&s, SIZE_OK, FLAGS_OK);
	opt_reply(&s, 0x80000007, NULL, 0);
	assert_refused(&s, "the server refused NBD_OPT_GO for export 'swap': "
		       "it is shutting down (NBD_REP_ERR_SHUTDOWN, "
		       "0x80000007)");
}

static void test_oversized_reply(void **state)
{
	struct stream s = { .n = 0 };
	static uint8_t big[4097];
	size_t used;

	(void)state;
	/* 4096 bytes of an information type we skip: accepted. */
	greeting(&s, 0x0001);
	big[1] = 0x42;
	opt_reply(&s, 3, big, 4096);
	info_export(&s, SIZE_OK, FLAGS_OK);
	ack(&s);
	start("swap");
	assert_int_equal(feed_all(&s), NBD_DONE);

	/* 4097: refused on its header, before its data. */
	s.n = 0;
	greeting(&s, 0x0001);
	opt_reply(&s, 3, big, 4097);
	start("swap");
	assert_int_equal(feed(&s, 0, 18 + 20, &used), NBD_FAILED);
	assert_int_equal(used, 18 + 20);
	assert_string_equal(reason, "the server sent an option reply of 4097 "
			    "bytes (type 0x3); at most 4096 are accepted");
}

static void test_read_only_export(void **state)
{
	(void)state;
	assert_export(SIZE_OK, 0x0001 | 0x0002, 0, 0,
		      "export 'swap' is read-only; swap needs to write");
}

static void test_export_sizes(void **state)
{
	(void)state;
	assert_export(SIZE_OK + 512, FLAGS_OK, 0, 0, "export 'swap' is "
		      "67109376 bytes, not a multiple of 4096");
	assert_export(0, FLAGS_OK, 0, 0, "export 'swap' is empty (size 0)");
	/* The smallest usable: one page, no flush, no block sizes. */
	assert_export(4096, 0x0001, 0, 0, NULL);
	assert_false(hs.export.can_flush);
	assert_int_equal(hs.export.min_block, 0);
	assert_int_equal(hs.export.max_block, 0);
}

static void test_flags_without_has_flags(void **state)
{
	(void)state;
	assert_export(SIZE_OK, 0x0004, 0, 0, "the transmission flags 0x0004 "
		      "of export 'swap' lack NBD_FLAG_HAS_FLAGS");
}

static void test_block_sizes(void **state)
{
	(void)state;
	assert_export(SIZE_OK, FLAGS_OK, 1, 4096, NULL);
	assert_export(SIZE_OK, FLAGS_OK, 4096, 0xffffffff, NULL);
	assert_export(SIZE_OK, FLAGS_OK, 8192, 1u << 20, "export 'swap' has a "
		      "minimum block size of 8192 bytes; swap needs one that "
		      "divides 4096");
	assert_export(SIZE_OK, FLAGS_OK, 3, 1u << 20, "export 'swap' has a "
		      "minimum block size of 3 bytes; swap needs one that "
		      "divides 4096");
	assert_export(SIZE_OK, FLAGS_OK, 512, 2048, "export 'swap' has a "
		      "maximum block size of 2048 bytes, smaller than a "
		      "4096-byte page");
}

static void test_ack_without_export_info(void **state)
{
	struct stream s = { .n = 0 };

	(void)state;
	greeting(&s, 0x0001);
	info_block_size(&s, 1, 4096, 1u << 20);
	ack(&s);
	assert_refused(&s, "the server accepted export 'swap' without "
		       "sending NBD_INFO_EXPORT");
}

static void test_malformed_replies(void **state)
{
	struct stream s = { .n = 0 };
	uint8_t d[14] = { 0 };

	(void)state;
	assert_reply_refused(3, d, 14, "the server sent an NBD_INFO_EXPORT "
			     "of 14 bytes, not 12");
	d[1] = 3;
	assert_reply_refused(3, d, 12, "the server sent an "
			     "NBD_INFO_BLOCK_SIZE of 12 bytes, not 14");
	assert_reply_refused(3, d, 1, "the server sent an NBD_REP_INFO of 1 "
			     "bytes, too short for its type");
	assert_reply_refused(1, d, 2, "the server sent an NBD_REP_ACK with 2 "
			     "bytes of data; an ACK has none");
	/* NBD_REP_SERVER: a reply NBD_OPT_GO never has. */
	assert_reply_refused(2, d, 4, "the server answered NBD_OPT_GO with "
			     "reply type 2, which it never is");

	/* A reply to an option we never sent. */
	greeting(&s, 0x0001);
	put_be(&s, 8, 0x3e889045565a9ull);
	put_be(&s, 4, 1);
	put_be(&s, 4, 1);
	put_be(&s, 4, 0);
	assert_refused(&s, "the server replied to option 1, but the client "
		       "sent only NBD_OPT_GO (7)");

	/* Bad option reply magic. */
	s.n = 0;
	greeting(&s, 0x0001);
	put_be(&s, 8, 0x25609513);
	put_zeroes(&s, 12);
	assert_refused(&s, "bad magic 0x0000000025609513 in an option reply "
		       "from the server, not 0x3e889045565a9");
}

static void test_info_types_skipped(void **state)
{
	struct stream s = { .n = 0 };
	uint8_t name_info[] = { 0, 1, 's', 'w', 'a', 'p' };
	uint8_t descr_info[] = { 0, 2, 'f', 'a', 'r' };

	(void)state;
	greeting(&s, 0x0001);
	opt_reply(&s, 3, name_info, sizeof(name_info));
	opt_reply(&s, 3, descr_info, sizeof(descr_info));
	good_replies(&s);
	start("swap");
	assert_int_equal(feed_all(&s), NBD_DONE);
	assert_good_export();
}

static void test_bytes_after_ack_are_left(void **state)
{
	struct stream s = { .n = 0 };
	size_t used, n;

	(void)state;
	good_server(&s, 0x0001);
	n = s.n;
	put_be(&s, 4, 0x67446698);
	start("swap");
	assert_int_equal(feed(&s, 0, s.n, &used), NBD_DONE);
	assert_int_equal(used, n);
	/* Done: takes nothing more. */
	assert_int_equal(feed(&s, n, s.n, &used), NBD_DONE);
	assert_int_equal(used, 0);
}

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
		cmocka_unit_test(test_handshake_in_one_chunk),
		cmocka_unit_test(test_handshake_one_byte_at_a_time),
		cmocka_unit_test(test_handshake_split_at_every_offset),
		cmocka_unit_test(test_no_zeroes_only_when_offered),
		cmocka_unit_test(test_default_export_and_longest_name),
		cmocka_unit_test(test_bad_export_names),
		cmocka_unit_test(test_output_buffer_too_small),
		cmocka_unit_test(test_bad_nbdmagic_fails_at_once),
		cmocka_unit_test(test_bad_second_magic),
		cmocka_unit_test(test_oldstyle_server),
		cmocka_unit_test(test_missing_fixed_newstyle),
		cmocka_unit_test(test_unknown_export),
		cmocka_unit_test(test_other_refusals),
		cmocka_unit_test(test_oversized_reply),
		cmocka_unit_test(test_read_only_export),
		cmocka_unit_test(test_export_sizes),
		cmocka_unit_test(test_flags_without_has_flags),
		cmocka_unit_test(test_block_sizes),
		cmocka_unit_test(test_ack_without_export_info),
		cmocka_unit_test(test_malformed_replies),
		cmocka_unit_test(test_info_types_skipped),
		cmocka_unit_test(test_bytes_after_ack_are_left),
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
