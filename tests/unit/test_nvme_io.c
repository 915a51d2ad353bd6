/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NVMe I/O queues and completion checking: swap/drivers/nvme_queue.c and
 * its neighbours against the fake controller of tests/unit/nvme_fake.c:
 * the I/O queue pair with many commands in flight, ring wrap with the
 * phase tag flip, error status, a command that never completes, CSTS.CFS
 * and a completion for a command that was never submitted. Each failure
 * must be one error line, the controller disabled where its DMA could
 * still land, and every page completed exactly once. A Read that
 * succeeds without writing its whole page fails; a Read whose controller
 * does not finish its reset is held until it does.
 */
#include "tests/unit/nvme_test_fixture.h"

/* A page whose every word says which page and which fill it is. */
static void *pattern_page(unsigned page, unsigned fill)
{
	uint32_t *p = alloc_pages(1);

	for (unsigned w = 0; w < 1024; w++)
		p[w] = fill << 24 | page << 12 | w;
	return p;
}

static void submit(struct blockdev *dev, enum blk_op op, unsigned page,
		   void *buf, uintptr_t cookie)
{
	struct blk_request r = { op, (uint64_t)page * 4096,
				 (uint64_t)(uintptr_t)buf, (void *)cookie };

	assert_int_equal(blk_submit(dev, &r), HV_OK);
}

/* Polls until n completions came back; they go into out. */
static void collect(struct blockdev *dev, struct blk_completion *out,
		    unsigned n)
{
	unsigned got = 0;

	for (unsigned i = 0; got < n && i < POLL_LIMIT; i++)
		got += blk_poll(dev, out + got, n - got);
	assert_int_equal(got, n);
}

/* ------------------------------------------------------------- I/O */

static void write_then_read(struct blockdev *dev, unsigned first,
			    unsigned n, unsigned fill)
{
	struct blk_completion c[NVME_QUEUE_ENTRIES];
	void *out[NVME_QUEUE_ENTRIES], *in[NVME_QUEUE_ENTRIES];

	assert_true(n <= dev->queue_depth);
	for (unsigned i = 0; i < n; i++) {
		out[i] = pattern_page(first + i, fill);
		in[i] = alloc_pages(1);
		submit(dev, BLK_WRITE, first + i, out[i], 100 + i);
	}
	collect(dev, c, n);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(c[i].status, BLK_OK);
	for (unsigned i = 0; i < n; i++)
		submit(dev, BLK_READ, first + i, in[i], 200 + i);
	collect(dev, c, n);
	for (unsigned i = 0; i < n; i++) {
		unsigned k = (unsigned)((uintptr_t)c[i].cookie - 200);

		assert_true(k < n);
		assert_int_equal(c[i].status, BLK_OK);
		assert_memory_equal(in[k], out[k], 4096);
	}
}

static void test_many_in_flight(void **state)
{
	struct blockdev *dev;
	struct blk_request r = { BLK_READ, 0, 0, NULL };
	void *buf;

	(void)state;
	dev = bring_up_one(9);
	buf = alloc_pages(1);
	r.buffer_pa = (uint64_t)(uintptr_t)buf;
	fake.hold = true;
	for (unsigned i = 0; i < dev->queue_depth; i++)
		submit(dev, BLK_READ, i % 64, buf, i);
	/* Every slot taken: the caller polls and retries. */
	assert_int_equal(blk_submit(dev, &r), HV_ERR_BUSY);
	assert_int_equal(fake.io_commands, 0);
	fake_nvme_run(&fake, 1);
	assert_int_equal(fake.io_commands, dev->queue_depth);
	/* 512-byte LBAs: 8 per page. */
	assert_int_equal(fake.last_nlb, 7);
	assert_int_equal(fake.last_slba, (62 % 64) * 8);
	{
		struct blk_completion c[NVME_QUEUE_ENTRIES];

		collect(dev, c, dev->queue_depth);
	}
	fake.hold = false;
	write_then_read(dev, 0, 63, 1);
	assert_int_equal(dev->errors, 0);
}

