/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The NVMe driver's plain-C parts (swap/drivers/nvme_ctrl.c, nvme_queue.c,
 * nvme_namespace.c, nvme_command.c, nvme_identify.c) against the fake
 * controller of tests/unit/nvme_fake.c: the reset/enable handshake and
 * its timeouts, Identify, the I/O queue pair with many commands in
 * flight, ring wrap with the phase tag flip, error status, a command that
 * never completes, CSTS.CFS and a completion for a command that was never
 * submitted. Each failure must be one error line, the controller disabled
 * where its DMA could still land, and every page completed exactly once.
 * A Read that succeeds without writing its whole page fails; a Read whose
 * controller does not finish its reset is held until it does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/console_capture.h"
#include "tests/unit/nvme_fake.h"
#include "swap/drivers/nvme_command.h"
#include "swap/drivers/nvme_identify.h"

#define NAME      "nvme 00:04.0"
#define MAX_PAGES 2048
#define POLL_LIMIT 100000

static struct fake_nvme fake;
static struct nvme_ctrl ctrl;
static void *pages[MAX_PAGES];
static unsigned npages;

static void *alloc_pages(unsigned n)
{
	void *p = aligned_alloc(4096, n * 4096ul);

	assert_non_null(p);
	assert_true(npages < MAX_PAGES);
	memset(p, 0, n * 4096ul);
	pages[npages++] = p;
	return p;
}

static int setup(void **state)
{
	(void)state;
	fake_nvme_init(&fake);
	memset(&ctrl, 0, sizeof(ctrl));
	snprintf(ctrl.name, sizeof(ctrl.name), NAME);
	ctrl.regs = (struct nvme_regs){ .ops = &fake_nvme_ops, .ctx = &fake,
					.ticks_per_ms = 1 };
	ctrl.regs_size = 0x4000;
	ctrl.alloc_pages = alloc_pages;
	console_forget();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	while (npages)
		free(pages[--npages]);
	fake_nvme_free(&fake);
	return 0;
}

static void expect_one_error(const char *line)
{
	assert_int_equal(console_nlines, 1);
	assert_string_equal(console_lines[0], line);
}

static struct blockdev *bring_up_one(unsigned lba_shift)
{
	fake_nvme_add_ns(&fake, 1, FAKE_NVME_DISK_BYTES >> lba_shift,
			 lba_shift);
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_OK);
	assert_int_equal(console_nlines, 1);
	assert_int_equal(ctrl.nns, 1);
	console_forget();
	return &ctrl.ns[0].bdev;
}

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

/* -------------------------------------------------------- bring-up */

static void test_bring_up(void **state)
{
	struct blockdev *dev;

	(void)state;
	dev = bring_up_one(9);
	assert_string_equal(console_lines[0], "apfvisor: " NAME " ns1: fake "
			    "NVMe, 0 MiB in 512-byte LBAs, 63 commands in "
			    "flight");
	assert_string_equal(dev->name, NAME " ns1");
	assert_int_equal(dev->size, FAKE_NVME_DISK_BYTES);
	assert_int_equal(dev->queue_depth, NVME_QUEUE_ENTRIES - 1);
	/* 3.1.5: NVM command set, 4 KiB pages, 64/16-byte entries. */
	assert_int_equal(fake.cc, NVME_CC_EN | 6 << 16 | 4 << 20);
	assert_int_equal(fake.aqa, (NVME_ADMIN_ENTRIES - 1) << 16 |
			 (NVME_ADMIN_ENTRIES - 1));
	assert_int_equal(ctrl.regs.doorbell_stride, 8);
	assert_true(fake.sq[1].exists && fake.cq[1].exists);
	assert_int_equal(fake.sq[1].cqid, 1);
	assert_int_equal(fake.sq[1].entries, NVME_QUEUE_ENTRIES);
	assert_int_equal(ctrl.info.vendor, 0x1b36);
	assert_string_equal(ctrl.info.serial, "APFFAKE0");
	assert_string_equal(ctrl.info.model, "fake NVMe");
}

static void test_bring_up_small_mqes(void **state)
{
	(void)state;
	fake.cap = (fake.cap & ~0xffffull) | 7;         /* 8 entries */
	assert_int_equal(bring_up_one(12)->queue_depth, 7);
	assert_int_equal(fake.sq[1].entries, 8);
}

