/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/loaders/linux_boot.c over synthetic setup headers shaped like Debian 12's
 * kernel, and over build/guests/vmlinuz (or $APF_VMLINUZ) when it exists.
 * Zero-page offsets are written out as numbers, from zero-page.rst.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "guest/loaders/linux_boot.h"

/* All RAM below the PCI hole, as in a guest of less than 3.5 GiB. */
#define LOW_RAM(size) (&(struct guest_ram_layout){ .low_size = (size) })

#define KOFF 0xa00u                 /* (setup_sects 4 + 1) * 512 */
#define SYSSIZE 0x100u              /* paragraphs: 4 KiB of kernel */
#define TRAILER 64u                 /* a signature after syssize */
#define IMG_LEN (KOFF + SYSSIZE * 16 + TRAILER)
#define INIT_SIZE 0x3f9c000u        /* ~63.6 MiB, as Debian 12's */
#define INIT_END (MiB(16) + INIT_SIZE)
#define HDR_END 0x26cu              /* 0x202 + 0x6a: protocol 2.15 */
#define VERSION "6.1.0-apf-amd64 (unit@test) #1 SMP"
#define JUNK 0xcc

static uint8_t img[IMG_LEN];
static char err[256];

static const struct linux_reserved low_reserved = {
	.count = 2,
	.area = { { 0x1000, 0x9f000, E820_TYPE_RESERVED },
		  { 0xe0000, 0x20000, E820_TYPE_ACPI } },
};

static void put_le(uint8_t *p, unsigned off, unsigned n, uint64_t v)
{
	for (unsigned i = 0; i < n; i++, v >>= 8)
		p[off + i] = (uint8_t)v;
}

static uint64_t get_le(const uint8_t *p, unsigned off, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = (v << 8) | p[off + n];
	return v;
}

/* A good header: Debian 12's values, junk wherever the header is not. */
static int setup(void **state)
{
	(void)state;
	memset(img, JUNK, sizeof(img));
	memset(img + 0x1f1, 0, HDR_END - 0x1f1);
	img[0x1f1] = 4;                            /* setup_sects */
	put_le(img, 0x1f4, 4, SYSSIZE);
	put_le(img, 0x1fa, 2, 0xffff);             /* vid_mode */
	put_le(img, 0x1fe, 2, 0xaa55);
	img[0x200] = 0xeb;
	img[0x201] = HDR_END - 0x202;
	memcpy(img + 0x202, "HdrS", 4);
	put_le(img, 0x206, 2, 0x020f);
	put_le(img, 0x20e, 2, 0x100);              /* version at 0x300 */
	memcpy(img + 0x300, VERSION, sizeof(VERSION));
	img[0x211] = 0x01 | 0x20 | 0x80;           /* + QUIET, CAN_USE_HEAP */
	put_le(img, 0x214, 4, 0x100000);           /* code32_start */
	put_le(img, 0x218, 8, 0xdeadbeefdeadbeef); /* ramdisk_image, _size */
	put_le(img, 0x228, 4, 0xdeadbeef);         /* cmd_line_ptr */
	put_le(img, 0x22c, 4, 0x7fffffff);         /* initrd_addr_max */
	put_le(img, 0x230, 4, MiB(2));             /* kernel_alignment */
	img[0x234] = 1;                            /* relocatable_kernel */
	img[0x235] = 21;                           /* min_alignment */
	put_le(img, 0x236, 2, 0x1b);               /* KERNEL_64, ABOVE_4G.. */
	put_le(img, 0x238, 4, 2047);               /* cmdline_size */
	put_le(img, 0x250, 8, 0xdeadbeef);         /* setup_data */
	put_le(img, 0x258, 8, MiB(16));            /* pref_address */
	put_le(img, 0x260, 4, INIT_SIZE);
	return 0;
}

static struct bzimage_info parse_ok(void)
{
	struct bzimage_info k;

