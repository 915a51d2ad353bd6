// SPDX-License-Identifier: BSD-2-Clause
/*
 * Writing the trace to its disk (boot/trace_disk.h): the file's bytes
 * arrive in order through a trace_sink, are gathered a page at a time
 * and written synchronously; the first page waits until the end.
 */
#include "boot/trace_disk.h"
#include "lib/console.h"
#include "lib/heap.h"
#include "lib/string.h"
#include "swap/swap_device.h"

#define WRITE_TIMEOUT_MS 10000
#define ERR_LEN 160

static bool same_bus(const struct blockdev *a, const struct blockdev *b)
{
	return a && b && a->bus && a->bus == b->bus;
}

int trace_disk_open(struct trace_disk *td, const struct blockdev *swap_dev)
{
	struct blockdev *found[BLOCKDEV_MAX];
	unsigned n = blockdev_find_all(SWAP_DEVICE_AUTO, found,
				       ARRAY_SIZE(found));
	uint8_t *page = (uint8_t *)(uintptr_t)hv_alloc_pages_low(1);
	char err[ERR_LEN];

	memset(td, 0, sizeof(*td));
	for (unsigned i = 0; i < n; i++) {
		if (found[i] == swap_dev)
			continue;
		if (blockdev_check_header(found[i], page,
					  trace_disk_header_parse, &td->hdr,
					  err, sizeof(err)))
			continue;
		if (same_bus(found[i], swap_dev)) {
			hv_error("trace: %s shares its channel with the swap "
				 "disk %s, which could not both be busy: "
				 "attach it elsewhere", found[i]->name,
				 swap_dev->name);
			return -1;
		}
		td->dev = found[i];
		td->page = page;
		td->first = (uint8_t *)(uintptr_t)hv_alloc_pages_low(1);
		hv_info("trace: trace disk %s, %llu MiB", td->dev->name,
			(unsigned long long)(td->hdr.device_size >> 20));
		return 0;
	}
	hv_error("trace: no trace disk found (trace = on): attach one "
		 "(tools/*-run --trace FILE) or make one with "
		 "tools/apfswap-format --trace");
	return -1;
}

static void write_page(struct trace_disk *td, const uint8_t *buf,
		       uint64_t file_offset)
{
	enum hv_err err;

	if (td->failed)
		return;
	err = blk_run_sync(td->dev, BLK_WRITE,
			   TRACE_DISK_DATA_OFFSET + file_offset,
			   (uint64_t)(uintptr_t)buf, WRITE_TIMEOUT_MS);
	if (err) {
		td->failed = true;
		hv_error("trace: writing %s at byte %llu %s", td->dev->name,
			 (unsigned long long)(TRACE_DISK_DATA_OFFSET +
					      file_offset),
			 err == HV_ERR_IO ? "failed (I/O error)" : "timed out");
	}
}

/* The sink: fill the page; a full one goes out (the first one waits). */
static void put(void *ctx, const void *buf, size_t len)
{
	struct trace_disk *td = ctx;
	const uint8_t *src = buf;

	while (len) {
		size_t at = td->pos % PAGE_SIZE;
		size_t n = MIN(len, PAGE_SIZE - at);

		memcpy(td->page + at, src, n);
		td->pos += n;
		src += n;
		len -= n;
		if (td->pos % PAGE_SIZE)
			continue;
		if (td->pos == PAGE_SIZE)
			memcpy(td->first, td->page, PAGE_SIZE);
		else
			write_page(td, td->page, td->pos - PAGE_SIZE);
	}
}

int trace_disk_write(struct trace_disk *td, struct trace_file_info *info,
		     struct trace_file_result *res)
{
	struct trace_sink sink = { .put = put, .ctx = td };
	uint64_t tail;

	td->pos = 0;
	td->failed = false;
	info->capacity = td->hdr.device_size - TRACE_DISK_DATA_OFFSET;
	/* An older trace on the disk must not look like this one. */
	memset(td->page, 0, PAGE_SIZE);
	write_page(td, td->page, 0);
	if (trace_file_write(info, &sink, res)) {
		hv_error("trace: the trace disk %s is too small even for the "
			 "trace's header and counters", td->dev->name);
		return -1;
	}
	tail = td->pos % PAGE_SIZE;
	if (tail) {
		memset(td->page + tail, 0, PAGE_SIZE - tail);
		if (td->pos < PAGE_SIZE)
			memcpy(td->first, td->page, PAGE_SIZE);
		else
			write_page(td, td->page, td->pos - tail);
	}
	write_page(td, td->first, 0);
	return td->failed ? -1 : 0;
}
