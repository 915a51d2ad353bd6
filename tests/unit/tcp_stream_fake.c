// SPDX-License-Identifier: BSD-2-Clause
/*
 * TCP streams to an NBD server played in memory, and the clock the NBD
 * client sees (tests/unit/tcp_stream_fake.h). Built with
 * tests/unit/fake_x86 first on the include path, like the client.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"
#include "net/net_stack.h"
#include "net/tcp_stream.h"
#include "tests/unit/tcp_stream_fake.h"

/*
 * The protocol's numbers, written out here from doc/proto.md rather
 * than taken from swap/drivers/nbd_proto.h: the server is a second
 * reading of the protocol, not the client's own.
 */
#define NBDMAGIC                0x4e42444d41474943ull
#define IHAVEOPT                0x49484156454f5054ull
#define OPT_REPLY_MAGIC         0x0003e889045565a9ull
#define REQUEST_MAGIC           0x25609513u
#define SIMPLE_REPLY_MAGIC      0x67446698u
#define FLAG_FIXED_NEWSTYLE     0x0001u
#define FLAG_NO_ZEROES          0x0002u
#define OPT_GO                  7u
#define REP_ACK                 1u
#define REP_INFO                3u
#define REP_ERR_UNKNOWN         0x80000006u
#define INFO_EXPORT             0u
#define INFO_BLOCK_SIZE         3u
#define TFLAG_HAS_FLAGS         0x0001u
#define TFLAG_SEND_FLUSH        0x0004u
#define CMD_READ                0u
#define CMD_WRITE               1u
#define CMD_FLUSH               3u
#define REQUEST_SIZE            28u
#define OPTION_HEADER_SIZE      16u
#define MAX_BLOCK               (32u << 20)

/* A cookie the client never sends (its cookies count from 1). */
#define WRONG_COOKIE_DELTA      (1ull << 32)

#define UP_MAX                  (FAKE_SEND_ROOM_DEFAULT + 8192)
#define DOWN_MAX                (256 * 1024)
#define BATCH_MAX               64

enum srv_phase {
	SRV_CLIENT_FLAGS,       /* 4 bytes of client flags */
	SRV_OPTION,             /* IHAVEOPT, option, length, data */
	SRV_TRANSMISSION,       /* 28-byte requests, a write's page after */
	SRV_GONE,               /* closed: takes nothing more */
};

struct tcp_stream {
	bool in_use;
	enum tcp_stream_state state;
	const char *why;
	struct fake_conn_log *log;      /* NULL past FAKE_NBD_MAX_CONNS */
	enum srv_phase phase;
	bool greeted;
	/* Client to server: up_pushed bytes of up_len were pushed. */
	uint8_t up[UP_MAX];
	size_t up_len, up_pushed;
	/* Server to client: down_read <= down_visible <= down_len. */
	uint8_t down[DOWN_MAX];
	size_t down_len, down_visible, down_read;
	/* Ends at the next poll, once what was sent before is readable. */
	const char *closing;
};

/* One request the server took in this poll, answered at its end. */
struct answer {
	bool is_write;
	uint64_t cookie;
	uint64_t offset;
	uint8_t data[FAKE_NBD_PAGE];    /* a write's page */
};

struct trigger {
	bool armed;
	unsigned left;                  /* good replies before it fires */
};

static struct {
	char name[256];
	unsigned pages;
	size_t send_room;
	size_t window;          /* bytes of up_len "on the wire" */
	bool reverse, refuse, silent, hung;
	struct trigger drop, wrong_cookie, short_read;
	unsigned short_bytes;
	uint32_t error_next;
} srv;

uint8_t fake_nbd_image[FAKE_NBD_PAGES][FAKE_NBD_PAGE];
struct fake_nbd_stats fake_nbd;

static struct tcp_stream streams[TCP_STREAM_MAX];
static struct answer batch[BATCH_MAX];
static unsigned batch_len;

/* ------------------------------------------------------------- clock */

uint64_t tsc_hz = 1000000000ull;        /* 1 GHz: 1 tick is 1 ns */
static uint64_t tsc;
static uint64_t per_poll_ns;

uint64_t rdtsc(void)
{
	return ++tsc;
}

void fake_clock_advance_ms(uint64_t ms)
{
	tsc += ms * 1000000ull;
}

uint64_t fake_clock_ms(void)
{
	return tsc / 1000000ull;
}

