/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/fw_cfg.c: the items read back as QEMU lays them out (numbers
 * little-endian, the file directory big-endian), reading past an item's
 * end or an unknown item gives zeros, and selecting again starts over.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "guest/fw_cfg.h"

static struct fw_cfg f;

static void read_item(uint16_t key, void *buf, unsigned len)
{
	fw_cfg_select(&f, key);
	for (unsigned i = 0; i < len; i++)
		((uint8_t *)buf)[i] = fw_cfg_read(&f);
}

static void setup(void)
{
	struct fw_cfg_platform p = {
		.ram_size = 64ull << 20, .cpus = 2, .cmdline = "console=ttyS0",
		.cmdline_addr = 0x20000, .initrd_addr = 0x3000000,
		.initrd_size = 12345,
	};

	fw_cfg_init(&f, &p);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers_and_strings),
		cmocka_unit_test(file_directory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