	assert_int_equal(linux_parse_bzimage(img, sizeof(img), &k, err,
					     sizeof(err)), 0);
	return k;
}

static void check_error(int rc, const char *msg)
{
	assert_int_equal(rc, -1);
	if (!strstr(err, msg))
		fail_msg("error '%s' lacks '%s'", err, msg);
}

/* Parses the first len bytes from a block of exactly len (for ASan). */
static void expect_error(size_t len, const char *msg)
{
	uint8_t *copy = malloc(len);
	struct bzimage_info k;

	assert_non_null(copy);
	memcpy(copy, img, len);
	err[0] = '\0';
	check_error(linux_parse_bzimage(copy, len, &k, err, sizeof(err)), msg);
	free(copy);
}

/* ---- the setup header ---- */

static void test_parse_good(void **state)
{
	struct bzimage_info k = parse_ok();

	(void)state;
	assert_int_equal(k.protocol, 0x020f);
	assert_int_equal(k.setup_sects, 4);
	assert_int_equal(k.kernel_offset, KOFF);
	assert_int_equal(k.kernel_size, SYSSIZE * 16); /* not the trailer */
	assert_int_equal(k.header_end, HDR_END);
	assert_true(k.relocatable);
	assert_int_equal(k.kernel_alignment, MiB(2));
	assert_int_equal(k.pref_address, MiB(16));
	assert_int_equal(k.init_size, INIT_SIZE);
	assert_int_equal(k.cmdline_size, 2047);
	assert_int_equal(k.initrd_addr_max, 0x7fffffff);
	assert_int_equal(k.xloadflags, 0x1b);
	assert_int_equal(k.loadflags, 0xa1);
	assert_string_equal(k.version, VERSION);
	img[0x1f1] = 0;  /* setup_sects 0 means 4 */
	k = parse_ok();
	assert_int_equal(k.setup_sects, 4);
	assert_int_equal(k.kernel_offset, 5 * 512);
	put_le(img, 0x1f4, 4, 0);  /* syssize 0: the rest of the file */
	assert_int_equal(parse_ok().kernel_size, IMG_LEN - KOFF);
}

/* One change to the good image, the length parsed, the error expected. */
static const struct {
	unsigned off, n;
	uint64_t value;
	size_t len;
	const char *msg;
} broken[] = {
	{ 0, 0, 0, 0x100, "guest.kernel is not a bzImage (256 bytes" },
	{ 0x1fe, 1, 0, IMG_LEN, "guest.kernel is not a bzImage "
	  "(no boot flag 0xAA55 at 0x1FE)" },
	{ 0x205, 1, 'Z', IMG_LEN, "guest.kernel is not a bzImage "
	  "(no 'HdrS' magic at 0x202)" },
	{ 0x206, 2, 0x020b, IMG_LEN, "boot protocol 2.11 is too old: the "
	  "64-bit entry needs 2.12 or later" },
	{ 0x236, 2, 0x1a, IMG_LEN, "kernel does not support the 64-bit "
	  "entry (XLF_KERNEL_64 clear)" },
	{ 0x211, 1, 0, IMG_LEN, "zImage (LOADED_HIGH clear)" },
	{ 0, 0, 0, 0x240, "truncated inside its setup header" },
	{ 0, 0, 0, KOFF, "truncated: it ends at 2560 bytes, before the "
	  "protected-mode kernel at offset 0xa00" },
	{ 0, 0, 0, KOFF + SYSSIZE * 16 - 1, "truncated: its protected-mode "
	  "kernel is 4096 bytes (syssize) at offset 0xa00, but only 4095 "
	  "follow" },
	{ 0x1f1, 1, 0x7f, IMG_LEN, "truncated: it ends at" }, /* setup */
	{ 0x201, 1, 0x40, IMG_LEN, "malformed setup header" }, /* length */
	{ 0x200, 1, 0xe9, IMG_LEN, "malformed setup header" }, /* jmp */
	{ 0x260, 4, 4095, IMG_LEN, "init_size (4095 bytes) is smaller than "
	  "its protected-mode kernel (4096)" },
	{ 0x230, 4, MiB(3), IMG_LEN, "kernel_alignment 0x300000 is not a "
	  "power" },
	{ 0x258, 8, 0xfffffffffffff000ull, IMG_LEN, "guest.kernel's preferred "
	  "address 0xfffffffffffff000 plus its init_size (66699264 bytes) wraps "
	  "around: apfvisor places kernels below 4 GiB" },
	{ 0x258, 8, GiB(4) - 4096, IMG_LEN, "preferred address 0xfffff000 "
	  "plus its init_size (66699264 bytes) ends above 4 GiB" },
	{ 0x258, 8, GiB(5), IMG_LEN, "ends above 4 GiB" },
	{ 0x258, 8, 0x10000, IMG_LEN, "guest.kernel's preferred address "
	  "0x10000 is below 1 MiB, in the legacy area" },
};

