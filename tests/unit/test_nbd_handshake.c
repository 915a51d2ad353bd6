/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The handshake of swap/drivers/nbd_proto.c against server byte streams
 * built here from the NBD protocol's layouts (doc/proto.md of
 * NetworkBlockDevice/nbd): the fixed newstyle handshake with NBD_OPT_GO
 * fed whole, one byte at a time and split at every offset, the client's
 * bytes compared exactly; and each refusal and each export swap cannot
 * use, with its reason. Requests and replies: test_nbd_transmission.c.
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

/* ------------------------------------------------- server byte streams */

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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
