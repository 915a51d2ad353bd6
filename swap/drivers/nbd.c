// SPDX-License-Identifier: BSD-2-Clause
/*
 * The NBD client behind swap/blockdev.h (swap/drivers/nbd.h): request
 * slots, the order they go out in, the connection's life (connect,
 * handshake, transmission, lost, again), all driven from poll(). The
 * protocol's bytes are swap/drivers/nbd_proto.c's; the TCP stream is
 * net/tcp_stream.c's.
 */
#include "swap/drivers/nbd.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"
#include "lib/console.h"
#include "lib/counters.h"
#include "lib/format.h"
#include "lib/heap.h"
#include "lib/string.h"
#include "net/net_stack.h"
#include "net/tcp_stream.h"
#include "swap/drivers/nbd_proto.h"

#define REASON_LEN 160
#define READ_CHUNK 4096

enum conn_state {
	CONN_DOWN,              /* waiting for the back-off to end */
	CONN_CONNECTING,
	CONN_HANDSHAKE,
	CONN_READY,
	CONN_REFUSED,           /* the server broke the protocol: not again */
};

enum slot_state {
	SLOT_FREE,
	SLOT_QUEUED,            /* in the send queue (maybe partly sent) */
	SLOT_ON_WIRE,           /* sent whole, its reply awaited */
};

struct nbd_slot {
	enum slot_state state;
	bool flush;             /* our own NBD_CMD_FLUSH, not the caller's */
	struct blk_request req;
	uint64_t cookie;
	uint8_t header[NBD_REQUEST_SIZE];
};

#define NBD_COUNTERS(X) \
	X(struct nbd_counters, connects, "nbd.connects") \
	X(struct nbd_counters, connections_lost, "nbd.connections_lost") \
	X(struct nbd_counters, protocol_errors, "nbd.protocol_errors") \
	X(struct nbd_counters, requests_resent, "nbd.requests_resent") \
	X(struct nbd_counters, requests_given_up, "nbd.requests_given_up") \
	X(struct nbd_counters, requests_failed_fast, "nbd.requests_failed_fast") \
	X(struct nbd_counters, flushes, "nbd.flushes") \
	X(struct nbd_counters, flush_errors, "nbd.flush_errors") \
	X(struct nbd_counters, bytes_sent, "nbd.bytes_sent") \
	X(struct nbd_counters, bytes_received, "nbd.bytes_received")

struct nbd_counters {
	NBD_COUNTERS(COUNTER_FIELD)
};

static const struct counter_def nbd_counter_defs[] = {
	NBD_COUNTERS(COUNTER_DEF)
};

struct nbd_dev {
	struct blockdev bdev;
	char name[48];                  /* "nbd 10.0.2.2:10809/swap" */
	char export_name[NBD_EXPORT_NAME_MAX + 1];
	uint32_t ip;
	uint16_t port;
	uint64_t give_up_ticks;

	enum conn_state state;
	struct tcp_stream *stream;
	uint64_t state_since;           /* TSC when the state began */
	/*
	 * TSC of the last byte received, or of the moment a request went
	 * out while none was awaited: silence counts from the later.
	 */
	uint64_t last_byte;
	/*
	 * TSC the outage began; 0: none. It ends when the server answers
	 * on a new connection (at its handshake if nothing is resent).
	 */
	uint64_t down_since;
	uint64_t retry_at;
	unsigned backoff_ms;
	unsigned resent;                /* sent again on this connection */
	unsigned writes_unflushed;      /* written since the last flush */
	uint64_t last_write;            /* TSC the last write completed */
	bool gave_up;                   /* this outage failed its requests */
	bool opened;                    /* nbd_open has returned the device */
	uint64_t size;                  /* the export's, from the first handshake */

	struct nbd_handshake hs;
	struct nbd_reply_parser parser;
	struct nbd_reply_stats reply_stats;     /* of the connections before */
	char reason[REASON_LEN];

