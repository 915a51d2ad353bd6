// SPDX-License-Identifier: BSD-2-Clause
/*
 * swap/drivers/blockdev_faults.c over a trivial fake block device: which requests
 * fail, that a failed one never reaches the driver, the order and status of
 * completions, queue-full handling, the counters, and the debug line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "swap/drivers/blockdev_faults.h"

/* The fake driver: a FIFO of accepted requests, all completing BLK_OK. */
#define FAKE_MAX 256

struct fake {
	struct blockdev dev;
	struct blk_request q[FAKE_MAX];
	unsigned head, count, depth;
	unsigned seen;                  /* requests the driver ever accepted */
	enum blk_status status;         /* what its completions report */
};

static enum hv_err fake_submit(struct blockdev *dev,
			       const struct blk_request *req)
{
	struct fake *f = dev->driver;

	if (f->count == f->depth)
		return HV_ERR_BUSY;
	f->q[(f->head + f->count++) % FAKE_MAX] = *req;
	f->seen++;
	if (req->op == BLK_WRITE)
		dev->writes++;
	else
		dev->reads++;
	return HV_OK;
}

static unsigned fake_poll(struct blockdev *dev, struct blk_completion *out,
			  unsigned max)
{
	struct fake *f = dev->driver;
	unsigned n = 0;

	for (; n < max && f->count; n++, f->count--) {
		out[n].cookie = f->q[f->head].cookie;
		out[n].status = f->status;
		if (f->status != BLK_OK)
			dev->errors++;
		f->head = (f->head + 1) % FAKE_MAX;
	}
	return n;
}

static const struct blockdev_ops fake_ops = { fake_submit, fake_poll };

static void fake_init(struct fake *f, unsigned depth)
{
	memset(f, 0, sizeof(*f));
	f->depth = depth;
	f->dev = (struct blockdev){ .ops = &fake_ops, .name = "fake0",
				    .size = 1 << 20, .queue_depth = depth,
				    .driver = f };
}

/* lib/console's hv_info, captured (the prefix is the console's job). */
static char info_line[200];
static unsigned info_lines;

void hv_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(info_line, sizeof(info_line), fmt, ap);
	va_end(ap);
	info_lines++;
}

/* Cookies are request numbers + 1 (never NULL). */
static enum hv_err submit(struct blockdev *dev, enum blk_op op, uintptr_t n)
{
	struct blk_request r = { .op = op, .offset = n * 4096,
				 .buffer_pa = 0x100000, .cookie = (void *)n };

	return blk_submit(dev, &r);
}

/* Polls everything; returns the completions' count, fills status[cookie]. */
static unsigned drain(struct blockdev *dev, int *status, unsigned max_each)
{
	struct blk_completion c[FAKE_MAX];
	unsigned got, total = 0;

	while ((got = blk_poll(dev, c, max_each))) {
		for (unsigned i = 0; i < got; i++) {
			uintptr_t n = (uintptr_t)c[i].cookie;

			assert_true(n < FAKE_MAX);
			assert_int_equal(status[n], -1);  /* once each */
			status[n] = (int)c[i].status;
		}
		total += got;
	}
	return total;
}

/* A wrapper over a fresh fake of the given depth; no completion seen yet. */
static void setup(struct blockdev_faults *f, struct fake *fk, unsigned depth,
		  uint32_t fail_reads, uint32_t fail_writes, int *status)
{
	fake_init(fk, depth);
	blockdev_faults_init(f, &fk->dev, fail_reads, fail_writes);
	memset(status, -1, FAKE_MAX * sizeof(*status));
}

static void test_off_returns_the_device(void **state)
{
	struct fake fk;

	(void)state;
	fake_init(&fk, 8);
	info_lines = 0;
	assert_ptr_equal(blockdev_faults_wrap(&fk.dev, 0, 0), &fk.dev);
	assert_null(blockdev_faults_wrap(NULL, 3, 3));
	assert_int_equal(info_lines, 0);
	assert_int_equal(blockdev_faults_injected().injected_read_failures, 0);
	assert_int_equal(blockdev_faults_injected().injected_write_failures,
			 0);
}

