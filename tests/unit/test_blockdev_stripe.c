/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swap/blockdev_stripe.c over fake members: in-memory swap areas whose
 * requests complete at the next poll, that can go away (and then fail
 * their requests at once, as a fail-fast NBD member does), come back
 * with their header or another, and fail a chosen read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "lib/counters.h"
#include "swap/blockdev_stripe.h"
#include "swap/swap_format.h"
#include "tests/unit/console_capture.h"

#define MEMBER_PAGES    520     /* each fake member, its header included */
#define MAX_PENDING     64

/* The TSC (tests/unit/fake_x86): a clock the tests move, 1 GHz. */
uint64_t tsc_hz = 1000000000ull;
static uint64_t now_tsc;

uint64_t rdtsc(void)
{
	return now_tsc;
}

/* The hypervisor's heap: a bump arena, emptied by each make_set. */
static uint8_t heap[4 << 20] __attribute__((aligned(4096)));
static size_t heap_used;

void *hv_alloc(size_t bytes)
{
	void *p = heap + heap_used;

	heap_used += (bytes + 4095) & ~(size_t)4095;
	assert_true(heap_used <= sizeof(heap));
	return p;
}

uint64_t hv_alloc_pages_low(unsigned npages)
{
	return (uintptr_t)hv_alloc(npages * 4096u);
}

struct fake {
	struct blockdev bdev;
	char name[16];
	uint8_t image[MEMBER_PAGES * 4096];
	struct blk_request pending[MAX_PENDING];
	unsigned npending;
	uint64_t fail_read_at;          /* a read of this offset fails once */
	unsigned reads, writes;
};

static struct fake fakes[4];

static enum hv_err fake_submit(struct blockdev *dev,
			       const struct blk_request *r)
{
	struct fake *f = dev->driver;

	assert_true(f->npending < MAX_PENDING);
	if (r->op == BLK_READ)
		f->reads++;
	else
		f->writes++;
	f->pending[f->npending++] = *r;
	return HV_OK;
}

static unsigned fake_poll(struct blockdev *dev, struct blk_completion *out,
			  unsigned max)
{
	struct fake *f = dev->driver;
	unsigned n = 0;

	while (n < max && f->npending) {
		struct blk_request r = f->pending[0];
		enum blk_status st = BLK_OK;
		uint8_t *page = f->image + r.offset;

		memmove(f->pending, f->pending + 1,
			--f->npending * sizeof(f->pending[0]));
		assert_true(r.offset + 4096 <= sizeof(f->image));
		if (dev->unavailable && dev->fail_fast) {
			st = BLK_IO_ERROR;
		} else if (r.op == BLK_READ && r.offset == f->fail_read_at) {
			st = BLK_IO_ERROR;
			f->fail_read_at = UINT64_MAX;
		} else if (r.op == BLK_READ) {
			memcpy((void *)(uintptr_t)r.buffer_pa, page, 4096);
		} else {
			memcpy(page, (void *)(uintptr_t)r.buffer_pa, 4096);
		}
		out[n++] = (struct blk_completion){ r.cookie, st };
	}
	return n;
}

static const struct blockdev_ops fake_ops = {
	.submit = fake_submit, .poll = fake_poll,
};

static void make_fake(unsigned i, uint64_t pages, uint8_t uuid_byte)
{
	struct fake *f = &fakes[i];
	uint8_t uuid[SWAP_UUID_LEN];
	char err[128];

	memset(f, 0, sizeof(*f));
	memset(uuid, uuid_byte, sizeof(uuid));
	snprintf(f->name, sizeof(f->name), "fake%u", i);
	assert_int_equal(swap_header_build(f->image, pages * 4096, uuid, err,
					   sizeof(err)), HV_OK);
	f->fail_read_at = UINT64_MAX;
	f->bdev = (struct blockdev){ .ops = &fake_ops, .name = f->name,
				     .size = MEMBER_PAGES * 4096,
				     .queue_depth = 32, .driver = f };
}