void fake_clock_per_poll_ns(uint64_t ns)
{
	per_poll_ns = ns;
}

/* ------------------------------------------------------------ settings */

void fake_net_reset(void)
{
	memset(streams, 0, sizeof(streams));
	memset(&srv, 0, sizeof(srv));
	memset(&fake_nbd, 0, sizeof(fake_nbd));
	memset(fake_nbd_image, 0, sizeof(fake_nbd_image));
	strcpy(srv.name, "swap");
	srv.pages = FAKE_NBD_PAGES;
	srv.send_room = FAKE_SEND_ROOM_DEFAULT;
	srv.window = FAKE_SEND_ROOM_DEFAULT;
	tsc = 0;
	per_poll_ns = 0;
	batch_len = 0;
}

void fake_nbd_export_name(const char *name)
{
	snprintf(srv.name, sizeof(srv.name), "%s", name);
}

void fake_nbd_export_pages(unsigned pages)
{
	assert_true(pages <= FAKE_NBD_PAGES);
	srv.pages = pages;
}

void fake_send_room(size_t bytes)
{
	assert_true(bytes <= FAKE_SEND_ROOM_DEFAULT);
	srv.send_room = bytes;
}

void fake_window(size_t bytes)
{
	srv.window = bytes;
}

void fake_nbd_reverse(bool on)
{
	srv.reverse = on;
}

void fake_nbd_refuse(bool on)
{
	srv.refuse = on;
}

void fake_nbd_silent(bool on)
{
	srv.silent = on;
}

void fake_nbd_hung(bool on)
{
	srv.hung = on;
}

static void arm(struct trigger *t, unsigned n)
{
	*t = (struct trigger){ .armed = true, .left = n };
}

void fake_nbd_drop_after(unsigned n)
{
	arm(&srv.drop, n);
}

void fake_nbd_wrong_cookie_after(unsigned n)
{
	arm(&srv.wrong_cookie, n);
}

void fake_nbd_short_read_after(unsigned n, unsigned bytes)
{
	assert_true(bytes < FAKE_NBD_PAGE);
	arm(&srv.short_read, n);
	srv.short_bytes = bytes;
}

void fake_nbd_error_next(uint32_t nbd_error)
{
	srv.error_next = nbd_error;
}

static void server_close(struct tcp_stream *s)
{
	if (!s->closing)
		s->closing = "the server closed the connection";
	s->phase = SRV_GONE;
}

void fake_nbd_close_now(void)
{
	for (unsigned i = 0; i < TCP_STREAM_MAX; i++)
		if (streams[i].in_use && streams[i].state == TCP_STREAM_OPEN)
			server_close(&streams[i]);
}

unsigned fake_streams_in_use(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < TCP_STREAM_MAX; i++)
		n += streams[i].in_use;
	return n;
}

/* ------------------------------------------------------- server bytes */

