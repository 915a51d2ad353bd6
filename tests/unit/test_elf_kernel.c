/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/loaders/elf_kernel.c and guest/loaders/linux_vmlinux.c over synthetic ELF files
 * shaped like the vmlinux of `make guest`, and over build/guests/vmlinux
 * (or $APF_VMLINUX) when it exists. Offsets are Elf64_Ehdr's and
 * Elf64_Phdr's, written out as numbers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "guest/loaders/elf_kernel.h"
#include "guest/loaders/linux_vmlinux.h"

#define PHOFF 64u
#define NSEG 3u
#define DATA (PHOFF + 8 * 56u) /* room for 8 program headers */
#define SEG_BYTES 0x100u
#define IMG_LEN (DATA + NSEG * SEG_BYTES)
#define ENTRY 0x1000000u

static uint8_t img[IMG_LEN];
static char err[256];
static struct elf_kernel k;

static void put_le(uint8_t *p, unsigned off, unsigned n, uint64_t v)
{
	for (unsigned i = 0; i < n; i++, v >>= 8)
		p[off + i] = (uint8_t)v;
}

static void phdr(unsigned i, uint32_t type, uint32_t flags, uint64_t off,
		 uint64_t paddr, uint64_t filesz, uint64_t memsz)
{
	uint8_t *ph = img + PHOFF + i * 56;

	put_le(ph, 0, 4, type);
	put_le(ph, 4, 4, flags);
	put_le(ph, 8, 8, off);
	put_le(ph, 16, 8, paddr + 0xffffffff80000000ull); /* p_vaddr */
	put_le(ph, 24, 8, paddr);
	put_le(ph, 32, 8, filesz);
	put_le(ph, 40, 8, memsz);
	put_le(ph, 48, 8, 1);
}

/*
 * Text at 16 MiB, data at 40 MiB with BSS, a PT_NOTE, and the init/bss
 * segment at 20 MiB listed last (out of order, as pieces may be).
 */
static int setup(void **state)
{
	(void)state;
	memset(img, 0, sizeof(img));
	memcpy(img, "\177ELF", 4);
	img[4] = 2;                         /* ELFCLASS64 */
	img[5] = 1;                         /* ELFDATA2LSB */
	img[6] = 1;                         /* EV_CURRENT */
	put_le(img, 16, 2, 2);              /* ET_EXEC */
	put_le(img, 18, 2, 62);             /* EM_X86_64 */
	put_le(img, 24, 8, ENTRY);
	put_le(img, 32, 8, PHOFF);
	put_le(img, 52, 2, 64);
	put_le(img, 54, 2, 56);
	put_le(img, 56, 2, NSEG + 1);
	phdr(0, 1, 5, DATA, MiB(16), SEG_BYTES, MiB(4));
	phdr(1, 1, 6, DATA + SEG_BYTES, MiB(40), SEG_BYTES, MiB(2));
	phdr(2, 4, 4, DATA, MiB(16), 0x20, 0x20);          /* PT_NOTE */
	phdr(3, 1, 7, DATA + 2 * SEG_BYTES, MiB(20), SEG_BYTES, MiB(20));
	return 0;
}

static int parse(uint64_t len)
{
	err[0] = '\0';
	return elf_kernel_parse(img, len, &k, err, sizeof(err));
}

static void expect_error(uint64_t len, const char *text)
{
	assert_int_equal(parse(len), -1);
	if (!strstr(err, text))
		fail_msg("error '%s' lacks '%s'", err, text);
}

static void test_parses_sorted_segments(void **state)
{
	(void)state;
	assert_true(image_is_elf(img, sizeof(img)));
	assert_int_equal(parse(sizeof(img)), 0);
	assert_int_equal(k.count, 3);
	assert_int_equal(k.seg[0].paddr, MiB(16));
	assert_int_equal(k.seg[1].paddr, MiB(20));
	assert_int_equal(k.seg[2].paddr, MiB(40));
	assert_int_equal(k.seg[1].offset, DATA + 2 * SEG_BYTES);
	assert_true(k.seg[0].exec && k.seg[1].exec && !k.seg[2].exec);
	assert_int_equal(k.lowest, MiB(16));
	assert_int_equal(k.end, MiB(42));
	assert_int_equal(k.entry, ENTRY);
	assert_int_equal(k.file_bytes, 3 * SEG_BYTES);
}

