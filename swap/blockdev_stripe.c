// SPDX-License-Identifier: BSD-2-Clause
/*
 * Striped and replicated swap over several block devices
 * (swap/blockdev_stripe.h): the layout, the choice of copy, the missed
 * pages of a member that was away and their re-replication.
 */
#include "swap/blockdev_stripe.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"
#include "lib/console.h"
#include "lib/counters.h"
#include "lib/format.h"
#include "lib/heap.h"
#include "lib/string.h"
#include "swap/swap_format.h"

#define NO_PAGE UINT64_MAX
/* Requests each member may get beyond the set's own: a check, a copy. */
#define MEMBER_RESERVE 2

#define STRIPE_COUNTERS(X) \
	X(struct stripe_counters, degraded_writes, "stripe.degraded_writes") \
	X(struct stripe_counters, read_fallbacks, "stripe.read_fallbacks") \
	X(struct stripe_counters, pages_resynced, "stripe.pages_resynced") \
	X(struct stripe_counters, members_lost, "stripe.members_lost") \
	X(struct stripe_counters, members_back, "stripe.members_back") \
	X(struct stripe_counters, members_refused, "stripe.members_refused") \
	X(struct stripe_counters, members_replaced, "stripe.members_replaced") \
	X(struct stripe_counters, requests_failed, "stripe.requests_failed") \
	X(struct stripe_counters, busy_for_resync, "stripe.busy_for_resync")

struct stripe_counters {
	STRIPE_COUNTERS(COUNTER_FIELD)
};

static const struct counter_def stripe_counter_defs[] = {
	STRIPE_COUNTERS(COUNTER_DEF)
};

enum sub_kind {
	SUB_REQUEST,            /* one copy of a request of the set */
	SUB_CHECK,              /* a member's header, read on its return */
	SUB_RESYNC_READ,        /* a missed page, read from another copy */
	SUB_RESYNC_WRITE,       /* ... and written to the member that missed it */
};

/* What a member's completion cookie points at. */
struct sub {
	enum sub_kind kind;
	uint8_t member;         /* whose request (a copy: the one it fills) */
	uint8_t on;             /* the member it was sent to */
	uint8_t copy;           /* SUB_REQUEST: which copy (k) */
	uint16_t request;       /* SUB_REQUEST: index in requests[] */
};

enum member_state {
	MEMBER_OK,
	MEMBER_AWAY,            /* its device said it is unavailable */
	MEMBER_CHECKING,        /* back: its header is being read again */
	MEMBER_REFUSED,         /* came back with another header: not used */
};

enum resync_phase {
	RESYNC_IDLE,
	RESYNC_READING,
	RESYNC_WRITING,
};

struct member {
	struct blockdev *dev;
	enum member_state state;
	uint8_t header[SWAP_HEADER_SIZE];       /* as opened */
	uint8_t *page;          /* a low page: header checks and copies */
	uint8_t *missed;        /* a bit per member page: a write it missed */
	uint64_t nmissed;
	uint64_t cursor;        /* where the next missed page is looked for */
	unsigned inflight;      /* requests on its device */
	uint64_t away_since;    /* TSC it went away (or was refused) */
	enum resync_phase resync;
	uint64_t resync_mpage;  /* the member page being copied */
	uint64_t resync_data;   /* ... which is this data page of the set */
	struct sub check_sub, resync_read_sub, resync_write_sub;
};

struct request {
	bool in_use;
	struct blk_request req;
	uint64_t data;          /* data page of the set; NO_PAGE: the header */
	unsigned pending;       /* copies on a member */
	unsigned written;       /* copies written */
	unsigned tried;         /* bit k: copy k was read (or could not be) */
	struct sub sub[STRIPE_MAX_MEMBERS];
};

struct stripe {
	struct blockdev bdev;
	char name[64];
	unsigned n, replicas;
	uint64_t member_pages;  /* pages of each member, its header included */
	uint64_t rows;
	uint8_t *header;        /* the set's own (page 0), made here */
	uint8_t *written;       /* a bit per data page: it holds data */
	struct member m[STRIPE_MAX_MEMBERS];
	/* swap.spare: devices that take an away member's place. */
	struct blockdev *spare[STRIPE_MAX_MEMBERS];
	uint8_t *spare_header[STRIPE_MAX_MEMBERS];
	unsigned nspares;
	uint64_t replace_after; /* TSC ticks away before that; 0: never */
	struct request r[STRIPE_MAX_REQUESTS];
	struct blk_completion done[STRIPE_MAX_REQUESTS];
	unsigned done_head, done_count;
	struct stripe_counters counters;
	struct counter_source counter_src;
};

