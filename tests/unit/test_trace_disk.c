/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * boot/trace_disk.c over made-up disks: the trace disk is the one with a
 * trace header (never the swap disk, never one sharing the swap disk's
 * channel), and the file lands at byte 4096 page by page, its first page
 * last, exactly as lib/trace/trace_file.c made it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "swap/swap_device.h"
#include "boot/trace_disk.h"
#include "tests/unit/console_capture.h"
#include "tests/unit/trace_host.h"

#define DISK_BYTES (2u << 20)

struct fake_disk {
	struct blockdev dev;
	uint8_t *data;
	uint64_t writes[512];           /* byte offsets, in order */
	unsigned nwrites;
	bool fail_writes;
};

static struct fake_disk disks[3];
static unsigned ndisks;

/* ---- what swap/swap_device.c would give: the disks, read and written */

unsigned blockdev_find_all(enum swap_device_kind kind, struct blockdev **out,
			   unsigned max)
{
	unsigned n = 0;

	(void)kind;
	for (; n < ndisks && n < max; n++)
		out[n] = &disks[n].dev;
	return n;
}

enum hv_err blk_run_sync(struct blockdev *dev, enum blk_op op,
			 uint64_t offset, uint64_t buffer_pa,
			 unsigned timeout_ms)
{
	struct fake_disk *d = dev->driver;
	void *buf = (void *)(uintptr_t)buffer_pa;

	(void)timeout_ms;
	if (offset + PAGE_SIZE > dev->size)
		return HV_ERR_IO;       /* BLK_OUT_OF_RANGE */
	if (op == BLK_READ) {
		memcpy(buf, d->data + offset, PAGE_SIZE);
		return HV_OK;
	}
	if (d->fail_writes)
		return HV_ERR_IO;
	memcpy(d->data + offset, buf, PAGE_SIZE);
	d->writes[d->nwrites++] = offset;
	return HV_OK;
}

enum hv_err blockdev_check_header(struct blockdev *dev, uint8_t *page,
				  blockdev_header_parser parse,
				  struct swap_header_info *hdr, char *err,
				  size_t err_len)
{
	blk_run_sync(dev, BLK_READ, 0, (uint64_t)(uintptr_t)page, 0);
	return parse(page, dev->size, hdr, err, err_len);
}

/* The pages trace_disk_open takes: from a static arena, never freed. */
uint64_t hv_alloc_pages_low(unsigned npages)
{
	static uint8_t arena[32][PAGE_SIZE] __attribute__((aligned(4096)));
	static unsigned used;

	assert_true(used + npages <= 32);
	used += npages;
	return (uint64_t)(uintptr_t)arena[used - npages];
}

static const uint8_t uuid[SWAP_UUID_LEN];

static struct fake_disk *add_disk(const char *name, unsigned bus,
				  bool trace_header)
{
	struct fake_disk *d = &disks[ndisks++];
	char err[160];

	memset(d, 0, sizeof(*d));
	d->data = calloc(1, DISK_BYTES);
	d->dev = (struct blockdev){ .name = name, .size = DISK_BYTES,
				    .driver = d, .bus = bus };
	if (trace_header)
		assert_int_equal(trace_disk_header_build(d->data, DISK_BYTES,
							 uuid, err,
							 sizeof(err)), HV_OK);
	else
		assert_int_equal(swap_header_build(d->data, DISK_BYTES, uuid,
						   err, sizeof(err)), HV_OK);
	return d;
}

static int setup(void **state)
{
	(void)state;
	ndisks = 0;
	console_forget();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (unsigned i = 0; i < ndisks; i++)
		free(disks[i].data);
	return 0;
}

static void finds_the_trace_disk(void **state)
{
	struct trace_disk td;
	struct fake_disk *swap = add_disk("swap0", 1, false);

	(void)state;
	add_disk("trace0", 2, true);
	assert_int_equal(trace_disk_open(&td, &swap->dev), 0);
	assert_string_equal(td.dev->name, "trace0");
	assert_string_equal(console_lines[0],
			    "apfvisor: trace: trace disk trace0, 2 MiB");
}

