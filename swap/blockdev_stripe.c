// SPDX-License-Identifier: BSD-2-Clause
/*
 * Striped and replicated swap over several block devices
 * (swap/blockdev_stripe.h): the layout (which member holds each copy of
 * a page, and where), the choice of copy, and the set's requests: reads
 * from one copy, writes to every copy, their completions. Members away
 * and back, the re-replication of the pages they missed and spares are
 * in swap/stripe_resync.c.
 */
#include "swap/stripe_internal.h"
#include "lib/console.h"
#include "lib/format.h"
#include "lib/heap.h"
#include "lib/string.h"

/* Requests each member may get beyond the set's own: a header check,
 * and the copy jobs of re-replication (swap/stripe_internal.h). */
#define MEMBER_RESERVE (STRIPE_RESYNC_JOBS + 1)

static const struct counter_def stripe_counter_defs[] = {
	STRIPE_COUNTERS(COUNTER_DEF)
};

/* --------------------------------------------------------------- layout */

unsigned stripe_copy_member(const struct stripe *st, uint64_t data,
			    unsigned k)
{
	return (unsigned)((data % st->n + k) % st->n);
}

uint64_t stripe_copy_mpage(const struct stripe *st, uint64_t data,
			   unsigned k)
{
	return 1 + data / st->n * st->replicas + k;
}

/* The set's data page that member page mpage (>= 1) of member s holds. */
uint64_t stripe_data_of(const struct stripe *st, unsigned s, uint64_t mpage,
			unsigned *k)
{
	uint64_t rel = mpage - 1;
	uint64_t row = rel / st->replicas;

	*k = (unsigned)(rel % st->replicas);
	return row * st->n + (s + st->n - *k) % st->n;
}

bool stripe_missed(const struct member *m, uint64_t mpage)
{
	return m->missed[mpage / 8] & (1u << (mpage % 8));
}

void stripe_set_missed(struct member *m, uint64_t mpage, bool on)
{
	uint8_t bit = (uint8_t)(1u << (mpage % 8));

	if (on && !(m->missed[mpage / 8] & bit)) {
		m->missed[mpage / 8] |= bit;
		m->nmissed++;
	} else if (!on && (m->missed[mpage / 8] & bit)) {
		m->missed[mpage / 8] &= (uint8_t)~bit;
		m->nmissed--;
	}
}

/* Copy k of data page d may be read: its member is there and has it. */
bool stripe_copy_valid(const struct stripe *st, uint64_t d, unsigned k)
{
	const struct member *m = &st->m[stripe_copy_member(st, d, k)];

	return m->state == MEMBER_OK &&
	       !stripe_missed(m, stripe_copy_mpage(st, d, k));
}

/* ---------------------------------------------------------- completions */

static void push_done(struct stripe *st, void *cookie,
		      enum blk_status status)
{
	unsigned at = (st->done_head + st->done_count) % STRIPE_MAX_REQUESTS;

	st->done[at] = (struct blk_completion){ cookie, status };
	st->done_count++;
}

static void finish(struct stripe *st, struct request *rq,
		   enum blk_status status)
{
	if (status != BLK_OK)
		st->counters.requests_failed++;
	push_done(st, rq->req.cookie, status);
	rq->in_use = false;
}

/* Hands copy k of rq to its member; false when the member refused it. */
static bool submit_copy(struct stripe *st, struct request *rq, unsigned k)
{
	unsigned s = stripe_copy_member(st, rq->data, k);
	struct blk_request r = {
		.op = rq->req.op,
		.offset = stripe_copy_mpage(st, rq->data, k) * PAGE_SIZE,
		.buffer_pa = rq->req.buffer_pa,
		.cookie = &rq->sub[k],
	};

	rq->sub[k] = (struct sub){ SUB_REQUEST, (uint8_t)s, (uint8_t)s,
				   (uint8_t)k, (uint16_t)(rq - st->r) };
	if (blk_submit(st->m[s].dev, &r) != HV_OK)
		return false;
	st->m[s].inflight++;
	rq->pending++;
	return true;
}

/*
 * Reads rq from the next copy that may serve it. With one copy, from
 * that copy whatever its member's state (it waits for its server). False
 * when no copy is left.
 */
static bool read_next_copy(struct stripe *st, struct request *rq)
{
	for (unsigned k = 0; k < st->replicas; k++) {
		if (rq->tried & (1u << k))
			continue;
		rq->tried |= 1u << k;
		if (st->replicas > 1 && !stripe_copy_valid(st, rq->data, k))
			continue;
		if (st->replicas == 1 &&
		    st->m[stripe_copy_member(st, rq->data, k)].state ==
		    MEMBER_REFUSED)
			continue;
		if (rq->tried != 1u << k)
			st->counters.read_fallbacks++;
		if (submit_copy(st, rq, k))
			return true;
	}
	return false;
}

