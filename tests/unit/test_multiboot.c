/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/loaders/multiboot.c: the header is found and checked, the load plan comes
 * from the a.out-kludge fields or the ELF program headers (ELF32 and
 * ELF64, a virtual entry translated), a kernel outside [1 MiB, RAM) or
 * with unknown required flags is refused with one line, and the
 * information structure is laid out as the specification says.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "guest/loaders/image_format.h"
#include "guest/loaders/multiboot.h"

#define RAM (64ull << 20)

static uint8_t img[32768];
static char err[256];

static void put16(size_t off, uint16_t v) { memcpy(img + off, &v, 2); }
static void put32(size_t off, uint32_t v) { memcpy(img + off, &v, 4); }
static void put64(size_t off, uint64_t v) { memcpy(img + off, &v, 8); }

static uint32_t get32(const uint8_t *p, size_t off)
{
	uint32_t v;

	memcpy(&v, p + off, 4);
	return v;
}

static void header(size_t at, uint32_t flags)
{
	put32(at, MULTIBOOT_HEADER_MAGIC);
	put32(at + 4, flags);
	put32(at + 8, (uint32_t)-(MULTIBOOT_HEADER_MAGIC + flags));
}

/* a.out kludge: header at file 0x40, loaded at load so that 0x40 -> hdr. */
static void aout(uint32_t load, uint32_t load_end, uint32_t bss_end,
		 uint32_t entry)
{
	memset(img, 0, sizeof(img));
	header(0x40, MB_HEADER_AOUT_KLUDGE | MB_HEADER_PAGE_ALIGN);
	put32(0x40 + 12, load + 0x40);  /* header_addr */
	put32(0x40 + 16, load);
	put32(0x40 + 20, load_end);
	put32(0x40 + 24, bss_end);
	put32(0x40 + 28, entry);
}

/* One PT_LOAD ELF32 (i386) at paddr, linked at vaddr. */
static void elf32(uint32_t vaddr, uint32_t paddr, uint32_t entry)
{
	memset(img, 0, sizeof(img));
	memcpy(img, "\x7f" "ELF", 4);
	img[4] = 1;                     /* ELFCLASS32 */
	img[5] = 1;
	put16(16, 2);                   /* ET_EXEC */
	put16(18, 3);                   /* EM_386 */
	put32(24, entry);
	put32(28, 52);                  /* e_phoff */
	put16(42, 32);
	put16(44, 1);
	put32(52 + 0, 1);               /* PT_LOAD */
	put32(52 + 4, 0x1000);          /* p_offset */
	put32(52 + 8, vaddr);
	put32(52 + 12, paddr);
	put32(52 + 16, 0x2000);         /* p_filesz */
	put32(52 + 20, 0x5000);         /* p_memsz */
	put32(52 + 24, 5);              /* R+X */
	header(0x1000, MB_HEADER_PAGE_ALIGN | MB_HEADER_MEMORY_INFO);
}

static int parse(size_t len, struct multiboot_kernel *k)
{
	return multiboot_parse(img, len, RAM, k, err, sizeof(err));
}

static void aout_kludge_plan(void **state)
{
	struct multiboot_kernel k;

	(void)state;
	aout(0x100000, 0x104000, 0x108000, 0x100080);
	assert_int_equal(parse(sizeof(img), &k), 0);
	assert_true(k.aout_kludge);
	assert_int_equal(k.header_offset, 0x40);
	assert_int_equal(k.image.count, 1);
	assert_int_equal(k.image.seg[0].offset, 0);
	assert_int_equal(k.image.seg[0].filesz, 0x4000);
	assert_int_equal(k.image.seg[0].memsz, 0x8000);
	assert_int_equal(k.image.entry, 0x100080);
	assert_int_equal(k.image.end, 0x108000);
	/* load_end 0: the rest of the file; bss_end 0: no BSS. */
	aout(0x100000, 0, 0, 0x100080);
	assert_int_equal(parse(0x6000, &k), 0);
	assert_int_equal(k.image.seg[0].filesz, 0x6000);
	assert_int_equal(k.image.seg[0].memsz, 0x6000);
}

