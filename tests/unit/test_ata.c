/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swap/drivers/ata.c over fake IDE channels (tests/unit/ata_fake.c): where the
 * probe looks and what it leaves alone, what it prints, reads and writes
 * with 48- and 28-bit LBAs, the queue, one page per poll, out-of-range
 * requests, device errors, short transfers (counted) and timeouts (after
 * which nothing touches the page).
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
#include "swap/drivers/ata.h"
#include "tests/unit/ata_fake.h"

#define SECTORS_64M (64u << 11)

static int setup(void **state)
{
	(void)state;
	fake_ata_reset();
	ata_forget();
	console_forget();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	/* Whatever happened, the driver never did these. */
	assert_int_equal(fake_srst, 0);
	assert_int_equal(fake_no_drq_access, 0);
	assert_int_equal(fake_ata[0].dev[0].commands, 0);
	fake_ata_reset();
	return 0;
}

static void expect_line(unsigned i, const char *want)
{
	assert_true(i < console_nlines);
	assert_string_equal(console_lines[i], want);
}

/* The boot disk as in Bochs: ata0-master, a 64 MiB disk. */
static void boot_disk(void)
{
	fake_disk(0, 0, SECTORS_64M, true);
}

/* ata0-master the boot disk, ata0-slave a disk; the probe's line forgotten. */
static struct blockdev *slave_disk(uint64_t sectors, bool lba48)
{
	struct blockdev *dev;

	boot_disk();
	fake_disk(0, 1, sectors, lba48);
	dev = ata_probe();
	assert_non_null(dev);
	console_forget();
	return dev;
}

static enum hv_err submit(struct blockdev *dev, enum blk_op op,
			  uint64_t offset, void *buf, uintptr_t cookie)
{
	struct blk_request r = {
		.op = op,
		.offset = offset,
		.buffer_pa = (uint64_t)(uintptr_t)buf,
		.cookie = (void *)cookie,
	};

	return blk_submit(dev, &r);
}

/* Polls until one completion arrives (bounded); returns its status. */
static enum blk_status wait_one(struct blockdev *dev, uintptr_t cookie)
{
	struct blk_completion c;

	for (int i = 0; i < 100000; i++) {
		if (blk_poll(dev, &c, 1)) {
			assert_ptr_equal(c.cookie, (void *)cookie);
			return c.status;
		}
	}
	fail_msg("no completion");
	return BLK_IO_ERROR;
}

static enum blk_status run(struct blockdev *dev, enum blk_op op,
			   uint64_t offset, void *buf)
{
	assert_int_equal(submit(dev, op, offset, buf, 7), HV_OK);
	return wait_one(dev, 7);
}

static void test_floating_buses(void **state)
{
	(void)state;
	assert_null(ata_probe());
	assert_int_equal(console_nlines, 0);
	/* Status 0xFF is recognised at once: no wait, not even a short one. */
	assert_int_equal(fake_tsc, 0);
}

static void test_boot_disk_alone(void **state)
{
	(void)state;
	boot_disk();
	assert_null(ata_probe());
	assert_int_equal(console_nlines, 0);
	assert_int_equal(fake_ata[0].dev[0].commands, 0);
}

static void test_finds_slave(void **state)
{
	struct blockdev *dev;

	(void)state;
	boot_disk();
	fake_disk(0, 1, SECTORS_64M + 5, true);
	dev = ata_probe();
	assert_non_null(dev);
	assert_string_equal(dev->name, "ata0-slave");
	assert_int_equal(dev->size, 64u << 20);     /* whole pages */
	assert_int_equal(dev->queue_depth, 32);
	assert_int_equal(console_nlines, 1);
	expect_line(0, "apfvisor: ata0-slave: ATA disk \"FAKE DISK\", "
		       "131077 sectors (64 MiB), LBA48, PIO");
	assert_int_equal(fake_ata[0].dev[1].commands, 1);
	/* nIEN: the driver polls, the channel must not interrupt. */
	assert_int_equal(fake_ata[0].devctl & 0x02, 0x02);
}