	struct nbd_slot slot[NBD_QUEUE_DEPTH];
	uint64_t next_cookie;
	/* The send queue: slot indexes in the order they go out. */
	uint8_t sendq[NBD_QUEUE_DEPTH];
	unsigned send_head, send_count;
	uint32_t sent;                  /* bytes of the head already sent */
	/* Completions not yet handed to poll's caller. */
	struct blk_completion done[NBD_QUEUE_DEPTH];
	unsigned done_head, done_count;

	struct nbd_counters counters;
	uint8_t rx[READ_CHUNK];
	uint8_t hs_out[NBD_HANDSHAKE_OUT_MAX];
};

static uint64_t ms_ticks(uint64_t ms)
{
	return tsc_hz / 1000 * ms;
}

/* ------------------------------------------------------------ slots */

static void push_done(struct nbd_dev *nd, void *cookie,
		      enum blk_status status)
{
	unsigned at = (nd->done_head + nd->done_count) % NBD_QUEUE_DEPTH;

	nd->done[at] = (struct blk_completion){ cookie, status };
	nd->done_count++;
}

static void finish_slot(struct nbd_dev *nd, struct nbd_slot *s,
			enum blk_status status)
{
	if (s->flush) {
		/* The writes it covered are written; a flush has no caller. */
		if (status == BLK_OK)
			nd->counters.flushes++;
		else
			nd->counters.flush_errors++;
	} else {
		if (status == BLK_OK && s->req.op == BLK_WRITE) {
			nd->writes_unflushed++;
			nd->last_write = rdtsc();
		}
		push_done(nd, s->req.cookie, status);
	}
	s->state = SLOT_FREE;
	s->flush = false;
}

static void enqueue(struct nbd_dev *nd, unsigned idx)
{
	nd->sendq[(nd->send_head + nd->send_count) % NBD_QUEUE_DEPTH] =
		(uint8_t)idx;
	nd->send_count++;
}

static bool lookup(void *ctx, uint64_t cookie, struct nbd_inflight *req)
{
	struct nbd_dev *nd = ctx;

	for (unsigned i = 0; i < NBD_QUEUE_DEPTH; i++) {
		struct nbd_slot *s = &nd->slot[i];

		if (s->state != SLOT_ON_WIRE || s->cookie != cookie)
			continue;
		*req = (struct nbd_inflight){
			.is_read = !s->flush && s->req.op == BLK_READ,
			.dest = (uint8_t *)(uintptr_t)s->req.buffer_pa,
			.length = NBD_BLOCK,
		};
		return true;
	}
	return false;
}

static void outage_over(struct nbd_dev *nd);

static void complete(void *ctx, uint64_t cookie, enum blk_status status,
		     uint32_t nbd_error)
{
	struct nbd_dev *nd = ctx;

	if (nd->down_since)
		outage_over(nd);
	for (unsigned i = 0; i < NBD_QUEUE_DEPTH; i++) {
		struct nbd_slot *s = &nd->slot[i];

		if (s->state == SLOT_ON_WIRE && s->cookie == cookie) {
			if (status != BLK_OK && s->flush)
				hv_error("%s: the server failed a flush: %s "
					 "(its writes may not be on its disk)",
					 nd->name, nbd_error_name(nbd_error));
			else if (status != BLK_OK)
				hv_error("%s: the server failed the %s at "
					 "offset 0x%llx: %s", nd->name,
					 s->req.op == BLK_READ ? "read"
							       : "write",
					 (unsigned long long)s->req.offset,
					 nbd_error_name(nbd_error));
			finish_slot(nd, s, status);
			return;
		}
	}
}

static const struct nbd_reply_ops reply_ops = {
	.lookup = lookup,
	.complete = complete,
};

/*
 * After a connection is lost: every request that was on it or waiting
 * goes out again, oldest cookie first, from its first byte.
 */
