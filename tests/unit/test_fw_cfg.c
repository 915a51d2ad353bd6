/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/devices/fw_cfg.c: the items read back as QEMU lays them out (numbers
 * little-endian, the file directory big-endian), reading past an item's
 * end or an unknown item gives zeros, and selecting again starts over.
 * DMA records read and skip as QEMU's fw_cfg_dma_transfer does, and cost
 * what the item holds plus a write per page of zeros: one item lookup per
 * record, however long a length the guest asks for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "guest/devices/fw_cfg.h"

static struct fw_cfg f;

#define RECORD_GPA 0x100                /* where the DMA record sits */

/*
 * The guest's RAM for DMA: ram_size bytes from 0, of which the first
 * sizeof(ram) are kept. Writes above those are counted and checked to be
 * zeros, not kept, so that a test can offer gigabytes of RAM.
 */
static uint8_t ram[16 * PAGE_SIZE];
static uint64_t ram_size;
static uint64_t writes;                 /* write calls in this record */
static uint64_t written_end;            /* the highest gpa + len written */
static uint64_t write_limit;            /* fail once writes pass it */
static uint64_t end_vm_after;           /* writes; 0: the VM never ends */
static volatile bool vm_ending;

static int ram_read(void *ctx, uint64_t gpa, void *dst, uint64_t len)
{
	(void)ctx;
	if (gpa > sizeof(ram) || len > sizeof(ram) - gpa)
		return -1;
	memcpy(dst, ram + gpa, len);
	return 0;
}

static int ram_write(void *ctx, uint64_t gpa, const void *src, uint64_t len)
{
	const uint8_t *bytes = src;

	(void)ctx;
	/*
	 * Checked here, not only after the record: a device that looks the
	 * item up per byte fails at its first write instead of after four
	 * billion lookups.
	 */
	assert_true(f.lookups <= 1);
	assert_true(++writes <= write_limit);
	assert_true(len <= PAGE_SIZE);
	if (end_vm_after && writes >= end_vm_after)
		vm_ending = true;
	if (gpa >= ram_size || len > ram_size - gpa)
		return -1;
	written_end = MAX(written_end, gpa + len);
	for (uint64_t i = 0; i < len; i++, gpa++) {
		if (gpa < sizeof(ram)) {
			ram[gpa] = bytes[i];
		} else {
			/* beyond the kept part only zeros: check both ends */
			assert_int_equal(bytes[i] | bytes[len - 1], 0);
			break;
		}
	}
	return 0;
}

static const struct fw_cfg_guest_memory mem = {
	.read = ram_read, .write = ram_write, .stop = &vm_ending,
};

static void put_be(uint8_t *p, unsigned n, uint64_t v)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/* The guest pages gpa..gpa+len-1 touches. */
static uint64_t pages_spanned(uint64_t gpa, uint64_t len)
{
	return len ? (gpa + len - 1) / PAGE_SIZE - gpa / PAGE_SIZE + 1 : 0;
}

/*
 * Runs the record {control, len, gpa} through the DMA ports, allowing at
 * most max_writes guest-memory writes (the control word's write-back
 * included); returns the control word the device wrote back.
 */
static uint32_t dma(uint32_t control, uint32_t len, uint64_t gpa,
		    uint64_t max_writes)
{
	uint8_t *rec = ram + RECORD_GPA;

	put_be(rec, 4, control);
	put_be(rec + 4, 4, len);
	put_be(rec + 8, 8, gpa);
	f.lookups = 0;
	writes = 0;
	written_end = 0;
	write_limit = max_writes;
	assert_true(fw_cfg_dma_write(&f, FW_CFG_DMA_HIGH_PORT, 0, &mem));
	assert_true(fw_cfg_dma_write(&f, FW_CFG_DMA_LOW_PORT,
				     __builtin_bswap32(RECORD_GPA), &mem));
	assert_true(f.lookups <= 1);
	return (uint32_t)rec[0] << 24 | rec[1] << 16 | rec[2] << 8 | rec[3];
}

