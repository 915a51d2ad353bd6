/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: guest/loaders/elf_kernel.c's parser over arbitrary bytes, then
 * what the loader does with a file it accepted: describe it, plan the
 * guest's memory and build the zero page. Beyond the sanitizers' checks,
 * it asserts the parser's promises (guest/loaders/elf_kernel.h): segments inside
 * the file, sorted, disjoint, below 4 GiB, entry in an executable one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "guest/loaders/elf_kernel.h"
#include "guest/loaders/linux_vmlinux.h"

/* All RAM below the PCI hole, as in a guest of less than 3.5 GiB. */
#define LOW_RAM(size) (&(struct guest_ram_layout){ .low_size = (size) })
#include "tests/fuzz/fuzz_check.h"

static void check_promises(const struct elf_kernel *k, uint64_t len)
{
	bool entry_found = false;

	CHECK(k->count >= 1 && k->count <= ELF_KERNEL_MAX_SEGMENTS);
	for (unsigned i = 0; i < k->count; i++) {
		const struct elf_segment *s = &k->seg[i];

		CHECK(s->offset <= len && s->filesz <= len - s->offset);
		CHECK(s->filesz <= s->memsz);
		CHECK(s->paddr + s->memsz <= GiB(4));
		if (i)
			CHECK(k->seg[i - 1].paddr + k->seg[i - 1].memsz <=
			      s->paddr);
		if (s->exec && k->entry >= s->paddr &&
		    k->entry < s->paddr + s->filesz)
			entry_found = true;
	}
	CHECK(entry_found);
	CHECK(k->lowest == k->seg[0].paddr && k->end >= k->lowest);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct elf_kernel k;
	static uint8_t hdr[LINUX_VMLINUX_HEADER_SIZE], zp[4096];
	static const struct linux_reserved res = {
		.count = 2,
		.area = { { 0x1000, 0x7000, E820_TYPE_RESERVED },
			  { 0xe0000, 0x20000, E820_TYPE_ACPI } },
	};
	struct e820_entry e820[8];
	struct bzimage_info bz;
	struct linux_layout l;
	char err[192];
	unsigned n;

	if (elf_kernel_parse(data, size, &k, err, sizeof(err)))
		return 0;
	check_promises(&k, size);
	if (linux_describe_vmlinux(&k, &bz, hdr, err, sizeof(err)))
		return 0;
	if (linux_plan_layout(&bz, MiB(256), MiB(2), 200, &res, &l, err,
			      sizeof(err)))
		return 0;
	CHECK(l.kernel_addr == k.lowest && l.kernel_end == k.end);
	n = linux_build_e820(LOW_RAM(MiB(256)), &res, e820, 8);
	linux_build_boot_params(hdr, sizeof(hdr), &bz, &l, e820, n, 0xe0000,
				zp);
	return 0;
}
