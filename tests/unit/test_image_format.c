/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/loaders/image_format.c: a bzImage, a multiboot image and an ELF kernel
 * are told apart by their headers (multiboot before ELF), nothing is ever
 * taken for a flat guest unless guest.format says flat, and a file that
 * is not what was asked gets one line saying what it is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "guest/loaders/image_format.h"

static uint8_t img[16384];

static void put32(size_t off, uint32_t v)
{
	memcpy(img + off, &v, 4);
}

static void bzimage(void)
{
	memset(img, 0, sizeof(img));
	img[0] = 'M';
	img[1] = 'Z';                   /* the EFI stub's PE header */
	img[0x1fe] = 0x55;
	img[0x1ff] = 0xaa;
	memcpy(img + 0x202, "HdrS", 4);
}

static void multiboot_elf(size_t at, uint32_t flags, bool good_sum)
{
	memset(img, 0, sizeof(img));
	memcpy(img, "\x7f" "ELF", 4);
	put32(at, MULTIBOOT_HEADER_MAGIC);
	put32(at + 4, flags);
	put32(at + 8, -(MULTIBOOT_HEADER_MAGIC + flags) + !good_sum);
}

static enum guest_format detect(size_t size, char *looks)
{
	return image_format_detect(img, size, looks, 96);
}

static void headers_decide(void **state)
{
	char looks[96];

	(void)state;
	bzimage();
	assert_int_equal(detect(sizeof(img), looks), GUEST_FORMAT_BZIMAGE);
	/* HdrS without the boot flag is no bzImage: a PE file. */
	img[0x1fe] = 0;
	assert_int_equal(detect(sizeof(img), looks), GUEST_FORMAT_UNKNOWN);
	assert_string_equal(looks, "a PE/COFF (EFI or Windows) executable");
	multiboot_elf(0x1000, 0x10003, true);
	assert_int_equal(detect(sizeof(img), looks), GUEST_FORMAT_MULTIBOOT);
	/* A bad checksum, an unaligned or too late header: just ELF. */
	multiboot_elf(0x1000, 3, false);
	assert_int_equal(detect(sizeof(img), looks), GUEST_FORMAT_ELF);
	multiboot_elf(0x1002, 3, true);
	assert_int_equal(detect(sizeof(img), looks), GUEST_FORMAT_ELF);
	multiboot_elf(8192, 3, true);
	assert_int_equal(detect(sizeof(img), looks), GUEST_FORMAT_ELF);
	/* The last place it may be: bytes 8180..8191. */
	multiboot_elf(8180, 3, true);
	assert_int_equal(detect(sizeof(img), looks), GUEST_FORMAT_MULTIBOOT);
	/* Truncated files are never read past their end. */
	assert_int_equal(detect(8190, looks), GUEST_FORMAT_ELF);
	assert_int_equal(detect(3, looks), GUEST_FORMAT_UNKNOWN);
}

static void what_a_stranger_looks_like(void **state)
{
	static const struct {
		const char *bytes;
		size_t n;
		const char *looks;
	} cases[] = {
		{ "", 0, "empty" },
		{ "\x1f\x8b\x08", 3, "a gzip file" },
		{ "\xfd" "7zXZ\0", 6, "an xz file" },
		{ "#!/bin/sh", 9, "a script" },
		{ "070701", 6, "a cpio archive (an initramfs?)" },
		{ "\xeb\xfe\x90\x90", 4, "no known header (first bytes eb fe 90 "
					 "90)" },
		{ "\x01", 1, "no known header (first bytes 01 00 00 00)" },
	};
	char looks[96];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(img, 0, sizeof(img));
		memcpy(img, cases[i].bytes, cases[i].n);
		assert_int_equal(detect(cases[i].n, looks),
				 GUEST_FORMAT_UNKNOWN);
		assert_string_equal(looks, cases[i].looks);
	}
}

static void choose_follows_guest_format(void **state)
{
	char err[256];

	(void)state;
	bzimage();
	assert_int_equal(image_format_choose(GUEST_FORMAT_AUTO, img,
					     sizeof(img), "k", err,
					     sizeof(err)),
			 GUEST_FORMAT_BZIMAGE);
	assert_int_equal(image_format_choose(GUEST_FORMAT_BZIMAGE, img,
					     sizeof(img), "k", err,
					     sizeof(err)),
			 GUEST_FORMAT_BZIMAGE);
	/* flat is what the user says: no header is looked at. */
	assert_int_equal(image_format_choose(GUEST_FORMAT_FLAT, img,
					     sizeof(img), "k", err,
					     sizeof(err)),
			 GUEST_FORMAT_FLAT);
	assert_int_equal(image_format_choose(GUEST_FORMAT_ELF, img,
					     sizeof(img), "vmlinuz", err,
					     sizeof(err)),
			 GUEST_FORMAT_UNKNOWN);
	assert_string_equal(err, "guest.kernel 'vmlinuz' is not an ELF kernel "
			    "(guest.format = elf): it is a bzImage");
	memset(img, 0x90, 16);
	assert_int_equal(image_format_choose(GUEST_FORMAT_AUTO, img, 16,
					     "hello.bin", err, sizeof(err)),
			 GUEST_FORMAT_UNKNOWN);
	assert_string_equal(err, "guest.kernel 'hello.bin' is not a bzImage, "
			    "a multiboot image or an ELF kernel: no known "
			    "header (first bytes 90 90 90 90) (a flat test "
			    "guest needs guest.format = flat)");
	assert_int_equal(image_format_choose(GUEST_FORMAT_MULTIBOOT, img, 16,
					     "hello.bin", err, sizeof(err)),
			 GUEST_FORMAT_UNKNOWN);
	assert_string_equal(err, "guest.kernel 'hello.bin' is not a multiboot "
			    "image (guest.format = multiboot): no known "
			    "header (first bytes 90 90 90 90)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(headers_decide),
		cmocka_unit_test(what_a_stranger_looks_like),
		cmocka_unit_test(choose_follows_guest_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