static uint32_t select_and(uint16_t key, uint32_t op)
{
	return (uint32_t)key << 16 | FW_CFG_DMA_SELECT | op;
}

static bool all_bytes(const uint8_t *p, uint64_t len, uint8_t value)
{
	for (uint64_t i = 0; i < len; i++)
		if (p[i] != value)
			return false;
	return true;
}

static void read_item(uint16_t key, void *buf, unsigned len)
{
	fw_cfg_select(&f, key);
	for (unsigned i = 0; i < len; i++)
		((uint8_t *)buf)[i] = fw_cfg_read(&f);
}

static void setup(void)
{
	struct fw_cfg_platform p = {
		.ram = { .low_size = 64ull << 20 }, .cpus = 2,
		.cmdline = "console=ttyS0",
		.cmdline_addr = 0x20000, .initrd_addr = 0x3000000,
		.initrd_size = 12345,
	};

	fw_cfg_init(&f, &p);
	memset(ram, 0xaa, sizeof(ram));
	ram_size = sizeof(ram);
	end_vm_after = 0;
	vm_ending = false;
}

static void numbers_and_strings(void **state)
{
	char sig[5] = { 0 }, cmd[32];
	uint64_t ram = 0;
	uint32_t id = 0, v = 0;
	uint16_t cpus = 0;

	(void)state;
	setup();
	read_item(FW_CFG_SIGNATURE, sig, 4);
	assert_string_equal(sig, "QEMU");
	read_item(FW_CFG_ID, &id, 4);
	assert_int_equal(id, FW_CFG_ID_TRADITIONAL | FW_CFG_ID_DMA);
	read_item(FW_CFG_RAM_SIZE, &ram, 8);
	assert_int_equal(ram, 64ull << 20);
	read_item(FW_CFG_NB_CPUS, &cpus, 2);
	assert_int_equal(cpus, 2);
	read_item(FW_CFG_MAX_CPUS, &cpus, 2);
	assert_int_equal(cpus, 2);
	read_item(FW_CFG_INITRD_ADDR, &v, 4);
	assert_int_equal(v, 0x3000000);
	read_item(FW_CFG_INITRD_SIZE, &v, 4);
	assert_int_equal(v, 12345);
	read_item(FW_CFG_CMDLINE_ADDR, &v, 4);
	assert_int_equal(v, 0x20000);
	read_item(FW_CFG_CMDLINE_SIZE, &v, 4);
	assert_int_equal(v, 14);
	read_item(FW_CFG_CMDLINE_DATA, cmd, 14);
	assert_string_equal(cmd, "console=ttyS0");
	/* past the end: zeros; an unknown key: zeros */
	assert_int_equal(fw_cfg_read(&f), 0);
	read_item(0x1234, &v, 4);
	assert_int_equal(v, 0);
	/* selecting again starts from the first byte */
	fw_cfg_select(&f, FW_CFG_SIGNATURE);
	assert_int_equal(fw_cfg_read(&f), 'Q');
	fw_cfg_select(&f, FW_CFG_SIGNATURE);
	assert_int_equal(fw_cfg_read(&f), 'Q');
}

static void file_directory(void **state)
{
	uint8_t dir[4 + 64], e820[20];
	uint64_t base, len;
	uint32_t type;

	(void)state;
	setup();
	read_item(FW_CFG_FILE_DIR, dir, sizeof(dir));
	assert_int_equal(dir[3], 1);                    /* count, BE */
	assert_int_equal(dir[0] | dir[1] | dir[2], 0);
	assert_int_equal(dir[4 + 3], 20);               /* size, BE */
	assert_int_equal(dir[4 + 4] << 8 | dir[4 + 5], FW_CFG_FILE_FIRST);
	assert_string_equal((char *)dir + 4 + 8, "etc/e820");
	read_item(FW_CFG_FILE_FIRST, e820, sizeof(e820));
	memcpy(&base, e820, 8);
	memcpy(&len, e820 + 8, 8);
	memcpy(&type, e820 + 16, 4);
	assert_int_equal(base, 0);
	assert_int_equal(len, 64ull << 20);
	assert_int_equal(type, 1);
}