static void test_never_ready(void **state)
{
	(void)state;
	fake.never_ready = true;
	fake_nvme_add_ns(&fake, 1, 64, 12);
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_ERR_TIMEOUT);
	expect_one_error("apfvisor: error: " NAME ": CSTS.RDY did not become "
			 "1 within CAP.TO (500 ms) after CC.EN = 1");
	/* Bounded by CAP.TO on the clock, not by a spin count. */
	assert_true(fake.clock > 500 && fake.clock < 600);
}

static void test_reset_never_finishes(void **state)
{
	(void)state;
	fake.csts = NVME_CSTS_RDY;
	fake.cc = NVME_CC_EN;
	fake.stuck_ready = true;
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_ERR_TIMEOUT);
	expect_one_error("apfvisor: error: " NAME ": CSTS.RDY did not become "
			 "0 within CAP.TO (500 ms) after CC.EN = 0");
	assert_int_equal(fake.disables, 1);
}

static void test_fatal_while_enabling(void **state)
{
	(void)state;
	fake.never_ready = true;
	fake.csts = NVME_CSTS_CFS;
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_ERR_DEVICE);
	expect_one_error("apfvisor: error: " NAME ": the controller reports a "
			 "fatal status while being enabled (CSTS.CFS set, "
			 "CSTS 0x00000002)");
}

static void test_cap_refused(void **state)
{
	(void)state;
	fake.cap |= 1ull << 48;                         /* MPSMIN 8 KiB */
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_ERR_UNSUPPORTED);
	expect_one_error("apfvisor: error: " NAME ": the controller's smallest "
			 "memory page is 8 KiB, apfvisor uses 4 KiB "
			 "(CAP.MPSMIN)");
	assert_int_equal(fake.cc, 0);
}

/*
 * CAP.MQES 0 (invalid, NVMe 1.4 3.1.1) made I/O queues of one entry: no
 * slot for any command, every request refused forever (found by
 * tests/fuzz/fuzz_nvme.c).
 */
static void test_one_entry_queues_refused(void **state)
{
	(void)state;
	fake.cap &= ~0xffffull;
	fake_nvme_add_ns(&fake, 1, 64, 12);
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_ERR_UNSUPPORTED);
	expect_one_error("apfvisor: error: " NAME ": the controller's queues "
			 "hold one entry (CAP.MQES 0); a queue needs two");
	assert_int_equal(fake.cc, 0);
}

static void test_doorbells_outside_bar(void **state)
{
	(void)state;
	ctrl.regs_size = 0x1000;
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_ERR_UNSUPPORTED);
	expect_one_error("apfvisor: error: " NAME ": BAR0 has 4096 bytes, the "
			 "doorbells need 4172 (CAP.DSTRD 1)");
}

static void test_admin_error_status(void **state)
{
	(void)state;
	fake_nvme_add_ns(&fake, 1, 64, 12);
	fake.fail_admin_opcode = NVME_ADMIN_IDENTIFY;
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_ERR_IO);
	expect_one_error("apfvisor: error: " NAME ": Identify Controller "
			 "failed: status 0x002 (SCT 0, SC 0x02: Invalid Field "
			 "in Command)");
	assert_int_equal(fake.disables, 1);
	assert_false(fake.cc & NVME_CC_EN);
}

static void test_admin_timeout(void **state)
{
	(void)state;
	fake_nvme_add_ns(&fake, 1, 64, 12);
	fake.hold = true;
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_ERR_DEVICE);
	expect_one_error("apfvisor: error: " NAME ": a command did not "
			 "complete in time (Identify, command id 0, 10000 ms); "
			 "the controller is disabled, its 1 command(s) in "
			 "flight fail");
	assert_int_equal(fake.disables, 1);
}

static void test_namespaces(void **state)
{
	(void)state;
	fake_nvme_add_ns(&fake, 1, 64, 12);
	fake.ns[0].metadata = 8;
	fake.nns = 3;                   /* NSID 2: inactive */
	fake_nvme_add_ns(&fake, 3, 512, 9);
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_OK);
	assert_int_equal(console_nlines, 2);
	assert_string_equal(console_lines[0], "apfvisor: " NAME ": namespace "
			    "1 not used: its LBA format carries metadata");
	assert_int_equal(ctrl.nns, 1);
	assert_string_equal(ctrl.ns[0].bdev.name, NAME " ns3");
	assert_int_equal(ctrl.ns[0].nsid, 3);
	assert_int_equal(ctrl.ns[0].queue.qid, 1);
}