static void aout_kludge_refusals(void **state)
{
	struct multiboot_kernel k;

	(void)state;
	aout(0x100000, 0x104000, 0x108000, 0x200000);  /* entry outside */
	assert_int_equal(parse(sizeof(img), &k), -1);
	assert_non_null(strstr(err, "entry_addr 0x200000"));
	aout(0x100000, 0x100000 + sizeof(img) + 1, 0, 0x100080);
	assert_int_equal(parse(sizeof(img), &k), -1);
	assert_non_null(strstr(err, "past the file's end"));
	aout(0x100000, 0x104000, 0x103000, 0x100080);  /* bss before data */
	assert_int_equal(parse(sizeof(img), &k), -1);
	assert_non_null(strstr(err, "bss_end_addr"));
	/* header_addr - load_addr larger than the header's file offset */
	aout(0x100000, 0x104000, 0, 0x100080);
	put32(0x40 + 12, 0x100000 + 0x80);
	put32(0x40 + 8, (uint32_t)-(MULTIBOOT_HEADER_MAGIC +
			  (uint32_t)(MB_HEADER_AOUT_KLUDGE | MB_HEADER_PAGE_ALIGN)));
	assert_int_equal(parse(sizeof(img), &k), -1);
	assert_non_null(strstr(err, "load_addr"));
	/*
	 * Below 1 MiB only in conventional memory above the boot state
	 * [0x8000, 0x9fc00) (kvm-unit-tests' realmode test loads at 0x8000),
	 * or past guest RAM.
	 */
	aout(0x8000, 0x9000, 0, 0x8010);
	assert_int_equal(parse(sizeof(img), &k), 0);
	aout(0x7000, 0x9000, 0, 0x7010);        /* over the boot state */
	assert_int_equal(parse(sizeof(img), &k), -1);
	assert_non_null(strstr(err, "between 1 MiB"));
	aout(0x9f000, 0xa0000, 0, 0x9f010);     /* into the EBDA */
	assert_int_equal(parse(sizeof(img), &k), -1);
	assert_non_null(strstr(err, "conventional memory [0x8000, 0x9fc00)"));
	aout(RAM - 0x1000, RAM, RAM + 0x1000, RAM - 0x1000);
	assert_int_equal(parse(sizeof(img), &k), -1);
	assert_non_null(strstr(err, "between 1 MiB"));
	/* cut off before the address fields */
	aout(0x100000, 0x104000, 0, 0x100080);
	assert_int_equal(parse(0x40 + 20, &k), -1);
	assert_non_null(strstr(err, "cut off"));
}

static void header_checks(void **state)
{
	struct multiboot_kernel k;

	(void)state;
	memset(img, 0, sizeof(img));
	assert_int_equal(parse(sizeof(img), &k), -1);
	assert_non_null(strstr(err, "no multiboot header"));
	/* a bad checksum is no header */
	aout(0x100000, 0x104000, 0, 0x100080);
	put32(0x48, get32(img, 0x48) + 1);
	assert_int_equal(parse(sizeof(img), &k), -1);
	assert_non_null(strstr(err, "no multiboot header"));
	/* past the first 8 KiB is not searched */
	memset(img, 0, sizeof(img));
	header(8192, MB_HEADER_AOUT_KLUDGE);
	assert_int_equal(parse(sizeof(img), &k), -1);
	/* an unknown requirement bit: refused (3.1.2) */
	aout(0x100000, 0x104000, 0, 0x100080);
	header(0x40, MB_HEADER_AOUT_KLUDGE | BIT(5));
	assert_int_equal(parse(sizeof(img), &k), -1);
	assert_non_null(strstr(err, "unknown required bits 0x20"));
	/* an unknown optional bit is fine */
	aout(0x100000, 0x104000, 0, 0x100080);
	header(0x40, MB_HEADER_AOUT_KLUDGE | BIT(20));
	assert_int_equal(parse(sizeof(img), &k), 0);
}

static void elf_plans(void **state)
{
	struct multiboot_kernel k;

	(void)state;
	elf32(0x100000, 0x100000, 0x100010);
	assert_int_equal(parse(sizeof(img), &k), 0);
	assert_false(k.aout_kludge);
	assert_true(k.image.is32);
	assert_int_equal(k.image.seg[0].paddr, 0x100000);
	assert_int_equal(k.image.end, 0x105000);
	assert_int_equal(k.image.entry, 0x100010);
	/* a higher-half kernel: the entry is translated to its paddr */
	elf32(0xc0100000, 0x100000, 0xc0100020);
	assert_int_equal(parse(sizeof(img), &k), 0);
	assert_int_equal(k.image.entry, 0x100020);
	/* an entry in no segment */
	elf32(0x100000, 0x100000, 0x300000);
	assert_int_equal(parse(sizeof(img), &k), -1);
	assert_non_null(strstr(err, "must be an ELF file"));
	/* neither ELF nor the a.out kludge */
	memset(img, 0, sizeof(img));
	header(0x40, MB_HEADER_PAGE_ALIGN);
	assert_int_equal(parse(sizeof(img), &k), -1);
	assert_non_null(strstr(err, "without address fields"));
}

