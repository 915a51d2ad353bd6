// SPDX-License-Identifier: BSD-2-Clause
/*
 * The NBD client behind swap/blockdev.h (swap/drivers/nbd.h): the
 * connection's life, all driven from poll(): connect, handshake,
 * transmission, lost, again after the back-off; the give-up after the
 * target's time (swap.timeout); refusal of a server that breaks the
 * protocol; a flush once quiet after writes; nbd_open and the counters.
 * The request slots and the send queue are swap/drivers/nbd_requests.c's,
 * the protocol's bytes swap/drivers/nbd_proto.c's, the TCP stream
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
#include "swap/drivers/nbd_requests.h"

static const struct counter_def nbd_counter_defs[] = {
	NBD_COUNTERS(COUNTER_DEF)
};

static uint64_t ms_ticks(uint64_t ms)
{
	return tsc_hz / 1000 * ms;
}

/* ------------------------------------------------------- connection */

static void set_conn_state(struct nbd_dev *nd, enum conn_state st)
{
	nd->state = st;
	nd->state_since = rdtsc();
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
	unsigned failed = nbd_fail_all(nd);

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
		nd->counters.requests_failed_fast += nbd_fail_all(nd);
	else
		nbd_requeue_all(nd);
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
	failed = nbd_fail_all(nd);
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
void nbd_outage_over(struct nbd_dev *nd)
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
	nbd_reply_init(&nd->parser, &nbd_slot_reply_ops, nd, nd->reason,
		       sizeof(nd->reason));
	nd->parser.stats = nd->reply_stats;
	nd->resent = nd->send_count;
	if (nd->down_since && !nd->resent)
		nbd_outage_over(nd);
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

static void run_ready(struct nbd_dev *nd)
{
	size_t n;

	nbd_pump_send(nd);
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
	if (nbd_any_on_wire(nd) &&
	    rdtsc() - nd->last_byte > ms_ticks(NBD_SILENT_MS)) {
		fmt_snprintf(nd->reason, sizeof(nd->reason),
			     "no reply for %u ms with requests in flight",
			     NBD_SILENT_MS);
		drop_connection(nd, nd->reason);
		return;
	}
	nbd_pump_send(nd);
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
	if (nd->state != CONN_READY || !nd->writes_unflushed ||
	    !nd->hs.export.can_flush || nbd_slots_in_use(nd) ||
	    nd->done_count ||
	    rdtsc() - nd->last_write < ms_ticks(NBD_FLUSH_QUIET_MS))
		return;
	nd->writes_unflushed = 0;
	nbd_send_flush(nd);
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

static unsigned nbd_poll(struct blockdev *dev, struct blk_completion *out,
			 unsigned max)
{
	struct nbd_dev *nd = dev->driver;
	unsigned n;

	advance(nd);
	n = nbd_take_completions(nd, out, max);
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