static void test_not_elf(void **state)
{
	(void)state;
	img[0] = 'M';
	assert_false(image_is_elf(img, sizeof(img)));
	expect_error(sizeof(img), "not an ELF file");
	img[0] = 0x7f;
	assert_false(image_is_elf(img, 3));
}

static void test_truncated(void **state)
{
	(void)state;
	expect_error(40, "truncated in its ELF header");
	expect_error(PHOFF + 56, "program headers at offset 0x40 end past");
	expect_error(IMG_LEN - 1, "truncated: segment 3's 256 bytes");
	/* an offset + size that wraps around 2^64 */
	put_le(img, PHOFF + 56 + 8, 8, UINT64_MAX - 8);
	expect_error(IMG_LEN, "truncated: segment 1's");
}

static void test_wrong_class_machine_type(void **state)
{
	(void)state;
	img[4] = 1;
	expect_error(IMG_LEN, "not 64-bit little-endian (class 1, data 1)");
	img[4] = 2;
	img[5] = 2;
	expect_error(IMG_LEN, "not 64-bit little-endian");
	img[5] = 1;
	put_le(img, 18, 2, 3);
	expect_error(IMG_LEN, "for machine 3, not x86-64");
	put_le(img, 18, 2, 62);
	put_le(img, 16, 2, 3);
	expect_error(IMG_LEN, "of type 3, not an executable");
	put_le(img, 16, 2, 2);
	put_le(img, 54, 2, 32);
	expect_error(IMG_LEN, "program headers are 32 bytes");
}

static void test_bad_segments(void **state)
{
	(void)state;
	phdr(1, 1, 6, DATA + SEG_BYTES, MiB(40), SEG_BYTES, 16);
	expect_error(IMG_LEN, "segment 1 has more bytes in the file (256) "
		     "than in memory (16)");
	phdr(1, 1, 6, DATA + SEG_BYTES, MiB(19), SEG_BYTES, MiB(2));
	expect_error(IMG_LEN, "segment 1 (physical 0x1300000, 2097152 "
		     "bytes) overlaps another segment");
	phdr(1, 1, 6, DATA + SEG_BYTES, GiB(4) - MiB(1), SEG_BYTES, MiB(2));
	expect_error(IMG_LEN, "segment 1 at physical 0xfff00000 (2097152 "
		     "bytes) reaches above 4 GiB");
	phdr(1, 1, 6, DATA + SEG_BYTES, UINT64_MAX - 4, SEG_BYTES, 0x1000);
	expect_error(IMG_LEN, "reaches above 4 GiB");
}

static void test_entry_and_counts(void **state)
{
	(void)state;
	put_le(img, 24, 8, MiB(40));                /* data, not text */
	expect_error(IMG_LEN, "entry point 0x2800000 is not in an executable");
	put_le(img, 24, 8, MiB(16) + SEG_BYTES);    /* past text's file bytes */
	expect_error(IMG_LEN, "entry point 0x1000100");
	put_le(img, 56, 2, 0);
	expect_error(IMG_LEN, "has no PT_LOAD segment");
}