static struct blockdev *make_set(unsigned n, unsigned replicas)
{
	struct blockdev *members[4];
	const uint8_t *headers[4];
	char err[160];
	struct blockdev *set;

	counters_reset();
	console_forget();
	heap_used = 0;
	now_tsc = 0;
	for (unsigned i = 0; i < n; i++) {
		make_fake(i, MEMBER_PAGES, (uint8_t)(0x10 + i));
		members[i] = &fakes[i].bdev;
		headers[i] = fakes[i].image;
	}
	set = blockdev_stripe_create(members, headers, n, replicas, err,
				     sizeof(err));
	assert_non_null(set);
	return set;
}

static uint64_t stat(const char *name)
{
	uint64_t v;

	assert_int_equal(counters_find(name, &v), 1);
	return v;
}

/* Runs one request on the set to its end; returns its status. */
static enum blk_status run(struct blockdev *set, enum blk_op op,
			   uint64_t page, void *buf)
{
	struct blk_request r = { op, page * 4096, (uintptr_t)buf, buf };
	struct blk_completion c;

	assert_int_equal(blk_submit(set, &r), HV_OK);
	for (int i = 0; i < 100; i++)
		if (blk_poll(set, &c, 1)) {
			assert_ptr_equal(c.cookie, buf);
			return c.status;
		}
	fail_msg("the request never completed");
	return BLK_IO_ERROR;
}

static void fill(uint8_t *buf, uint64_t page, uint32_t gen)
{
	for (unsigned w = 0; w < 1024; w++)
		((uint32_t *)buf)[w] = (uint32_t)(page << 20 | gen << 12 | w);
}

static bool holds(const uint8_t *p, uint64_t page, uint32_t gen)
{
	return ((const uint32_t *)p)[0] == (uint32_t)(page << 20 | gen << 12) &&
	       ((const uint32_t *)p)[1023] ==
	       (uint32_t)(page << 20 | gen << 12 | 1023);
}

static uint8_t *member_page(unsigned m, uint64_t mpage)
{
	return fakes[m].image + mpage * 4096;
}

/* Pages of data of the set: N members, (MEMBER_PAGES - 1) / R rows. */
static uint64_t data_pages(unsigned n, unsigned r)
{
	return n * ((MEMBER_PAGES - 1) / r);
}

static void write_all(struct blockdev *set, uint64_t pages, uint32_t gen)
{
	static uint8_t buf[4096] __attribute__((aligned(4096)));

	for (uint64_t d = 0; d < pages; d++) {
		fill(buf, d, gen);
		assert_int_equal(run(set, BLK_WRITE, 1 + d, buf), BLK_OK);
	}
}

static void read_all(struct blockdev *set, uint64_t pages, uint32_t gen)
{
	static uint8_t buf[4096] __attribute__((aligned(4096)));

	for (uint64_t d = 0; d < pages; d++) {
		memset(buf, 0, sizeof(buf));
		assert_int_equal(run(set, BLK_READ, 1 + d, buf), BLK_OK);
		if (!holds(buf, d, gen))
			fail_msg("data page %llu came back wrong",
				 (unsigned long long)d);
	}
}