/*
 * 6 GiB as on QEMU's PC: etc/e820 has a range below the PCI hole and one
 * from 4 GiB, as hw/i386/pc.c writes them; FW_CFG_RAM_SIZE is all of it.
 */
static void e820_above_4g(void **state)
{
	struct fw_cfg_platform p = { .cpus = 1 };
	uint8_t dir[4 + 64], e820[40];
	uint64_t v[4], ram = 0;

	(void)state;
	guest_ram_layout_pc(&p.ram, 6ull << 30);
	fw_cfg_init(&f, &p);
	read_item(FW_CFG_FILE_DIR, dir, sizeof(dir));
	assert_int_equal(dir[4 + 3], 40);               /* size, BE */
	assert_string_equal((char *)dir + 4 + 8, "etc/e820");
	read_item(FW_CFG_FILE_FIRST, e820, sizeof(e820));
	memcpy(&v[0], e820, 8);
	memcpy(&v[1], e820 + 8, 8);
	memcpy(&v[2], e820 + 20, 8);
	memcpy(&v[3], e820 + 28, 8);
	assert_int_equal(v[0], 0);
	assert_int_equal(v[1], 3ull << 30);
	assert_int_equal(v[2], 4ull << 30);
	assert_int_equal(v[3], 3ull << 30);
	assert_int_equal(e820[16], 1);
	assert_int_equal(e820[36], 1);
	read_item(FW_CFG_RAM_SIZE, &ram, 8);
	assert_int_equal(ram, 6ull << 30);
}

/*
 * A READ of 4 GiB - 1 into 8 GiB of RAM: the command line, then zeros a
 * page at a time to the end of the length; the offset stops at the
 * item's end. One lookup, one write per page (and one more where the
 * item ends inside a page, one for the control word).
 */
static void dma_read_of_4_gib_costs_pages_not_bytes(void **state)
{
	const uint64_t at = 0x1000, len = 0xffffffffull;

	(void)state;
	setup();
	ram_size = 8ull << 30;
	assert_int_equal(dma(select_and(FW_CFG_CMDLINE_DATA, FW_CFG_DMA_READ),
			     (uint32_t)len, at, pages_spanned(at, len) + 2), 0);
	assert_int_equal(written_end, at + len);
	assert_string_equal((char *)ram + at, "console=ttyS0");
	assert_true(all_bytes(ram + at + 14, sizeof(ram) - at - 14, 0));
	assert_int_equal(f.offset, 14);
	/* the offset stays at the item's end: zeros, by DMA and by port */
	memset(ram + at, 0xaa, 16);
	assert_int_equal(dma(FW_CFG_DMA_READ, 16, at, 2), 0);
	assert_true(all_bytes(ram + at, 16, 0));
	assert_int_equal(f.offset, 14);
	assert_int_equal(fw_cfg_read(&f), 0);
}

/* A READ that crosses the item's end (and a page boundary) and one past it. */
static void dma_read_across_the_items_end(void **state)
{
	uint8_t dir[4 + 64];
	const uint64_t at = 2 * PAGE_SIZE - 16;

	(void)state;
	setup();
	read_item(FW_CFG_FILE_DIR, dir, sizeof(dir));
	assert_int_equal(dma(select_and(FW_CFG_FILE_DIR, FW_CFG_DMA_READ), 10,
			     PAGE_SIZE, 2), 0);
	assert_memory_equal(ram + PAGE_SIZE, dir, 10);
	assert_int_equal(f.offset, 10);
	/* 58 bytes of the item over two pages, then 42 zeros */
	assert_int_equal(dma(FW_CFG_DMA_READ, 100, at, 4), 0);
	assert_memory_equal(ram + at, dir + 10, 58);
	assert_true(all_bytes(ram + at + 58, 42, 0));
	assert_true(all_bytes(ram + at + 100, 16, 0xaa));
	assert_int_equal(f.offset, sizeof(dir));
	/* past the end: zeros only, a write per page */
	assert_int_equal(dma(FW_CFG_DMA_READ, 5000, 3 * PAGE_SIZE, 3), 0);
	assert_true(all_bytes(ram + 3 * PAGE_SIZE, 5000, 0));
	assert_true(all_bytes(ram + 3 * PAGE_SIZE + 5000, 16, 0xaa));
	assert_int_equal(f.offset, sizeof(dir));
}