static void test_skips_packet_device(void **state)
{
	struct blockdev *dev;

	(void)state;
	boot_disk();
	fake_packet(0, 1);
	fake_disk(1, 0, 4096, false);
	dev = ata_probe();
	assert_non_null(dev);
	assert_string_equal(dev->name, "ata1-master");
	/* Asked, refused with the packet signature, skipped in silence. */
	assert_int_equal(fake_ata[0].dev[1].commands, 1);
	assert_int_equal(console_nlines, 1);
	expect_line(0, "apfvisor: ata1-master: ATA disk \"FAKE DISK\", "
		       "4096 sectors (2 MiB), LBA28, PIO");
}

static void test_secondary_slave(void **state)
{
	struct blockdev *dev;

	(void)state;
	fake_packet(1, 0);
	/* A packet device may keep DRDY clear: skipped without a command. */
	fake_ata[1].dev[0].status = 0;
	fake_disk(1, 1, 4096, true);
	dev = ata_probe();
	assert_non_null(dev);
	assert_string_equal(dev->name, "ata1-slave");
}

static void test_unusable_disk(void **state)
{
	struct blockdev *dev;

	(void)state;
	boot_disk();
	fake_disk(0, 1, 4096, true);
	fake_disk(1, 0, 4096, true);
	fake_ata[0].dev[1].identify[49] = 0;    /* no LBA */
	fake_identify_checksum(&fake_ata[0].dev[1]);
	/* Said once, left alone; the next disk (the trace disk?) is used. */
	dev = ata_probe();
	assert_non_null(dev);
	assert_string_equal(dev->name, "ata1-master");
	assert_int_equal(console_nlines, 2);
	expect_line(0, "apfvisor: error: ata0-slave: ATA disk \"FAKE DISK\": "
		       "no LBA addressing (IDENTIFY word 49 bit 9 clear); "
		       "the disk is not used");
}

static void test_all_disks_found_once(void **state)
{
	struct blockdev *devs[4];

	(void)state;
	boot_disk();
	fake_disk(0, 1, 4096, true);
	fake_disk(1, 0, 8192, true);
	assert_int_equal(ata_probe_all(devs, 4), 2);
	assert_string_equal(devs[0]->name, "ata0-slave");
	assert_string_equal(devs[1]->name, "ata1-master");
	/* Different channels: both may be busy at once. */
	assert_true(devs[0]->bus != devs[1]->bus);
	/* A second look probes nothing again and finds the same disks. */
	unsigned commands = fake_ata[0].dev[1].commands;

	assert_int_equal(ata_probe_all(devs, 1), 1);
	assert_string_equal(devs[0]->name, "ata0-slave");
	assert_int_equal(fake_ata[0].dev[1].commands, commands);
	assert_int_equal(console_nlines, 2);
}

static void test_identify_times_out(void **state)
{
	(void)state;
	boot_disk();
	fake_disk(0, 1, 4096, true);
	fake_ata[0].dev[1].stuck = true;
	assert_null(ata_probe());
	assert_int_equal(console_nlines, 1);
	expect_line(0, "apfvisor: error: ata0-slave: IDENTIFY DEVICE timed "
		       "out (status 0x80, error 0x00); the disk is not used");
	/* 5 s at one simulated millisecond per TSC read: bounded. */
	assert_true(fake_tsc >= 5000000000ull);
	assert_true(fake_tsc < 6000000000ull);
}

static void fill(uint8_t *buf, unsigned seed)
{
	for (unsigned i = 0; i < 4096; i++)
		buf[i] = (uint8_t)(i * 13 + seed);
}

static void roundtrip(struct blockdev *dev, struct fake_dev *disk,
		      uint64_t offset)
{
	static uint8_t out[4096], in[4096];

	fill(out, (unsigned)(offset >> 12));
	memset(in, 0, sizeof(in));
	assert_int_equal(run(dev, BLK_WRITE, offset, out), BLK_OK);
	assert_memory_equal(disk->data + (offset - disk->data_base * 512),
			    out, 4096);
	assert_int_equal(disk->last_count, 8);
	assert_int_equal(run(dev, BLK_READ, offset, in), BLK_OK);
	assert_memory_equal(in, out, 4096);
}