/* --------------------------------------------------------------- layout */

static unsigned copy_member(const struct stripe *st, uint64_t data,
			    unsigned k)
{
	return (unsigned)((data % st->n + k) % st->n);
}

static uint64_t copy_mpage(const struct stripe *st, uint64_t data,
			   unsigned k)
{
	return 1 + data / st->n * st->replicas + k;
}

/* The set's data page that member page mpage (>= 1) of member s holds. */
static uint64_t data_of(const struct stripe *st, unsigned s, uint64_t mpage,
			unsigned *k)
{
	uint64_t rel = mpage - 1;
	uint64_t row = rel / st->replicas;

	*k = (unsigned)(rel % st->replicas);
	return row * st->n + (s + st->n - *k) % st->n;
}

static bool missed(const struct member *m, uint64_t mpage)
{
	return m->missed[mpage / 8] & (1u << (mpage % 8));
}

static void set_missed(struct member *m, uint64_t mpage, bool on)
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
static bool copy_valid(const struct stripe *st, uint64_t d, unsigned k)
{
	const struct member *m = &st->m[copy_member(st, d, k)];

	return m->state == MEMBER_OK && !missed(m, copy_mpage(st, d, k));
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
	unsigned s = copy_member(st, rq->data, k);
	struct blk_request r = {
		.op = rq->req.op,
		.offset = copy_mpage(st, rq->data, k) * PAGE_SIZE,
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
		if (st->replicas > 1 && !copy_valid(st, rq->data, k))
			continue;
		if (st->replicas == 1 &&
		    st->m[copy_member(st, rq->data, k)].state ==
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
	struct request *rq = &st->r[sub->request];
	struct member *m = &st->m[sub->member];
	uint64_t mpage = copy_mpage(st, rq->data, sub->copy);

	rq->pending--;
	if (rq->req.op == BLK_READ) {
		if (ok)
			finish(st, rq, BLK_OK);
		else if (!read_next_copy(st, rq))
			finish(st, rq, BLK_IO_ERROR);
		return;
	}
	/* A copy that did not take the write is stale until copied again. */
	set_missed(m, mpage, !ok);
	rq->written += ok;
	if (rq->pending)
		return;
	if (rq->written && rq->written < st->replicas)
		st->counters.degraded_writes++;
	if (rq->written)
		st->written[rq->data / 8] |= (uint8_t)(1u << (rq->data % 8));
	finish(st, rq, rq->written ? BLK_OK : BLK_IO_ERROR);
}

/* ------------------------------------------------------------- members */

static bool write_in_flight(const struct stripe *st, uint64_t data)
{
	for (unsigned i = 0; i < STRIPE_MAX_REQUESTS; i++)
		if (st->r[i].in_use && st->r[i].req.op == BLK_WRITE &&
		    st->r[i].data == data)
			return true;
	return false;
}

static bool resync_in_flight(const struct stripe *st, uint64_t data)
{
	for (unsigned s = 0; s < st->n; s++)
		if (st->m[s].resync != RESYNC_IDLE &&
		    st->m[s].resync_data == data)
			return true;
	return false;
}

static void member_lost(struct stripe *st, unsigned s)
{
	struct member *m = &st->m[s];

	m->state = MEMBER_AWAY;
	m->away_since = rdtsc();
	st->counters.members_lost++;
	hv_info("stripe: %s is away: %s", m->dev->name,
		st->replicas > 1 ? "its copies are read from the other "
		"members, and the writes it misses are kept to copy to it "
		"when it is back" : "requests wait for it (one copy)");
}

static void start_check(struct stripe *st, unsigned s)
{
	struct member *m = &st->m[s];
	struct blk_request r = {
		.op = BLK_READ, .offset = 0,
		.buffer_pa = (uint64_t)(uintptr_t)m->page,
		.cookie = &m->check_sub,
	};

	m->check_sub = (struct sub){ SUB_CHECK, (uint8_t)s, (uint8_t)s, 0, 0 };
	if (blk_submit(m->dev, &r) == HV_OK) {
		m->inflight++;
		m->state = MEMBER_CHECKING;
	}
}

static void check_done(struct stripe *st, unsigned s, bool ok)
{
	struct member *m = &st->m[s];

	if (!ok) {
		m->state = MEMBER_AWAY;         /* looked at again later */
		return;
	}
	if (memcmp(m->page, m->header, SWAP_HEADER_SIZE)) {
		m->state = MEMBER_REFUSED;      /* away for good: a spare may come */
		st->counters.members_refused++;
		hv_error("stripe: %s came back with another swap header (a "
			 "server restarted without its data?): its copies are "
			 "not used again", m->dev->name);
		return;
	}
	m->state = MEMBER_OK;
	m->cursor = 1;
	st->counters.members_back++;
	hv_info("stripe: %s is back; %llu page(s) it missed are copied to "
		"it", m->dev->name, (unsigned long long)m->nmissed);
}

/* The next missed page of member s that can be copied now: true, set. */
static bool next_missed(struct stripe *st, unsigned s, uint64_t *mpage,
			uint64_t *data, unsigned *src_copy)
{
	struct member *m = &st->m[s];

	for (uint64_t seen = 0; seen < st->member_pages; seen++) {
		uint64_t p = m->cursor;
		unsigned k;

		m->cursor = m->cursor + 1 >= st->member_pages ? 1
							       : m->cursor + 1;
		if (p == 0 || !missed(m, p))
			continue;
		if (p - 1 >= st->rows * st->replicas)
			continue;       /* past the last whole row: unused */
		*data = data_of(st, s, p, &k);
		if (write_in_flight(st, *data) || resync_in_flight(st, *data))
			continue;
		for (unsigned c = 0; c < st->replicas; c++) {
			if (c == k || !copy_valid(st, *data, c))
				continue;
			*mpage = p;
			*src_copy = c;
			return true;
		}
	}
	return false;
}

static void start_resync(struct stripe *st, unsigned s)
{
	struct member *m = &st->m[s];
	uint64_t mpage, data;
	unsigned c, src;
	struct blk_request r;

	if (!next_missed(st, s, &mpage, &data, &c))
		return;
	src = copy_member(st, data, c);
	m->resync_read_sub = (struct sub){ SUB_RESYNC_READ, (uint8_t)s,
					   (uint8_t)src, 0, 0 };
	r = (struct blk_request){
		.op = BLK_READ, .offset = copy_mpage(st, data, c) * PAGE_SIZE,
		.buffer_pa = (uint64_t)(uintptr_t)m->page,
		.cookie = &m->resync_read_sub,
	};
	if (blk_submit(st->m[src].dev, &r) != HV_OK)
		return;
	st->m[src].inflight++;
	m->resync = RESYNC_READING;
	m->resync_mpage = mpage;
	m->resync_data = data;
}

static void resync_read_done(struct stripe *st, unsigned s, bool ok)
{
	struct member *m = &st->m[s];
	struct blk_request r = {
		.op = BLK_WRITE, .offset = m->resync_mpage * PAGE_SIZE,
		.buffer_pa = (uint64_t)(uintptr_t)m->page,
		.cookie = &m->resync_write_sub,
	};

	m->resync_write_sub = (struct sub){ SUB_RESYNC_WRITE, (uint8_t)s,
					    (uint8_t)s, 0, 0 };
	if (!ok || m->state != MEMBER_OK ||
	    blk_submit(m->dev, &r) != HV_OK) {
		m->resync = RESYNC_IDLE;        /* tried again later */
		return;
	}
	m->inflight++;
	m->resync = RESYNC_WRITING;
}

static void resync_write_done(struct stripe *st, unsigned s, bool ok)
{
	struct member *m = &st->m[s];

	m->resync = RESYNC_IDLE;
	if (!ok)
		return;
	set_missed(m, m->resync_mpage, false);
	st->counters.pages_resynced++;
	if (!m->nmissed)
		hv_info("stripe: %s has every page again", m->dev->name);
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
		check_done(st, sub->member, ok);
		break;
	case SUB_RESYNC_READ:
		resync_read_done(st, sub->member, ok);
		break;
	case SUB_RESYNC_WRITE:
		resync_write_done(st, sub->member, ok);
		break;
	}
}

/*
 * Member s has been away too long (or came back with another header):
 * the next spare takes its place, and every copy it held of a page with
 * data is copied to the spare from the other copies.
 */
static void replace_member(struct stripe *st, unsigned s)
{
	struct member *m = &st->m[s];
	const char *old = m->dev->name;
	uint64_t copies = 0;

	m->dev = st->spare[0];
	memcpy(m->header, st->spare_header[0], SWAP_HEADER_SIZE);
	st->nspares--;
	memmove(st->spare, st->spare + 1, st->nspares * sizeof(st->spare[0]));
	memmove(st->spare_header, st->spare_header + 1,
		st->nspares * sizeof(st->spare_header[0]));
	memset(m->missed, 0, st->member_pages / 8 + 1);
	m->nmissed = 0;
	for (uint64_t d = 0; d < st->n * st->rows; d++) {
		if (!(st->written[d / 8] & (1u << (d % 8))))
			continue;
		for (unsigned k = 0; k < st->replicas; k++)
			if (copy_member(st, d, k) == s) {
				set_missed(m, copy_mpage(st, d, k), true);
				copies++;
			}
	}
	m->dev->fail_fast = true;
	m->state = m->dev->unavailable ? MEMBER_AWAY : MEMBER_OK;
	m->away_since = rdtsc();
	m->cursor = 1;
	m->resync = RESYNC_IDLE;
	st->counters.members_replaced++;
	hv_info("stripe: %s has been away %llu s: %s takes its place; the "
		"%llu page(s) it held are copied to it", old,
		(unsigned long long)(st->replace_after / (tsc_hz ? tsc_hz : 1)),
		m->dev->name, (unsigned long long)copies);
}

static bool due_for_a_spare(const struct stripe *st, const struct member *m)
{
	return st->nspares && st->replace_after && !m->inflight &&
	       m->resync == RESYNC_IDLE &&
	       (m->state == MEMBER_REFUSED ||
		(m->state == MEMBER_AWAY &&
		 rdtsc() - m->away_since > st->replace_after));
}

/* Members that went away or came back; copies for those that did. */
static void watch_members(struct stripe *st)
{
	for (unsigned s = 0; s < st->n; s++) {
		struct member *m = &st->m[s];

		if (due_for_a_spare(st, m))
			replace_member(st, s);
		if (m->state == MEMBER_OK && m->dev->unavailable)
			member_lost(st, s);
		else if (m->state == MEMBER_AWAY && !m->dev->unavailable)
			start_check(st, s);
		if (m->state == MEMBER_OK && m->nmissed &&
		    m->resync == RESYNC_IDLE)
			start_resync(st, s);
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
	if (page && req->op == BLK_WRITE && resync_in_flight(st, page - 1)) {
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
		struct member *m = &st->m[copy_member(st, rq->data, k)];
		uint64_t mpage = copy_mpage(st, rq->data, k);
		bool use = st->replicas == 1 ? m->state != MEMBER_REFUSED
					     : m->state == MEMBER_OK;

		if (!use || !submit_copy(st, rq, k))
			set_missed(m, mpage, true);
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
	watch_members(st);
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

bool blockdev_stripe_add_spare(struct blockdev *set, struct blockdev *dev,
			       const uint8_t *header, uint64_t replace_after,
			       char *err, size_t err_len)
{
	struct stripe *st = set->driver;
	struct swap_header_info info;
	char why[120];

	if (st->nspares == STRIPE_MAX_MEMBERS || st->replicas < 2) {
		str_copy(err, st->replicas < 2 ? "a spare needs swap.replicas "
			 "of 2 or more (it is filled from the other copies)"
			 : "too many spares", err_len);
		return false;
	}
	if (swap_header_parse(header, dev->size, &info, why,
			      sizeof(why)) != HV_OK) {
		fmt_snprintf(err, err_len, "%s: %s", dev->name, why);
		return false;
	}
	if (info.device_size / PAGE_SIZE != st->member_pages) {
		fmt_snprintf(err, err_len, "%s has a swap area of %llu bytes, "
			     "the set's servers %llu: a spare must be formatted "
			     "like them", dev->name,
			     (unsigned long long)info.device_size,
			     (unsigned long long)(st->member_pages * PAGE_SIZE));
		return false;
	}
	st->spare_header[st->nspares] =
		(uint8_t *)(uintptr_t)hv_alloc_pages_low(1);
	if (!st->spare_header[st->nspares]) {
		str_copy(err, "out of memory", err_len);
		return false;
	}
	memcpy(st->spare_header[st->nspares], header, SWAP_HEADER_SIZE);
	st->spare[st->nspares++] = dev;
	st->replace_after = replace_after;
	return true;
}
