// SPDX-License-Identifier: BSD-2-Clause
/*
 * The NBD protocol core (swap/drivers/nbd_proto.h): the fixed newstyle
 * handshake with NBD_OPT_GO, the request header and the simple-reply
 * parser. Quoted section names are those of the NBD protocol
 * (NetworkBlockDevice/nbd, doc/proto.md).
 */
#include "swap/drivers/nbd_proto.h"
#include "lib/format.h"
#include "lib/string.h"

/* Big-endian fields ("always sent in network byte order"). */
static inline uint64_t be_get(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = (v << 8) | p[i];
	return v;
}

static inline uint8_t *be_put(uint8_t *p, unsigned n, uint64_t v)
{
	for (unsigned i = n; i-- > 0; v >>= 8)
		p[i] = (uint8_t)v;
	return p + n;
}

/* ------------------------------------------------------------ handshake */

/* What the handshake is reading: each step wants `want` bytes in buf. */
enum hs_step {
	HS_NBDMAGIC,            /* 8: NBDMAGIC */
	HS_IHAVEOPT,            /* 8: IHAVEOPT */
	HS_HANDSHAKE_FLAGS,     /* 2: handshake flags */
	HS_REPLY_HEADER,        /* 20: magic, option, type, length */
	HS_REPLY_DATA,          /* reply_len bytes, the first kept in buf */
	HS_OVER,                /* done or failed */
};

#define REPLY_HEADER_SIZE 20

/*
 * The option reply errors ("Option reply types"): bit 31 and a number.
 * X(name, number, what it means for us)
 */
#define NBD_REP_ERRORS(X)                                               \
	X(NBD_REP_ERR_UNSUP, 1, "it does not know the option (too old "  \
	  "for this client, which needs NBD_OPT_GO)")                   \
	X(NBD_REP_ERR_POLICY, 2, "its policy forbids it")               \
	X(NBD_REP_ERR_INVALID, 3, "it finds the request invalid")       \
	X(NBD_REP_ERR_PLATFORM, 4, "its platform cannot serve it")      \
	X(NBD_REP_ERR_TLS_REQD, 5, "it requires TLS, which this client " \
	  "does not speak")                                             \
	X(NBD_REP_ERR_UNKNOWN, 6, "the export does not exist")          \
	X(NBD_REP_ERR_SHUTDOWN, 7, "it is shutting down")               \
	X(NBD_REP_ERR_BLOCK_SIZE_REQD, 8, "it wants block sizes "       \
	  "negotiated")                                                 \
	X(NBD_REP_ERR_TOO_BIG, 9, "the request or its reply is too big")

/* The numbers alone (bit 31 would not fit an enum): ..._NUMBER. */
enum nbd_rep_error_number {
#define REP_ERROR_NUMBER(name, n, meaning) name##_NUMBER = n,
	NBD_REP_ERRORS(REP_ERROR_NUMBER)
#undef REP_ERROR_NUMBER
};

struct rep_error {
	uint32_t number;
	const char *name;
	const char *meaning;
};

static const struct rep_error rep_errors[] = {
#define REP_ERROR_ENTRY(name, n, meaning) { n, #name, meaning },
	NBD_REP_ERRORS(REP_ERROR_ENTRY)
#undef REP_ERROR_ENTRY
};

static void hs_fail(struct nbd_handshake *hs, const char *fmt, ...)
	PRINTF_LIKE(2, 3);

static void hs_fail(struct nbd_handshake *hs, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(hs->reason, hs->reason_size, fmt, ap);
	va_end(ap);
	hs->progress = NBD_FAILED;
	hs->step = HS_OVER;
}

static void hs_expect(struct nbd_handshake *hs, enum hs_step step,
		      uint32_t want)
{
	hs->step = step;
	hs->want = want;
	hs->have = 0;
}

/* Control characters would break the one-line reasons. */
static bool printable(uint8_t c)
{
	return c >= 0x20 && c != 0x7f;
}