static void test_read_write_lba48(void **state)
{
	struct blockdev *dev;
	struct fake_dev *disk = &fake_ata[0].dev[1];
	uint64_t far = 0x123456789a00ull * 512; /* all six LBA bytes */

	(void)state;
	dev = slave_disk((far >> 9) + 64, true);
	roundtrip(dev, disk, 0);
	roundtrip(dev, disk, 4096 * 3);
	assert_true(disk->last_ext);
	fake_window(disk, far >> 9);
	roundtrip(dev, disk, far);
	roundtrip(dev, disk, far + 4096 * 7);
	assert_int_equal(dev->reads, 4);
	assert_int_equal(dev->writes, 4);
	assert_int_equal(dev->errors, 0);
}

static void test_read_write_lba28(void **state)
{
	struct blockdev *dev;
	struct fake_dev *disk = &fake_ata[0].dev[1];
	uint64_t far = 0x0a5c3000ull * 512;    /* LBA bits 27:24 in Device */

	(void)state;
	dev = slave_disk((far >> 9) + 64, false);
	roundtrip(dev, disk, 8192);
	assert_false(disk->last_ext);
	fake_window(disk, far >> 9);
	roundtrip(dev, disk, far);
}

static void test_out_of_range(void **state)
{
	static uint8_t buf[4096];
	struct blockdev *dev;
	unsigned before;

	(void)state;
	boot_disk();
	fake_disk(0, 1, 64 + 7, true);          /* 8 pages and a bit */
	dev = ata_probe();
	assert_non_null(dev);
	assert_int_equal(dev->size, 8 * 4096);
	before = fake_ata[0].dev[1].commands;
	assert_int_equal(run(dev, BLK_READ, 8 * 4096, buf), BLK_OUT_OF_RANGE);
	assert_int_equal(run(dev, BLK_WRITE, 100ull << 30, buf),
			 BLK_OUT_OF_RANGE);
	assert_int_equal(run(dev, BLK_READ, 512, buf), BLK_OUT_OF_RANGE);
	assert_int_equal(fake_ata[0].dev[1].commands, before);
	assert_int_equal(dev->errors, 3);
	assert_int_equal(run(dev, BLK_READ, 7 * 4096, buf), BLK_OK);
}

static void test_device_error(void **state)
{
	static uint8_t buf[4096];
	struct blockdev *dev;
	struct fake_dev *disk = &fake_ata[0].dev[1];

	(void)state;
	dev = slave_disk(4096, true);
	fake_fail(disk, 8 * 5 + 3, 0x40);      /* UNC inside page 5 */
	assert_int_equal(run(dev, BLK_READ, 5 * 4096, buf), BLK_IO_ERROR);
	assert_int_equal(console_nlines, 1);
	expect_line(0, "apfvisor: ata0-slave: read of sectors 40-47 failed: "
		       "uncorrectable data (UNC) (status 0x41, error 0x40)");
	assert_int_equal(run(dev, BLK_WRITE, 5 * 4096, buf), BLK_IO_ERROR);
	assert_int_equal(dev->errors, 2);
	/* The disk is still in use: other pages work. */
	assert_int_equal(run(dev, BLK_READ, 4 * 4096, buf), BLK_OK);
	assert_int_equal(run(dev, BLK_WRITE, 6 * 4096, buf), BLK_OK);
	assert_int_equal(dev->errors, 2);
}

/* ERR with DRQ: the rest of the command's data is drained, then idle. */
static void test_read_error_with_data(void **state)
{
	static uint8_t buf[4096], want[4096];
	struct blockdev *dev;
	struct fake_dev *disk = &fake_ata[0].dev[1];

	(void)state;
	dev = slave_disk(4096, true);
	disk->latency = 3;
	disk->fail_drq = true;
	fake_fail(disk, 8 * 2 + 1, 0x40);
	assert_int_equal(run(dev, BLK_READ, 2 * 4096, buf), BLK_IO_ERROR);
	assert_int_equal(disk->remaining, 0);
	assert_int_equal(disk->status & 0x08, 0);
	memcpy(want, disk->data + 3 * 4096, 4096);
	assert_int_equal(run(dev, BLK_READ, 3 * 4096, buf), BLK_OK);
	assert_memory_equal(buf, want, 4096);
}

