// SPDX-License-Identifier: BSD-2-Clause
/*
 * lib/guest_ram.c: where guest RAM lies for a guest.memory, QEMU's pc
 * rule, and the dense page index the page bookkeeping uses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/guest_ram.h"

static struct guest_ram_layout pc(uint64_t total)
{
	struct guest_ram_layout l;

	guest_ram_layout_pc(&l, total);
	return l;
}

/* The figures of hw/i386/pc_piix.c's comment, and the edges of the rule. */
static void test_pc_split(void **state)
{
	static const struct {
		uint64_t total, low, high;
	} cases[] = {
		{ MiB(64), MiB(64), 0 },
		{ GiB(3), GiB(3), 0 },
		/* Below 3.5 GiB it all fits under the hole. */
		{ GiB(3) + MiB(512) - PAGE_SIZE, GiB(3) + MiB(512) - PAGE_SIZE,
		  0 },
		/* From 3.5 GiB: 3 GiB low, the rest from 4 GiB. */
		{ GiB(3) + MiB(512), GiB(3), MiB(512) },
		{ GiB(4), GiB(3), GiB(1) },
		{ GiB(6), GiB(3), GiB(3) },
		{ GiB(60), GiB(3), GiB(57) },
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct guest_ram_layout l = pc(cases[i].total);

		assert_int_equal(l.low_size, cases[i].low);
		assert_int_equal(l.high_size, cases[i].high);
		assert_int_equal(guest_ram_total(&l), cases[i].total);
		assert_int_equal(guest_ram_pages(&l),
				 cases[i].total / PAGE_SIZE);
	}
}

static void test_ranges(void **state)
{
	struct guest_ram_range r[GUEST_RAM_MAX_RANGES];
	struct guest_ram_layout l = pc(GiB(6));

	(void)state;
	assert_int_equal(guest_ram_ranges(&l, r), 2);
	assert_int_equal(r[0].base, 0);
	assert_int_equal(r[0].size, GiB(3));
	assert_int_equal(r[1].base, GiB(4));
	assert_int_equal(r[1].size, GiB(3));
	assert_int_equal(guest_ram_top(&l), GiB(7));
	l = pc(MiB(64));
	assert_int_equal(guest_ram_ranges(&l, r), 1);
	assert_int_equal(r[0].base, 0);
	assert_int_equal(r[0].size, MiB(64));
	assert_int_equal(guest_ram_top(&l), MiB(64));
}

/* The hole (PCI, I/O APIC, local APIC) and the space above are not RAM. */
static void test_contains(void **state)
{
	struct guest_ram_layout l = pc(GiB(6));

	(void)state;
	assert_true(guest_ram_contains(&l, 0));
	assert_true(guest_ram_contains(&l, GiB(3) - 1));
	assert_false(guest_ram_contains(&l, GiB(3)));
	assert_false(guest_ram_contains(&l, 0xfec00000));
	assert_false(guest_ram_contains(&l, 0xfee00000));
	assert_false(guest_ram_contains(&l, GiB(4) - 1));
	assert_true(guest_ram_contains(&l, GiB(4)));
	assert_true(guest_ram_contains(&l, GiB(7) - 1));
	assert_false(guest_ram_contains(&l, GiB(7)));
	assert_false(guest_ram_contains(&l, UINT64_MAX));
	/* A span must lie in one range: none crosses the hole. */
	assert_true(guest_ram_contains_span(&l, GiB(3) - 8, 8));
	assert_false(guest_ram_contains_span(&l, GiB(3) - 8, 9));
	assert_false(guest_ram_contains_span(&l, GiB(4) - 8, 16));
	assert_true(guest_ram_contains_span(&l, GiB(7) - 64, 64));
	assert_false(guest_ram_contains_span(&l, GiB(7) - 64, 65));
	assert_false(guest_ram_contains_span(&l, UINT64_MAX - 7, 16));
	assert_false(guest_ram_contains_span(&l, 0, 0));
}

/* The dense index: no entry for the hole, a round trip for every page. */
static void test_page_index(void **state)
{
	struct guest_ram_layout l = pc(GiB(6));
	uint64_t low_pages = GiB(3) / PAGE_SIZE;
	uint64_t gfn_4g = GiB(4) / PAGE_SIZE;

	(void)state;
	assert_int_equal(guest_ram_page_index(&l, 0), 0);
	assert_int_equal(guest_ram_page_index(&l, low_pages - 1),
			 low_pages - 1);
	assert_int_equal(guest_ram_page_index(&l, gfn_4g), low_pages);
	assert_int_equal(guest_ram_page_index(&l, GiB(7) / PAGE_SIZE - 1),
			 guest_ram_pages(&l) - 1);
	for (uint64_t i = 0; i < guest_ram_pages(&l); i += 4099) {
		uint64_t gfn = guest_ram_index_gfn(&l, i);

		assert_true(guest_ram_contains(&l, gfn * PAGE_SIZE));
		assert_int_equal(guest_ram_page_index(&l, gfn), i);
	}
	assert_int_equal(guest_ram_index_gfn(&l, low_pages), gfn_4g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pc_split),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_contains),
		cmocka_unit_test(test_page_index),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