bool nbd_handshake_init(struct nbd_handshake *hs, const char *name,
			char *reason, size_t reason_size)
{
	size_t len = strnlen(name, NBD_EXPORT_NAME_MAX + 1);

	memset(hs, 0, sizeof(*hs));
	hs->reason = reason;
	hs->reason_size = reason_size;
	hs->progress = NBD_IN_PROGRESS;
	hs_expect(hs, HS_NBDMAGIC, 8);
	if (len > NBD_EXPORT_NAME_MAX) {
		hs_fail(hs, "the export name is longer than %u bytes",
			NBD_EXPORT_NAME_MAX);
		return false;
	}
	for (size_t i = 0; i < len; i++) {
		if (!printable((uint8_t)name[i])) {
			hs_fail(hs, "the export name has a control character "
				"(byte %zu)", i);
			return false;
		}
	}
	memcpy(hs->name, name, len);
	hs->name[len] = '\0';
	hs->name_len = (uint32_t)len;
	return true;
}

/*
 * Our answer to the greeting: the client flags, then NBD_OPT_GO at once
 * (fixed newstyle lets the client send options without waiting). Data of
 * NBD_OPT_GO ("NBD_OPT_INFO and NBD_OPT_GO"): name length, name, the
 * number of information requests, the requests.
 */
static void send_go(struct nbd_handshake *hs, uint16_t handshake_flags,
		    uint8_t *out, size_t out_cap, size_t *out_len)
{
	uint32_t client_flags = NBD_FLAG_C_FIXED_NEWSTYLE;
	uint32_t data_len = 4 + hs->name_len + 2 + 2 * 2;
	size_t total = 4 + 16 + data_len;
	uint8_t *p;

	if (out_cap - *out_len < total) {
		hs_fail(hs, "the caller's output buffer has room for %zu "
			"bytes, the handshake needs %zu", out_cap - *out_len,
			total);
		return;
	}
	/* Only where offered: the server must drop a client that lies. */
	if (handshake_flags & NBD_FLAG_NO_ZEROES)
		client_flags |= NBD_FLAG_C_NO_ZEROES;
	p = out + *out_len;
	p = be_put(p, 4, client_flags);
	p = be_put(p, 8, NBD_IHAVEOPT);
	p = be_put(p, 4, NBD_OPT_GO);
	p = be_put(p, 4, data_len);
	p = be_put(p, 4, hs->name_len);
	memcpy(p, hs->name, hs->name_len);
	p += hs->name_len;
	p = be_put(p, 2, 2);
	p = be_put(p, 2, NBD_INFO_EXPORT);
	p = be_put(p, 2, NBD_INFO_BLOCK_SIZE);
	*out_len += (size_t)(p - (out + *out_len));
}

/* The greeting ("Newstyle negotiation"), one field at a time. */
static void greeting_field(struct nbd_handshake *hs, uint8_t *out,
			   size_t out_cap, size_t *out_len)
{
	uint64_t v = be_get(hs->buf, hs->want);

	switch (hs->step) {
	case HS_NBDMAGIC:
		if (v != NBD_MAGIC) {
			hs_fail(hs, "bad magic 0x%016llx from the server, not "
				"NBDMAGIC: is it an NBD server?",
				(unsigned long long)v);
			return;
		}
		hs_expect(hs, HS_IHAVEOPT, 8);
		return;
	case HS_IHAVEOPT:
		if (v == NBD_OLDSTYLE_MAGIC) {
			hs_fail(hs, "the server does not speak fixed newstyle "
				"(it sent the oldstyle greeting)");
			return;
		}
		if (v != NBD_IHAVEOPT) {
			hs_fail(hs, "bad magic 0x%016llx from the server after "
				"NBDMAGIC, not IHAVEOPT",
				(unsigned long long)v);
			return;
		}
		hs_expect(hs, HS_HANDSHAKE_FLAGS, 2);
		return;
	default:
		/* Unknown handshake flags are ignored ("SHOULD ignore"). */
		if (!(v & NBD_FLAG_FIXED_NEWSTYLE)) {
			hs_fail(hs, "the server does not speak fixed newstyle "
				"(handshake flags 0x%04x)", (unsigned)v);
			return;
		}
		send_go(hs, (uint16_t)v, out, out_cap, out_len);
		if (hs->progress == NBD_IN_PROGRESS)
			hs_expect(hs, HS_REPLY_HEADER, REPLY_HEADER_SIZE);
		return;
	}
}