static void test_parse_errors(void **state)
{
	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(broken); i++) {
		setup(NULL);
		put_le(img, broken[i].off, broken[i].n, broken[i].value);
		expect_error(broken[i].len, broken[i].msg);
	}
}

/* ---- the layout ---- */

static bool overlap(uint64_t a, uint64_t as, uint64_t b, uint64_t bs)
{
	return as && bs && a < b + bs && b < a + as;
}

/* Every piece inside RAM and 4 GiB, apart from the others and reserved. */
static void check_layout(const struct linux_layout *l,
			 const struct linux_reserved *res)
{
	uint64_t base[4] = { l->kernel_addr, l->boot_params_addr,
			     l->cmdline_addr, l->initrd_addr };
	uint64_t size[4] = { l->kernel_end - l->kernel_addr, 4096,
			     l->cmdline_len + 1, l->initrd_size };

	assert_true(l->ident_map_end <= GiB(4));
	for (unsigned i = 0; i < 4; i++) {
		if (!size[i])
			continue;
		assert_true(base[i] >= MiB(1));
		assert_true(i == 0 || base[i] % 4096 == 0);
		assert_true(base[i] + size[i] <= l->ram_size);
		assert_true(base[i] + size[i] <= l->ident_map_end);
		for (unsigned j = i + 1; j < 4; j++)
			assert_false(overlap(base[i], size[i], base[j],
					     size[j]));
		for (unsigned r = 0; res && r < res->count; r++)
			assert_false(overlap(base[i], size[i],
					     res->area[r].base,
					     res->area[r].size));
	}
}

/* Plans; msg NULL expects success (and checks it), else that error. */
static struct linux_layout plan(const struct bzimage_info *k, uint64_t ram,
				uint64_t initrd, uint64_t cmdline,
				const struct linux_reserved *res,
				const char *msg)
{
	struct linux_layout l;
	int rc;

	err[0] = '\0';
	rc = linux_plan_layout(k, ram, initrd, cmdline, res, &l, err,
			       sizeof(err));
	if (msg)
		check_error(rc, msg);
	else if (rc)
		fail_msg("layout failed: %s", err);
	else
		check_layout(&l, res);
	return l;
}

static void test_layout_at_pref_address(void **state)
{
	struct bzimage_info k = parse_ok();
	struct linux_layout l = plan(&k, MiB(256), MiB(8) + 123, 40,
				     &low_reserved, NULL);

	(void)state;
	assert_int_equal(l.kernel_addr, MiB(16));
	assert_false(l.relocated);
	assert_int_equal(l.kernel_end, INIT_END);
	assert_int_equal(l.kernel_size, SYSSIZE * 16);
	assert_int_equal(l.boot_params_addr, MiB(1));
	assert_int_equal(l.cmdline_addr, MiB(1) + 4096);
	/* the highest page-aligned place that ends below RAM's end */
	assert_int_equal(l.initrd_addr, (MiB(256) - MiB(8) - 123) & ~0xfffull);
	assert_int_equal(l.initrd_size, MiB(8) + 123);
	assert_int_equal(l.ident_map_end, MiB(256));
	assert_int_equal(l.min_ram, INIT_END);  /* initrd fits below 16 MiB */
	assert_int_equal(linux_entry_point(&l), MiB(16) + 0x200);
}