static uint64_t get_be(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static void put_be(struct tcp_stream *s, unsigned n, uint64_t v)
{
	if (s->down_len + n > DOWN_MAX)
		fail_msg("fake NBD server: more than %d bytes unread", DOWN_MAX);
	for (unsigned i = 0; i < n; i++)
		s->down[s->down_len + i] = (uint8_t)(v >> (8 * (n - 1 - i)));
	s->down_len += n;
}

static void put_bytes(struct tcp_stream *s, const void *p, size_t n)
{
	if (s->down_len + n > DOWN_MAX)
		fail_msg("fake NBD server: more than %d bytes unread", DOWN_MAX);
	memcpy(s->down + s->down_len, p, n);
	s->down_len += n;
}

static void greeting(struct tcp_stream *s)
{
	put_be(s, 8, NBDMAGIC);
	put_be(s, 8, IHAVEOPT);
	put_be(s, 2, FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES);
	s->greeted = true;
}

static void option_reply(struct tcp_stream *s, uint32_t type, uint32_t len)
{
	put_be(s, 8, OPT_REPLY_MAGIC);
	put_be(s, 4, OPT_GO);
	put_be(s, 4, type);
	put_be(s, 4, len);
}

/*
 * NBD_OPT_GO ("NBD_OPT_INFO and NBD_OPT_GO"): the name and the two
 * information requests this client always sends, checked byte for byte.
 */
static void answer_go(struct tcp_stream *s, const uint8_t *d, uint32_t len)
{
	uint32_t name_len;
	uint16_t ninfo;

	if (len < 6)
		fail_msg("fake NBD server: NBD_OPT_GO of %u bytes", len);
	name_len = (uint32_t)get_be(d, 4);
	if (name_len > len - 6)
		fail_msg("fake NBD server: name of %u bytes in %u", name_len,
			 len);
	ninfo = (uint16_t)get_be(d + 4 + name_len, 2);
	if (len != 4 + name_len + 2 + 2u * ninfo || ninfo != 2 ||
	    get_be(d + 6 + name_len, 2) != INFO_EXPORT ||
	    get_be(d + 8 + name_len, 2) != INFO_BLOCK_SIZE)
		fail_msg("fake NBD server: NBD_OPT_GO asks for %u information "
			 "types in %u bytes, not NBD_INFO_EXPORT and "
			 "NBD_INFO_BLOCK_SIZE", ninfo, len);
	if (name_len != strlen(srv.name) ||
	    memcmp(d + 4, srv.name, name_len)) {
		option_reply(s, REP_ERR_UNKNOWN, 0);
		return;
	}
	option_reply(s, REP_INFO, 12);
	put_be(s, 2, INFO_EXPORT);
	put_be(s, 8, (uint64_t)srv.pages * FAKE_NBD_PAGE);
	put_be(s, 2, TFLAG_HAS_FLAGS | TFLAG_SEND_FLUSH);
	option_reply(s, REP_INFO, 14);
	put_be(s, 2, INFO_BLOCK_SIZE);
	put_be(s, 4, 1);
	put_be(s, 4, FAKE_NBD_PAGE);
	put_be(s, 4, MAX_BLOCK);
	option_reply(s, REP_ACK, 0);
	s->phase = SRV_TRANSMISSION;
	if (s->log)
		s->log->handshake_done = true;
}

static void log_request(struct tcp_stream *s, bool is_write, uint64_t cookie,
			uint64_t offset)
{
	struct fake_conn_log *l = s->log;

	if (!l)
		return;
	for (unsigned i = 0; i < MIN(l->requests, FAKE_NBD_LOG_REQUESTS); i++)
		if (l->cookie[i] == cookie)
			fail_msg("fake NBD server: cookie %llu sent twice on "
				 "one connection", (unsigned long long)cookie);
	if (l->requests < FAKE_NBD_LOG_REQUESTS) {
		l->cookie[l->requests] = cookie;
		l->offset[l->requests] = offset;
		l->is_write[l->requests] = is_write;
	}
	l->requests++;
}

static void reply_header(struct tcp_stream *s, uint32_t error,
			 uint64_t cookie);

/*
 * One request ("Request message"), when all of it is in: returns the
 * bytes it took, 0 when more must come first.
 */
static size_t take_request(struct tcp_stream *s, const uint8_t *p,
			   size_t have)
{
	uint16_t flags, type;
	uint64_t cookie, offset;
	uint32_t length;
	bool is_write;
	struct answer *a;

	if (have < REQUEST_SIZE)
		return 0;
	flags = (uint16_t)get_be(p + 4, 2);
	type = (uint16_t)get_be(p + 6, 2);
	cookie = get_be(p + 8, 8);
	offset = get_be(p + 16, 8);
	length = (uint32_t)get_be(p + 24, 4);
	if (get_be(p, 4) == REQUEST_MAGIC && !flags && type == CMD_FLUSH &&
	    !offset && !length) {
		/* Sent only when nothing else is in flight: answered now. */
		fake_nbd.flushes++;
		reply_header(s, 0, cookie);
		return REQUEST_SIZE;
	}
	if (get_be(p, 4) != REQUEST_MAGIC || flags ||
	    (type != CMD_READ && type != CMD_WRITE) || length != FAKE_NBD_PAGE)
		fail_msg("fake NBD server: bad request: magic 0x%08llx flags "
			 "%u type %u length %u", (unsigned long long)get_be(p, 4),
			 flags, type, length);
	if (offset % FAKE_NBD_PAGE ||
	    offset + FAKE_NBD_PAGE > (uint64_t)srv.pages * FAKE_NBD_PAGE)
		fail_msg("fake NBD server: the client asked for offset 0x%llx "
			 "of a %u-page export", (unsigned long long)offset,
			 srv.pages);
	is_write = type == CMD_WRITE;
	if (is_write && have < REQUEST_SIZE + FAKE_NBD_PAGE)
		return 0;
	log_request(s, is_write, cookie, offset);
	if (!srv.silent && !srv.hung) {
		if (batch_len == BATCH_MAX)
			fail_msg("fake NBD server: more than %d requests in one "
				 "poll", BATCH_MAX);
		a = &batch[batch_len++];
		a->is_write = is_write;
		a->cookie = cookie;
		a->offset = offset;
		if (is_write)
			memcpy(a->data, p + REQUEST_SIZE, FAKE_NBD_PAGE);
	}
	return REQUEST_SIZE + (is_write ? FAKE_NBD_PAGE : 0);
}

/* Takes the next unit of what the client pushed; 0 when none is whole. */
static size_t take_unit(struct tcp_stream *s, const uint8_t *p, size_t have)
{
	uint32_t len;

	switch (s->phase) {
	case SRV_CLIENT_FLAGS:
		if (have < 4)
			return 0;
		if (get_be(p, 4) != (FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES))
			fail_msg("fake NBD server: client flags 0x%llx, not "
				 "FIXED_NEWSTYLE | NO_ZEROES",
				 (unsigned long long)get_be(p, 4));
		s->phase = SRV_OPTION;
		return 4;
	case SRV_OPTION:
		if (have < OPTION_HEADER_SIZE)
			return 0;
		len = (uint32_t)get_be(p + 12, 4);
		if (get_be(p, 8) != IHAVEOPT || get_be(p + 8, 4) != OPT_GO ||
		    len > 4096)
			fail_msg("fake NBD server: option 0x%llx/%llu of %u "
				 "bytes, not NBD_OPT_GO",
				 (unsigned long long)get_be(p, 8),
				 (unsigned long long)get_be(p + 8, 4), len);
		if (have < OPTION_HEADER_SIZE + len)
			return 0;
		answer_go(s, p + OPTION_HEADER_SIZE, len);
		return OPTION_HEADER_SIZE + len;
	case SRV_TRANSMISSION:
		return take_request(s, p, have);
	case SRV_GONE:
		return have;
	}
	return 0;
}

static void reply_header(struct tcp_stream *s, uint32_t error,
			 uint64_t cookie)
{
	put_be(s, 4, SIMPLE_REPLY_MAGIC);
	put_be(s, 4, error);
	put_be(s, 8, cookie);
	fake_nbd.replies++;
}

static bool fires(struct trigger *t)
{
	if (!t->armed || t->left)
		return false;
	t->armed = false;
	return true;
}

static void count_down(struct trigger *t)
{
	if (t->armed && t->left)
		t->left--;
}

/*
 * This poll's requests, answered in order (or last first), with what
 * the test armed. Returns false when the connection is over.
 */
static bool answer(struct tcp_stream *s, struct answer *a)
{
	uint8_t *page = fake_nbd_image[a->offset / FAKE_NBD_PAGE];

	if (fires(&srv.drop)) {
		server_close(s);
		return false;
	}
	if (fires(&srv.wrong_cookie)) {
		fake_nbd.wrong_cookie = a->cookie + WRONG_COOKIE_DELTA;
		reply_header(s, 0, fake_nbd.wrong_cookie);
		return false;
	}
	if (!a->is_write && fires(&srv.short_read)) {
		reply_header(s, 0, a->cookie);
		put_bytes(s, page, srv.short_bytes);
		server_close(s);
		return false;
	}
	if (srv.error_next) {
		reply_header(s, srv.error_next, a->cookie);
		srv.error_next = 0;
	} else if (a->is_write) {
		memcpy(page, a->data, FAKE_NBD_PAGE);
		reply_header(s, 0, a->cookie);
	} else {
		reply_header(s, 0, a->cookie);
		put_bytes(s, page, FAKE_NBD_PAGE);
	}
	count_down(&srv.drop);
	count_down(&srv.wrong_cookie);
	count_down(&srv.short_read);
	return true;
}

static void serve(struct tcp_stream *s)
{
	size_t at = 0, took;

	batch_len = 0;
	while (at < s->up_pushed &&
	       (took = take_unit(s, s->up + at, s->up_pushed - at)))
		at += took;
	memmove(s->up, s->up + at, s->up_len - at);
	s->up_len -= at;
	s->up_pushed -= at;
	for (unsigned i = 0; i < batch_len; i++) {
		unsigned k = srv.reverse ? batch_len - 1 - i : i;

		if (!answer(s, &batch[k]))
			break;
	}
	batch_len = 0;
}

/* One poll of one stream: the network delivers, then the server acts. */
static void step(struct tcp_stream *s)
{
	memmove(s->down, s->down + s->down_read, s->down_len - s->down_read);
	s->down_len -= s->down_read;
	s->down_visible = s->down_len;
	s->down_read = 0;
	if (s->state == TCP_STREAM_ENDED)
		return;
	if (s->closing) {
		s->state = TCP_STREAM_ENDED;
		s->why = s->closing;
		return;
	}
	if (s->state == TCP_STREAM_CONNECTING) {
		if (srv.refuse) {
			s->state = TCP_STREAM_ENDED;
			s->why = "the server refused or reset the connection";
			if (s->log)
				s->log->refused = true;
			return;
		}
		s->state = TCP_STREAM_OPEN;
	}
	if (!s->greeted) {
		if (!srv.silent)
			greeting(s);
		return;
	}
	/* A silent server takes requests (and answers none), nothing else. */
	if (srv.silent && s->phase != SRV_TRANSMISSION)
		return;
	serve(s);
}

/* ------------------------------------------------ net/net_stack.h */

void net_poll(void)
{
	tsc += per_poll_ns;
	for (unsigned i = 0; i < TCP_STREAM_MAX; i++)
		if (streams[i].in_use)
			step(&streams[i]);
}

void net_format_ip(uint32_t ip, char buf[16])
{
	snprintf(buf, 16, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xff,
		 (ip >> 8) & 0xff, ip & 0xff);
}

/* ----------------------------------------------- net/tcp_stream.h */

static void check_live(const struct tcp_stream *s)
{
	if (!s || s < streams || s >= streams + TCP_STREAM_MAX || !s->in_use)
		fail_msg("a TCP stream used after tcp_stream_abort (or never "
			 "made)");
}

struct tcp_stream *tcp_stream_connect(uint32_t ip, uint16_t port,
				      const char **why)
{
	struct tcp_stream *s = NULL;
	unsigned n = fake_nbd.connects++;

	(void)ip;
	(void)port;
	for (unsigned i = 0; i < TCP_STREAM_MAX && !s; i++)
		if (!streams[i].in_use)
			s = &streams[i];
	if (!s) {
		*why = "every TCP stream is in use";
		return NULL;
	}
	memset(s, 0, sizeof(*s));
	s->in_use = true;
	s->state = TCP_STREAM_CONNECTING;
	s->phase = SRV_CLIENT_FLAGS;
	if (n < FAKE_NBD_MAX_CONNS) {
		s->log = &fake_nbd.conn[n];
		s->log->opened_ms = fake_clock_ms();
	}
	return s;
}

enum tcp_stream_state tcp_stream_state(const struct tcp_stream *s)
{
	check_live(s);
	return s->state;
}

const char *tcp_stream_why(const struct tcp_stream *s)
{
	check_live(s);
	return s->why ? s->why : "";
}

size_t tcp_stream_write_room(const struct tcp_stream *s)
{
	check_live(s);
	if (s->state != TCP_STREAM_OPEN || s->up_len >= srv.send_room)
		return 0;
	return srv.send_room - s->up_len;
}

size_t tcp_stream_write(struct tcp_stream *s, const void *buf, size_t len)
{
	size_t n = MIN(len, tcp_stream_write_room(s));

	memcpy(s->up + s->up_len, buf, n);
	s->up_len += n;
	return n;
}

void tcp_stream_push(struct tcp_stream *s)
{
	check_live(s);
	s->up_pushed = s->up_len;
}

/* Of what the server has not taken yet, what is past the window. */
size_t tcp_stream_unsent(const struct tcp_stream *s)
{
	check_live(s);
	return s->up_len > srv.window ? s->up_len - srv.window : 0;
}

size_t tcp_stream_read(struct tcp_stream *s, void *buf, size_t max)
{
	size_t n;

	check_live(s);
	n = MIN(max, s->down_visible - s->down_read);
	memcpy(buf, s->down + s->down_read, n);
	s->down_read += n;
	return n;
}

void tcp_stream_abort(struct tcp_stream *s)
{
	check_live(s);
	s->in_use = false;
	fake_nbd.aborts++;
}