static void request_copy_done(struct stripe *st, const struct sub *sub,
			      bool ok)
{
	struct request *rq = &st->r[sub->index];
	struct member *m = &st->m[sub->member];
	uint64_t mpage = stripe_copy_mpage(st, rq->data, sub->copy);

	rq->pending--;
	if (rq->req.op == BLK_READ) {
		if (ok)
			finish(st, rq, BLK_OK);
		else if (!read_next_copy(st, rq))
			finish(st, rq, BLK_IO_ERROR);
		return;
	}
	/* A copy that did not take the write is stale until copied again. */
	stripe_set_missed(m, mpage, !ok);
	rq->written += ok;
	if (rq->pending)
		return;
	if (rq->written && rq->written < st->replicas)
		st->counters.degraded_writes++;
	if (rq->written)
		st->written[rq->data / 8] |= (uint8_t)(1u << (rq->data % 8));
	finish(st, rq, rq->written ? BLK_OK : BLK_IO_ERROR);
}

static void dispatch(struct stripe *st, const struct blk_completion *c)
{
	const struct sub *sub = c->cookie;
	bool ok = c->status == BLK_OK;

	st->m[sub->on].inflight--;
	switch (sub->kind) {
	case SUB_REQUEST:
		request_copy_done(st, sub, ok);
		break;
	case SUB_CHECK:
		stripe_check_done(st, sub->member, ok);
		break;
	case SUB_RESYNC_READ:
		stripe_resync_read_done(st, sub->index, ok);
		break;
	case SUB_RESYNC_WRITE:
		stripe_resync_write_done(st, sub->index, ok);
		break;
	}
}

/* ----------------------------------------------------- the set's device */

static unsigned requests_in_use(const struct stripe *st)
{
	unsigned n = 0;

	for (unsigned i = 0; i < STRIPE_MAX_REQUESTS; i++)
		n += st->r[i].in_use;
	return n;
}

static enum hv_err stripe_submit(struct blockdev *dev,
				 const struct blk_request *req)
{
	struct stripe *st = dev->driver;
	struct request *rq = NULL;
	uint64_t page = req->offset / PAGE_SIZE;

	if (requests_in_use(st) + st->done_count >= dev->queue_depth)
		return HV_ERR_BUSY;
	if (req->offset % PAGE_SIZE || req->offset >= dev->size) {
		blk_count_submitted(dev, req);
		push_done(st, req->cookie, BLK_OUT_OF_RANGE);
		return HV_OK;
	}
	if (page && req->op == BLK_WRITE &&
	    stripe_resync_in_flight(st, page - 1)) {
		st->counters.busy_for_resync++;
		return HV_ERR_BUSY;
	}
	for (unsigned i = 0; i < STRIPE_MAX_REQUESTS && !rq; i++)
		if (!st->r[i].in_use)
			rq = &st->r[i];
	blk_count_submitted(dev, req);
	*rq = (struct request){ .in_use = true, .req = *req,
				.data = page ? page - 1 : NO_PAGE };
	if (!page) {
		/* The set's header: made here, never written. */
		if (req->op == BLK_READ)
			memcpy((void *)(uintptr_t)req->buffer_pa, st->header,
			       SWAP_HEADER_SIZE);
		finish(st, rq, req->op == BLK_READ ? BLK_OK : BLK_IO_ERROR);
		return HV_OK;
	}
	if (req->op == BLK_READ) {
		if (!read_next_copy(st, rq))
			finish(st, rq, BLK_IO_ERROR);
		return HV_OK;
	}
	for (unsigned k = 0; k < st->replicas; k++) {
		struct member *m = &st->m[stripe_copy_member(st, rq->data, k)];
		uint64_t mpage = stripe_copy_mpage(st, rq->data, k);
		bool use = st->replicas == 1 ? m->state != MEMBER_REFUSED
					     : m->state == MEMBER_OK;

		if (!use || !submit_copy(st, rq, k))
			stripe_set_missed(m, mpage, true);
	}
	if (!rq->pending)
		finish(st, rq, BLK_IO_ERROR);
	return HV_OK;
}

static unsigned stripe_poll(struct blockdev *dev, struct blk_completion *out,
			    unsigned max)
{
	struct stripe *st = dev->driver;
	struct blk_completion c[32];
	unsigned n = 0;

	for (unsigned s = 0; s < st->n; s++) {
		unsigned got;

		do {
			got = blk_poll(st->m[s].dev, c, ARRAY_SIZE(c));
			for (unsigned i = 0; i < got; i++)
				dispatch(st, &c[i]);
		} while (got == ARRAY_SIZE(c));
	}
	stripe_watch_members(st);
	while (n < max && st->done_count) {
		out[n++] = st->done[st->done_head];
		st->done_head = (st->done_head + 1) % STRIPE_MAX_REQUESTS;
		st->done_count--;
	}
	blk_count_errors(dev, out, n);
	return n;
}