static void test_layout_ram_too_small(void **state)
{
	struct bzimage_info k = parse_ok();
	struct linux_layout l;

	(void)state;
	plan(&k, MiB(64), MiB(8), 40, &low_reserved, "guest.memory (64 MiB) "
	     "is too small for this kernel: it needs at least 80 MiB (load "
	     "address 16 MiB + init_size 64 MiB, initrd 8 MiB");
	/* At exactly the minimum, the initrd goes below the kernel. */
	l = plan(&k, INIT_END, MiB(8), 40, &low_reserved, NULL);
	assert_int_equal(l.kernel_addr, MiB(16));
	assert_int_equal(l.initrd_addr, MiB(8));
	/* A 20 MiB initrd only fits above it: 16 + 63.6 + 20 MiB. */
	plan(&k, MiB(99), MiB(20), 40, &low_reserved,
	     "it needs at least 100 MiB");
	l = plan(&k, MiB(100), MiB(20), 40, &low_reserved, NULL);
	assert_int_equal(l.initrd_addr, MiB(80));
	assert_int_equal(l.min_ram, INIT_END + MiB(20));
	plan(&k, INIT_END + MiB(20) - 4096, MiB(20), 40,
	     &low_reserved, "too small");
}

static void test_layout_relocates(void **state)
{
	struct linux_reserved res = low_reserved;
	struct bzimage_info k = parse_ok();
	struct linux_layout l;

	(void)state;
	/* Something of the caller's at 16 MiB: next 2 MiB boundary after. */
	res.area[res.count++] = (struct linux_reserved_area){
		MiB(16), MiB(1), E820_TYPE_RESERVED };
	l = plan(&k, MiB(256), MiB(8), 40, &res, NULL);
	assert_int_equal(l.kernel_addr, MiB(18));
	assert_true(l.relocated);
	assert_int_equal(l.kernel_end, MiB(18) + INIT_SIZE);
	plan(&k, MiB(18) + INIT_SIZE - 1, 0, 40, &res,
	     "needs at least 82 MiB (load address 18 MiB");
	/* An old-style pref_address of 1 MiB, with 1-1.5 MiB taken. */
	k.pref_address = MiB(1);
	res.area[2] = (struct linux_reserved_area){ MiB(1), KiB(512), 0 };
	l = plan(&k, MiB(256), 0, 40, &res, NULL);
	assert_int_equal(l.kernel_addr, MiB(2));
	assert_int_equal(l.kernel_end, MiB(2) + INIT_SIZE);
	assert_int_equal(l.boot_params_addr, MiB(1) + KiB(512));
	assert_int_equal(l.initrd_addr, 0);
	/* A kernel that cannot move has nowhere to go. */
	k.relocatable = false;
	plan(&k, MiB(256), 0, 40, &res, "kernel is not relocatable and its "
	     "memory 0x100000-0x409c000 overlaps");
}

