/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swap/swap_io_queue.c: reads go to the device before queued writes, at
 * most SWAP_WRITES_AHEAD_MAX writes are at the device at once, the device's
 * depth is respected, cookies find their request again (and stray ones
 * are refused), and overdue requests are named once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "swap/swap_io_queue.h"

static struct swap_io io_of(enum swap_io_op op, uint64_t gfn)
{
	return (struct swap_io){ .op = op, .slot = (uint32_t)gfn, .gfn = gfn,
				 .frame_pa = gfn << 12, .id = gfn << 16 };
}

static struct swap_io_queue *new_queue(unsigned depth)
{
	struct swap_io_queue *q = malloc(sizeof(*q));

	assert_non_null(q);
	swap_io_queue_init(q, depth);
	return q;
}

/* Hands the next request to the "device"; returns it. */
static struct swap_io submit_one(struct swap_io_queue *q, void **cookie,
				 uint64_t now)
{
	struct swap_io io;

	assert_true(swap_io_queue_next(q, &io, cookie));
	swap_io_queue_submitted(q, now);
	return io;
}

static void reads_overtake_queued_writes(void **state)
{
	struct swap_io_queue *q = new_queue(SWAP_IO_IN_FLIGHT_MAX);
	void *cookie;

	(void)state;
	for (uint64_t g = 0; g < 20; g++)
		assert_true(swap_io_queue_add(q, &(struct swap_io){
			.op = SWAP_IO_WRITE, .gfn = g }));
	assert_true(swap_io_queue_add(q, &(struct swap_io){
		.op = SWAP_IO_READ, .gfn = 100 }));
	/* The read queued last goes first. */
	assert_int_equal(submit_one(q, &cookie, 0).gfn, 100);
	assert_int_equal(q->reads_ahead_of_writes, 1);
	free(q);
}

static void writes_ahead_of_a_read_are_bounded(void **state)
{
	struct swap_io_queue *q = new_queue(SWAP_IO_IN_FLIGHT_MAX);
	struct swap_io io;
	void *cookie, *first = NULL;
	unsigned n = 0;

	(void)state;
	for (uint64_t g = 0; g < 40; g++) {
		struct swap_io w = io_of(SWAP_IO_WRITE, g);

		assert_true(swap_io_queue_add(q, &w));
	}
	while (swap_io_queue_next(q, &io, &cookie)) {
		swap_io_queue_submitted(q, 0);
		if (!first)
			first = cookie;
		n++;
	}
	assert_int_equal(n, SWAP_WRITES_AHEAD_MAX);
	/* A read arriving now still goes at once ... */
	io = io_of(SWAP_IO_READ, 77);
	assert_true(swap_io_queue_add(q, &io));
	assert_int_equal(submit_one(q, &cookie, 0).gfn, 77);
	/* ... and one write completing lets exactly one more write go. */
	assert_true(swap_io_queue_complete(q, first, &io));
	assert_int_equal(io.op, SWAP_IO_WRITE);
	assert_true(swap_io_queue_next(q, &io, &cookie));
	swap_io_queue_submitted(q, 0);
	assert_false(swap_io_queue_next(q, &io, &cookie));
	free(q);
}

static void device_depth_is_respected(void **state)
{
	struct swap_io_queue *q = new_queue(2);
	struct swap_io io;
	void *c1, *c2, *c3;

	(void)state;
	for (uint64_t g = 0; g < 3; g++) {
		io = io_of(SWAP_IO_READ, g);
		assert_true(swap_io_queue_add(q, &io));
	}
	submit_one(q, &c1, 0);
	submit_one(q, &c2, 0);
	assert_false(swap_io_queue_next(q, &io, &c3));
	assert_true(swap_io_queue_complete(q, c2, &io));
	assert_int_equal(io.gfn, 1);
	assert_int_equal(submit_one(q, &c3, 0).gfn, 2);
	free(q);
}

static void refused_submission_stays_queued(void **state)
{
	struct swap_io_queue *q = new_queue(4);
	struct swap_io io = io_of(SWAP_IO_READ, 9);
	void *cookie;

	(void)state;
	assert_true(swap_io_queue_add(q, &io));
	assert_true(swap_io_queue_next(q, &io, &cookie));
	swap_io_queue_unsubmit(q);             /* the device was full */
	assert_int_equal(swap_io_queue_waiting(q), 1);
	assert_int_equal(submit_one(q, &cookie, 0).gfn, 9);
	assert_int_equal(swap_io_queue_waiting(q), 0);
	free(q);
}

static void stray_cookies_are_refused(void **state)
{
	struct swap_io_queue *q = new_queue(4);
	struct swap_io io = io_of(SWAP_IO_READ, 3);
	void *cookie;

	(void)state;
	assert_false(swap_io_queue_complete(q, NULL, &io));
	assert_false(swap_io_queue_complete(q, (void *)(uintptr_t)1, &io));
	assert_false(swap_io_queue_complete(
		q, (void *)(uintptr_t)(SWAP_IO_IN_FLIGHT_MAX + 1), &io));
	assert_true(swap_io_queue_add(q, &io));
	submit_one(q, &cookie, 0);
	assert_true(swap_io_queue_complete(q, cookie, &io));
	assert_false(swap_io_queue_complete(q, cookie, &io)); /* twice */
	assert_int_equal(q->unknown_completions, 4);
	free(q);
}

static void overdue_request_is_named_once(void **state)
{
	struct swap_io_queue *q = new_queue(4);
	struct swap_io io, got;
	uint64_t age;
	bool first;
	void *c;

	(void)state;
	io = io_of(SWAP_IO_WRITE, 5);
	assert_true(swap_io_queue_add(q, &io));
	io = io_of(SWAP_IO_READ, 6);
	assert_true(swap_io_queue_add(q, &io));
	submit_one(q, &c, 1000);               /* the read, at t=1000 */
	submit_one(q, &c, 2000);               /* the write, at t=2000 */
	assert_false(swap_io_queue_oldest_overdue(q, 1500, 1000, &got, &age,
						  &first));
	assert_true(swap_io_queue_oldest_overdue(q, 2500, 1000, &got, &age,
						 &first));
	assert_int_equal(got.gfn, 6);
	assert_int_equal(age, 1500);
	assert_true(first);
	assert_true(swap_io_queue_oldest_overdue(q, 9000, 1000, &got, &age,
						 &first));
	assert_int_equal(got.gfn, 6);
	assert_false(first);
	free(q);
}

static void full_queue_refuses(void **state)
{
	struct swap_io_queue *q = new_queue(4);
	struct swap_io io = io_of(SWAP_IO_WRITE, 1);

	(void)state;
	assert_int_equal(swap_io_queue_room_for_writes(q),
			 SWAP_QUEUE_MAX - SWAP_QUEUE_RESERVE);
	for (unsigned i = 0; i < SWAP_QUEUE_MAX; i++)
		assert_true(swap_io_queue_add(q, &io));
	assert_false(swap_io_queue_add(q, &io));
	assert_int_equal(swap_io_queue_room_for_writes(q), 0);
	/* Reads have a queue of their own. */
	io.op = SWAP_IO_READ;
	assert_true(swap_io_queue_add(q, &io));
	free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_overtake_queued_writes),
		cmocka_unit_test(writes_ahead_of_a_read_are_bounded),
		cmocka_unit_test(device_depth_is_respected),
		cmocka_unit_test(refused_submission_stays_queued),
		cmocka_unit_test(stray_cookies_are_refused),
		cmocka_unit_test(overdue_request_is_named_once),
		cmocka_unit_test(full_queue_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