static void test_4k_lbas(void **state)
{
	struct blockdev *dev;

	(void)state;
	dev = bring_up_one(12);
	write_then_read(dev, 60, 4, 2);
	assert_int_equal(fake.last_nlb, 0);
	assert_int_equal(fake.last_slba, 63);
	assert_memory_equal(fake.ns[0].disk + 61 * 4096,
			    pattern_page(61, 2), 4096);
}

/*
 * 4.6: after each pass over the completion ring the phase tag flips;
 * an entry left from the last pass must not be taken as new.
 */
static void test_wrap_and_phase(void **state)
{
	struct blockdev *dev;
	struct blk_completion c;
	uint16_t phase_seen[8];

	(void)state;
	dev = bring_up_one(12);
	for (unsigned round = 0; round < 8; round++) {
		write_then_read(dev, (round * 3) % 24, 40, round);
		phase_seen[round] = ctrl.ns[0].queue.phase;
		/* Nothing new: stale entries of the other phase stay put. */
		assert_int_equal(blk_poll(dev, &c, 1), 0);
	}
	/* 640 commands: ten passes over 64 entries, the tag flipped. */
	assert_int_equal(ctrl.ns[0].queue.phase, 1);
	assert_int_equal(phase_seen[0], 0);     /* 80 done: one wrap */
	assert_int_equal(phase_seen[1], 1);     /* 160: two wraps */
	assert_int_equal(ctrl.ns[0].queue.cq_head, 640 % 64);
	assert_int_equal(fake.cq[1].head, 640 % 64);
	assert_int_equal(dev->errors, 0);
}

static void test_error_status(void **state)
{
	struct blockdev *dev;
	struct blk_completion c;

	(void)state;
	dev = bring_up_one(12);
	fake.fail_status = 0x281;       /* Media: Unrecovered Read Error */
	submit(dev, BLK_READ, 3, alloc_pages(1), 7);
	collect(dev, &c, 1);
	assert_ptr_equal(c.cookie, (void *)7);
	assert_int_equal(c.status, BLK_IO_ERROR);
	assert_int_equal(dev->errors, 1);
	/* One bad sector does not stop the disk. */
	assert_int_equal(console_nlines, 0);
	write_then_read(dev, 3, 2, 9);
}

static void test_out_of_range(void **state)
{
	struct blockdev *dev;
	struct blk_completion c;

	(void)state;
	dev = bring_up_one(12);
	submit(dev, BLK_WRITE, 64, alloc_pages(1), 5);
	collect(dev, &c, 1);
	assert_int_equal(c.status, BLK_OUT_OF_RANGE);
	assert_int_equal(fake.io_commands, 0);
}

static void test_command_timeout(void **state)
{
	struct blk_completion c[3];
	struct blockdev *dev;
	void *buf;

	(void)state;
	dev = bring_up_one(12);
	buf = alloc_pages(1);
	fake.hold = true;
	submit(dev, BLK_WRITE, 8, buf, 1);
	submit(dev, BLK_READ, 9, buf, 2);
	collect(dev, c, 2);
	expect_one_error("apfvisor: error: " NAME " ns1: a command did not "
			 "complete in time (Write of LBA 8, command id 0, "
			 "10000 ms); the controller is disabled, its 2 "
			 "command(s) in flight fail");
	assert_int_equal(c[0].status, BLK_IO_ERROR);
	assert_int_equal(c[1].status, BLK_IO_ERROR);
	/* 7.3.1: disabled, so the pages can no longer be written. */
	assert_int_equal(fake.disables, 1);
	assert_false(fake.cc & NVME_CC_EN);
	/* Later requests fail at once, without the controller. */
	submit(dev, BLK_READ, 1, buf, 3);
	collect(dev, c, 1);
	assert_int_equal(c[0].status, BLK_IO_ERROR);
	assert_int_equal(fake.io_commands, 0);
	assert_int_equal(console_nlines, 1);
}