static void test_too_many_segments(void **state)
{
	uint8_t *big;
	unsigned n = ELF_KERNEL_MAX_SEGMENTS + 1;
	uint64_t len = PHOFF + n * 56;

	(void)state;
	big = calloc(1, len);
	assert_non_null(big);
	memcpy(big, img, PHOFF);
	put_le(big, 56, 2, n);
	for (unsigned i = 0; i < n; i++) {
		uint8_t *ph = big + PHOFF + i * 56;

		put_le(ph, 0, 4, 1);
		put_le(ph, 24, 8, MiB(16) + i * PAGE_SIZE);
		put_le(ph, 40, 8, PAGE_SIZE);
	}
	assert_int_equal(elf_kernel_parse(big, len, &k, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than 32 PT_LOAD segments"));
	free(big);
}

/* The bzImage path's planner and zero page, fed the made-up header. */
static void test_describe_plan_boot_params(void **state)
{
	static uint8_t hdr[LINUX_VMLINUX_HEADER_SIZE], zp[4096];
	struct bzimage_info bz;
	struct linux_layout l;
	struct e820_entry e820[4] = { { 0, MiB(256), E820_TYPE_RAM } };

	(void)state;
	assert_int_equal(parse(IMG_LEN), 0);
	assert_int_equal(linux_describe_vmlinux(&k, &bz, hdr, err,
						sizeof(err)), 0);
	assert_false(bz.relocatable);
	assert_int_equal(bz.pref_address, MiB(16));
	assert_int_equal(bz.init_size, MiB(26));
	assert_int_equal(linux_plan_layout(&bz, MiB(256), MiB(2), 100, NULL,
					   &l, err, sizeof(err)), 0);
	assert_int_equal(l.kernel_addr, MiB(16));
	assert_int_equal(l.kernel_end, MiB(42));
	assert_true(l.initrd_addr >= MiB(42) || l.initrd_addr + MiB(2) <=
		    MiB(16));
	linux_build_boot_params(hdr, sizeof(hdr), &bz, &l, e820, 1, 0xe0000,
				zp);
	assert_int_equal(zp[0x1fe] | zp[0x1ff] << 8, 0xaa55);
	assert_memory_equal(zp + 0x202, "HdrS", 4);
	assert_int_equal(zp[0x206] | zp[0x207] << 8, 0x020f);
	assert_int_equal(zp[0x236] & 1, 1);             /* XLF_KERNEL_64 */
	assert_int_equal(zp[0x210], 0xff);              /* type_of_loader */
	assert_int_equal(zp[0x1ef], 0);                 /* the sentinel */
	assert_int_equal(zp[0x70] | zp[0x71] << 8 | zp[0x72] << 16, 0xe0000);
	assert_int_equal(zp[0x228] | zp[0x229] << 8 | zp[0x22a] << 16 |
			 (uint32_t)zp[0x22b] << 24, l.cmdline_addr);
	assert_int_equal(zp[0x1e8], 1);                 /* e820 entries */
}

static void test_plan_refuses(void **state)
{
	static uint8_t hdr[LINUX_VMLINUX_HEADER_SIZE];
	struct bzimage_info bz;
	struct linux_layout l;
	const struct linux_reserved low = {
		.count = 1, .area = { { MiB(30), MiB(1), E820_TYPE_RESERVED } },
	};

	(void)state;
	assert_int_equal(parse(IMG_LEN), 0);
	assert_int_equal(linux_describe_vmlinux(&k, &bz, hdr, err,
						sizeof(err)), 0);
	assert_int_equal(linux_plan_layout(&bz, MiB(32), 0, 10, NULL, &l, err,
					   sizeof(err)), -1);
	if (!strstr(err, "guest.memory (32 MiB) is too small for this "
		    "kernel: it needs at least 42 MiB"))
		fail_msg("%s", err);
	assert_int_equal(linux_plan_layout(&bz, MiB(256), 0, 10, &low, &l,
					   err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not relocatable and its memory "
			       "0x1000000-0x2a00000 overlaps"));
	k.lowest = 0x80000;
	assert_int_equal(linux_describe_vmlinux(&k, &bz, hdr, err,
						sizeof(err)), -1);
	assert_string_equal(err, "ELF kernel segment at physical 0x80000 lies "
			    "below 1 MiB");
}

/* The kernel `make guest` extracts, when it has been built. */
static void test_real_vmlinux(void **state)
{
	const char *path = getenv("APF_VMLINUX");
	static uint8_t hdr[LINUX_VMLINUX_HEADER_SIZE];
	struct bzimage_info bz;
	uint8_t *buf;
	FILE *f;
	long len;

	(void)state;
	f = fopen(path ? path : "build/guests/vmlinux", "rb");
	if (!f)
		skip();
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc((size_t)len);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	assert_int_equal(elf_kernel_parse(buf, (uint64_t)len, &k, err,
					  sizeof(err)), 0);
	assert_int_equal(k.entry, 0x1000000);
	assert_int_equal(k.lowest, 0x1000000);
	assert_int_equal(linux_describe_vmlinux(&k, &bz, hdr, err,
						sizeof(err)), 0);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_parses_sorted_segments, setup),
		cmocka_unit_test_setup(test_not_elf, setup),
		cmocka_unit_test_setup(test_truncated, setup),
		cmocka_unit_test_setup(test_wrong_class_machine_type, setup),
		cmocka_unit_test_setup(test_bad_segments, setup),
		cmocka_unit_test_setup(test_entry_and_counts, setup),
		cmocka_unit_test_setup(test_too_many_segments, setup),
		cmocka_unit_test_setup(test_describe_plan_boot_params, setup),
		cmocka_unit_test_setup(test_plan_refuses, setup),
		cmocka_unit_test_setup(test_real_vmlinux, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