static void test_layout_and_header(void **state)
{
	static uint8_t buf[4096] __attribute__((aligned(4096)));
	struct swap_header_info info;
	char err[128];
	struct blockdev *set = make_set(3, 2);
	uint64_t pages = data_pages(3, 2);

	(void)state;
	/* 3 members of 519 data pages, 2 copies: 3 * 259 pages. */
	assert_int_equal(set->size, 4096 * (1 + 3 * 259));
	assert_int_equal(run(set, BLK_READ, 0, buf), BLK_OK);
	assert_int_equal(swap_header_parse(buf, set->size, &info, err,
					   sizeof(err)), HV_OK);
	assert_int_equal(info.device_size, set->size);
	assert_int_equal(info.uuid[0], 0x10);   /* member 0's */
	assert_int_equal(run(set, BLK_WRITE, 0, buf), BLK_IO_ERROR);

	write_all(set, pages, 1);
	/* Copy k of page d: member (d % 3 + k) % 3, page 1 + d / 3 * 2 + k. */
	for (uint64_t d = 0; d < pages; d++)
		for (unsigned k = 0; k < 2; k++)
			assert_true(holds(member_page((d % 3 + k) % 3,
						      1 + d / 3 * 2 + k), d, 1));
	read_all(set, pages, 1);
	/* Each read went to copy 0 only. */
	assert_int_equal(fakes[0].reads + fakes[1].reads + fakes[2].reads,
			 pages);
	assert_int_equal(stat("stripe.degraded_writes"), 0);
	assert_int_equal(stat("stripe.read_fallbacks"), 0);
}

static void test_striping_one_copy(void **state)
{
	struct blockdev *set = make_set(2, 1);
	uint64_t pages = data_pages(2, 1);

	(void)state;
	assert_int_equal(pages, 1038);
	write_all(set, pages, 7);
	for (uint64_t d = 0; d < pages; d++)
		assert_true(holds(member_page(d % 2, 1 + d / 2), d, 7));
	read_all(set, pages, 7);
	/* A member that is away is still asked (its requests wait). */
	fakes[1].bdev.unavailable = true;
	assert_false(fakes[1].bdev.fail_fast);
	read_all(set, pages, 7);
}

static void test_member_away_and_back(void **state)
{
	struct blockdev *set = make_set(2, 2);
	uint64_t pages = data_pages(2, 2);

	(void)state;
	assert_true(fakes[0].bdev.fail_fast && fakes[1].bdev.fail_fast);
	write_all(set, pages, 1);
	fakes[1].bdev.unavailable = true;
	blk_poll(set, NULL, 0);
	assert_int_equal(stat("stripe.members_lost"), 1);
	/* Writes go to member 0 alone; reads are served by it. */
	write_all(set, pages, 2);
	assert_int_equal(stat("stripe.degraded_writes"), pages);
	read_all(set, pages, 2);
	for (uint64_t d = 0; d < pages; d++)
		assert_true(holds(member_page(1, 1 + d / 2 * 2 + (d % 2 == 0)),
				  d, 1));       /* member 1 is stale */
	/* Back with its own header: checked, then every page copied. */
	fakes[1].bdev.unavailable = false;
	for (int i = 0; i < 1000 && stat("stripe.pages_resynced") < pages; i++)
		blk_poll(set, NULL, 0);
	assert_int_equal(stat("stripe.members_back"), 1);
	assert_int_equal(stat("stripe.pages_resynced"), pages);
	for (uint64_t d = 0; d < pages; d++)
		for (unsigned k = 0; k < 2; k++)
			assert_true(holds(member_page((d % 2 + k) % 2,
						      1 + d / 2 * 2 + k), d, 2));
	/* Member 0 away now: member 1 serves every page, up to date. */
	fakes[0].bdev.unavailable = true;
	blk_poll(set, NULL, 0);
	read_all(set, pages, 2);
	assert_int_equal(stat("stripe.requests_failed"), 0);
}

/*
 * A member back after many missed writes gets them copied several at a
 * time: as many copy requests in flight as there are jobs, never more,
 * so the set's own requests always find room on a member (its queue
 * depth is the member's less the jobs and a header check).
 */
