/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The swap area's on-disk header: the first 4 KiB of the swap device,
 * written by tools/apfswap-format and checked by apfvisor before it uses a
 * device, so that it never writes to a disk that was not made for it. Pure
 * C: shared by the hypervisor, the host tool and tests/unit.
 *
 * Layout (every integer little-endian, byte offsets):
 *     0  8  magic "APFVSWAP"
 *     8  4  format version (1)
 *    12  4  header size in bytes (4096)
 *    16  8  device size in bytes (a multiple of 4096)
 *    24  8  page count: the 4 KiB slots after the header page
 *           (= device size / 4096 - 1)
 *    32 16  UUID (random, RFC 4122 version 4)
 *    48  4  CRC-32 (IEEE 802.3, as zlib's crc32) of all 4096 header bytes
 *           with this field taken as zero
 *    52 ..  reserved, zero, up to byte 4095
 * Slot n (0 <= n < page count) is at byte offset 4096 * (n + 1).
 */
#ifndef SWAP_SWAP_FORMAT_H
#define SWAP_SWAP_FORMAT_H

#include "lib/errors.h"
#include "lib/types.h"
#include "lib/trace/trace_format.h"

#define SWAP_MAGIC          "APFVSWAP"
#define SWAP_MAGIC_LEN      8
#define SWAP_FORMAT_VERSION 1
#define SWAP_HEADER_SIZE    4096
#define SWAP_UUID_LEN       16
#define SWAP_UUID_STR_LEN   37      /* 36 characters and the NUL */
/* Fewer slots than this cannot hold a useful working set. */
#define SWAP_MIN_PAGES      256
#define SWAP_MIN_DEVICE_SIZE (SWAP_HEADER_SIZE + SWAP_MIN_PAGES * PAGE_SIZE)

/*
 * A trace disk (lib/trace/trace_format.h) has the same header with another
 * magic; apfvisor writes the trace after it, and only to such a disk.
 */
#define TRACE_DISK_MIN_PAGES 16

/* Byte offsets of the fields (see the layout above). */
#define SWAP_OFF_MAGIC       0
#define SWAP_OFF_VERSION     8
#define SWAP_OFF_HEADER_SIZE 12
#define SWAP_OFF_DEVICE_SIZE 16
#define SWAP_OFF_PAGE_COUNT  24
#define SWAP_OFF_UUID        32
#define SWAP_OFF_CRC         48

struct swap_header_info {
	uint32_t version;
	uint64_t device_size;           /* bytes, as the header says */
	uint64_t page_count;            /* usable 4 KiB slots */
	uint8_t uuid[SWAP_UUID_LEN];
};

/* The byte offset of slot n on the device. */
static inline uint64_t swap_slot_offset(uint64_t slot)
{
	return SWAP_HEADER_SIZE + slot * PAGE_SIZE;
}

/*
 * Checks the header in page (SWAP_HEADER_SIZE bytes read from byte 0 of a
 * device of device_size bytes). Returns HV_OK and fills *out, or
 * HV_ERR_BAD_FORMAT and writes one message into err, one of:
 *   "device too small for a swap header: D bytes"
 *   "no apfvisor swap header (magic missing): format it with
 *    tools/apfswap-format"
 *   "swap header version N is not supported (this apfvisor reads 1)"
 *   "swap header size N is not supported (this apfvisor reads 4096)"
 *   "swap header checksum mismatch"
 *   "swap header is inconsistent: P pages in S bytes"
 *   "swap header says S bytes but the device has D bytes"
 *   "swap area too small: N pages, at least 256 needed"
 * A device larger than the header says is accepted (only the header's size
 * is used); a smaller one is not (slots would lie past its end).
 */
enum hv_err swap_header_parse(const void *page, uint64_t device_size,
			      struct swap_header_info *out, char *err,
			      size_t err_len);

/*
 * Writes a complete header for a device of device_size bytes into page
 * (SWAP_HEADER_SIZE bytes). Returns HV_OK, or HV_ERR_INVALID with one
 * message in err when the size is not a multiple of 4096 or below
 * SWAP_MIN_DEVICE_SIZE.
 */
enum hv_err swap_header_build(void *page, uint64_t device_size,
			      const uint8_t uuid[SWAP_UUID_LEN], char *err,
			      size_t err_len);

/*
 * The same for a trace disk: magic "APFVTRCD", at least 16 pages; the
 * messages say "trace" where the swap ones say "swap" and name
 * "tools/apfswap-format --trace".
 */
enum hv_err trace_disk_header_parse(const void *page, uint64_t device_size,
				    struct swap_header_info *out, char *err,
				    size_t err_len);
enum hv_err trace_disk_header_build(void *page, uint64_t device_size,
				    const uint8_t uuid[SWAP_UUID_LEN],
				    char *err, size_t err_len);

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", lowercase. */
void swap_uuid_format(const uint8_t uuid[SWAP_UUID_LEN],
		      char out[SWAP_UUID_STR_LEN]);

/* CRC-32 (reflected polynomial 0xEDB88320, zlib's): crc32(0, buf, len). */
uint32_t swap_crc32(uint32_t crc, const void *buf, size_t len);

#endif