/*
 * A SKIP moves the offset by what is left of the item, at most: one
 * subtraction, no guest memory touched but the control word.
 */
static void dma_skip_is_cut_at_the_items_end(void **state)
{
	(void)state;
	setup();
	assert_int_equal(dma(select_and(FW_CFG_SIGNATURE, FW_CFG_DMA_SKIP), 1,
			     PAGE_SIZE, 1), 0);
	assert_int_equal(f.offset, 1);
	assert_int_equal(dma(FW_CFG_DMA_READ, 2, PAGE_SIZE, 2), 0);
	assert_memory_equal(ram + PAGE_SIZE, "EM", 2);
	assert_int_equal(dma(FW_CFG_DMA_SKIP, 0xffffffffu, PAGE_SIZE, 1), 0);
	assert_int_equal(f.offset, 4);
	assert_int_equal(fw_cfg_read(&f), 0);
	/* an unknown item has nothing to skip */
	assert_int_equal(dma(select_and(0x1234, FW_CFG_DMA_SKIP), 0xffffffffu,
			     PAGE_SIZE, 1), 0);
	assert_int_equal(f.offset, 0);
}

/*
 * A READ that runs off the end of RAM: the error bit, after writing at
 * most the RAM there is (the failed write is the last one).
 */
static void dma_read_past_ram_sets_the_error_bit(void **state)
{
	const uint64_t at = PAGE_SIZE;

	(void)state;
	setup();
	assert_int_equal(dma(select_and(FW_CFG_SIGNATURE, FW_CFG_DMA_READ),
			     0xffffffffu, at, sizeof(ram) / PAGE_SIZE + 2),
			 FW_CFG_DMA_ERROR);
	assert_memory_equal(ram + at, "QEMU", 4);
	assert_true(all_bytes(ram + at + 4, sizeof(ram) - at - 4, 0));
	/* the item's bytes themselves into no RAM (the offset moves on) */
	assert_int_equal(dma(select_and(FW_CFG_SIGNATURE, FW_CFG_DMA_READ), 4,
			     1ull << 40, 2), FW_CFG_DMA_ERROR);
	assert_int_equal(f.offset, 4);
}

/* A VM that is ending stops a long zero fill between pages. */
static void an_ending_vm_stops_the_zero_fill(void **state)
{
	(void)state;
	setup();
	ram_size = 8ull << 30;
	end_vm_after = 10;
	assert_int_equal(dma(select_and(FW_CFG_SIGNATURE, FW_CFG_DMA_READ),
			     0xffffffffu, PAGE_SIZE, end_vm_after + 1),
			 FW_CFG_DMA_ERROR);
	assert_memory_equal(ram + PAGE_SIZE, "QEMU", 4);
	/* already ending: no page written, only the control word */
	assert_int_equal(dma(FW_CFG_DMA_READ, 0xffffffffu, PAGE_SIZE, 1),
			 FW_CFG_DMA_ERROR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers_and_strings),
		cmocka_unit_test(file_directory),
		cmocka_unit_test(e820_above_4g),
		cmocka_unit_test(dma_read_of_4_gib_costs_pages_not_bytes),
		cmocka_unit_test(dma_read_across_the_items_end),
		cmocka_unit_test(dma_skip_is_cut_at_the_items_end),
		cmocka_unit_test(dma_read_past_ram_sets_the_error_bit),
		cmocka_unit_test(an_ending_vm_stops_the_zero_fill),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