static void never_the_swap_disk_nor_an_unformatted_one(void **state)
{
	struct trace_disk td;
	struct fake_disk *swap = add_disk("swap0", 0, false);
	struct fake_disk *blank = add_disk("blank", 0, true);

	(void)state;
	memset(blank->data, 0, PAGE_SIZE);
	assert_int_equal(trace_disk_open(&td, &swap->dev), -1);
	assert_int_equal(console_nlines, 1);
	assert_string_equal(console_lines[0], "apfvisor: error: trace: no "
			    "trace disk found (trace = on): attach one "
			    "(tools/*-run --trace FILE) or make one with "
			    "tools/apfswap-format --trace");
	assert_int_equal(swap->nwrites + blank->nwrites, 0);
}

static void not_on_the_swap_disks_channel(void **state)
{
	struct trace_disk td;
	struct fake_disk *swap = add_disk("ata1-master", 0x170, false);

	(void)state;
	add_disk("ata1-slave", 0x170, true);
	assert_int_equal(trace_disk_open(&td, &swap->dev), -1);
	assert_string_equal(console_lines[0], "apfvisor: error: trace: "
			    "ata1-slave shares its channel with the swap disk "
			    "ata1-master, which could not both be busy: attach "
			    "it elsewhere");
}

/* The file as the writer makes it, to compare with the disk. */
static uint8_t expected[DISK_BYTES];
static size_t expected_len;

static void keep(void *ctx, const void *buf, size_t len)
{
	(void)ctx;
	memcpy(expected + expected_len, buf, len);
	expected_len += len;
}

static uint64_t rings[2][2048];

static void record_some(unsigned n)
{
	void *bufs[2] = { rings[0], rings[1] };

	trace_reset();
	trace_start(bufs, 2, sizeof(rings[0]), false);
	for (unsigned i = 0; i < n; i++)
		trace_ept_violation(0, i * 4096ull, 1, 0);
}

static void writes_the_file_first_page_last(void **state)
{
	struct trace_file_info info = { .tsc_hz = 1000, .vcpus = 1 };
	struct trace_sink sink = { keep, NULL };
	struct trace_file_result res, res2;
	struct trace_disk td;
	struct fake_disk *t;

	(void)state;
	t = add_disk("trace0", 0, true);
	record_some(500);       /* 500 records of 32 bytes: 4+ pages */
	assert_int_equal(trace_disk_open(&td, NULL), 0);
	assert_int_equal(trace_disk_write(&td, &info, &res), 0);
	assert_int_equal(res.records, 500);
	expected_len = 0;
	info.capacity = 0;
	assert_int_equal(trace_file_write(&info, &sink, &res2), 0);
	assert_int_equal(res.size, expected_len);
	assert_memory_equal(t->data + TRACE_DISK_DATA_OFFSET, expected,
			    expected_len);
	/* Zeroed first, then every page in order, the header page last. */
	assert_int_equal(t->writes[0], TRACE_DISK_DATA_OFFSET);
	assert_int_equal(t->writes[t->nwrites - 1], TRACE_DISK_DATA_OFFSET);
	for (unsigned i = 2; i < t->nwrites - 1; i++)
		assert_int_equal(t->writes[i], t->writes[i - 1] + PAGE_SIZE);
	/* The zeroing, then each page of the file once. */
	assert_int_equal(t->nwrites, 1 + (expected_len - 1) / PAGE_SIZE + 1);
}

static void a_write_error_is_said(void **state)
{
	struct trace_file_info info = { .tsc_hz = 1000, .vcpus = 1 };
	struct trace_file_result res;
	struct trace_disk td;
	struct fake_disk *t;

	(void)state;
	t = add_disk("trace0", 0, true);
	record_some(10);
	assert_int_equal(trace_disk_open(&td, NULL), 0);
	t->fail_writes = true;
	console_forget();
	assert_int_equal(trace_disk_write(&td, &info, &res), -1);
	assert_int_equal(console_nlines, 1);
	assert_string_equal(console_lines[0], "apfvisor: error: trace: writing "
			    "trace0 at byte 4096 failed (I/O error)");
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(finds_the_trace_disk),
		T(never_the_swap_disk_nor_an_unformatted_one),
		T(not_on_the_swap_disks_channel),
		T(writes_the_file_first_page_last),
		T(a_write_error_is_said),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