static void test_copies_made_several_at_once(void **state)
{
	struct blockdev *set = make_set(2, 2);
	uint64_t pages = data_pages(2, 2);
	unsigned most = 0, polls = 0;

	(void)state;
	assert_int_equal(set->queue_depth, 32 - 8 - 1);
	write_all(set, pages, 1);
	fakes[1].bdev.unavailable = true;
	blk_poll(set, NULL, 0);
	write_all(set, pages, 2);
	fakes[1].bdev.unavailable = false;
	while (stat("stripe.pages_resynced") < pages && polls < 1000) {
		unsigned now;

		blk_poll(set, NULL, 0);
		polls++;
		now = fakes[0].npending + fakes[1].npending;
		most = now > most ? now : most;
	}
	assert_int_equal(stat("stripe.pages_resynced"), pages);
	assert_int_equal(most, 8);
	/* A read and a write for each page, eight pages at a time. */
	assert_true(polls <= 2 * (pages + 7) / 8 + 4);
	for (uint64_t d = 0; d < pages; d++)
		for (unsigned k = 0; k < 2; k++)
			assert_true(holds(member_page((d % 2 + k) % 2,
						      1 + d / 2 * 2 + k), d, 2));
}

static void test_write_failed_by_a_member_is_copied_later(void **state)
{
	static uint8_t buf[4096] __attribute__((aligned(4096)));
	struct blockdev *set = make_set(2, 2);

	(void)state;
	write_all(set, data_pages(2, 2), 1);
	/* Member 1 goes before the set has noticed: its copy fails. */
	fakes[1].bdev.unavailable = true;
	fill(buf, 0, 2);
	assert_int_equal(run(set, BLK_WRITE, 1, buf), BLK_OK);
	assert_int_equal(stat("stripe.degraded_writes"), 1);
	assert_true(holds(member_page(1, 2), 0, 1));    /* stale there */
	fakes[1].bdev.unavailable = false;
	for (int i = 0; i < 100 && stat("stripe.pages_resynced") < 1; i++)
		blk_poll(set, NULL, 0);
	assert_int_equal(stat("stripe.pages_resynced"), 1);
	assert_true(holds(member_page(1, 2), 0, 2));
	/* Member 0 away: page 0 comes from member 1, the new one. */
	fakes[0].bdev.unavailable = true;
	blk_poll(set, NULL, 0);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(run(set, BLK_READ, 1, buf), BLK_OK);
	assert_true(holds(buf, 0, 2));
}

static void test_member_back_with_another_header(void **state)
{
	struct blockdev *set = make_set(2, 2);
	uint64_t pages = data_pages(2, 2);
	char err[128];
	uint8_t uuid[SWAP_UUID_LEN] = { 0x99 };

	(void)state;
	write_all(set, pages, 1);
	fakes[1].bdev.unavailable = true;
	blk_poll(set, NULL, 0);
	/* A server restarted without its data: a fresh area. */
	assert_int_equal(swap_header_build(fakes[1].image, MEMBER_PAGES * 4096,
					   uuid, err, sizeof(err)), HV_OK);
	memset(fakes[1].image + 4096, 0, sizeof(fakes[1].image) - 4096);
	fakes[1].bdev.unavailable = false;
	console_forget();
	for (int i = 0; i < 10; i++)
		blk_poll(set, NULL, 0);
	assert_int_equal(stat("stripe.members_refused"), 1);
	assert_int_equal(console_nlines, 1);
	assert_string_equal(console_lines[0], "apfvisor: error: stripe: fake1 "
			    "came back with another swap header (a server "
			    "restarted without its data?): its copies are not "
			    "used again");
	assert_int_equal(stat("stripe.pages_resynced"), 0);
	/* Nothing is read from it; nothing was written to it. */
	unsigned before = fakes[1].reads;

	read_all(set, pages, 1);
	assert_int_equal(fakes[1].reads, before);
	assert_int_equal(fakes[1].writes, pages);       /* the first round */
}

