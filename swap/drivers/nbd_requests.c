// SPDX-License-Identifier: BSD-2-Clause
/*
 * The NBD client's requests (swap/drivers/nbd_requests.h): up to
 * NBD_QUEUE_DEPTH in flight in the slot table, told apart by cookie;
 * the send queue they go out in; the replies that complete them; the
 * requests of a lost connection queued again or failed; and the
 * completions that wait for poll's caller. The connection they go out
 * on is swap/drivers/nbd.c's.
 */
#include "swap/drivers/nbd_requests.h"
#include "arch/x86/cpu.h"
#include "lib/console.h"

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

/*
 * Reads go first. A vCPU, or a task behind an async-PF token, waits for
 * each read, while a write only gives a frame back. So a read joins the
 * send queue ahead of the writes (and flushes) not begun yet, and a write
 * is begun only while the connection holds less than NBD_UNSENT_MAX
 * bytes it has not put on the wire: a read then waits behind one write
 * at most, not behind a send buffer full of them (lwIP's 128 KiB are 32
 * pages: ~16 ms at the ~8 MB/s of Bochs's network), while the writes
 * still fill whatever window the network gives. The server may answer
 * requests in any order anyway (the NBD protocol lets it), so nobody
 * may count on the order they were submitted in.
 */
#define NBD_UNSENT_MAX (NBD_REQUEST_SIZE + NBD_BLOCK)

static bool is_read(const struct nbd_slot *s)
{
	return !s->flush && s->req.op == BLK_READ;
}

static uint8_t *queued(struct nbd_dev *nd, unsigned pos)
{
	return &nd->sendq[(nd->send_head + pos) % NBD_QUEUE_DEPTH];
}

static void enqueue(struct nbd_dev *nd, unsigned idx)
{
	unsigned at = nd->send_count;

	if (is_read(&nd->slot[idx])) {
		/* Past the head if its first bytes are out, and past reads. */
		at = nd->sent ? 1 : 0;
		while (at < nd->send_count && is_read(&nd->slot[*queued(nd, at)]))
			at++;
		if (at < nd->send_count)
			nd->counters.reads_ahead_of_writes++;
		for (unsigned i = nd->send_count; i > at; i--)
			*queued(nd, i) = *queued(nd, i - 1);
	}
	*queued(nd, at) = (uint8_t)idx;
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

static void complete(void *ctx, uint64_t cookie, enum blk_status status,
		     uint32_t nbd_error)
{
	struct nbd_dev *nd = ctx;

	if (nd->down_since)
		nbd_outage_over(nd);
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

const struct nbd_reply_ops nbd_slot_reply_ops = {
	.lookup = lookup,
	.complete = complete,
};

void nbd_requeue_all(struct nbd_dev *nd)
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
	for (unsigned i = 0; i < n; i++)        /* reads go ahead (enqueue) */
		enqueue(nd, order[i]);
}

unsigned nbd_fail_all(struct nbd_dev *nd)
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

bool nbd_any_on_wire(const struct nbd_dev *nd)
{
	for (unsigned i = 0; i < NBD_QUEUE_DEPTH; i++)
		if (nd->slot[i].state == SLOT_ON_WIRE)
			return true;
	return false;
}

unsigned nbd_slots_in_use(const struct nbd_dev *nd)
{
	unsigned n = 0;

	for (unsigned i = 0; i < NBD_QUEUE_DEPTH; i++)
		n += nd->slot[i].state != SLOT_FREE;
	return n;
}

/* ------------------------------------------------------- send queue */

void nbd_pump_send(struct nbd_dev *nd)
{
	bool pushed = false;

	while (nd->send_count) {
		struct nbd_slot *s = &nd->slot[nd->sendq[nd->send_head]];
		bool write = !s->flush && s->req.op == BLK_WRITE;
		uint32_t total = NBD_REQUEST_SIZE + (write ? NBD_BLOCK : 0);
		const uint8_t *from;
		size_t want, took;

		if (!nd->sent && !is_read(s) &&
		    tcp_stream_unsent(nd->stream) >= NBD_UNSENT_MAX) {
			/* What is written may go out now, and make room. */
			if (pushed)
				tcp_stream_push(nd->stream);
			pushed = false;
			if (tcp_stream_unsent(nd->stream) >= NBD_UNSENT_MAX)
				break;
		}
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
			if (!nbd_any_on_wire(nd))
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

void nbd_send_flush(struct nbd_dev *nd)
{
	struct nbd_slot *s = &nd->slot[0];

	*s = (struct nbd_slot){ .state = SLOT_QUEUED, .flush = true,
				.cookie = ++nd->next_cookie };
	enqueue(nd, 0);
	nbd_pump_send(nd);
}

/* ------------------------------------------------- blockdev interface */

enum hv_err nbd_submit(struct blockdev *dev, const struct blk_request *req)
{
	struct nbd_dev *nd = dev->driver;

	if (req->offset % NBD_BLOCK || req->offset >= nd->size ||
	    nd->size - req->offset < NBD_BLOCK) {
		if (nbd_slots_in_use(nd) + nd->done_count >= NBD_QUEUE_DEPTH)
			return HV_ERR_BUSY;
		push_done(nd, req->cookie, BLK_OUT_OF_RANGE);
		return HV_OK;
	}
	/*
	 * Every request holds a slot until its completion is queued, and
	 * the completion its place until poll hands it out: together they
	 * never need more than the ring holds.
	 */
	if (nbd_slots_in_use(nd) + nd->done_count >= NBD_QUEUE_DEPTH)
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
			nbd_pump_send(nd);
		return HV_OK;
	}
	return HV_ERR_BUSY;
}

unsigned nbd_take_completions(struct nbd_dev *nd, struct blk_completion *out,
			      unsigned max)
{
	unsigned n = 0;

	while (n < max && nd->done_count) {
		out[n++] = nd->done[nd->done_head];
		nd->done_head = (nd->done_head + 1) % NBD_QUEUE_DEPTH;
		nd->done_count--;
	}
	return n;
}
