/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: guest/loaders/linux_boot.c's bzImage setup-header parser over
 * arbitrary bytes, then, for an accepted image, the layout in three RAM
 * sizes and the zero page. An accepted plan keeps every piece inside RAM
 * and below 4 GiB, above 1 MiB, never wrapping; a refusal is one
 * terminated line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest/loaders/linux_boot.h"

/* All RAM below the PCI hole, as in a guest of less than 3.5 GiB. */
#define LOW_RAM(size) (&(struct guest_ram_layout){ .low_size = (size) })
#include "tests/fuzz/fuzz_check.h"

#define GIB (1ull << 30)
#define MIB (1ull << 20)

static void check_refusal(const char *err, size_t cap)
{
	CHECK(memchr(err, 0, cap) != NULL);
	CHECK(err[0] != 0 && !strchr(err, '\n'));
}

static void check_inside(uint64_t base, uint64_t size,
			 const struct linux_layout *l)
{
	if (!size)
		return;
	CHECK(base >= MIB);
	CHECK(base + size > base);              /* no wrap */
	CHECK(base + size <= l->ram_size);
	CHECK(base + size <= 4 * GIB);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t rams[] = { 64 * MIB, 512 * MIB, 6 * GIB };
	static uint8_t zero_page[4096];
	struct linux_reserved res = {
		.count = 1,
		.area = { { 0x9000, 0x7000, 0 } },
	};
	struct bzimage_info k;
	char err[256];

	memset(err, 0x55, sizeof(err));
	if (linux_parse_bzimage(data, size, &k, err, sizeof(err))) {
		check_refusal(err, sizeof(err));
		return 0;
	}
	CHECK(k.kernel_offset + k.kernel_size <= size);
	CHECK(k.pref_address < 4 * GIB);
	for (size_t i = 0; i < sizeof(rams) / sizeof(rams[0]); i++) {
		struct linux_layout l;
		struct e820_entry e820[16];
		unsigned n;

		memset(err, 0x55, sizeof(err));
		if (linux_plan_layout(&k, rams[i], 2 * MIB, 100, &res, &l, err,
				      sizeof(err))) {
			check_refusal(err, sizeof(err));
			continue;
		}
		CHECK(l.kernel_addr <= l.kernel_end);
		check_inside(l.kernel_addr, l.kernel_end - l.kernel_addr, &l);
		check_inside(l.boot_params_addr, 4096, &l);
		check_inside(l.cmdline_addr, l.cmdline_len + 1, &l);
		check_inside(l.initrd_addr, l.initrd_size, &l);
		n = linux_build_e820(LOW_RAM(rams[i]), &res, e820, 16);
		linux_build_boot_params(data, size, &k, &l, e820, n, 0,
					zero_page);
	}
	return 0;
}