static void test_no_usable_namespace(void **state)
{
	(void)state;
	fake.nns = 2;
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_ERR_NOT_FOUND);
	expect_one_error("apfvisor: error: " NAME ": no usable namespace "
			 "(fake NVMe, 2 namespace(s))");
	assert_false(fake.cc & NVME_CC_EN);
}

static void test_queue_pairs_granted(void **state)
{
	(void)state;
	fake.queues_granted = 0;        /* one pair */
	fake_nvme_add_ns(&fake, 1, 64, 12);
	fake_nvme_add_ns(&fake, 2, 64, 12);
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_OK);
	assert_int_equal(ctrl.nns, 1);
	assert_false(fake.sq[2].exists);
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

/* ------------------------------------------------------- identify */

static void test_identify_namespace(void **state)
{
	uint8_t page[4096] = { 0 };
	struct nvme_ns_info info;
	const char *why;
	uint64_t nsze = 1000;

	(void)state;
	assert_int_equal(nvme_parse_ns_info(page, &info, &why),
			 NVME_NS_INACTIVE);
	memcpy(page + NVME_ID_NS_NSZE, &nsze, 8);
	page[NVME_ID_NS_NLBAF] = 2;
	page[NVME_ID_NS_FLBAS] = 2 | 0x10;      /* bit 4: extended, ignored */
	page[NVME_ID_NS_LBAF + 4 * 2 + 2] = 12;
	assert_int_equal(nvme_parse_ns_info(page, &info, &why),
			 NVME_NS_USABLE);
	assert_int_equal(info.lba_shift, 12);
	assert_int_equal(info.lbas, 1000);
	page[NVME_ID_NS_LBAF + 4 * 2 + 2] = 13;
	assert_int_equal(nvme_parse_ns_info(page, &info, &why),
			 NVME_NS_UNUSABLE);
	assert_string_equal(why, "its LBA size is not 512 to 4096 bytes");
	page[NVME_ID_NS_FLBAS] = 3;
	assert_int_equal(nvme_parse_ns_info(page, &info, &why),
			 NVME_NS_UNUSABLE);
	assert_string_equal(why, "its LBA format index is past the formats "
			    "it lists");
	page[NVME_ID_NS_FLBAS] = 0;
	page[NVME_ID_NS_LBAF + 2] = 9;
	nsze = 7;                               /* 3.5 KiB */
	memcpy(page + NVME_ID_NS_NSZE, &nsze, 8);
	assert_int_equal(nvme_parse_ns_info(page, &info, &why),
			 NVME_NS_UNUSABLE);
}

static void test_commands(void **state)
{
	struct nvme_sqe c;

	(void)state;
	nvme_cmd_page_io(&c, BLK_WRITE, 3, 9, 0x123456000ull, 0x5000);
	assert_int_equal(c.opcode, NVME_CMD_WRITE);
	assert_int_equal(c.nsid, 3);
	assert_int_equal(c.cdw10, (uint32_t)(0x123456000ull >> 9));
	assert_int_equal(c.cdw11, 0x123456000ull >> 41);
	assert_int_equal(c.cdw12, 7);
	assert_int_equal(c.prp1, 0x5000);
	assert_int_equal(c.prp2, 0);
	nvme_cmd_create_sq(&c, 2, 64, 0x9000, 2);
	assert_int_equal(c.cdw10, 63u << 16 | 2);
	assert_int_equal(c.cdw11, 2u << 16 | 1);
	assert_int_equal(nvme_granted_queue_pairs(3 | 7u << 16), 4);
	assert_string_equal(nvme_status_name(0x80), "LBA Out of Range");
	assert_string_equal(nvme_status_name(0x281), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_bring_up),
		T(test_bring_up_small_mqes),
		T(test_never_ready),
		T(test_reset_never_finishes),
		T(test_fatal_while_enabling),
		T(test_cap_refused),
		T(test_one_entry_queues_refused),
		T(test_doorbells_outside_bar),
		T(test_admin_error_status),
		T(test_admin_timeout),
		T(test_namespaces),
		T(test_no_usable_namespace),
		T(test_queue_pairs_granted),
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
		T(test_identify_namespace),
		T(test_commands),
#undef T
	};

	return cmocka_run_group_tests_name("nvme", tests, NULL, NULL);
}