static void test_read_falls_back(void **state)
{
	static uint8_t buf[4096] __attribute__((aligned(4096)));
	struct blockdev *set = make_set(2, 2);

	(void)state;
	write_all(set, data_pages(2, 2), 3);
	/* Page 4's copy 0: member 0, page 1 + 4 / 2 * 2 = 5. */
	fakes[0].fail_read_at = 5 * 4096;
	assert_int_equal(run(set, BLK_READ, 1 + 4, buf), BLK_OK);
	assert_true(holds(buf, 4, 3));
	assert_int_equal(stat("stripe.read_fallbacks"), 1);
	/* Both copies failing: the read fails. */
	fakes[0].fail_read_at = 5 * 4096;
	fakes[1].fail_read_at = 6 * 4096;
	assert_int_equal(run(set, BLK_READ, 1 + 4, buf), BLK_IO_ERROR);
	assert_int_equal(stat("stripe.requests_failed"), 1);
}

static void test_write_waits_for_a_copy_in_flight(void **state)
{
	static uint8_t buf[4096] __attribute__((aligned(4096)));
	struct blockdev *set = make_set(2, 2);
	struct blk_request r = { BLK_WRITE, 1 * 4096, (uintptr_t)buf, buf };
	struct blk_completion c;

	(void)state;
	write_all(set, data_pages(2, 2), 1);
	fakes[1].bdev.unavailable = true;
	blk_poll(set, NULL, 0);
	fill(buf, 0, 2);
	assert_int_equal(run(set, BLK_WRITE, 1, buf), BLK_OK);
	fakes[1].bdev.unavailable = false;
	blk_poll(set, NULL, 0);         /* member 1: its header is read */
	blk_poll(set, NULL, 0);         /* back; the copy of page 0 starts */
	assert_int_equal(fakes[0].npending, 1);         /* the copy's read */
	assert_int_equal(blk_submit(set, &r), HV_ERR_BUSY);
	assert_int_equal(stat("stripe.busy_for_resync"), 1);
	while (stat("stripe.pages_resynced") < 1)
		blk_poll(set, &c, 1);
	fill(buf, 0, 3);
	assert_int_equal(run(set, BLK_WRITE, 1, buf), BLK_OK);
	assert_true(holds(member_page(0, 1), 0, 3));
	assert_true(holds(member_page(1, 2), 0, 3));
}

/* Member 2 (a spare) of the fakes, added to a set of members 0 and 1. */
static void add_spare(struct blockdev *set, uint64_t after_s)
{
	char err[160];

	make_fake(2, MEMBER_PAGES, 0x77);
	assert_true(blockdev_stripe_add_spare(set, &fakes[2].bdev,
					      fakes[2].image,
					      after_s * tsc_hz, err,
					      sizeof(err)));
}

static void test_spare_takes_an_away_members_place(void **state)
{
	struct blockdev *set = make_set(2, 2);
	uint64_t written = 100;         /* data pages written: 0..99 */

	(void)state;
	add_spare(set, 30);
	write_all(set, written, 1);
	fakes[1].bdev.unavailable = true;
	blk_poll(set, NULL, 0);
	/* Away 30 s: not yet replaced; a moment later it is. */
	now_tsc += 30 * tsc_hz;
	blk_poll(set, NULL, 0);
	assert_int_equal(stat("stripe.members_replaced"), 0);
	now_tsc += tsc_hz / 1000;
	console_forget();
	blk_poll(set, NULL, 0);
	assert_int_equal(stat("stripe.members_replaced"), 1);
	assert_string_equal(console_lines[0], "apfvisor: stripe: fake1 has "
			    "been away 30 s: fake2 takes its place; the 100 "
			    "page(s) it held are copied to it");
	assert_true(fakes[2].bdev.fail_fast);
	/* Only the copies of pages with data are copied: 100 of them. */
	for (int i = 0; i < 1000 && stat("stripe.pages_resynced") < written;
	     i++)
		blk_poll(set, NULL, 0);
	assert_int_equal(stat("stripe.pages_resynced"), written);
	for (uint64_t d = 0; d < written; d++) {
		unsigned k = d % 2 == 0;        /* member 1's copy of d */

		assert_true(holds(member_page(2, 1 + d / 2 * 2 + k), d, 1));
	}
	assert_int_equal(fakes[2].writes, written);
	/* Member 0 away now: the spare serves every page. */
	fakes[0].bdev.unavailable = true;
	blk_poll(set, NULL, 0);
	read_all(set, written, 1);
	assert_int_equal(stat("stripe.requests_failed"), 0);
}

