/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * boot/host_cpus.c (the MADT as the source, UEFI MP services as the
 * cross-check, and the line that says which) and boot/ram_map.c (merging
 * the firmware's RAM ranges, counting below and above 4 GiB).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "boot/host_cpus.h"
#include "boot/ram_map.h"
#include "tests/unit/console_capture.h"

#define BSP 7u

static uint32_t ids[8];

static int reset(void **state)
{
	(void)state;
	console_forget();
	memset(ids, 0xee, sizeof(ids));
	return 0;
}

static unsigned choose(const uint32_t *madt, unsigned n_madt,
		       const uint32_t *mp, unsigned n_mp)
{
	struct host_cpu_lists l = { .madt = madt, .n_madt = n_madt,
				    .mp = mp, .n_mp = n_mp };
	unsigned n = host_cpus_choose(&l, BSP, ids, ARRAY_SIZE(ids));

	assert_int_equal(console_nlines, 1);
	return n;
}

static void lists_agree(void **state)
{
	static const uint32_t madt[] = { 0, 1 }, mp[] = { 1, 0 };

	(void)state;
	assert_int_equal(choose(madt, 2, mp, 2), 2);
	assert_int_equal(ids[0], 0);
	assert_int_equal(ids[1], 1);
	assert_string_equal(console_lines[0], "apfvisor: host cpus: 2 (ACPI "
			    "MADT; UEFI MP services agree)");
}

static void madt_lists_an_empty_socket(void **state)
{
	static const uint32_t madt[] = { 0, 1, 2, 3 }, mp[] = { 0, 2 };

	(void)state;
	assert_int_equal(choose(madt, 4, mp, 2), 2);
	assert_int_equal(ids[0], 0);
	assert_int_equal(ids[1], 2);
	assert_string_equal(console_lines[0], "apfvisor: host cpus: 2 (the "
			    "ACPI MADT lists 4, UEFI MP services 2: those both "
			    "list)");
}

static void madt_describes_another_machine(void **state)
{
	static const uint32_t madt[] = { 10, 11 }, mp[] = { 0, 1, 2 };

	(void)state;
	assert_int_equal(choose(madt, 2, mp, 3), 3);
	assert_int_equal(ids[2], 2);
	assert_string_equal(console_lines[0], "apfvisor: host cpus: 3 (UEFI MP "
			    "services; the ACPI MADT lists 2 other APIC IDs: "
			    "not used)");
}

static void one_list_only(void **state)
{
	static const uint32_t list[] = { 0, 2, 4 };

	(void)state;
	assert_int_equal(choose(list, 3, NULL, 0), 3);
	assert_int_equal(ids[2], 4);
	assert_string_equal(console_lines[0], "apfvisor: host cpus: 3 (ACPI "
			    "MADT; no UEFI MP services)");
	console_forget();
	/* Bochs: OVMF there has MP services but no ACPI tables. */
	assert_int_equal(choose(NULL, 0, list, 2), 2);
	assert_string_equal(console_lines[0], "apfvisor: host cpus: 2 (UEFI MP "
			    "services; no ACPI MADT)");
}

static void no_list_boot_cpu_only(void **state)
{
	(void)state;
	assert_int_equal(choose(NULL, 0, NULL, 0), 1);
	assert_int_equal(ids[0], BSP);
	assert_int_equal(ids[1], 0xeeeeeeeeu);
}

static void more_cpus_than_room(void **state)
{
	uint32_t many[12];

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(many); i++)
		many[i] = i;
	assert_int_equal(choose(many, 12, many, 12), ARRAY_SIZE(ids));
	assert_int_equal(ids[7], 7);
}

static void ram_ranges_merge(void **state)
{
	struct phys_range r[3];
	unsigned n = 0;

	(void)state;
	assert_true(ram_map_add(r, &n, 3, 0x100000, 0x100000));
	assert_true(ram_map_add(r, &n, 3, 0x200000, 0x300000)); /* after */
	assert_true(ram_map_add(r, &n, 3, 0x0, 0xa0000));         /* apart */
	assert_true(ram_map_add(r, &n, 3, 0x80000, 0x0));         /* empty */
	assert_int_equal(n, 2);
	assert_int_equal(r[0].base, 0x100000);
	assert_int_equal(r[0].size, 0x400000);
	/* Unsorted maps: a range that ends where one starts grows it down. */
	assert_true(ram_map_add(r, &n, 3, 0xc0000, 0x40000));
	assert_int_equal(n, 2);
	assert_int_equal(r[0].base, 0xc0000);
	assert_int_equal(r[0].size, 0x440000);
	assert_true(ram_map_add(r, &n, 3, GiB(4), GiB(3)));
	assert_false(ram_map_add(r, &n, 3, GiB(8), MiB(1)));      /* full */
	assert_int_equal(n, 3);
	assert_true(ram_map_add(r, &n, 3, GiB(7), MiB(1)));       /* merges */
	assert_int_equal(r[2].size, GiB(3) + MiB(1));
}

static void ram_split_at_4g(void **state)
{
	/* QEMU q35 with 5 GiB: 2 GiB low (less holes), 3 GiB from 4 GiB. */
	const struct phys_range r[] = {
		{ 0, 0xa0000 },
		{ 0x100000, 0x7ff00000 },
		{ 0xf0000000ull, GiB(1) + MiB(256) },   /* straddles 4 GiB */
		{ GiB(8), GiB(3) },
	};
	uint64_t below, above;

	(void)state;
	ram_map_split_4g(r, ARRAY_SIZE(r), &below, &above);
	assert_int_equal(below, 0xa0000 + 0x7ff00000 + MiB(256));
	assert_int_equal(above, GiB(1) + GiB(3));
	ram_map_split_4g(r, 0, &below, &above);
	assert_int_equal(below + above, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(lists_agree, reset),
		cmocka_unit_test_setup(madt_lists_an_empty_socket, reset),
		cmocka_unit_test_setup(madt_describes_another_machine, reset),
		cmocka_unit_test_setup(one_list_only, reset),
		cmocka_unit_test_setup(no_list_boot_cpu_only, reset),
		cmocka_unit_test_setup(more_cpus_than_room, reset),
		cmocka_unit_test(ram_ranges_merge),
		cmocka_unit_test(ram_split_at_4g),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