static const struct blockdev_ops stripe_ops = {
	.submit = stripe_submit,
	.poll = stripe_poll,
};

struct blockdev *blockdev_stripe_create(struct blockdev **members,
					const uint8_t *const *headers,
					unsigned n, unsigned replicas,
					char *err, size_t err_len)
{
	struct swap_header_info info[STRIPE_MAX_MEMBERS];
	struct stripe *st;
	unsigned depth = STRIPE_MAX_REQUESTS;
	uint64_t size;
	char why[120];

	if (!n || n > STRIPE_MAX_MEMBERS || !replicas || replicas > n) {
		fmt_snprintf(err, err_len, "%u copies of each page need at "
			     "least %u servers (%u named, at most %u)",
			     replicas, replicas, n, STRIPE_MAX_MEMBERS);
		return NULL;
	}
	for (unsigned i = 0; i < n; i++) {
		if (swap_header_parse(headers[i], members[i]->size, &info[i],
				      why, sizeof(why)) != HV_OK) {
			fmt_snprintf(err, err_len, "%s: %s", members[i]->name,
				     why);
			return NULL;
		}
		if (info[i].device_size != info[0].device_size) {
			fmt_snprintf(err, err_len, "%s has a swap area of %llu "
				     "bytes, %s one of %llu: the servers of a "
				     "set must be formatted alike",
				     members[i]->name,
				     (unsigned long long)info[i].device_size,
				     members[0]->name,
				     (unsigned long long)info[0].device_size);
			return NULL;
		}
		if (members[i]->queue_depth < depth + MEMBER_RESERVE)
			depth = members[i]->queue_depth > MEMBER_RESERVE
				? members[i]->queue_depth - MEMBER_RESERVE : 0;
	}
	st = hv_alloc(sizeof(*st));
	if (!st || !depth) {
		str_copy(err, st ? "a member takes too few requests at once"
				 : "out of memory", err_len);
		return NULL;
	}
	memset(st, 0, sizeof(*st));
	st->n = n;
	st->replicas = replicas;
	st->member_pages = info[0].device_size / PAGE_SIZE;
	st->rows = (st->member_pages - 1) / replicas;
	size = PAGE_SIZE * (1 + n * st->rows);
	st->header = (uint8_t *)(uintptr_t)hv_alloc_pages_low(1);
	st->written = hv_alloc(n * st->rows / 8 + 1);
	if (!st->written) {
		str_copy(err, "out of memory", err_len);
		return NULL;
	}
	memset(st->written, 0, n * st->rows / 8 + 1);
	if (!st->header ||
	    swap_header_build(st->header, size, info[0].uuid, why,
			      sizeof(why)) != HV_OK) {
		fmt_snprintf(err, err_len, "the set of %u servers, %u copies "
			     "each: %s", n, replicas,
			     st->header ? why : "out of memory");
		return NULL;
	}
	for (unsigned i = 0; i < n; i++) {
		struct member *m = &st->m[i];

		m->dev = members[i];
		memcpy(m->header, headers[i], SWAP_HEADER_SIZE);
		m->page = (uint8_t *)(uintptr_t)hv_alloc_pages_low(1);
		m->missed = hv_alloc(st->member_pages / 8 + 1);
		m->cursor = 1;
		if (!m->page || !m->missed) {
			str_copy(err, "out of memory", err_len);
			return NULL;
		}
		memset(m->missed, 0, st->member_pages / 8 + 1);
		/* Other copies serve while it is away: fail fast. */
		m->dev->fail_fast = replicas > 1;
	}
	for (unsigned j = 0; j < STRIPE_RESYNC_JOBS; j++) {
		st->job[j].page = (uint8_t *)(uintptr_t)hv_alloc_pages_low(1);
		if (!st->job[j].page) {
			str_copy(err, "out of memory", err_len);
			return NULL;
		}
	}
	fmt_snprintf(st->name, sizeof(st->name), "stripe of %u, %u cop%s", n,
		     replicas, replicas == 1 ? "y" : "ies");
	st->bdev = (struct blockdev){
		.ops = &stripe_ops,
		.name = st->name,
		.size = size,
		.queue_depth = depth,
		.driver = st,
	};
	st->counter_src = (struct counter_source){
		.defs = stripe_counter_defs,
		.ndefs = ARRAY_SIZE(stripe_counter_defs),
		.obj = &st->counters,
	};
	counters_register(&st->counter_src);
	return &st->bdev;
}
