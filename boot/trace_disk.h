/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The trace disk: a block device whose first page carries the trace-disk
 * header (tools/apfswap-format --trace; swap/swap_format.h), to which the
 * trace file (lib/trace/trace_format.h) is written at byte 4096. As with swap,
 * nothing is written to a device whose header did not check out.
 */
#ifndef SWAP_TRACE_DISK_H
#define SWAP_TRACE_DISK_H

#include "lib/trace/trace_file.h"
#include "swap/blockdev.h"
#include "swap/swap_format.h"

struct trace_disk {
	struct blockdev *dev;
	struct swap_header_info hdr;
	uint8_t *page;          /* one page of the file on its way */
	uint8_t *first;         /* the file's first page, written last */
	uint64_t pos;           /* bytes of the file received */
	bool failed;
};

/*
 * Finds the trace disk among every block device, other than the swap
 * device swap_dev (may be NULL). On success fills *td, prints
 *   "apfvisor: trace: trace disk <device>, <size> MiB"
 * and returns 0. Otherwise one "apfvisor: error: trace: ..." line (no
 * trace disk, a bad header, or a disk that shares an ATA channel with the
 * swap disk) and -1.
 */
int trace_disk_open(struct trace_disk *td, const struct blockdev *swap_dev);

/*
 * Writes the trace file described by info (its capacity is set here) to
 * the disk, its first page last, so a half-written trace has no magic.
 * The disk must be idle. Returns 0 with *res filled, or -1 after one
 * error line (the trace could not be written, or did not fit at all).
 */
int trace_disk_write(struct trace_disk *td, struct trace_file_info *info,
		     struct trace_file_result *res);

#endif