static void test_every_third_read(void **state)
{
	struct blockdev_faults f;
	struct fake fk;
	int status[FAKE_MAX];

	(void)state;
	setup(&f, &fk, 64, 3, 0, status);
	assert_string_equal(f.dev.name, "fake0");
	assert_int_equal(f.dev.size, 1 << 20);
	assert_int_equal(f.dev.queue_depth, 64);
	for (uintptr_t n = 1; n <= 9; n++)
		assert_int_equal(submit(&f.dev, BLK_READ, n), HV_OK);
	for (uintptr_t n = 10; n <= 14; n++)
		assert_int_equal(submit(&f.dev, BLK_WRITE, n), HV_OK);
	/* Requests 3, 6 and 9 never reached the driver. */
	assert_int_equal(fk.seen, 11);
	assert_int_equal(drain(&f.dev, status, 4), 14);
	for (int n = 1; n <= 14; n++)
		assert_int_equal(status[n], n <= 9 && n % 3 == 0 ?
				 BLK_IO_ERROR : BLK_OK);
	assert_int_equal(f.injected.injected_read_failures, 3);
	assert_int_equal(f.injected.injected_write_failures, 0);
	assert_int_equal(f.dev.reads, 6);
	assert_int_equal(f.dev.writes, 5);
	assert_int_equal(f.dev.errors, 3);
}

static void test_reads_and_writes_counted_apart(void **state)
{
	struct blockdev_faults f;
	struct fake fk;
	int status[FAKE_MAX];

	(void)state;
	setup(&f, &fk, 64, 2, 3, status);
	/* R W R W R W R W R W R W: reads 2, 4, 6 and writes 3, 6 fail. */
	for (uintptr_t n = 1; n <= 12; n++)
		assert_int_equal(submit(&f.dev, n % 2 ? BLK_READ : BLK_WRITE,
					n), HV_OK);
	assert_int_equal(drain(&f.dev, status, 64), 12);
	for (int n = 1; n <= 12; n++) {
		int k = (n + 1) / 2;    /* n-th request is the k-th of its op */
		bool fail = n % 2 ? k % 2 == 0 : k % 3 == 0;

		assert_int_equal(status[n], fail ? BLK_IO_ERROR : BLK_OK);
	}
	assert_int_equal(f.injected.injected_read_failures, 3);
	assert_int_equal(f.injected.injected_write_failures, 2);
	assert_int_equal(fk.seen, 7);
}

static void test_every_request(void **state)
{
	struct blockdev_faults f;
	struct fake fk;
	int status[FAKE_MAX];

	(void)state;
	setup(&f, &fk, 8, 1, 1, status);
	for (uintptr_t n = 1; n <= 20; n++)
		assert_int_equal(submit(&f.dev, n % 3 ? BLK_READ : BLK_WRITE,
					n), HV_OK);
	assert_int_equal(fk.seen, 0);
	assert_int_equal(drain(&f.dev, status, 7), 20);
	for (int n = 1; n <= 20; n++)
		assert_int_equal(status[n], BLK_IO_ERROR);
	assert_int_equal(f.dev.errors, 20);
}

/*
 * A request the driver refuses (queue full) is not counted: submitted
 * again, it is still the same request of the sequence.
 */
static void test_queue_full_is_not_counted(void **state)
{
	struct blockdev_faults f;
	struct fake fk;
	int status[FAKE_MAX];

	(void)state;
	setup(&f, &fk, 1, 0, 2, status);
	assert_int_equal(submit(&f.dev, BLK_WRITE, 1), HV_OK);
	/* Write 2 fails: injected, the driver's full queue does not matter. */
	assert_int_equal(submit(&f.dev, BLK_WRITE, 2), HV_OK);
	assert_int_equal(submit(&f.dev, BLK_WRITE, 3), HV_ERR_BUSY);
	assert_int_equal(submit(&f.dev, BLK_WRITE, 3), HV_ERR_BUSY);
	assert_int_equal(drain(&f.dev, status, 8), 2);
	assert_int_equal(submit(&f.dev, BLK_WRITE, 3), HV_OK);
	assert_int_equal(submit(&f.dev, BLK_WRITE, 4), HV_OK);   /* injected */
	assert_int_equal(drain(&f.dev, status, 8), 2);
	assert_int_equal(status[1], BLK_OK);
	assert_int_equal(status[2], BLK_IO_ERROR);
	assert_int_equal(status[3], BLK_OK);
	assert_int_equal(status[4], BLK_IO_ERROR);
	assert_int_equal(fk.seen, 2);
	assert_int_equal(f.injected.injected_write_failures, 2);
}