/*
 * The option reply header ("Fixed newstyle negotiation"): magic, the
 * option it answers, the reply type, the data length.
 */
static void reply_header(struct nbd_handshake *hs)
{
	uint64_t magic = be_get(hs->buf, 8);
	uint32_t option = (uint32_t)be_get(hs->buf + 8, 4);

	hs->reply_type = (uint32_t)be_get(hs->buf + 12, 4);
	hs->reply_len = (uint32_t)be_get(hs->buf + 16, 4);
	if (magic != NBD_OPT_REPLY_MAGIC) {
		hs_fail(hs, "bad magic 0x%016llx in an option reply from the "
			"server, not 0x%llx", (unsigned long long)magic,
			(unsigned long long)NBD_OPT_REPLY_MAGIC);
		return;
	}
	if (option != NBD_OPT_GO) {
		hs_fail(hs, "the server replied to option %u, but the client "
			"sent only NBD_OPT_GO (%u)", option, NBD_OPT_GO);
		return;
	}
	if (hs->reply_len > NBD_OPT_REPLY_MAX) {
		hs_fail(hs, "the server sent an option reply of %u bytes "
			"(type 0x%x); at most %u are accepted", hs->reply_len,
			hs->reply_type, NBD_OPT_REPLY_MAX);
		return;
	}
	hs->reply_left = hs->reply_len;
	hs_expect(hs, HS_REPLY_DATA, 0);
}

/*
 * The server's own words of an error reply, made safe for one line (and
 * for a console that knows ASCII only); true when cut short.
 */
static bool server_message(const struct nbd_handshake *hs, char *msg,
			   size_t size)
{
	uint32_t n = MIN(hs->have, (uint32_t)size - 1);

	for (uint32_t i = 0; i < n; i++)
		msg[i] = printable(hs->buf[i]) && hs->buf[i] < 0x80 ?
				 (char)hs->buf[i] : '?';
	msg[n] = '\0';
	return hs->reply_len > n;
}

static void refused(struct nbd_handshake *hs)
{
	const char *name = "an unknown NBD_REP_ERR";
	const char *meaning = "an error unknown to this client";
	char msg[72], said[96] = "";
	bool cut = server_message(hs, msg, sizeof(msg));

	for (size_t i = 0; i < ARRAY_SIZE(rep_errors); i++) {
		if ((NBD_REP_FLAG_ERROR | rep_errors[i].number) ==
		    hs->reply_type) {
			name = rep_errors[i].name;
			meaning = rep_errors[i].meaning;
		}
	}
	if (msg[0])
		fmt_snprintf(said, sizeof(said), "; it says \"%s%s\"", msg,
			     cut ? "..." : "");
	if (hs->reply_type ==
	    (NBD_REP_FLAG_ERROR | NBD_REP_ERR_UNKNOWN_NUMBER))
		hs_fail(hs, "the server has no export named '%s' (%s)%s",
			hs->name, name, said);
	else
		hs_fail(hs, "the server refused NBD_OPT_GO for export '%s': "
			"%s (%s, 0x%x)%s", hs->name, meaning, name,
			hs->reply_type, said);
}

