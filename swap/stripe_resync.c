// SPDX-License-Identifier: BSD-2-Clause
/*
 * The members of a striped and replicated swap set (swap/blockdev_stripe.h)
 * going away and coming back: a member back with the same header gets
 * the pages it missed while away (its missed bitmap) copied to it from
 * another copy, several at a time (STRIPE_RESYNC_JOBS), while the set
 * goes on; a member away
 * longer than swap.timeout, or back with another header, gives its place
 * to a spare, which gets a copy of every page with data (the set's
 * written-pages bitmap). The layout and the requests are in
 * swap/blockdev_stripe.c.
 */
#include "swap/stripe_internal.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"
#include "lib/console.h"
#include "lib/format.h"
#include "lib/heap.h"
#include "lib/string.h"

/* ------------------------------------------------ members away and back */

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

void stripe_check_done(struct stripe *st, unsigned s, bool ok)
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

/* ------------------------------------------------------- re-replication */

static bool write_in_flight(const struct stripe *st, uint64_t data)
{
	for (unsigned i = 0; i < STRIPE_MAX_REQUESTS; i++)
		if (st->r[i].in_use && st->r[i].req.op == BLK_WRITE &&
		    st->r[i].data == data)
			return true;
	return false;
}

bool stripe_resync_in_flight(const struct stripe *st, uint64_t data)
{
	for (unsigned j = 0; j < STRIPE_RESYNC_JOBS; j++)
		if (st->job[j].phase != RESYNC_IDLE && st->job[j].data == data)
			return true;
	return false;
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
		if (p == 0 || !stripe_missed(m, p))
			continue;
		if (p - 1 >= st->rows * st->replicas)
			continue;       /* past the last whole row: unused */
		*data = stripe_data_of(st, s, p, &k);
		if (write_in_flight(st, *data) ||
		    stripe_resync_in_flight(st, *data))
			continue;
		for (unsigned c = 0; c < st->replicas; c++) {
			if (c == k || !stripe_copy_valid(st, *data, c))
				continue;
			*mpage = p;
			*src_copy = c;
			return true;
		}
	}
	return false;
}

/* Starts job j on the next missed page of member s; false: none now. */
static bool start_resync(struct stripe *st, unsigned s, unsigned j)
{
	struct resync_job *job = &st->job[j];
	uint64_t mpage, data;
	unsigned c, src;
	struct blk_request r;

	if (!next_missed(st, s, &mpage, &data, &c))
		return false;
	src = stripe_copy_member(st, data, c);
	job->read_sub = (struct sub){ SUB_RESYNC_READ, (uint8_t)s,
				      (uint8_t)src, 0, (uint16_t)j };
	r = (struct blk_request){
		.op = BLK_READ,
		.offset = stripe_copy_mpage(st, data, c) * PAGE_SIZE,
		.buffer_pa = (uint64_t)(uintptr_t)job->page,
		.cookie = &job->read_sub,
	};
	if (blk_submit(st->m[src].dev, &r) != HV_OK)
		return false;
	st->m[src].inflight++;
	st->m[s].resyncing++;
	job->phase = RESYNC_READING;
	job->member = (uint8_t)s;
	job->mpage = mpage;
	job->data = data;
	return true;
}

static void end_job(struct stripe *st, struct resync_job *job)
{
	job->phase = RESYNC_IDLE;
	st->m[job->member].resyncing--;
}

void stripe_resync_read_done(struct stripe *st, unsigned j, bool ok)
{
	struct resync_job *job = &st->job[j];
	struct member *m = &st->m[job->member];
	struct blk_request r = {
		.op = BLK_WRITE, .offset = job->mpage * PAGE_SIZE,
		.buffer_pa = (uint64_t)(uintptr_t)job->page,
		.cookie = &job->write_sub,
	};

	job->write_sub = (struct sub){ SUB_RESYNC_WRITE, job->member,
				       job->member, 0, (uint16_t)j };
	if (!ok || m->state != MEMBER_OK ||
	    blk_submit(m->dev, &r) != HV_OK) {
		end_job(st, job);               /* tried again later */
		return;
	}
	m->inflight++;
	job->phase = RESYNC_WRITING;
}

void stripe_resync_write_done(struct stripe *st, unsigned j, bool ok)
{
	struct resync_job *job = &st->job[j];
	struct member *m = &st->m[job->member];

	end_job(st, job);
	if (!ok)
		return;
	stripe_set_missed(m, job->mpage, false);
	st->counters.pages_resynced++;
	if (!m->nmissed)
		hv_info("stripe: %s has every page again", m->dev->name);
}

/*
 * Free copy jobs go to the members with missed pages, one page at a time
 * round the members, so that one member's copies do not starve another's.
 */
static void start_resyncs(struct stripe *st)
{
	bool started = true;

	while (started) {
		started = false;
		for (unsigned s = 0; s < st->n; s++) {
			struct member *m = &st->m[s];
			unsigned j = 0;

			if (m->state != MEMBER_OK ||
			    m->nmissed <= m->resyncing)
				continue;
			while (j < STRIPE_RESYNC_JOBS &&
			       st->job[j].phase != RESYNC_IDLE)
				j++;
			if (j == STRIPE_RESYNC_JOBS)
				return;
			if (start_resync(st, s, j))
				started = true;
		}
	}
}

/* --------------------------------------------------------------- spares */

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
			if (stripe_copy_member(st, d, k) == s) {
				stripe_set_missed(m, stripe_copy_mpage(st, d, k),
						  true);
				copies++;
			}
	}
	m->dev->fail_fast = true;
	m->state = m->dev->unavailable ? MEMBER_AWAY : MEMBER_OK;
	m->away_since = rdtsc();
	m->cursor = 1;
	st->counters.members_replaced++;
	hv_info("stripe: %s has been away %llu s: %s takes its place; the "
		"%llu page(s) it held are copied to it", old,
		(unsigned long long)(st->replace_after / (tsc_hz ? tsc_hz : 1)),
		m->dev->name, (unsigned long long)copies);
}

static bool due_for_a_spare(const struct stripe *st, const struct member *m)
{
	return st->nspares && st->replace_after && !m->inflight &&
	       !m->resyncing &&
	       (m->state == MEMBER_REFUSED ||
		(m->state == MEMBER_AWAY &&
		 rdtsc() - m->away_since > st->replace_after));
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

/* Members that went away or came back; copies for those that did. */
void stripe_watch_members(struct stripe *st)
{
	for (unsigned s = 0; s < st->n; s++) {
		struct member *m = &st->m[s];

		if (due_for_a_spare(st, m))
			replace_member(st, s);
		if (m->state == MEMBER_OK && m->dev->unavailable)
			member_lost(st, s);
		else if (m->state == MEMBER_AWAY && !m->dev->unavailable)
			start_check(st, s);
	}
	start_resyncs(st);
}
