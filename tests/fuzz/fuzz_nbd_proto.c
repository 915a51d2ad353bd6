/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: swap/drivers/nbd_proto.c with the input as the NBD
 * server. Input: three control bytes, then the server's byte stream.
 *   byte 0  the export asked for: "swap", "", a 255-byte name, or one of
 *           256 bytes (which init refuses);
 *   byte 1  the seed of the chunk sizes the stream is cut into (1 byte to
 *           4 KiB, any mix);
 *   byte 2  the request table: which of cookies 0-5 are reads (bit i),
 *           and whether reads are 4096 bytes or 0, 1 or 7 (bits 6-7);
 *           cookies 6 and 7 are never in flight.
 * Checked beyond the sanitizers (every destination is its own exact
 * allocation, so a write outside it is caught):
 *   - the handshake fed in chunks ends exactly as when fed whole (result,
 *     reason, export, bytes sent, bytes taken), takes every byte while in
 *     progress, writes only inside its output buffer and sends nothing
 *     but the client flags and NBD_OPT_GO it must;
 *   - a done handshake's export is one swap can use; every failure has a
 *     non-empty one-line reason;
 *   - the reply parser, fed the rest in chunks, agrees with a model that
 *     reads the whole stream at once: the same completions in the same
 *     order (only of cookies in flight, each once), the same data in
 *     each read completed, the same violation; and stops at it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "swap/drivers/nbd_proto.h"
#include "tests/fuzz/fuzz_check.h"

#define NCOOKIES        8
#define NLIVE           6       /* cookies 6 and 7 are never in flight */
#define MAX_DONE        4096

static uint32_t rng;

static size_t next_chunk(size_t left)
{
	size_t max, n;

	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	max = (size_t)1 << (rng % 13);
	n = 1 + (rng >> 8) % max;
	return n < left ? n : left;
}

static void check_reason(const char *reason)
{
	CHECK(reason[0] != '\0');
	for (const char *c = reason; *c; c++)
		CHECK(*c >= 0x20 && *c < 0x7f);
}

/* ------------------------------------------------------------ handshake */

struct hs_run {
	enum nbd_progress progress;
	size_t used;
	char reason[NBD_REASON_SIZE];
	uint8_t sent[NBD_HANDSHAKE_OUT_MAX];
	size_t nsent;
	struct nbd_export export;
};

static void choose_name(uint8_t choice, char *name)
{
	switch (choice % 4) {
	case 0:
		strcpy(name, "swap");
		break;
	case 1:
		name[0] = '\0';
		break;
	default:
		/* 255 bytes, or 256 (refused). */
		memset(name, 'n', NBD_EXPORT_NAME_MAX + (choice % 4 == 3));
		name[NBD_EXPORT_NAME_MAX + (choice % 4 == 3)] = '\0';
		break;
	}
}

/* Feeds stream[0, len) cut by next_chunk (whole: one call). */
static void handshake(struct hs_run *r, const char *name,
		      const uint8_t *stream, size_t len, bool whole)
{
	struct nbd_handshake hs;
	bool ok;

	memset(r, 0, sizeof(*r));
	ok = nbd_handshake_init(&hs, name, r->reason, sizeof(r->reason));
	CHECK(ok == (strlen(name) <= NBD_EXPORT_NAME_MAX));
	r->progress = ok ? NBD_IN_PROGRESS : NBD_FAILED;
	for (;;) {
		size_t left = len - r->used;
		size_t n = whole ? left : next_chunk(left);
		size_t used = 12345, out_len = 12345;
		uint8_t *out = malloc(NBD_HANDSHAKE_OUT_MAX);
		/* A copy of just this chunk: reading past it is caught. */
		uint8_t *chunk = malloc(n ? n : 1);

		memcpy(chunk, stream + r->used, n);
		r->progress = nbd_handshake_feed(&hs, chunk, n, &used, out,
						 NBD_HANDSHAKE_OUT_MAX,
						 &out_len);
		CHECK(used <= n);
		CHECK(out_len <= NBD_HANDSHAKE_OUT_MAX - r->nsent);
		memcpy(r->sent + r->nsent, out, out_len);
		r->nsent += out_len;
		r->used += used;
		free(out);
		free(chunk);
		if (r->progress != NBD_IN_PROGRESS) {
			/* Over: it takes nothing more, and says the same. */
			uint8_t rest[NBD_HANDSHAKE_OUT_MAX];

			CHECK(nbd_handshake_feed(&hs, stream, len, &used, rest,
						 sizeof(rest), &out_len) ==
			      r->progress);
			CHECK(used == 0 && out_len == 0);
			break;
		}
		CHECK(used == n);
		if (r->used == len)
			break;
	}
	r->export = hs.export;
	if (r->progress == NBD_FAILED)
		check_reason(r->reason);
	else
		CHECK(r->reason[0] == '\0');
}