/* NBD_REP_INFO ("NBD_REP_INFO"): a 16-bit type, then its payload. */
static void info_reply(struct nbd_handshake *hs)
{
	struct nbd_export *e = &hs->export;
	uint32_t type;

	if (hs->reply_len < 2) {
		hs_fail(hs, "the server sent an NBD_REP_INFO of %u bytes, too "
			"short for its type", hs->reply_len);
		return;
	}
	type = (uint32_t)be_get(hs->buf, 2);
	if (type == NBD_INFO_EXPORT) {
		if (hs->reply_len != NBD_INFO_EXPORT_LEN) {
			hs_fail(hs, "the server sent an NBD_INFO_EXPORT of %u "
				"bytes, not %u", hs->reply_len,
				NBD_INFO_EXPORT_LEN);
			return;
		}
		e->size = be_get(hs->buf + 2, 8);
		e->flags = (uint16_t)be_get(hs->buf + 10, 2);
		hs->seen_export = true;
	} else if (type == NBD_INFO_BLOCK_SIZE) {
		if (hs->reply_len != NBD_INFO_BLOCK_SIZE_LEN) {
			hs_fail(hs, "the server sent an NBD_INFO_BLOCK_SIZE of "
				"%u bytes, not %u", hs->reply_len,
				NBD_INFO_BLOCK_SIZE_LEN);
			return;
		}
		e->min_block = (uint32_t)be_get(hs->buf + 2, 4);
		e->preferred_block = (uint32_t)be_get(hs->buf + 6, 4);
		e->max_block = (uint32_t)be_get(hs->buf + 10, 4);
	}
	/* Other information types: "MUST ignore" what is not understood. */
}

/*
 * We asked for NBD_INFO_BLOCK_SIZE, so we "MUST abide by the block size
 * constraints" ("Block size constraints"): one 4 KiB page per request,
 * at page offsets. The minimum must divide a page (it is a power of two
 * by the spec: so at most 4096), the maximum hold one.
 */
static void block_sizes_fit(struct nbd_handshake *hs)
{
	const struct nbd_export *e = &hs->export;

	if (!e->min_block || NBD_BLOCK % e->min_block)
		hs_fail(hs, "export '%s' has a minimum block size of %u bytes; "
			"swap needs one that divides %u", hs->name,
			e->min_block, NBD_BLOCK);
	else if (e->max_block < NBD_BLOCK)
		hs_fail(hs, "export '%s' has a maximum block size of %u bytes, "
			"smaller than a %u-byte page", hs->name, e->max_block,
			NBD_BLOCK);
}

/*
 * NBD_REP_ACK: the server takes us to transmission, if the export is
 * one swap can use.
 */
static void acked(struct nbd_handshake *hs)
{
	struct nbd_export *e = &hs->export;
	const char *name = hs->name;

	if (hs->reply_len) {
		hs_fail(hs, "the server sent an NBD_REP_ACK with %u bytes of "
			"data; an ACK has none", hs->reply_len);
		return;
	}
	if (!hs->seen_export) {
		hs_fail(hs, "the server accepted export '%s' without sending "
			"NBD_INFO_EXPORT", name);
		return;
	}
	if (!(e->flags & NBD_FLAG_HAS_FLAGS)) {
		hs_fail(hs, "the transmission flags 0x%04x of export '%s' lack "
			"NBD_FLAG_HAS_FLAGS", e->flags, name);
		return;
	}
	if (e->flags & NBD_FLAG_READ_ONLY) {
		hs_fail(hs, "export '%s' is read-only; swap needs to write",
			name);
		return;
	}
	if (!e->size) {
		hs_fail(hs, "export '%s' is empty (size 0)", name);
		return;
	}
	if (!IS_ALIGNED(e->size, NBD_BLOCK)) {
		hs_fail(hs, "export '%s' is %llu bytes, not a multiple of %u",
			name, (unsigned long long)e->size, NBD_BLOCK);
		return;
	}
	if (e->min_block || e->preferred_block || e->max_block)
		block_sizes_fit(hs);
	if (hs->progress != NBD_IN_PROGRESS)
		return;
	e->can_flush = e->flags & NBD_FLAG_SEND_FLUSH;
	e->can_fua = e->flags & NBD_FLAG_SEND_FUA;
	hs->progress = NBD_DONE;
	hs->step = HS_OVER;
}

static void reply_done(struct nbd_handshake *hs)
{
	if (hs->reply_type & NBD_REP_FLAG_ERROR)
		refused(hs);
	else if (hs->reply_type == NBD_REP_INFO)
		info_reply(hs);
	else if (hs->reply_type == NBD_REP_ACK)
		acked(hs);
	else
		hs_fail(hs, "the server answered NBD_OPT_GO with reply type "
			"%u, which it never is", hs->reply_type);
	if (hs->progress == NBD_IN_PROGRESS)
		hs_expect(hs, HS_REPLY_HEADER, REPLY_HEADER_SIZE);
}