static void test_layout_initrd_limits(void **state)
{
	struct bzimage_info k = parse_ok();
	struct linux_layout l;

	(void)state;
	/* initrd_addr_max 0x7fffffff: the last byte at 2 GiB - 1. */
	l = plan(&k, GiB(4), MiB(16) + 1, 40, &low_reserved, NULL);
	assert_int_equal(l.initrd_addr, GiB(2) - MiB(16) - 4096);
	/* 0xffffffff with 6 GiB of RAM: still below 4 GiB. */
	k.initrd_addr_max = 0xffffffff;
	l = plan(&k, GiB(6), MiB(16), 40, &low_reserved, NULL);
	assert_int_equal(l.initrd_addr, GiB(4) - MiB(16));
	assert_int_equal(l.ident_map_end, GiB(4));
	k.initrd_addr_max = 0x7fffffff;
	plan(&k, GiB(8), GiB(2), 40, &low_reserved, "initrd too large: "
	     "2048 MiB does not fit below 2048 MiB");
	/* Above the kernel, it may end exactly at 2 GiB, not a page later. */
	l = plan(&k, GiB(8), GiB(2) - INIT_END, 40, &low_reserved, NULL);
	assert_int_equal(l.initrd_addr, INIT_END);
	plan(&k, GiB(8), GiB(2) - INIT_END + 4096, 40,
	     &low_reserved, "initrd too large");
}

static void test_layout_cmdline(void **state)
{
	struct bzimage_info k = parse_ok();
	struct linux_layout l;

	(void)state;
	plan(&k, MiB(256), 0, 2048, &low_reserved, "guest.cmdline is too "
	     "long: 2048 bytes, this kernel takes at most 2047 (cmdline_size)");
	l = plan(&k, MiB(256), MiB(1), 2047, &low_reserved, NULL);
	assert_int_equal(l.cmdline_len, 2047);
	l = plan(&k, MiB(256), 0, 0, NULL, NULL);
	assert_int_equal(l.cmdline_addr, MiB(1) + 4096);
	assert_int_equal(l.initrd_addr, 0);
	assert_int_equal(l.ident_map_end, INIT_END);
}

/* ---- the zero page ---- */

static void test_boot_params_fields(void **state)
{
	struct bzimage_info k = parse_ok();
	struct linux_layout l = plan(&k, MiB(256), MiB(8), 40,
				     &low_reserved, NULL);
	struct e820_entry e820[8];
	unsigned n = linux_build_e820(LOW_RAM(MiB(256)), &low_reserved, e820,
				      8);
	uint8_t zp[4096];

	(void)state;
	memset(zp, JUNK, sizeof(zp));
	linux_build_boot_params(img, sizeof(img), &k, &l, e820, n, 0xe0000, zp);
	/* The header is copied, the sentinel and what follows are not. */
	for (unsigned i = 0; i < 0x1f1; i++)
		if ((i < 0x70 || i >= 0x78) && i != 0x1e8 && zp[i])
			fail_msg("zero page byte 0x%x is 0x%x", i, zp[i]);
	assert_memory_equal(zp + 0x1f1, img + 0x1f1, 0x210 - 0x1f1);
	assert_memory_equal(zp + 0x22c, img + 0x22c, 0x250 - 0x22c);
	assert_memory_equal(zp + 0x258, img + 0x258, HDR_END - 0x258);
	for (unsigned i = HDR_END; i < 0x2d0; i++)
		assert_int_equal(zp[i], 0);
	assert_int_equal(zp[0x210], 0xff);               /* type_of_loader */
	assert_int_equal(zp[0x211], 0x01);               /* LOADED_HIGH */
	assert_int_equal(get_le(zp, 0x214, 4), MiB(16)); /* code32_start */
	assert_int_equal(get_le(zp, 0x218, 4), l.initrd_addr);
	assert_int_equal(get_le(zp, 0x21c, 4), MiB(8));
	assert_int_equal(get_le(zp, 0x228, 4), MiB(1) + 4096);
	assert_int_equal(get_le(zp, 0x250, 8), 0);       /* setup_data */
	assert_int_equal(get_le(zp, 0xc0, 8), 0);        /* ext_ fields */
	assert_int_equal(get_le(zp, 0xc8, 4), 0);
	assert_int_equal(get_le(zp, 0x70, 8), 0xe0000);  /* acpi_rsdp_addr */
	assert_int_equal(zp[0x1e8], 5);                  /* e820_entries */
	assert_int_equal(zp[0x1ef], 0);                  /* sentinel */
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(get_le(zp, 0x2d0 + 20 * i, 8), e820[i].addr);
		assert_int_equal(get_le(zp, 0x2d8 + 20 * i, 8), e820[i].size);
		assert_int_equal(get_le(zp, 0x2e0 + 20 * i, 4), e820[i].type);
	}
	for (unsigned i = 0x2d0 + 20 * n; i < 4096; i++)
		assert_int_equal(zp[i], 0);
}