/* More injected failures waiting than the wrapper keeps: "queue full". */
static void test_pending_limit(void **state)
{
	struct blockdev_faults f;
	struct fake fk;
	int status[FAKE_MAX];

	(void)state;
	setup(&f, &fk, 8, 1, 0, status);
	for (uintptr_t n = 1; n <= BLOCKDEV_FAULTS_PENDING; n++)
		assert_int_equal(submit(&f.dev, BLK_READ, n), HV_OK);
	assert_int_equal(submit(&f.dev, BLK_READ, 100), HV_ERR_BUSY);
	assert_int_equal(f.injected.injected_read_failures,
			 BLOCKDEV_FAULTS_PENDING);
	assert_int_equal(drain(&f.dev, status, 5), BLOCKDEV_FAULTS_PENDING);
	assert_int_equal(submit(&f.dev, BLK_READ, 100), HV_OK);
	assert_int_equal(drain(&f.dev, status, 5), 1);
	assert_int_equal(status[100], BLK_IO_ERROR);
}

/* The driver's own errors pass through and add to the wrapper's count. */
static void test_driver_errors_pass_through(void **state)
{
	struct blockdev_faults f;
	struct fake fk;
	int status[FAKE_MAX];

	(void)state;
	setup(&f, &fk, 8, 0, 4, status);
	fk.status = BLK_OUT_OF_RANGE;
	for (uintptr_t n = 1; n <= 4; n++)
		assert_int_equal(submit(&f.dev, BLK_WRITE, n), HV_OK);
	assert_int_equal(drain(&f.dev, status, 8), 4);
	assert_int_equal(status[1], BLK_OUT_OF_RANGE);
	assert_int_equal(status[4], BLK_IO_ERROR);
	assert_int_equal(f.dev.errors, 4);
	assert_int_equal(f.injected.injected_write_failures, 1);
}

/* The request the fake driver holds k-th from its queue's head. */
static const struct blk_request *held(const struct fake *fk, unsigned k)
{
	assert_true(k < fk->count);
	return &fk->q[(fk->head + k) % FAKE_MAX];
}

static uint8_t torn_page[4096];

/*
 * With a torn page, a failed write reaches the driver with the torn page
 * as its buffer, at the request's offset, under a cookie of the wrapper's;
 * its completion is the caller's cookie with BLK_IO_ERROR.
 */
static void test_torn_write(void **state)
{
	struct blockdev_faults f;
	struct fake fk;
	int status[FAKE_MAX];

	(void)state;
	setup(&f, &fk, 8, 0, 2, status);
	f.torn_pa = (uintptr_t)torn_page;
	for (uintptr_t n = 1; n <= 4; n++)
		assert_int_equal(submit(&f.dev, BLK_WRITE, n), HV_OK);
	assert_int_equal(fk.seen, 4);
	for (unsigned k = 0; k < 4; k++) {
		const struct blk_request *r = held(&fk, k);
		bool torn = k % 2 == 1;

		assert_int_equal(r->offset, (k + 1) * 4096);
		assert_int_equal(r->buffer_pa, torn ? (uintptr_t)torn_page :
				 0x100000);
		if (torn)
			assert_ptr_not_equal(r->cookie, (void *)(uintptr_t)
					     (k + 1));
		else
			assert_ptr_equal(r->cookie, (void *)(uintptr_t)(k + 1));
	}
	assert_int_equal(drain(&f.dev, status, 3), 4);
	assert_int_equal(status[1], BLK_OK);
	assert_int_equal(status[2], BLK_IO_ERROR);
	assert_int_equal(status[3], BLK_OK);
	assert_int_equal(status[4], BLK_IO_ERROR);
	assert_int_equal(f.injected.injected_write_failures, 2);
	assert_int_equal(f.dev.writes, 4);
	assert_int_equal(f.dev.errors, 2);
	for (unsigned i = 0; i < BLOCKDEV_FAULTS_PENDING; i++)
		assert_false(f.torn[i].busy);
}

/* A torn write the driver cannot take yet is not counted either. */
static void test_torn_write_queue_full(void **state)
{
	struct blockdev_faults f;
	struct fake fk;
	int status[FAKE_MAX];

	(void)state;
	setup(&f, &fk, 1, 0, 2, status);
	f.torn_pa = (uintptr_t)torn_page;
	assert_int_equal(submit(&f.dev, BLK_WRITE, 1), HV_OK);
	assert_int_equal(submit(&f.dev, BLK_WRITE, 2), HV_ERR_BUSY);
	assert_int_equal(f.injected.injected_write_failures, 0);
	assert_int_equal(drain(&f.dev, status, 8), 1);
	assert_int_equal(submit(&f.dev, BLK_WRITE, 2), HV_OK);
	assert_int_equal(held(&fk, 0)->buffer_pa, (uintptr_t)torn_page);
	assert_int_equal(submit(&f.dev, BLK_WRITE, 3), HV_ERR_BUSY);
	assert_int_equal(drain(&f.dev, status, 8), 1);
	assert_int_equal(status[2], BLK_IO_ERROR);
	assert_int_equal(submit(&f.dev, BLK_WRITE, 3), HV_OK);
	assert_int_equal(held(&fk, 0)->buffer_pa, 0x100000);
	assert_int_equal(drain(&f.dev, status, 8), 1);
	assert_int_equal(status[3], BLK_OK);
	assert_int_equal(f.injected.injected_write_failures, 1);
}