static void test_fatal_status(void **state)
{
	struct blk_completion c;
	struct blockdev *dev;

	(void)state;
	dev = bring_up_one(12);
	fake.hold = true;
	submit(dev, BLK_READ, 4, alloc_pages(1), 1);
	fake.csts |= NVME_CSTS_CFS;
	collect(dev, &c, 1);
	assert_int_equal(c.status, BLK_IO_ERROR);
	expect_one_error("apfvisor: error: " NAME " ns1: the controller "
			 "reports a fatal status (CSTS.CFS set, CSTS "
			 "0x00000003); the controller is disabled, its 1 "
			 "command(s) in flight fail");
	assert_int_equal(fake.disables, 1);
}

static void test_bogus_command_id(void **state)
{
	struct blk_completion c;
	struct blockdev *dev;

	(void)state;
	dev = bring_up_one(12);
	fake.bogus_cid = 40;
	submit(dev, BLK_READ, 4, alloc_pages(1), 1);
	collect(dev, &c, 1);
	assert_int_equal(c.status, BLK_IO_ERROR);
	expect_one_error("apfvisor: error: " NAME " ns1: the controller "
			 "completed a command it did not have (command id 40, "
			 "completed twice or never submitted); the controller "
			 "is disabled, its 1 command(s) in flight fail");
}

/* True when no 8-byte word of page holds the byte b everywhere. */
static bool no_word_of(const void *page, uint8_t b)
{
	uint64_t stale, w;

	memset(&stale, b, sizeof(stale));
	for (unsigned i = 0; i < 4096; i += 8) {
		memcpy(&w, (const uint8_t *)page + i, 8);
		if (w == stale)
			return false;
	}
	return true;
}

/*
 * A Read that completes with success having written none, or only part,
 * of its page. NVMe has no byte count in the completion, so the driver
 * poisons the page before the Read and finds the poison left: the read
 * fails (counted), the page shows nothing of what the frame held before,
 * and the queue goes on.
 */
static void test_short_read_fails(void **state)
{
	static const int written[] = { 0, 512, 4096 - 8 };
	struct blk_completion c;
	struct blockdev *dev;
	uint8_t *buf;

	(void)state;
	dev = bring_up_one(9);
	buf = alloc_pages(1);
	memset(fake.ns[0].disk + 5 * 4096, 0x77, 4096);
	for (unsigned i = 0; i < ARRAY_SIZE(written); i++) {
		memset(buf, 0xee, 4096);        /* what the frame held */
		fake.short_read = written[i];
		submit(dev, BLK_READ, 5, buf, 1 + i);
		collect(dev, &c, 1);
		assert_ptr_equal(c.cookie, (void *)(uintptr_t)(1 + i));
		assert_int_equal(c.status, BLK_IO_ERROR);
		assert_true(no_word_of(buf, 0xee));
	}
	assert_int_equal(dev->short_transfers, ARRAY_SIZE(written));
	assert_int_equal(dev->errors, ARRAY_SIZE(written));
	expect_one_error("apfvisor: error: " NAME " ns1: a short read: the "
			 "Read of LBA 40 completed with success, but 512 of "
			 "the page's 512 words were never written; it fails "
			 "(later ones are only counted)");
	/* An honest Read still brings the page, the controller still up. */
	submit(dev, BLK_READ, 5, buf, 9);
	collect(dev, &c, 1);
	assert_int_equal(c.status, BLK_OK);
	assert_memory_equal(buf, fake.ns[0].disk + 5 * 4096, 4096);
	assert_int_equal(fake.disables, 0);
}

/*
 * A command times out and the controller does not finish its reset
 * (CSTS.RDY stays 1): it may still write into the page of a Read, which
 * stays in flight, held and counted, until a later poll finds CSTS.RDY
 * clear. A Write fails at once: the controller only reads its page.
 */