/* High halves in the ext_ fields, no RSDP before 2.14, 128 e820 at most. */
static void test_boot_params_limits(void **state)
{
	struct bzimage_info k = parse_ok();
	struct linux_layout l = { .kernel_addr = MiB(16),
				  .cmdline_addr = 0x223456000,
				  .initrd_addr = 0x345678000,
				  .initrd_size = 0x100001000 };
	struct e820_entry many[130];
	uint8_t zp[4096];

	(void)state;
	linux_build_boot_params(img, sizeof(img), &k, &l, NULL, 0, 0, zp);
	assert_int_equal(get_le(zp, 0x218, 4), 0x45678000);
	assert_int_equal(get_le(zp, 0x0c0, 4), 3);
	assert_int_equal(get_le(zp, 0x21c, 4), 0x1000);
	assert_int_equal(get_le(zp, 0x0c4, 4), 1);
	assert_int_equal(get_le(zp, 0x228, 4), 0x23456000);
	assert_int_equal(get_le(zp, 0x0c8, 4), 2);
	assert_int_equal(get_le(zp, 0x70, 8), 0);        /* no RSDP given */
	assert_int_equal(zp[0x1e8], 0);
	for (unsigned i = 0; i < 130; i++)
		many[i] = (struct e820_entry){ MiB(i), MiB(1), 1 };
	k.protocol = 0x020d;  /* before 2.14: acpi_rsdp_addr left alone */
	linux_build_boot_params(img, sizeof(img), &k, &l, many, 130, 0xe0000,
				zp);
	assert_int_equal(get_le(zp, 0x70, 8), 0);
	assert_int_equal(zp[0x1e8], 128);
	assert_int_equal(get_le(zp, 0x2d0 + 20 * 127, 8), MiB(127));
	assert_int_equal(get_le(zp, 0xcd0, 8), 0);       /* after the table */
}

/* ---- the e820 map ---- */

static void expect_entry(const struct e820_entry *e, uint64_t addr,
			 uint64_t size, uint32_t type)
{
	assert_int_equal(e->addr, addr);
	assert_int_equal(e->size, size);
	assert_int_equal(e->type, type);
}

static void test_e820_example(void **state)
{
	struct e820_entry e[8];

	(void)state;
	assert_int_equal(linux_build_e820(LOW_RAM(MiB(256)), &low_reserved, e,
					  8), 5);
	expect_entry(&e[0], 0, 0x1000, E820_TYPE_RAM);
	expect_entry(&e[1], 0x1000, 0x9f000, E820_TYPE_RESERVED);
	expect_entry(&e[2], 0xa0000, 0x40000, E820_TYPE_RAM);
	expect_entry(&e[3], 0xe0000, 0x20000, E820_TYPE_ACPI);
	expect_entry(&e[4], MiB(1), MiB(255), E820_TYPE_RAM);
	assert_int_equal(linux_build_e820(LOW_RAM(MiB(256)), &low_reserved, e,
					  4), 0);
	assert_int_equal(linux_build_e820(LOW_RAM(0), &low_reserved, e, 8), 0);
	assert_int_equal(linux_build_e820(LOW_RAM(MiB(1)), NULL, e, 8), 1);
	expect_entry(&e[0], 0, MiB(1), E820_TYPE_RAM);
}