/*
 * A failed read with a torn page: the caller's buffer gets the torn page
 * at once, the driver never sees the request, the completion fails.
 */
static void test_torn_read(void **state)
{
	static uint8_t buf[2][4096];
	struct blockdev_faults f;
	struct fake fk;
	int status[FAKE_MAX];

	(void)state;
	setup(&f, &fk, 8, 2, 0, status);
	memset(torn_page, 0xe7, sizeof(torn_page));
	memset(buf, 0x11, sizeof(buf));
	f.torn_pa = (uintptr_t)torn_page;
	for (uintptr_t n = 1; n <= 2; n++) {
		struct blk_request r = { .op = BLK_READ, .offset = n * 4096,
					 .buffer_pa = (uintptr_t)buf[n - 1],
					 .cookie = (void *)n };

		assert_int_equal(blk_submit(&f.dev, &r), HV_OK);
	}
	assert_int_equal(fk.seen, 1);
	assert_int_equal(buf[0][0], 0x11);      /* the fake moves no data */
	assert_memory_equal(buf[1], torn_page, sizeof(torn_page));
	assert_int_equal(drain(&f.dev, status, 8), 2);
	assert_int_equal(status[1], BLK_OK);
	assert_int_equal(status[2], BLK_IO_ERROR);
	assert_int_equal(f.injected.injected_read_failures, 1);
}

static void test_set_torn_page(void **state)
{
	struct blockdev *dev;
	struct fake fk;

	(void)state;
	fake_init(&fk, 8);
	dev = blockdev_faults_wrap(&fk.dev, 0, 3);
	assert_true(blockdev_faults_set_torn_page((uintptr_t)torn_page));
	assert_int_equal(((struct blockdev_faults *)dev->driver)->torn_pa,
			 (uintptr_t)torn_page);
	assert_true(blockdev_faults_set_torn_page(0));
}

static void test_wrap_prints_and_counts(void **state)
{
	static const struct {
		uint32_t reads, writes;
		const char *line;
	} cases[] = {
		{ 7, 5, "debug: failing every 7th swap read, "
			"every 5th swap write" },
		{ 1, 0, "debug: failing every swap read, no swap write" },
		{ 0, 2, "debug: failing no swap read, every 2nd swap write" },
		{ 3, 11, "debug: failing every 3rd swap read, "
			 "every 11th swap write" },
		{ 21, 112, "debug: failing every 21st swap read, "
			   "every 112th swap write" },
		{ 1000000, 102, "debug: failing every 1000000th swap read, "
				"every 102nd swap write" },
	};
	struct blockdev *dev;
	struct fake fk;
	int status[FAKE_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fake_init(&fk, 8);
		info_lines = 0;
		dev = blockdev_faults_wrap(&fk.dev, cases[i].reads,
					   cases[i].writes);
		assert_ptr_not_equal(dev, &fk.dev);
		assert_int_equal(info_lines, 1);
		assert_string_equal(info_line, cases[i].line);
	}
	/* The last wrapper fails every 102nd write. */
	memset(status, -1, sizeof(status));
	for (int round = 0; round < 102; round++) {
		assert_int_equal(submit(dev, BLK_WRITE, 1 + (round % 2)),
				 HV_OK);
		drain(dev, status, 8);
		status[1] = status[2] = -1;
	}
	assert_int_equal(blockdev_faults_injected().injected_write_failures, 1);
	assert_int_equal(blockdev_faults_injected().injected_read_failures, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_off_returns_the_device),
		cmocka_unit_test(test_every_third_read),
		cmocka_unit_test(test_reads_and_writes_counted_apart),
		cmocka_unit_test(test_every_request),
		cmocka_unit_test(test_queue_full_is_not_counted),
		cmocka_unit_test(test_pending_limit),
		cmocka_unit_test(test_driver_errors_pass_through),
		cmocka_unit_test(test_torn_write),
		cmocka_unit_test(test_torn_write_queue_full),
		cmocka_unit_test(test_torn_read),
		cmocka_unit_test(test_wrap_prints_and_counts),
		cmocka_unit_test(test_set_torn_page),
	};

	return cmocka_run_group_tests_name("blockdev_faults", tests, NULL,
					   NULL);
}