/* Takes reply data from in: the first NBD_REPLY_KEEP bytes go to buf. */
static size_t take_reply_data(struct nbd_handshake *hs, const uint8_t *in,
			      size_t len)
{
	size_t n = MIN(len, (size_t)hs->reply_left);
	size_t keep = MIN(n, (size_t)(sizeof(hs->buf) - hs->have));

	memcpy(hs->buf + hs->have, in, keep);
	hs->have += (uint32_t)keep;
	hs->reply_left -= (uint32_t)n;
	return n;
}

/* Takes what is missing of a fixed-size field from in. */
static size_t take_field(struct nbd_handshake *hs, const uint8_t *in,
			 size_t len)
{
	size_t n = MIN(len, (size_t)(hs->want - hs->have));

	memcpy(hs->buf + hs->have, in, n);
	hs->have += (uint32_t)n;
	return n;
}

enum nbd_progress nbd_handshake_feed(struct nbd_handshake *hs,
				     const uint8_t *in, size_t len,
				     size_t *used, uint8_t *out,
				     size_t out_cap, size_t *out_len)
{
	*used = 0;
	*out_len = 0;
	while (hs->progress == NBD_IN_PROGRESS) {
		if (hs->step == HS_REPLY_DATA && !hs->reply_left) {
			reply_done(hs);
			continue;
		}
		if (*used == len)
			break;
		if (hs->step == HS_REPLY_DATA) {
			*used += take_reply_data(hs, in + *used, len - *used);
			continue;
		}
		*used += take_field(hs, in + *used, len - *used);
		if (hs->have < hs->want)
			break;
		if (hs->step == HS_REPLY_HEADER)
			reply_header(hs);
		else
			greeting_field(hs, out, out_cap, out_len);
	}
	return hs->progress;
}

/* --------------------------------------------------------- transmission */

void nbd_encode_request(uint8_t out[NBD_REQUEST_SIZE],
			const struct nbd_request *req)
{
	uint8_t *p = out;

	p = be_put(p, 4, NBD_REQUEST_MAGIC);
	p = be_put(p, 2, req->flags);
	p = be_put(p, 2, (uint16_t)req->type);
	p = be_put(p, 8, req->cookie);
	p = be_put(p, 8, req->offset);
	be_put(p, 4, req->length);
}