/*
 * 6 GiB as QEMU's PC lays it out: the low map as for 3 GiB, nothing in the
 * PCI hole, then 3 GiB of RAM from 4 GiB. The high entry needs its slot.
 */
static void test_e820_above_4g(void **state)
{
	struct guest_ram_layout ram;
	struct e820_entry e[8];

	(void)state;
	guest_ram_layout_pc(&ram, GiB(6));
	assert_int_equal(linux_build_e820(&ram, &low_reserved, e, 8), 6);
	expect_entry(&e[0], 0, 0x1000, E820_TYPE_RAM);
	expect_entry(&e[1], 0x1000, 0x9f000, E820_TYPE_RESERVED);
	expect_entry(&e[2], 0xa0000, 0x40000, E820_TYPE_RAM);
	expect_entry(&e[3], 0xe0000, 0x20000, E820_TYPE_ACPI);
	expect_entry(&e[4], MiB(1), GiB(3) - MiB(1), E820_TYPE_RAM);
	expect_entry(&e[5], GiB(4), GiB(3), E820_TYPE_RAM);
	assert_int_equal(linux_build_e820(&ram, &low_reserved, e, 5), 0);
	/* 3.5 GiB - 4 KiB still fits below the hole: one low range. */
	guest_ram_layout_pc(&ram, GiB(3) + MiB(512) - PAGE_SIZE);
	assert_int_equal(linux_build_e820(&ram, NULL, e, 8), 1);
	expect_entry(&e[0], 0, GiB(3) + MiB(512) - PAGE_SIZE, E820_TYPE_RAM);
	guest_ram_layout_pc(&ram, GiB(3) + MiB(512));
	assert_int_equal(linux_build_e820(&ram, NULL, e, 8), 2);
	expect_entry(&e[0], 0, GiB(3), E820_TYPE_RAM);
	expect_entry(&e[1], GiB(4), MiB(512), E820_TYPE_RAM);
}

/* Areas unsorted, overlapping, adjacent, past the end of RAM. */
static void test_e820_clip_merge(void **state)
{
	const struct linux_reserved res = {
		.count = 5,
		.area = { { 0x9000, 0x2000, 2 }, { 0x2000, 0x3000, 2 },
			  { 0x5000, 0x5000, 3 }, { 0x3000, 0x1000, 2 },
			  { 0xf000, 0x10000, 2 } },
	};
	struct e820_entry e[8];

	(void)state;
	assert_int_equal(linux_build_e820(LOW_RAM(0x10001), &res, e, 8), 6);
	expect_entry(&e[0], 0, 0x2000, E820_TYPE_RAM);
	expect_entry(&e[1], 0x2000, 0x3000, E820_TYPE_RESERVED);
	expect_entry(&e[2], 0x5000, 0x4000, E820_TYPE_ACPI);
	expect_entry(&e[3], 0x9000, 0x2000, E820_TYPE_RESERVED); /* wins */
	expect_entry(&e[4], 0xb000, 0x4000, E820_TYPE_RAM);
	expect_entry(&e[5], 0xf000, 0x1001, E820_TYPE_RESERVED); /* cut */
	/* An area wholly above RAM is dropped. */
	assert_int_equal(linux_build_e820(LOW_RAM(0xc000), &res, e, 8), 5);
	expect_entry(&e[4], 0xb000, 0x1000, E820_TYPE_RAM);
}