/* Fewer sectors than asked, then "done": an error, the disk stays. */
static void test_command_ends_early(void **state)
{
	static uint8_t buf[4096];
	struct blockdev *dev;
	struct fake_dev *disk = &fake_ata[0].dev[1];

	(void)state;
	dev = slave_disk(4096, true);
	disk->count_skew = -3;
	assert_int_equal(run(dev, BLK_READ, 2 * 4096, buf), BLK_IO_ERROR);
	expect_line(0, "apfvisor: ata0-slave: read of sectors 16-23 failed: "
		       "command ended early (status 0x40, error 0x00)");
	assert_int_equal(run(dev, BLK_WRITE, 2 * 4096, buf), BLK_IO_ERROR);
	disk->count_skew = 0;
	assert_int_equal(run(dev, BLK_READ, 2 * 4096, buf), BLK_OK);
	assert_int_equal(dev->errors, 2);
}

/*
 * A clean end after fewer sectors than asked: the words of the missing
 * sectors never reached the page. The read fails, as does a write, and
 * both count as short transfers; the disk stays in use.
 */
static void test_short_transfer_is_counted(void **state)
{
	static uint8_t buf[4096];
	struct blockdev *dev;
	struct fake_dev *disk = &fake_ata[0].dev[1];

	(void)state;
	dev = slave_disk(4096, true);
	disk->count_skew = -7;                  /* one sector of eight */
	assert_int_equal(run(dev, BLK_READ, 2 * 4096, buf), BLK_IO_ERROR);
	disk->count_skew = -3;
	assert_int_equal(run(dev, BLK_WRITE, 2 * 4096, buf), BLK_IO_ERROR);
	assert_int_equal(dev->short_transfers, 2);
	assert_int_equal(dev->errors, 2);
	disk->count_skew = 0;
	assert_int_equal(run(dev, BLK_READ, 2 * 4096, buf), BLK_OK);
	assert_int_equal(dev->short_transfers, 2);
}

/*
 * PIO: the CPU moves every word, so once a read has timed out nothing can
 * write into its page any more, even a device that wakes up and offers
 * the data: there is nothing to hold (frames_held stays 0).
 */
static void test_timed_out_read_page_untouched_after(void **state)
{
	static uint8_t buf[4096];
	struct blk_completion c;
	struct blockdev *dev;
	struct fake_dev *disk = &fake_ata[0].dev[1];

	(void)state;
	dev = slave_disk(4096, true);
	memset(buf, 0xee, sizeof(buf));
	disk->stuck = true;
	assert_int_equal(run(dev, BLK_READ, 4096, buf), BLK_IO_ERROR);
	/* The device wakes up with the page's first sector ready. */
	disk->stuck = false;
	disk->status = 0x48;                    /* DRDY, DRQ */
	disk->remaining = 8;
	disk->word = 0;
	for (int i = 0; i < 100; i++)
		assert_int_equal(blk_poll(dev, &c, 1), 0);
	for (unsigned i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0xee);
	assert_int_equal(dev->frames_held, 0);
	assert_int_equal(disk->remaining, 8);   /* no word was taken */
}

/* More data blocks than asked: never into the page, the disk retired. */
static void test_device_offers_too_much(void **state)
{
	static uint8_t buf[2][4096];
	struct blockdev *dev;
	struct fake_dev *disk = &fake_ata[0].dev[1];
	unsigned before;

	(void)state;
	dev = slave_disk(4096, true);
	disk->count_skew = 1;
	memset(buf[1], 0xa5, sizeof(buf[1]));
	assert_int_equal(run(dev, BLK_READ, 2 * 4096, buf[0]),
			 BLK_IO_ERROR);
	assert_int_equal(buf[1][0], 0xa5);      /* nothing past the page */
	assert_int_equal(console_nlines, 1);
	expect_line(0, "apfvisor: error: ata0-slave: read of sectors 16-23: "
		       "the device offers more than the 8 sectors asked for "
		       "(status 0x48); the disk is not used any more");
	before = disk->commands;
	assert_int_equal(run(dev, BLK_READ, 3 * 4096, buf[0]), BLK_IO_ERROR);
	assert_int_equal(disk->commands, before);
	assert_int_equal(console_nlines, 1);
}

static void test_errors_shown_limited(void **state)
{
	static uint8_t buf[4096];
	struct blockdev *dev;
	struct fake_dev *disk = &fake_ata[0].dev[1];

	(void)state;
	dev = slave_disk(4096, true);
	fake_fail(disk, 0, 0x10);
	for (int i = 0; i < 20; i++)
		assert_int_equal(run(dev, BLK_READ, 0, buf), BLK_IO_ERROR);
	assert_int_equal(dev->errors, 20);
	assert_int_equal(console_nlines, 8);
	assert_non_null(strstr(console_lines[7], "; further errors are only "
				   "counted"));
}