static void requeue_all(struct nbd_dev *nd)
{
	unsigned order[NBD_QUEUE_DEPTH], n = 0;

	for (unsigned i = 0; i < NBD_QUEUE_DEPTH; i++) {
		if (nd->slot[i].state == SLOT_FREE)
			continue;
		if (nd->slot[i].state == SLOT_ON_WIRE)
			nd->counters.requests_resent++;
		nd->slot[i].state = SLOT_QUEUED;
		/* Insertion by cookie: the order they were submitted in. */
		unsigned j = n++;

		while (j && nd->slot[order[j - 1]].cookie > nd->slot[i].cookie) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	nd->send_head = 0;
	nd->send_count = 0;
	nd->sent = 0;
	for (unsigned i = 0; i < n; i++)
		enqueue(nd, order[i]);
}

/* ------------------------------------------------------- connection */

static void set_conn_state(struct nbd_dev *nd, enum conn_state st)
{
	nd->state = st;
	nd->state_since = rdtsc();
}

/* Every request waiting or on the wire fails now. Returns how many. */
static unsigned fail_all(struct nbd_dev *nd)
{
	unsigned failed = 0;

	for (unsigned i = 0; i < NBD_QUEUE_DEPTH; i++) {
		if (nd->slot[i].state == SLOT_FREE)
			continue;
		finish_slot(nd, &nd->slot[i], BLK_IO_ERROR);
		failed++;
	}
	nd->send_count = 0;
	nd->sent = 0;
	return failed;
}

static void close_stream(struct nbd_dev *nd)
{
	if (nd->stream) {
		tcp_stream_abort(nd->stream);
		nd->stream = NULL;
	}
	if (nd->state == CONN_READY) {
		nd->counters.connections_lost++;
		/* Keep the replies' counts of the connection that ended. */
		nd->reply_stats = nd->parser.stats;
	}
}

/* The server has been gone too long: fail what waits. */
static void give_up(struct nbd_dev *nd)
{
	unsigned failed = fail_all(nd);

	nd->counters.requests_given_up += failed;
	nd->gave_up = true;
	hv_error("%s: the server has been unreachable for %llu ms: %u "
		 "request(s) failed, and so will every new one until it is "
		 "back", nd->name,
		 (unsigned long long)((rdtsc() - nd->down_since) /
				      ms_ticks(1)), failed);
}

/*
 * The connection ended or could not be made: try again after the
 * back-off. Said once per outage (the first failure); the attempts
 * after it are only counted, until the server is back or given up.
 */
static void drop_connection(struct nbd_dev *nd, const char *why)
{
	if (why != nd->reason)
		str_copy(nd->reason, why, sizeof(nd->reason));
	close_stream(nd);
	/*
	 * Not an error yet: nothing has failed (the requests wait for the
	 * next connection, or the other copies serve them). Giving up, or
	 * a server that breaks the protocol, is one.
	 */
	if (nd->opened && !nd->down_since)
		hv_info("%s: connection lost (%s); connecting again%s",
			nd->name, nd->reason,
			nd->bdev.fail_fast ? " (its requests fail at once: "
			"the other copies serve them)" : "");
	if (!nd->down_since)
		nd->down_since = rdtsc();
	nd->bdev.unavailable = true;
	if (nd->bdev.fail_fast)
		nd->counters.requests_failed_fast += fail_all(nd);
	else
		requeue_all(nd);
	set_conn_state(nd, CONN_DOWN);
	nd->retry_at = rdtsc() + ms_ticks(nd->backoff_ms);
	nd->backoff_ms = MIN(nd->backoff_ms * 2, NBD_BACKOFF_MAX_MS);
}

/*
 * The server broke the protocol (a reply that answers nothing, a wrong
 * magic, an export that changed): it is not trusted again, and what
 * waits for it fails now.
 */
static void refuse_server(struct nbd_dev *nd)
{
	unsigned failed;

	nd->counters.protocol_errors++;
	close_stream(nd);
	set_conn_state(nd, CONN_REFUSED);
	nd->bdev.unavailable = true;
	if (!nd->opened)
		return;         /* nbd_open says why */
	failed = fail_all(nd);
	nd->counters.requests_given_up += failed;
	hv_error("%s: %s: the server is not used again (%u request(s) "
		 "failed)", nd->name, nd->reason, failed);
}

static void start_connect(struct nbd_dev *nd)
{
	const char *why = NULL;

	nd->stream = tcp_stream_connect(nd->ip, nd->port, &why);
	if (!nd->stream) {
		drop_connection(nd, why);
		return;
	}
	nd->counters.connects++;
	set_conn_state(nd, CONN_CONNECTING);
}

static void start_handshake(struct nbd_dev *nd)
{
	/* The name was checked by nbd_open's first handshake. */
	nbd_handshake_init(&nd->hs, nd->export_name, nd->reason,
			   sizeof(nd->reason));
	set_conn_state(nd, CONN_HANDSHAKE);
}

/*
 * The server answers again: the outage is over. Not at the handshake
 * when requests were sent again, since a server that takes connections
 * but answers nothing (its disk hangs) must still be given up.
 */
static void outage_over(struct nbd_dev *nd)
{
	if (nd->opened)
		hv_info("%s: connected again after %llu ms; %u request(s) "
			"sent again", nd->name,
			(unsigned long long)((rdtsc() - nd->down_since) /
					     ms_ticks(1)), nd->resent);
	nd->down_since = 0;
	nd->gave_up = false;
	nd->bdev.unavailable = false;
}

/* The handshake is over: the transmission phase starts with rest. */
static void handshake_done(struct nbd_dev *nd, const uint8_t *rest,
			   size_t len)
{
	const struct nbd_export *ex = &nd->hs.export;

	if (nd->size && ex->size != nd->size) {
		fmt_snprintf(nd->reason, sizeof(nd->reason),
			     "the export is now %llu bytes, not %llu: not the "
			     "same swap area", (unsigned long long)ex->size,
			     (unsigned long long)nd->size);
		refuse_server(nd);
		return;
	}
	nd->size = ex->size;
	nbd_reply_init(&nd->parser, &reply_ops, nd, nd->reason,
		       sizeof(nd->reason));
	nd->parser.stats = nd->reply_stats;
	nd->resent = nd->send_count;
	if (nd->down_since && !nd->resent)
		outage_over(nd);
	nd->backoff_ms = NBD_BACKOFF_MIN_MS;
	nd->last_byte = rdtsc();
	set_conn_state(nd, CONN_READY);
	if (len && !nbd_reply_feed(&nd->parser, rest, len))
		refuse_server(nd);
}

static void run_handshake(struct nbd_dev *nd)
{
	size_t n = tcp_stream_read(nd->stream, nd->rx, sizeof(nd->rx));
	size_t used = 0, out_len = 0;
	enum nbd_progress p;

	if (!n) {
		if (tcp_stream_state(nd->stream) == TCP_STREAM_ENDED)
			drop_connection(nd, tcp_stream_why(nd->stream));
		else if (rdtsc() - nd->state_since >
			 ms_ticks(NBD_CONNECT_TIMEOUT_MS))
			drop_connection(nd, "the server sent no greeting");
		return;
	}
	nd->counters.bytes_received += n;
	p = nbd_handshake_feed(&nd->hs, nd->rx, n, &used, nd->hs_out,
			       sizeof(nd->hs_out), &out_len);
	if (out_len) {
		/* The send buffer is empty here: the few bytes fit. */
		if (tcp_stream_write(nd->stream, nd->hs_out, out_len) !=
		    out_len) {
			drop_connection(nd, "the handshake did not fit in the "
				       "send buffer");
			return;
		}
		nd->counters.bytes_sent += out_len;
		tcp_stream_push(nd->stream);
	}
	if (p == NBD_FAILED) {
		refuse_server(nd);
	} else if (p == NBD_DONE) {
		handshake_done(nd, nd->rx + used, n - used);
	}
}

static bool any_on_wire(const struct nbd_dev *nd)
{
	for (unsigned i = 0; i < NBD_QUEUE_DEPTH; i++)
		if (nd->slot[i].state == SLOT_ON_WIRE)
			return true;
	return false;
}

/* Sends what the send buffer takes, whole requests first in line. */
static void pump_send(struct nbd_dev *nd)
{
	bool pushed = false;

	while (nd->send_count) {
		struct nbd_slot *s = &nd->slot[nd->sendq[nd->send_head]];
		bool write = !s->flush && s->req.op == BLK_WRITE;
		uint32_t total = NBD_REQUEST_SIZE + (write ? NBD_BLOCK : 0);
		const uint8_t *from;
		size_t want, took;

		if (!nd->sent) {
			struct nbd_request r = {
				.type = s->flush ? NBD_CMD_FLUSH :
					write ? NBD_CMD_WRITE : NBD_CMD_READ,
				.cookie = s->cookie,
				.offset = s->flush ? 0 : s->req.offset,
				.length = s->flush ? 0 : NBD_BLOCK,
			};

			nbd_encode_request(s->header, &r);
		}
		if (nd->sent < NBD_REQUEST_SIZE) {
			from = s->header + nd->sent;
			want = NBD_REQUEST_SIZE - nd->sent;
		} else {
			from = (const uint8_t *)(uintptr_t)s->req.buffer_pa +
			       (nd->sent - NBD_REQUEST_SIZE);
			want = total - nd->sent;
		}
		took = tcp_stream_write(nd->stream, from, want);
		if (!took)
			break;
		pushed = true;
		nd->sent += (uint32_t)took;
		nd->counters.bytes_sent += took;
		if (nd->sent < total)
			continue;
		if (s->state == SLOT_QUEUED) {
			/* An idle connection is no silent server. */
			if (!any_on_wire(nd))
				nd->last_byte = rdtsc();
			s->state = SLOT_ON_WIRE;
		}
		nd->send_head = (nd->send_head + 1) % NBD_QUEUE_DEPTH;
		nd->send_count--;
		nd->sent = 0;
	}
	if (pushed)
		tcp_stream_push(nd->stream);
}

static unsigned slots_in_use(const struct nbd_dev *nd)
{
	unsigned n = 0;

	for (unsigned i = 0; i < NBD_QUEUE_DEPTH; i++)
		n += nd->slot[i].state != SLOT_FREE;
	return n;
}

static void run_ready(struct nbd_dev *nd)
{
	size_t n;

	pump_send(nd);
	while ((n = tcp_stream_read(nd->stream, nd->rx, sizeof(nd->rx)))) {
		nd->counters.bytes_received += n;
		nd->last_byte = rdtsc();
		if (!nbd_reply_feed(&nd->parser, nd->rx, n)) {
			refuse_server(nd);
			return;
		}
	}
	if (tcp_stream_state(nd->stream) == TCP_STREAM_ENDED) {
		if (nd->parser.data_left)
			fmt_snprintf(nd->reason, sizeof(nd->reason),
				     "%s in the middle of a read's data "
				     "(%u of %u bytes came)",
				     tcp_stream_why(nd->stream),
				     nd->parser.data_len - nd->parser.data_left,
				     nd->parser.data_len);
		else
			str_copy(nd->reason, tcp_stream_why(nd->stream),
				 sizeof(nd->reason));
		drop_connection(nd, nd->reason);
		return;
	}
	if (any_on_wire(nd) &&
	    rdtsc() - nd->last_byte > ms_ticks(NBD_SILENT_MS)) {
		fmt_snprintf(nd->reason, sizeof(nd->reason),
			     "no reply for %u ms with requests in flight",
			     NBD_SILENT_MS);
		drop_connection(nd, nd->reason);
		return;
	}
	pump_send(nd);
}

/*
 * Written pages reach the server's disk: once the connection has been
 * idle for NBD_FLUSH_QUIET_MS after writes, one NBD_CMD_FLUSH (when the
 * server takes it), so that a server that crashes loses at most what was
 * written since it last went quiet. Not at every short gap: a copy to a
 * returning member of a set writes one page at a time.
 */
static void flush_when_idle(struct nbd_dev *nd)
{
	struct nbd_slot *s = &nd->slot[0];

	if (nd->state != CONN_READY || !nd->writes_unflushed ||
	    !nd->hs.export.can_flush || slots_in_use(nd) || nd->done_count ||
	    rdtsc() - nd->last_write < ms_ticks(NBD_FLUSH_QUIET_MS))
		return;
	*s = (struct nbd_slot){ .state = SLOT_QUEUED, .flush = true,
				.cookie = ++nd->next_cookie };
	nd->writes_unflushed = 0;
	enqueue(nd, 0);
	pump_send(nd);
}

/* Moves the connection on as far as it goes without waiting. */
static void advance(struct nbd_dev *nd)
{
	net_poll();
	switch (nd->state) {
	case CONN_DOWN:
		if (rdtsc() >= nd->retry_at)
			start_connect(nd);
		break;
	case CONN_CONNECTING:
		if (tcp_stream_state(nd->stream) == TCP_STREAM_OPEN)
			start_handshake(nd);
		else if (tcp_stream_state(nd->stream) == TCP_STREAM_ENDED)
			drop_connection(nd, tcp_stream_why(nd->stream));
		else if (rdtsc() - nd->state_since >
			 ms_ticks(NBD_CONNECT_TIMEOUT_MS))
			drop_connection(nd, "no answer to the connection "
				       "request");
		break;
	case CONN_HANDSHAKE:
		run_handshake(nd);
		break;
	case CONN_READY:
		run_ready(nd);
		if (nd->state == CONN_READY)
			flush_when_idle(nd);
		break;
	case CONN_REFUSED:
		break;
	}
	if (nd->state == CONN_DOWN && nd->opened && nd->down_since &&
	    !nd->gave_up && rdtsc() - nd->down_since > nd->give_up_ticks)
		give_up(nd);
}

/* ------------------------------------------------- blockdev interface */

static enum hv_err nbd_submit(struct blockdev *dev,
			      const struct blk_request *req)
{
	struct nbd_dev *nd = dev->driver;

	if (req->offset % NBD_BLOCK || req->offset >= nd->size ||
	    nd->size - req->offset < NBD_BLOCK) {
		if (slots_in_use(nd) + nd->done_count >= NBD_QUEUE_DEPTH)
			return HV_ERR_BUSY;
		push_done(nd, req->cookie, BLK_OUT_OF_RANGE);
		return HV_OK;
	}
	/*
	 * Every request holds a slot until its completion is queued, and
	 * the completion its place until poll hands it out: together they
	 * never need more than the ring holds.
	 */
	if (slots_in_use(nd) + nd->done_count >= NBD_QUEUE_DEPTH)
		return HV_ERR_BUSY;
	for (unsigned i = 0; i < NBD_QUEUE_DEPTH; i++) {
		struct nbd_slot *s = &nd->slot[i];

		if (s->state != SLOT_FREE)
			continue;
		blk_count_submitted(dev, req);
		if (nd->gave_up || nd->state == CONN_REFUSED ||
		    (nd->bdev.fail_fast && nd->state != CONN_READY)) {
			push_done(nd, req->cookie, BLK_IO_ERROR);
			nd->counters.requests_given_up++;
			return HV_OK;
		}
		*s = (struct nbd_slot){ .state = SLOT_QUEUED, .req = *req,
					.cookie = ++nd->next_cookie };
		enqueue(nd, i);
		if (nd->state == CONN_READY)
			pump_send(nd);
		return HV_OK;
	}
	return HV_ERR_BUSY;
}

static unsigned nbd_poll(struct blockdev *dev, struct blk_completion *out,
			 unsigned max)
{
	struct nbd_dev *nd = dev->driver;
	unsigned n = 0;

	advance(nd);
	while (n < max && nd->done_count) {
		out[n++] = nd->done[nd->done_head];
		nd->done_head = (nd->done_head + 1) % NBD_QUEUE_DEPTH;
		nd->done_count--;
	}
	blk_count_errors(dev, out, n);
	return n;
}

static const struct blockdev_ops nbd_ops = {
	.submit = nbd_submit,
	.poll = nbd_poll,
};

/*
 * The counters of every server together, once: "nbd.reply.ok" is the
 * replies of all connections of the run (a set over several servers
 * gives one figure, not one line per server under the same name).
 */
#define NBD_MAX_DEVICES 8
static struct nbd_dev *devices[NBD_MAX_DEVICES];
static unsigned ndevices;

static uint64_t field(const void *obj, size_t offset)
{
	return *(const uint64_t *)((const uint8_t *)obj + offset);
}

static void each_counter(const void *obj, counter_fn fn, void *ctx)
{
	(void)obj;
	for (unsigned c = 0; c < ARRAY_SIZE(nbd_counter_defs); c++) {
		uint64_t sum = 0;

		for (unsigned i = 0; i < ndevices; i++)
			sum += field(&devices[i]->counters,
				     nbd_counter_defs[c].offset);
		fn(ctx, nbd_counter_defs[c].name, sum);
	}
	for (unsigned c = 0; c < nbd_reply_counter_count; c++) {
		uint64_t sum = 0;

		for (unsigned i = 0; i < ndevices; i++)
			sum += field(&devices[i]->parser.stats,
				     nbd_reply_counter_defs[c].offset);
		fn(ctx, nbd_reply_counter_defs[c].name, sum);
	}
}

static struct counter_source all_counters = { .each = each_counter };

static void register_counters(struct nbd_dev *nd)
{
	uint64_t unused;

	/* None in the registry: the first server of the run (or the unit
	 * tests' registry was emptied since). */
	if (!counters_find(nbd_counter_defs[0].name, &unused)) {
		ndevices = 0;
		counters_register(&all_counters);
	}
	if (ndevices < NBD_MAX_DEVICES)
		devices[ndevices++] = nd;
}

struct blockdev *nbd_open(const struct nbd_target *t, char *err,
			  size_t err_len)
{
	struct nbd_dev *nd = hv_alloc(sizeof(*nd));
	char ip[16];
	uint64_t start;

	if (!nd) {
		str_copy(err, "out of memory", err_len);
		return NULL;
	}
	memset(nd, 0, sizeof(*nd));
	net_format_ip(t->ip, ip);
	fmt_snprintf(nd->name, sizeof(nd->name), "nbd %s:%u/%s", ip, t->port,
		     t->export_name);
	if (!nbd_handshake_init(&nd->hs, t->export_name, nd->reason,
				sizeof(nd->reason))) {
		fmt_snprintf(err, err_len, "%s", nd->reason);
		return NULL;
	}
	str_copy(nd->export_name, t->export_name, sizeof(nd->export_name));
	nd->ip = t->ip;
	nd->port = t->port;
	nd->give_up_ticks = ms_ticks(t->give_up_ms ? t->give_up_ms
						   : NBD_GIVE_UP_MS_DEFAULT);
	nd->backoff_ms = NBD_BACKOFF_MIN_MS;
	nd->bdev = (struct blockdev){
		.ops = &nbd_ops,
		.name = nd->name,
		.queue_depth = NBD_QUEUE_DEPTH,
		.driver = nd,
	};
	/* One attempt, waited for: the server must be there at start-up. */
	start_connect(nd);
	start = rdtsc();
	while (nd->state == CONN_CONNECTING || nd->state == CONN_HANDSHAKE) {
		if (rdtsc() - start > ms_ticks(2 * NBD_CONNECT_TIMEOUT_MS)) {
			drop_connection(nd, "the handshake took too long");
			break;
		}
		advance(nd);
		cpu_relax();
	}
	if (nd->state != CONN_READY) {
		if (nd->stream)
			tcp_stream_abort(nd->stream);
		fmt_snprintf(err, err_len, "%s:%u: %s", ip, t->port,
			     nd->reason[0] ? nd->reason
					   : "the connection failed");
		return NULL;
	}
	nd->bdev.size = nd->size;
	nd->opened = true;
	register_counters(nd);
	hv_info("%s: connected, export of %llu MiB%s", nd->name,
		(unsigned long long)(nd->size >> 20),
		nd->hs.export.can_flush ? ", flush" : "");
	return &nd->bdev;
}
