// SPDX-License-Identifier: BSD-2-Clause
/*
 * Telling kernel images apart (guest/loaders/image_format.h). References: the
 * Linux x86 boot protocol (Documentation/arch/x86/boot.rst: "HdrS" at
 * 0x202, boot_flag 0xAA55 at 0x1FE), the Multiboot Specification 0.6.96,
 * 3.1 (header in the first 8192 bytes, 32-bit aligned, magic + flags +
 * checksum = 0), the ELF header's identification bytes.
 */
#include "guest/loaders/image_format.h"
#include "lib/bytes.h"
#include "lib/format.h"
#include "lib/string.h"

#define BZ_BOOT_FLAG_OFFSET 0x1FE
#define BZ_HEADER_OFFSET    0x202
#define BZ_BOOT_FLAG        0xAA55u
#define BZ_HEADER_MAGIC     0x53726448u         /* "HdrS" */

const char *guest_format_name(enum guest_format f)
{
	switch (f) {
	case GUEST_FORMAT_AUTO: return "auto";
	case GUEST_FORMAT_BZIMAGE: return "bzimage";
	case GUEST_FORMAT_MULTIBOOT: return "multiboot";
	case GUEST_FORMAT_ELF: return "elf";
	case GUEST_FORMAT_FLAT: return "flat";
	default: return "unknown";
	}
}

static bool is_bzimage(const uint8_t *p, uint64_t size)
{
	return size >= BZ_HEADER_OFFSET + 4 &&
	       le_get(p, BZ_BOOT_FLAG_OFFSET, 2) == BZ_BOOT_FLAG &&
	       le_get(p, BZ_HEADER_OFFSET, 4) == BZ_HEADER_MAGIC;
}

static bool is_multiboot(const uint8_t *p, uint64_t size)
{
	uint64_t end = MIN(size, (uint64_t)MULTIBOOT_SEARCH_BYTES);

	for (uint64_t off = 0; off + 12 <= end; off += 4) {
		uint32_t magic = (uint32_t)le_get(p, off, 4);
		uint32_t flags = (uint32_t)le_get(p, off + 4, 4);
		uint32_t sum = (uint32_t)le_get(p, off + 8, 4);

		if (magic == MULTIBOOT_HEADER_MAGIC &&
		    (uint32_t)(magic + flags + sum) == 0)
			return true;
	}
	return false;
}

static bool is_elf(const uint8_t *p, uint64_t size)
{
	return size >= 4 && !memcmp(p, "\x7f" "ELF", 4);
}

/* A few common things a wrong file turns out to be. */
static void describe(const uint8_t *p, uint64_t size, char *looks,
		     size_t looks_len)
{
	if (!size)
		str_copy(looks, "empty", looks_len);
	else if (size >= 2 && p[0] == 'M' && p[1] == 'Z')
		str_copy(looks, "a PE/COFF (EFI or Windows) executable",
			 looks_len);
	else if (size >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		str_copy(looks, "a gzip file", looks_len);
	else if (size >= 6 && !memcmp(p, "\xfd" "7zXZ", 5))
		str_copy(looks, "an xz file", looks_len);
	else if (size >= 2 && p[0] == '#' && p[1] == '!')
		str_copy(looks, "a script", looks_len);
	else if (size >= 4 && !memcmp(p, "070", 3))
		str_copy(looks, "a cpio archive (an initramfs?)", looks_len);
	else
		fmt_snprintf(looks, looks_len, "no known header (first bytes "
			     "%02x %02x %02x %02x)", p[0],
			     size > 1 ? p[1] : 0, size > 2 ? p[2] : 0,
			     size > 3 ? p[3] : 0);
}

enum guest_format image_format_detect(const void *image, uint64_t size,
				      char *looks, size_t looks_len)
{
	const uint8_t *p = image;

	if (looks_len)
		looks[0] = '\0';
	if (is_bzimage(p, size))
		return GUEST_FORMAT_BZIMAGE;
	if (is_multiboot(p, size))
		return GUEST_FORMAT_MULTIBOOT;
	if (is_elf(p, size))
		return GUEST_FORMAT_ELF;
	describe(p, size, looks, looks_len);
	return GUEST_FORMAT_UNKNOWN;
}

static const char *article(enum guest_format f)
{
	switch (f) {
	case GUEST_FORMAT_BZIMAGE: return "a bzImage";
	case GUEST_FORMAT_MULTIBOOT: return "a multiboot image";
	case GUEST_FORMAT_ELF: return "an ELF kernel";
	default: return "something else";
	}
}

enum guest_format image_format_choose(enum guest_format wanted,
				      const void *image, uint64_t size,
				      const char *name, char *err,
				      size_t err_len)
{
	char looks[96];
	enum guest_format found;

	if (wanted == GUEST_FORMAT_FLAT)
		return GUEST_FORMAT_FLAT;
	found = image_format_detect(image, size, looks, sizeof(looks));
	if (found == GUEST_FORMAT_UNKNOWN) {
		if (wanted == GUEST_FORMAT_AUTO)
			fmt_snprintf(err, err_len, "guest.kernel '%s' is not a "
				     "bzImage, a multiboot image or an ELF "
				     "kernel: %s (a flat test guest needs "
				     "guest.format = flat)", name, looks);
		else
			fmt_snprintf(err, err_len, "guest.kernel '%s' is not "
				     "%s (guest.format = %s): %s", name,
				     article(wanted), guest_format_name(wanted),
				     looks);
		return GUEST_FORMAT_UNKNOWN;
	}
	if (wanted != GUEST_FORMAT_AUTO && found != wanted) {
		fmt_snprintf(err, err_len, "guest.kernel '%s' is not %s "
			     "(guest.format = %s): it is %s", name,
			     article(wanted), guest_format_name(wanted),
			     article(found));
		return GUEST_FORMAT_UNKNOWN;
	}
	return found;
}