static void test_timeout_retires_disk(void **state)
{
	static uint8_t buf[4096];
	struct blockdev *dev;
	struct fake_dev *disk = &fake_ata[0].dev[1];

	(void)state;
	dev = slave_disk(4096, true);
	disk->stuck = true;
	assert_int_equal(submit(dev, BLK_WRITE, 4096, buf, 1), HV_OK);
	assert_int_equal(submit(dev, BLK_READ, 8192, buf, 2), HV_OK);
	assert_int_equal(wait_one(dev, 1), BLK_IO_ERROR);
	assert_int_equal(console_nlines, 1);
	expect_line(0, "apfvisor: error: ata0-slave: write of sectors 8-15 "
		       "timed out after 10 s (status 0x80, 0 of 8 sectors "
		       "moved); the disk is not used any more");
	/* Later requests fail at once, without a command. */
	assert_int_equal(wait_one(dev, 2), BLK_IO_ERROR);
	assert_int_equal(disk->commands, 2);    /* IDENTIFY and the write */
	assert_int_equal(dev->errors, 2);
	assert_int_equal(console_nlines, 1);
}

static void test_queue_and_order(void **state)
{
	static uint8_t buf[33][4096];
	struct blk_completion c[40];
	struct blockdev *dev;
	unsigned n;

	(void)state;
	dev = slave_disk(4096, true);
	for (uintptr_t i = 0; i < 32; i++)
		assert_int_equal(submit(dev, BLK_READ, i * 4096, buf[i], i),
				 HV_OK);
	assert_int_equal(submit(dev, BLK_READ, 0, buf[32], 32), HV_ERR_BUSY);
	assert_int_equal(blk_poll(dev, c, 0), 0);
	/* One page per call, in submission order. */
	for (uintptr_t i = 0; i < 32; i++) {
		n = blk_poll(dev, c, 40);
		assert_int_equal(n, 1);
		assert_ptr_equal(c[0].cookie, (void *)i);
		assert_int_equal(c[0].status, BLK_OK);
	}
	assert_int_equal(blk_poll(dev, c, 40), 0);
	assert_int_equal(submit(dev, BLK_READ, 0, buf[32], 32), HV_OK);
}

static void test_busy_device_polls_pending(void **state)
{
	static uint8_t buf[4096];
	struct blk_completion c[4];
	struct blockdev *dev;
	unsigned calls = 0;

	(void)state;
	dev = slave_disk(4096, true);
	fake_ata[0].dev[1].latency = 30;
	/* Out of range first: completes without I/O, with the next one. */
	assert_int_equal(submit(dev, BLK_READ, 1ull << 30, buf, 1), HV_OK);
	assert_int_equal(submit(dev, BLK_READ, 4096, buf, 2), HV_OK);
	assert_int_equal(blk_poll(dev, c, 4), 1);
	assert_ptr_equal(c[0].cookie, (void *)1);
	assert_int_equal(c[0].status, BLK_OUT_OF_RANGE);
	while (!blk_poll(dev, c, 4))
		calls++;
	/* Busy: each call returned after a status read, not a wait. */
	assert_true(calls >= 5);
	assert_ptr_equal(c[0].cookie, (void *)2);
	assert_int_equal(c[0].status, BLK_OK);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_floating_buses),
		T(test_boot_disk_alone),
		T(test_finds_slave),
		T(test_skips_packet_device),
		T(test_secondary_slave),
		T(test_unusable_disk),
		T(test_all_disks_found_once),
		T(test_identify_times_out),
		T(test_read_write_lba48),
		T(test_read_write_lba28),
		T(test_out_of_range),
		T(test_device_error),
		T(test_read_error_with_data),
		T(test_command_ends_early),
		T(test_device_offers_too_much),
		T(test_short_transfer_is_counted),
		T(test_timed_out_read_page_untouched_after),
		T(test_errors_shown_limited),
		T(test_timeout_retires_disk),
		T(test_queue_and_order),
		T(test_busy_device_polls_pending),
	};
#undef T

	return cmocka_run_group_tests_name("ata", tests, NULL, NULL);
}
