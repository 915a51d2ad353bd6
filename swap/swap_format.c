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

static enum hv_err fail(char *err, size_t err_len, const char *fmt, ...)
	PRINTF_LIKE(3, 4);

/* A header that does not check out (or cannot be built): why, in err. */
static enum hv_err fail(char *err, size_t err_len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(err, err_len, fmt, ap);
	va_end(ap);
	return HV_ERR_BAD_FORMAT;
}

/* What tells a swap disk from a trace disk: the magic, and the least room. */
struct disk_kind {
	const char *magic;
	const char *noun;               /* "swap", "trace" */
	const char *format_hint;        /* the host command that makes one */
	uint64_t min_pages;
};

static const struct disk_kind swap_kind = {
	SWAP_MAGIC, "swap", "tools/apfswap-format", SWAP_MIN_PAGES,
};
static const struct disk_kind trace_kind = {
	TRACE_DISK_MAGIC, "trace", "tools/apfswap-format --trace",
	TRACE_DISK_MIN_PAGES,
};

/* Magic, version, header size, checksum: is this a header we can read? */
static enum hv_err check_identity(const struct disk_kind *k,
				  const uint8_t *h, char *err, size_t err_len)
{
	uint64_t version = get_le(h + SWAP_OFF_VERSION, 4);
	uint64_t size = get_le(h + SWAP_OFF_HEADER_SIZE, 4);

	if (memcmp(h + SWAP_OFF_MAGIC, k->magic, SWAP_MAGIC_LEN))
		return fail(err, err_len, "no apfvisor %s header (magic "
			    "missing): format it with %s", k->noun,
			    k->format_hint);
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
	return HV_OK;
}

/* Sizes: consistent in themselves, fitting the device, large enough. */
static enum hv_err check_sizes(const struct disk_kind *k,
			       const struct swap_header_info *info,
			       uint64_t device_size, char *err,
			       size_t err_len)
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
	if (pages < k->min_pages)
		return fail(err, err_len, "%s area too small: %llu pages, at "
			    "least %llu needed", k->noun,
			    (unsigned long long)pages,
			    (unsigned long long)k->min_pages);
	return HV_OK;
}

static enum hv_err header_parse(const struct disk_kind *k, const void *page,
				uint64_t device_size,
				struct swap_header_info *out, char *err,
				size_t err_len)
{
	const uint8_t *h = page;
	struct swap_header_info info;
	enum hv_err e;

	if (device_size < SWAP_HEADER_SIZE)
		return fail(err, err_len, "device too small for a %s header: "
			    "%llu bytes", k->noun,
			    (unsigned long long)device_size);
	e = check_identity(k, h, err, err_len);
	if (e)
		return e;
	info = (struct swap_header_info){
		.version = SWAP_FORMAT_VERSION,
		.device_size = get_le(h + SWAP_OFF_DEVICE_SIZE, 8),
		.page_count = get_le(h + SWAP_OFF_PAGE_COUNT, 8),
	};
	memcpy(info.uuid, h + SWAP_OFF_UUID, SWAP_UUID_LEN);
	e = check_sizes(k, &info, device_size, err, err_len);
	if (e)
		return e;
	*out = info;
	return HV_OK;
}

enum hv_err swap_header_parse(const void *page, uint64_t device_size,
			      struct swap_header_info *out, char *err,
			      size_t err_len)
{
	return header_parse(&swap_kind, page, device_size, out, err, err_len);
}

enum hv_err trace_disk_header_parse(const void *page, uint64_t device_size,
				    struct swap_header_info *out, char *err,
				    size_t err_len)
{
	return header_parse(&trace_kind, page, device_size, out, err, err_len);
}

/* Can a header describe a device of device_size bytes? Why not: in err. */
static bool size_fits(const struct disk_kind *k, uint64_t device_size,
		      char *err, size_t err_len)
{
	uint64_t min_size = SWAP_HEADER_SIZE + k->min_pages * PAGE_SIZE;

	if (!IS_ALIGNED(device_size, PAGE_SIZE)) {
		fail(err, err_len, "size %llu is not a multiple of %u bytes",
		     (unsigned long long)device_size, (unsigned)PAGE_SIZE);
		return false;
	}
	if (device_size < min_size) {
		fail(err, err_len, "size %llu bytes is too small: a %s area "
		     "needs at least %llu bytes (%llu pages and the header "
		     "page)", (unsigned long long)device_size, k->noun,
		     (unsigned long long)min_size,
		     (unsigned long long)k->min_pages);
		return false;
	}
	return true;
}

static enum hv_err header_build(const struct disk_kind *k, void *page,
				uint64_t device_size,
				const uint8_t uuid[SWAP_UUID_LEN], char *err,
				size_t err_len)
{
	uint8_t *h = page;

	if (!size_fits(k, device_size, err, err_len))
		return HV_ERR_INVALID;
	memset(h, 0, SWAP_HEADER_SIZE);
	memcpy(h + SWAP_OFF_MAGIC, k->magic, SWAP_MAGIC_LEN);
	put_le(h + SWAP_OFF_VERSION, SWAP_FORMAT_VERSION, 4);
	put_le(h + SWAP_OFF_HEADER_SIZE, SWAP_HEADER_SIZE, 4);
	put_le(h + SWAP_OFF_DEVICE_SIZE, device_size, 8);
	put_le(h + SWAP_OFF_PAGE_COUNT,
	       (device_size - SWAP_HEADER_SIZE) / PAGE_SIZE, 8);
	memcpy(h + SWAP_OFF_UUID, uuid, SWAP_UUID_LEN);
	put_le(h + SWAP_OFF_CRC, header_crc(h), 4);
	return HV_OK;
}

enum hv_err swap_header_build(void *page, uint64_t device_size,
			      const uint8_t uuid[SWAP_UUID_LEN], char *err,
			      size_t err_len)
{
	return header_build(&swap_kind, page, device_size, uuid, err, err_len);
}

enum hv_err trace_disk_header_build(void *page, uint64_t device_size,
				    const uint8_t uuid[SWAP_UUID_LEN],
				    char *err, size_t err_len)
{
	return header_build(&trace_kind, page, device_size, uuid, err,
			    err_len);
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
