/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The trace file: what apfvisor writes to a trace disk and what
 * tools/apftrace reads. A trace format is an interface (the 2010 debate on
 * KVM's statistics and tracepoints): so the file says which version it is
 * and describes its own events, and the decoder reads that description
 * instead of assuming a layout. Pure C: shared by the hypervisor, the host
 * tools and tests/unit.
 *
 * Versions: a reader refuses a file whose major version it does not know;
 * a minor version only adds (header fields after the known ones, events,
 * fields at the end of an event, enum values, descriptor lines of a new
 * kind), so a reader of an older minor decodes a newer one, showing what
 * it does not know raw.
 *
 * Every integer is little-endian. The file is:
 *
 *   the fixed header (TRACE_HEADER_SIZE bytes at offset 0)
 *      0  8  magic "APFTRACE"
 *      8  2  major version (1)
 *     10  2  minor version (0)
 *     12  4  fixed header size in bytes (128; a newer minor may grow it)
 *     16  8  TSC frequency in Hz (the timestamps' clock)
 *     24  4  host CPUs (rings), 28 4 vCPUs
 *     32  4  flags (TRACE_FLAG_*), 36 4 reserved (0)
 *     40  8  records in the file
 *     48  8  records lost: not recorded (stop mode, buffer full),
 *            overwritten (overwrite mode) or left out (disk too small)
 *     56  8 + 64  8  descriptor table: offset, size in bytes
 *     72  8 + 80  8  config: offset, size
 *     88  8 + 96  8  records: offset, size
 *    104  8 +112  8  counters: offset, size
 *    120  8  file size in bytes
 *   then the sections at the offsets the header gives (each 8-aligned).
 *
 * The descriptor table is text, one declaration per line, words separated
 * by one space; a reader skips lines whose first word it does not know:
 *   "event ID NAME VERSION FIELD:TYPE[:ENUM] ..."
 *      ID: decimal 1..65535 (0 is never in a file); VERSION: decimal, the
 *      event's own version; fields lie packed (no padding) after the
 *      record header, in this order. TYPE is u8 u16 u32 u64 i8 i16 i32
 *      or i64; ENUM names an enum line whose labels the value takes.
 *   "enum NAME VALUE=LABEL VALUE=LABEL ..."
 *      (VALUE decimal; a value without a label is shown as a number).
 * The config section is text: the configuration apfvisor ran with, one
 * "key = value" line per key. The counters section is text: one
 * "NAME VALUE" line per counter of the registry (VALUE decimal), read at
 * the end of the run, as the "apfvisor: stat" lines print them.
 *
 * The records section holds each host CPU's records in the order that CPU
 * wrote them, CPU after CPU; sort by timestamp to merge them. A record:
 *      0  8  TSC at the event
 *      8  2  event ID
 *     10  2  size in bytes: header and fields, without the padding
 *     12  1  host CPU (its ring)
 *     13  1  reserved (0)
 *     14  2  vCPU, or TRACE_NO_VCPU (the service CPU's own work)
 *     16 ..  the fields
 * and the next record starts at the next multiple of 8. A record larger
 * than its descriptor's fields carries fields the reader does not know:
 * they follow the known ones (show them raw).
 *
 * On a trace disk (tools/apfswap-format --trace), the first 4 KiB is the
 * disk's own header (swap/swap_format.h, magic TRACE_DISK_MAGIC) and the
 * trace file starts at byte TRACE_DISK_DATA_OFFSET.
 */
#ifndef LIB_TRACE_FORMAT_H
#define LIB_TRACE_FORMAT_H

#include "lib/types.h"

#define TRACE_MAGIC             "APFTRACE"
#define TRACE_MAGIC_LEN         8
#define TRACE_MAJOR             1
#define TRACE_MINOR             0
#define TRACE_HEADER_SIZE       128
#define TRACE_RECORD_HEADER     16
#define TRACE_RECORD_ALIGN      8
#define TRACE_NO_VCPU           0xFFFFu
#define TRACE_DISK_MAGIC        "APFVTRCD"
#define TRACE_DISK_DATA_OFFSET  4096

/* Header flags. */
#define TRACE_FLAG_OVERWRITE    (1u << 0)   /* trace.mode = overwrite */
#define TRACE_FLAG_FULL         (1u << 1)   /* stop mode: a ring filled */
#define TRACE_FLAG_TRUNCATED    (1u << 2)   /* the disk could not hold all */

/* Byte offsets in the fixed header. */
#define TRACE_OFF_MAGIC         0
#define TRACE_OFF_MAJOR         8
#define TRACE_OFF_MINOR         10
#define TRACE_OFF_HEADER_SIZE   12
#define TRACE_OFF_TSC_HZ        16
#define TRACE_OFF_CPUS          24
#define TRACE_OFF_VCPUS         28
#define TRACE_OFF_FLAGS         32
#define TRACE_OFF_RECORDS_KEPT  40
#define TRACE_OFF_RECORDS_LOST  48
#define TRACE_OFF_DESC          56      /* offset, then size */
#define TRACE_OFF_CONFIG        72
#define TRACE_OFF_RECORDS       88
#define TRACE_OFF_COUNTERS      104
#define TRACE_OFF_FILE_SIZE     120

/* Byte offsets in a record header. */
#define TRACE_REC_TSC           0
#define TRACE_REC_EVENT         8
#define TRACE_REC_SIZE          10
#define TRACE_REC_CPU           12
#define TRACE_REC_VCPU          14

static inline uint32_t trace_record_span(uint32_t size)
{
	return (size + TRACE_RECORD_ALIGN - 1) & ~(uint32_t)(TRACE_RECORD_ALIGN - 1);
}

#endif