static void test_timed_out_read_held_until_disabled(void **state)
{
	struct blk_completion c[3];
	struct blockdev *dev;
	unsigned got = 0;
	void *in, *out;

	(void)state;
	dev = bring_up_one(12);
	in = alloc_pages(1);
	out = alloc_pages(1);
	fake.hold = true;
	fake.stuck_ready = true;
	submit(dev, BLK_READ, 8, in, 1);
	submit(dev, BLK_WRITE, 9, out, 2);
	for (unsigned i = 0; !got && i < POLL_LIMIT; i++)
		got = blk_poll(dev, c, 3);
	assert_int_equal(got, 1);
	assert_ptr_equal(c[0].cookie, (void *)2);
	assert_int_equal(c[0].status, BLK_IO_ERROR);
	assert_int_equal(dev->frames_held, 1);
	assert_int_equal(console_nlines, 3);
	assert_string_equal(console_lines[1], "apfvisor: error: " NAME ": "
			    "CSTS.RDY did not become 0 within CAP.TO (500 ms) "
			    "after CC.EN = 0");
	assert_string_equal(console_lines[2], "apfvisor: error: " NAME ": "
			    "the pages of the Reads in flight stay held until "
			    "the controller's reset finishes");
	/* Not stopped yet: held, however often polled. */
	for (int i = 0; i < 100; i++)
		assert_int_equal(blk_poll(dev, c, 3), 0);
	/* Later requests fail at once, without the controller. */
	submit(dev, BLK_READ, 1, out, 3);
	collect(dev, c, 1);
	assert_ptr_equal(c[0].cookie, (void *)3);
	assert_int_equal(c[0].status, BLK_IO_ERROR);
	/* The reset finishes late: the Read fails now, counted once. */
	fake.csts &= ~(uint32_t)NVME_CSTS_RDY;
	collect(dev, c, 1);
	assert_ptr_equal(c[0].cookie, (void *)1);
	assert_int_equal(c[0].status, BLK_IO_ERROR);
	assert_int_equal(blk_poll(dev, c, 3), 0);
	assert_int_equal(dev->frames_held, 1);
	assert_int_equal(fake.io_commands, 0);
	assert_int_equal(console_nlines, 3);
}

/* One broken namespace queue stops the controller: the others fail too. */
static void test_sibling_queues_fail(void **state)
{
	struct blk_completion c;

	(void)state;
	fake_nvme_add_ns(&fake, 1, 64, 12);
	fake_nvme_add_ns(&fake, 2, 64, 12);
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_OK);
	assert_int_equal(ctrl.nns, 2);
	console_forget();
	fake.hold = true;
	submit(&ctrl.ns[1].bdev, BLK_READ, 1, alloc_pages(1), 9);
	fake.csts |= NVME_CSTS_CFS;
	collect(&ctrl.ns[0].bdev, &c, 0);
	submit(&ctrl.ns[0].bdev, BLK_READ, 1, alloc_pages(1), 8);
	collect(&ctrl.ns[0].bdev, &c, 1);
	assert_ptr_equal(c.cookie, (void *)8);
	assert_int_equal(c.status, BLK_IO_ERROR);
	collect(&ctrl.ns[1].bdev, &c, 1);
	assert_ptr_equal(c.cookie, (void *)9);
	assert_int_equal(c.status, BLK_IO_ERROR);
	assert_int_equal(console_nlines, 1);
	assert_int_equal(fake.disables, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_many_in_flight),
		T(test_4k_lbas),
		T(test_wrap_and_phase),
		T(test_error_status),
		T(test_out_of_range),
		T(test_command_timeout),
		T(test_fatal_status),
		T(test_bogus_command_id),
		T(test_sibling_queues_fail),
		T(test_short_read_fails),
		T(test_timed_out_read_held_until_disabled),
#undef T
	};

	return cmocka_run_group_tests_name("nvme_io", tests, NULL, NULL);
}