#define NBD_STAT_DEF(name, value, field) \
	{ "nbd.reply." #field, offsetof(struct nbd_reply_stats, field) },

const struct counter_def nbd_reply_counter_defs[] = {
	{ "nbd.reply.ok", offsetof(struct nbd_reply_stats, ok) },
	NBD_ERROR_VALUES(NBD_STAT_DEF)
	{ "nbd.reply.other_error",
	  offsetof(struct nbd_reply_stats, other_error) },
};
const unsigned nbd_reply_counter_count = ARRAY_SIZE(nbd_reply_counter_defs);

const char *nbd_error_name(uint32_t nbd_error)
{
	switch (nbd_error) {
#define NBD_ERROR_CASE(name, value, field) \
	case value:                        \
		return #name;
		NBD_ERROR_VALUES(NBD_ERROR_CASE)
#undef NBD_ERROR_CASE
	case 0:
		return "no error";
	default:
		return "an unknown NBD error";
	}
}

static void count_reply(struct nbd_reply_parser *p, uint32_t nbd_error)
{
	switch (nbd_error) {
	case 0:
		p->stats.ok++;
		return;
#define NBD_ERROR_COUNT(name, value, field) \
	case value:                         \
		p->stats.field++;           \
		return;
		NBD_ERROR_VALUES(NBD_ERROR_COUNT)
#undef NBD_ERROR_COUNT
	default:
		p->stats.other_error++;
		return;
	}
}

void nbd_reply_init(struct nbd_reply_parser *p,
		    const struct nbd_reply_ops *ops, void *ctx, char *reason,
		    size_t reason_size)
{
	memset(p, 0, sizeof(*p));
	p->ops = ops;
	p->ctx = ctx;
	p->reason = reason;
	p->reason_size = reason_size;
}

static bool violation(struct nbd_reply_parser *p, enum nbd_violation v,
		      const char *fmt, ...) PRINTF_LIKE(3, 4);

static bool violation(struct nbd_reply_parser *p, enum nbd_violation v,
		      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(p->reason, p->reason_size, fmt, ap);
	va_end(ap);
	p->violation = v;
	return false;
}

/* The magic, as soon as its 4 bytes are in: fail before the rest. */
static bool check_magic(struct nbd_reply_parser *p)
{
	uint32_t magic = (uint32_t)be_get(p->header, 4);

	if (magic == NBD_SIMPLE_REPLY_MAGIC)
		return true;
	if (magic == NBD_STRUCTURED_REPLY_MAGIC)
		return violation(p, NBD_VIOLATION_STRUCTURED,
				 "the server sent a structured reply (magic "
				 "0x%08x), which the client never negotiated",
				 magic);
	return violation(p, NBD_VIOLATION_BAD_MAGIC, "bad magic 0x%08x in a "
			 "reply from the server, not 0x%08x", magic,
			 NBD_SIMPLE_REPLY_MAGIC);
}

static void complete(struct nbd_reply_parser *p, uint64_t cookie,
		     uint32_t nbd_error)
{
	count_reply(p, nbd_error);
	if (nbd_error == NBD_ESHUTDOWN)
		p->server_shutting_down = true;
	p->ops->complete(p->ctx, cookie, nbd_error ? BLK_IO_ERROR : BLK_OK,
			 nbd_error);
}

/*
 * A whole header ("Simple reply message"): magic, error, cookie. Only a
 * read answered without error has data, exactly its length ("length
 * bytes of data according to the client's request").
 */
static bool reply_header_done(struct nbd_reply_parser *p)
{
	uint32_t nbd_error = (uint32_t)be_get(p->header + 4, 4);
	uint64_t cookie = be_get(p->header + 8, 8);
	struct nbd_inflight req = { 0 };

	p->have = 0;
	if (!p->ops->lookup(p->ctx, cookie, &req))
		return violation(p, NBD_VIOLATION_UNKNOWN_COOKIE,
				 "reply for cookie %llu which is not in flight "
				 "(error %u)", (unsigned long long)cookie,
				 nbd_error);
	if (req.is_read && !nbd_error && req.length) {
		p->cookie = cookie;
		p->dest = req.dest;
		p->data_len = p->data_left = req.length;
		return true;
	}
	complete(p, cookie, nbd_error);
	return true;
}

/* A read's data, straight into its destination; completes it when whole. */
static size_t take_data(struct nbd_reply_parser *p, const uint8_t *in,
			size_t len)
{
	size_t n = MIN(len, (size_t)p->data_left);

	if (p->dest)
		memcpy(p->dest + (p->data_len - p->data_left), in, n);
	p->data_left -= (uint32_t)n;
	if (!p->data_left)
		complete(p, p->cookie, 0);
	return n;
}

/* Header bytes; the magic is checked as soon as its 4 bytes are in. */
static size_t take_header(struct nbd_reply_parser *p, const uint8_t *in,
			  size_t len)
{
	uint32_t before = p->have;
	size_t n = MIN(len, sizeof(p->header) - before);

	memcpy(p->header + before, in, n);
	p->have += (uint32_t)n;
	if (before < 4 && p->have >= 4 && !check_magic(p))
		return n;
	if (p->have == sizeof(p->header))
		reply_header_done(p);
	return n;
}

bool nbd_reply_feed(struct nbd_reply_parser *p, const uint8_t *in,
		    size_t len)
{
	size_t used = 0;

	while (used < len && p->violation == NBD_VIOLATION_NONE) {
		if (p->data_left)
			used += take_data(p, in + used, len - used);
		else
			used += take_header(p, in + used, len - used);
	}
	return p->violation == NBD_VIOLATION_NONE;
}