/* What the client must have sent: nothing, or flags and NBD_OPT_GO. */
static void check_sent(const struct hs_run *r, const char *name)
{
	uint32_t len = (uint32_t)strlen(name);
	uint8_t want[NBD_HANDSHAKE_OUT_MAX], *p = want;
	uint32_t data_len = 4 + len + 2 + 4;

	if (!r->nsent)
		return;
	CHECK(r->sent[0] == 0 && r->sent[1] == 0 && r->sent[2] == 0);
	CHECK(r->sent[3] == 1 || r->sent[3] == 3);
	*p++ = 0, *p++ = 0, *p++ = 0, *p++ = r->sent[3];
	memcpy(p, "IHAVEOPT", 8), p += 8;
	*p++ = 0, *p++ = 0, *p++ = 0, *p++ = 7;
	*p++ = 0, *p++ = 0, *p++ = (uint8_t)(data_len >> 8),
	*p++ = (uint8_t)data_len;
	*p++ = 0, *p++ = 0, *p++ = 0, *p++ = (uint8_t)len;
	memcpy(p, name, len), p += len;
	*p++ = 0, *p++ = 2, *p++ = 0, *p++ = 0, *p++ = 0, *p++ = 3;
	CHECK(r->nsent == (size_t)(p - want));
	CHECK(memcmp(r->sent, want, r->nsent) == 0);
}

static void check_export(const struct nbd_export *e)
{
	CHECK(e->size && e->size % 4096 == 0);
	CHECK(e->flags & NBD_FLAG_HAS_FLAGS);
	CHECK(!(e->flags & NBD_FLAG_READ_ONLY));
	CHECK(e->can_flush == !!(e->flags & NBD_FLAG_SEND_FLUSH));
	if (e->min_block || e->preferred_block || e->max_block)
		CHECK(e->min_block && 4096 % e->min_block == 0 &&
		      e->max_block >= 4096);
}

/* ------------------------------------------------- the request table */

struct request {
	uint64_t cookie;
	bool in_flight, is_read;
	uint8_t *dest;
	uint32_t length;
};

struct completion {
	uint64_t cookie;
	enum blk_status status;
	uint32_t nbd_error;
};

struct table {
	struct request req[NCOOKIES];
	struct completion done[MAX_DONE];
	unsigned ndone;
};

static bool lookup(void *ctx, uint64_t cookie, struct nbd_inflight *out)
{
	struct table *t = ctx;

	for (unsigned i = 0; i < NCOOKIES; i++) {
		if (t->req[i].in_flight && t->req[i].cookie == cookie) {
			out->is_read = t->req[i].is_read;
			out->dest = t->req[i].dest;
			out->length = t->req[i].length;
			return true;
		}
	}
	return false;
}

static void complete(void *ctx, uint64_t cookie, enum blk_status st,
		     uint32_t nbd_error)
{
	struct table *t = ctx;
	bool found = false;

	CHECK(t->ndone < MAX_DONE);
	CHECK((st == BLK_OK) == (nbd_error == 0));
	for (unsigned i = 0; i < NCOOKIES; i++) {
		if (t->req[i].in_flight && t->req[i].cookie == cookie) {
			t->req[i].in_flight = false;
			found = true;
		}
	}
	CHECK(found);
	t->done[t->ndone++] = (struct completion){ cookie, st, nbd_error };
}

static const struct nbd_reply_ops ops = { lookup, complete };

static void fill_table(struct table *t, uint8_t config)
{
	static const uint32_t small[] = { 0, 1, 7 };
	uint32_t read_len = config >> 6 ? small[(config >> 6) - 1] : 4096;

	memset(t, 0, sizeof(*t));
	for (unsigned i = 0; i < NCOOKIES; i++) {
		struct request *r = &t->req[i];

		r->cookie = i;
		r->in_flight = i < NLIVE;
		r->is_read = i < NLIVE && (config >> i & 1);
		if (r->is_read) {
			r->length = read_len;
			r->dest = malloc(read_len ? read_len : 1);
			memset(r->dest, 0xa5, read_len);
		}
	}
}