static void test_refused_member_is_replaced_at_once(void **state)
{
	struct blockdev *set = make_set(2, 2);
	char err[128];
	uint8_t uuid[SWAP_UUID_LEN] = { 0x55 };

	(void)state;
	add_spare(set, 3600);
	write_all(set, 10, 4);
	fakes[1].bdev.unavailable = true;
	blk_poll(set, NULL, 0);
	assert_int_equal(swap_header_build(fakes[1].image, MEMBER_PAGES * 4096,
					   uuid, err, sizeof(err)), HV_OK);
	fakes[1].bdev.unavailable = false;
	for (int i = 0; i < 100 && stat("stripe.pages_resynced") < 10; i++)
		blk_poll(set, NULL, 0);
	assert_int_equal(stat("stripe.members_refused"), 1);
	assert_int_equal(stat("stripe.members_replaced"), 1);
	assert_int_equal(stat("stripe.pages_resynced"), 10);
	fakes[0].bdev.unavailable = true;
	blk_poll(set, NULL, 0);
	read_all(set, 10, 4);
}

static void test_spare_refusals(void **state)
{
	struct blockdev *set = make_set(2, 1);
	char err[200];

	(void)state;
	make_fake(2, MEMBER_PAGES, 0x77);
	assert_false(blockdev_stripe_add_spare(set, &fakes[2].bdev,
					       fakes[2].image, tsc_hz, err,
					       sizeof(err)));
	assert_string_equal(err, "a spare needs swap.replicas of 2 or more "
			    "(it is filled from the other copies)");
	set = make_set(2, 2);
	make_fake(2, MEMBER_PAGES - 8, 0x77);
	assert_false(blockdev_stripe_add_spare(set, &fakes[2].bdev,
					       fakes[2].image, tsc_hz, err,
					       sizeof(err)));
	assert_string_equal(err, "fake2 has a swap area of 2097152 bytes, the "
			    "set's servers 2129920: a spare must be formatted "
			    "like them");
}

static void test_refusals(void **state)
{
	struct blockdev *members[2] = { &fakes[0].bdev, &fakes[1].bdev };
	const uint8_t *headers[2] = { fakes[0].image, fakes[1].image };
	char err[200];

	(void)state;
	make_fake(0, MEMBER_PAGES, 1);
	make_fake(1, MEMBER_PAGES - 8, 2);
	assert_null(blockdev_stripe_create(members, headers, 2, 3, err,
					   sizeof(err)));
	assert_string_equal(err, "3 copies of each page need at least 3 "
			    "servers (2 named, at most 4)");
	assert_null(blockdev_stripe_create(members, headers, 2, 1, err,
					   sizeof(err)));
	assert_string_equal(err, "fake1 has a swap area of 2097152 bytes, "
			    "fake0 one of 2129920: the servers of a set must "
			    "be formatted alike");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_and_header),
		cmocka_unit_test(test_striping_one_copy),
		cmocka_unit_test(test_member_away_and_back),
		cmocka_unit_test(test_copies_made_several_at_once),
		cmocka_unit_test(test_write_failed_by_a_member_is_copied_later),
		cmocka_unit_test(test_member_back_with_another_header),
		cmocka_unit_test(test_read_falls_back),
		cmocka_unit_test(test_write_waits_for_a_copy_in_flight),
		cmocka_unit_test(test_spare_takes_an_away_members_place),
		cmocka_unit_test(test_refused_member_is_replaced_at_once),
		cmocka_unit_test(test_spare_refusals),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