static void elf64_plan(void **state)
{
	struct multiboot_kernel k;

	(void)state;
	memset(img, 0, sizeof(img));
	memcpy(img, "\x7f" "ELF", 4);
	img[4] = 2;
	img[5] = 1;
	put16(16, 2);
	put16(18, 62);
	put64(24, 0x200000);
	put64(32, 64);
	put16(54, 56);
	put16(56, 1);
	put32(64, 1);
	put32(64 + 4, 5);
	put64(64 + 8, 0x1000);
	put64(64 + 16, 0x200000);
	put64(64 + 24, 0x200000);
	put64(64 + 32, 0x1000);
	put64(64 + 40, 0x1000);
	header(0x1000, 0);
	assert_int_equal(parse(sizeof(img), &k), 0);
	assert_false(k.image.is32);
	assert_int_equal(k.image.entry, 0x200000);
}

static void info_layout(void **state)
{
	static uint8_t area[MB_INFO_AREA_END - MB_INFO_AREA_GPA];
	const struct e820_entry map[] = {
		{ 0, 0x9fc00, E820_TYPE_RAM },
		{ 0x9fc00, 0x100000 - 0x9fc00, E820_TYPE_RESERVED },
		{ 0x100000, RAM - 0x100000, E820_TYPE_RAM },
	};
	const struct multiboot_module mods[] = {
		{ 0x200000, 0x201388, "mod.bin arg" },
	};
	struct multiboot_info_input in = {
		.map = map, .map_count = 3,
		.cmdline = "k.elf one two", .loader_name = "apfvisor",
		.mods = mods, .mod_count = 1,
	};
	const uint8_t *mbi = area + (MB_INFO_GPA - MB_INFO_AREA_GPA);
	size_t used;

	(void)state;
	used = multiboot_build_info(&in, area, sizeof(area), err, sizeof(err));
	assert_true(used > 0x500 + MB_INFO_SIZE);
	assert_int_equal(get32(mbi, 0), 0x24f);
	assert_int_equal(get32(mbi, 4), 639);
	assert_int_equal(get32(mbi, 8), (RAM - 0x100000) >> 10);
	assert_int_equal(get32(mbi, 12), 0x8000ffff);
	assert_string_equal(area + get32(mbi, 16) - MB_INFO_AREA_GPA,
			    "k.elf one two");
	assert_string_equal(area + get32(mbi, 64) - MB_INFO_AREA_GPA,
			    "apfvisor");
	assert_int_equal(get32(mbi, 20), 1);
	const uint8_t *mod = area + get32(mbi, 24) - MB_INFO_AREA_GPA;

	assert_int_equal(get32(mbi, 24) % 16, 0);
	assert_int_equal(get32(mod, 0), 0x200000);
	assert_int_equal(get32(mod, 4), 0x201388);
	assert_string_equal(area + get32(mod, 8) - MB_INFO_AREA_GPA,
			    "mod.bin arg");
	assert_int_equal(get32(mbi, 44), 3 * 24);
	assert_int_equal(get32(mbi, 48), MB_INFO_AREA_GPA);
	assert_int_equal(get32(area, 24), 20);          /* entry 1's size */
	assert_int_equal(get32(area, 24 + 4), 0x9fc00); /* its base, low */
	assert_int_equal(get32(area, 24 + 20), E820_TYPE_RESERVED);
}

static void info_too_big(void **state)
{
	static uint8_t area[MB_INFO_AREA_END - MB_INFO_AREA_GPA];
	static char longline[40000];
	const struct e820_entry map[] = { { 0, RAM, E820_TYPE_RAM } };
	struct multiboot_info_input in = {
		.map = map, .map_count = 1, .cmdline = longline,
		.loader_name = "apfvisor",
	};

	(void)state;
	memset(longline, 'x', sizeof(longline) - 1);
	assert_int_equal(multiboot_build_info(&in, area, sizeof(area), err,
					      sizeof(err)), 0);
	assert_non_null(strstr(err, "command line (39999 bytes)"));
	in.cmdline = "k";
	in.mod_count = MB_MAX_MODULES + 1;
	assert_int_equal(multiboot_build_info(&in, area, sizeof(area), err,
					      sizeof(err)), 0);
	assert_non_null(strstr(err, "modules"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(aout_kludge_plan),
		cmocka_unit_test(aout_kludge_refusals),
		cmocka_unit_test(header_checks),
		cmocka_unit_test(elf_plans),
		cmocka_unit_test(elf64_plan),
		cmocka_unit_test(info_layout),
		cmocka_unit_test(info_too_big),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