/* Random maps: contiguous from 0 to ram_size, merged, types right. */
static void test_e820_invariants(void **state)
{
	uint64_t seed = 12345;
	struct linux_reserved res;
	struct e820_entry e[2 * LINUX_MAX_RESERVED + 1];

	(void)state;
	for (unsigned round = 0; round < 2000; round++) {
		uint64_t ram = 0, sum = 0;
		unsigned n;

		res.count = round % (LINUX_MAX_RESERVED + 1);
		for (unsigned i = 0; i < res.count; i++) {
			seed = seed * 6364136223846793005ull +
			       1442695040888963407ull;
			res.area[i].base = (seed >> 20) % 64 * 4096;
			res.area[i].size = (seed >> 40) % 16 * 4096;
			res.area[i].e820_type = (seed >> 8) & 1 ? 2 : 3;
		}
		ram = (round % 70 + 1) * 4096;
		n = linux_build_e820(LOW_RAM(ram), &res, e, ARRAY_SIZE(e));
		assert_true(n > 0);
		for (unsigned i = 0; i < n; i++) {
			assert_int_equal(e[i].addr, sum);
			assert_true(e[i].size > 0);
			assert_true(i == 0 || e[i].type != e[i - 1].type);
			sum += e[i].size;
		}
		assert_int_equal(sum, ram);
		for (uint64_t a = 0; a < ram; a += 4096) {
			uint32_t want = 1;
			unsigned i = 0;

			for (unsigned r = 0; r < res.count; r++)
				if (a >= res.area[r].base && a <
				    res.area[r].base + res.area[r].size &&
				    (want == 1 || res.area[r].e820_type == 2))
					want = res.area[r].e820_type;
			while (e[i].addr + e[i].size <= a)
				i++;
			assert_int_equal(e[i].type, want);
		}
	}
}

/* ---- the real kernel ---- */

static void test_real_vmlinuz(void **state)
{
	const char *path = getenv("APF_VMLINUZ") ?: "build/guests/vmlinuz";
	FILE *f = fopen(path, "rb");
	struct bzimage_info k;
	struct linux_layout l;
	struct e820_entry e820[8];
	uint8_t zp[4096], *buf;
	size_t len;

	(void)state;
	if (!f) {
		print_message("note: %s is absent: the real-kernel case is "
			      "skipped, the synthetic ones ran\n", path);
		skip();
	}
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = (size_t)ftell(f);
	rewind(f);
	assert_non_null(buf = malloc(len));
	assert_int_equal(fread(buf, 1, len, f), len);
	fclose(f);
	if (linux_parse_bzimage(buf, len, &k, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
	print_message("%s: protocol %u.%02u, xloadflags 0x%x, init_size %u, "
		      "alignment 0x%x, '%s'\n", path, k.protocol >> 8,
		      k.protocol & 0xff, k.xloadflags, k.init_size,
		      k.kernel_alignment, k.version);
	assert_true(k.protocol >= 0x020c && (k.xloadflags & XLF_KERNEL_64));
	assert_true(k.relocatable && k.kernel_alignment >= MiB(2));
	assert_true(k.init_size > k.kernel_size && k.version[0]);
	assert_true(k.kernel_offset + k.kernel_size <= len);
	l = plan(&k, MiB(512), MiB(32), 100, &low_reserved, NULL);
	assert_int_equal(l.kernel_addr, k.pref_address);
	linux_build_boot_params(buf, len, &k, &l, e820,
				linux_build_e820(LOW_RAM(MiB(512)), &low_reserved,
						 e820, 8), 0xe0000, zp);
	assert_memory_equal(zp + 0x1f1, buf + 0x1f1, 0x210 - 0x1f1);
	assert_memory_equal(zp + 0x258, buf + 0x258, k.header_end - 0x258);
	assert_int_equal(get_le(zp, 0x214, 4), k.pref_address);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup(name, setup)
		T(test_parse_good),
		T(test_parse_errors),
		T(test_layout_at_pref_address),
		T(test_layout_ram_too_small),
		T(test_layout_relocates),
		T(test_layout_initrd_limits),
		T(test_layout_cmdline),
		T(test_boot_params_fields),
		T(test_boot_params_limits),
		T(test_e820_example),
		T(test_e820_above_4g),
		T(test_e820_clip_merge),
		T(test_e820_invariants),
		T(test_real_vmlinuz),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
