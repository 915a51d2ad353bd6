// SPDX-License-Identifier: BSD-2-Clause
/*
 * The swap header (layout in swap_format.h). Fields are read and written
 * byte by byte in little-endian order, so the code does not depend on the
 * host's byte order or on the alignment of the page it is given.
 */
#include "swap/swap_format.h"
#include "lib/format.h"
#include "lib/string.h"

#define CRC32_POLY 0xedb88320u

uint32_t swap_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (unsigned bit = 0; bit < 8; bit++)
			crc = (crc >> 1) ^ (CRC32_POLY & -(crc & 1));
	}
	return ~crc;
}

static uint64_t get_le(const uint8_t *p, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = bytes; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static void put_le(uint8_t *p, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

/* The CRC of the header with its CRC field taken as zero. */
static uint32_t header_crc(const uint8_t *h)
{
	static const uint8_t zero[4];
	uint32_t crc = swap_crc32(0, h, SWAP_OFF_CRC);

	crc = swap_crc32(crc, zero, sizeof(zero));
	return swap_crc32(crc, h + SWAP_OFF_CRC + 4,
			  SWAP_HEADER_SIZE - SWAP_OFF_CRC - 4);
}

static int fail(char *err, size_t err_len, const char *fmt, ...)
	PRINTF_LIKE(3, 4);

static int fail(char *err, size_t err_len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
	return -1;
}

/* Magic, version, header size, checksum: is this a header we can read? */
static int check_identity(const uint8_t *h, char *err, size_t err_len)
{
	uint64_t version = get_le(h + SWAP_OFF_VERSION, 4);
	uint64_t size = get_le(h + SWAP_OFF_HEADER_SIZE, 4);

	if (memcmp(h + SWAP_OFF_MAGIC, SWAP_MAGIC, SWAP_MAGIC_LEN))
		return fail(err, err_len, "no apfvisor swap header (magic "
			    "missing): format it with tools/apfswap-format");
	/* Before the checksum: a newer format may checksum differently. */
	if (version != SWAP_FORMAT_VERSION)
		return fail(err, err_len, "swap header version %llu is not "
			    "supported (this apfvisor reads %u)",
			    (unsigned long long)version, SWAP_FORMAT_VERSION);
	if (size != SWAP_HEADER_SIZE)
		return fail(err, err_len, "swap header size %llu is not "
			    "supported (this apfvisor reads %u)",
			    (unsigned long long)size, SWAP_HEADER_SIZE);
	if (get_le(h + SWAP_OFF_CRC, 4) != header_crc(h))
		return fail(err, err_len, "swap header checksum mismatch");
	return 0;
}

/* Sizes: consistent in themselves, fitting the device, large enough. */
static int check_sizes(const struct swap_header_info *info,
		       uint64_t device_size, char *err, size_t err_len)
{
	uint64_t bytes = info->device_size, pages = info->page_count;

	if (!IS_ALIGNED(bytes, PAGE_SIZE) || bytes < SWAP_HEADER_SIZE ||
	    pages != (bytes - SWAP_HEADER_SIZE) / PAGE_SIZE)
		return fail(err, err_len, "swap header is inconsistent: %llu "
			    "pages in %llu bytes", (unsigned long long)pages,
			    (unsigned long long)bytes);
	if (bytes > device_size)
		return fail(err, err_len, "swap header says %llu bytes but the "
			    "device has %llu bytes", (unsigned long long)bytes,
			    (unsigned long long)device_size);
	if (pages < SWAP_MIN_PAGES)
		return fail(err, err_len, "swap area too small: %llu pages, at "
			    "least %u needed", (unsigned long long)pages,
			    SWAP_MIN_PAGES);
	return 0;
}

int swap_header_parse(const void *page, uint64_t device_size,
		      struct swap_header_info *out, char *err, size_t err_len)
{
	const uint8_t *h = page;
	struct swap_header_info info;

	if (device_size < SWAP_HEADER_SIZE)
		return fail(err, err_len, "device too small for a swap header: "
			    "%llu bytes", (unsigned long long)device_size);
	if (check_identity(h, err, err_len))
		return -1;
	info = (struct swap_header_info){
		.version = SWAP_FORMAT_VERSION,
		.device_size = get_le(h + SWAP_OFF_DEVICE_SIZE, 8),
		.page_count = get_le(h + SWAP_OFF_PAGE_COUNT, 8),
	};
	memcpy(info.uuid, h + SWAP_OFF_UUID, SWAP_UUID_LEN);
	if (check_sizes(&info, device_size, err, err_len))
		return -1;
	*out = info;
	return 0;
}

int swap_header_build(void *page, uint64_t device_size,
		      const uint8_t uuid[SWAP_UUID_LEN], char *err,
		      size_t err_len)
{
	uint8_t *h = page;

	if (!IS_ALIGNED(device_size, PAGE_SIZE))
		return fail(err, err_len, "size %llu is not a multiple of %u "
			    "bytes", (unsigned long long)device_size,
			    (unsigned)PAGE_SIZE);
	if (device_size < SWAP_MIN_DEVICE_SIZE)
		return fail(err, err_len, "size %llu bytes is too small: a "
			    "swap area needs at least %llu bytes (%u pages and "
			    "the header page)", (unsigned long long)device_size,
			    (unsigned long long)SWAP_MIN_DEVICE_SIZE,
			    SWAP_MIN_PAGES);
	memset(h, 0, SWAP_HEADER_SIZE);
	memcpy(h + SWAP_OFF_MAGIC, SWAP_MAGIC, SWAP_MAGIC_LEN);
	put_le(h + SWAP_OFF_VERSION, SWAP_FORMAT_VERSION, 4);
	put_le(h + SWAP_OFF_HEADER_SIZE, SWAP_HEADER_SIZE, 4);
	put_le(h + SWAP_OFF_DEVICE_SIZE, device_size, 8);
	put_le(h + SWAP_OFF_PAGE_COUNT,
	       (device_size - SWAP_HEADER_SIZE) / PAGE_SIZE, 8);
	memcpy(h + SWAP_OFF_UUID, uuid, SWAP_UUID_LEN);
	put_le(h + SWAP_OFF_CRC, header_crc(h), 4);
	return 0;
}

void swap_uuid_format(const uint8_t uuid[SWAP_UUID_LEN],
		      char out[SWAP_UUID_STR_LEN])
{
	static const char hex[] = "0123456789abcdef";
	char *p = out;

	for (unsigned i = 0; i < SWAP_UUID_LEN; i++) {
		/* Groups of 4-2-2-2-6 bytes (RFC 4122, 3). */
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*p++ = '-';
		*p++ = hex[uuid[i] >> 4];
		*p++ = hex[uuid[i] & 15];
	}
	*p = '\0';
}