static void free_table(struct table *t)
{
	for (unsigned i = 0; i < NCOOKIES; i++)
		free(t->req[i].dest);
}

static uint64_t be(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

/*
 * The model: the whole stream at once. Fills m->done and each completed
 * read's expected data (into a second table's buffers); returns the
 * violation it stops at.
 */
static enum nbd_violation model(struct table *m, const uint8_t *s,
				size_t len)
{
	size_t at = 0;

	for (;;) {
		struct nbd_inflight req;
		uint32_t magic, err;
		uint64_t cookie;

		if (len - at < 4)
			return NBD_VIOLATION_NONE;
		magic = (uint32_t)be(s + at, 4);
		if (magic == NBD_STRUCTURED_REPLY_MAGIC)
			return NBD_VIOLATION_STRUCTURED;
		if (magic != NBD_SIMPLE_REPLY_MAGIC)
			return NBD_VIOLATION_BAD_MAGIC;
		if (len - at < 16)
			return NBD_VIOLATION_NONE;
		err = (uint32_t)be(s + at + 4, 4);
		cookie = be(s + at + 8, 8);
		at += 16;
		if (!lookup(m, cookie, &req))
			return NBD_VIOLATION_UNKNOWN_COOKIE;
		if (req.is_read && !err) {
			if (len - at < req.length)
				return NBD_VIOLATION_NONE;
			memcpy(req.dest, s + at, req.length);
			at += req.length;
		}
		complete(m, cookie, err ? BLK_IO_ERROR : BLK_OK, err);
	}
}

static void replies(const uint8_t *s, size_t len, uint8_t config)
{
	static struct table t, m;
	struct nbd_reply_parser p;
	char reason[NBD_REASON_SIZE] = "";
	enum nbd_violation want;
	size_t at = 0;
	bool ok = true;

	fill_table(&t, config);
	fill_table(&m, config);
	want = model(&m, s, len);
	nbd_reply_init(&p, &ops, &t, reason, sizeof(reason));
	while (at < len) {
		size_t n = next_chunk(len - at);
		uint8_t *chunk = malloc(n);

		memcpy(chunk, s + at, n);
		ok = nbd_reply_feed(&p, chunk, n);
		free(chunk);
		at += n;
		if (!ok)
			break;
	}
	CHECK(ok == (p.violation == NBD_VIOLATION_NONE));
	CHECK(p.violation == want);
	if (!ok) {
		check_reason(reason);
		/* Stopped: nothing more is taken, nothing completes. */
		unsigned before = t.ndone;

		CHECK(!nbd_reply_feed(&p, s, len));
		CHECK(t.ndone == before);
	} else {
		CHECK(reason[0] == '\0');
	}
	CHECK(t.ndone == m.ndone);
	CHECK(memcmp(t.done, m.done, t.ndone * sizeof(t.done[0])) == 0);
	for (unsigned i = 0; i < NCOOKIES; i++) {
		const struct request *r = &t.req[i];

		/* A read completed OK holds exactly the model's data. */
		if (r->is_read && !r->in_flight)
			CHECK(memcmp(r->dest, m.req[i].dest, r->length) == 0);
		CHECK(r->in_flight == m.req[i].in_flight);
	}
	free_table(&t);
	free_table(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hs_run chunked, whole;
	char name[NBD_EXPORT_NAME_MAX + 2];
	uint32_t seed;
	uint8_t config;

	if (size < 3)
		return 0;
	choose_name(data[0], name);
	seed = 0x9e3779b9u ^ data[1];
	config = data[2];
	data += 3;
	size -= 3;

	rng = seed;
	handshake(&whole, name, data, size, true);
	rng = seed;
	handshake(&chunked, name, data, size, false);
	CHECK(chunked.progress == whole.progress);
	CHECK(chunked.used == whole.used);
	CHECK(strcmp(chunked.reason, whole.reason) == 0);
	CHECK(chunked.nsent == whole.nsent);
	CHECK(memcmp(chunked.sent, whole.sent, whole.nsent) == 0);
	check_sent(&whole, name);
	if (whole.progress != NBD_DONE)
		return 0;
	CHECK(memcmp(&chunked.export, &whole.export,
		     sizeof(whole.export)) == 0);
	check_export(&whole.export);
	replies(data + whole.used, size - whole.used, config);
	return 0;
}
