/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arch/x86/acpi_fadt.c and acpi_mcfg.c over crafted tables (ACPI 6.5
 * Table 5.9; PCI Firmware Specification 3.2, 4.1.2), each in a heap block
 * of exactly its length so that ASan sees any read beyond it, and the ECAM
 * address arithmetic of arch/x86/pci_ecam.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86/acpi_fadt.h"
#include "arch/x86/acpi_mcfg.h"

#define FADT_V1_LEN 116         /* up to and with the flags */
#define FADT_V6_LEN 276
#define TMR_VAL_EXT (1u << 8)
#define HW_REDUCED  (1u << 20)

static void *table;

static int release(void **state)
{
	(void)state;
	free(table);
	table = NULL;
	return 0;
}

static struct acpi_sdt_header *new_table(const char sig[4], uint32_t len)
{
	struct acpi_sdt_header *h;

	table = calloc(1, len);
	assert_non_null(table);
	h = table;
	memcpy(h->signature, sig, 4);
	h->length = len;
	return h;
}

static void put32(void *t, unsigned off, uint32_t v)
{
	memcpy((uint8_t *)t + off, &v, sizeof(v));
}

static void put64(void *t, unsigned off, uint64_t v)
{
	memcpy((uint8_t *)t + off, &v, sizeof(v));
}

static struct acpi_sdt_header *fadt(uint32_t len, uint32_t pm_tmr_blk,
				    uint32_t flags)
{
	struct acpi_sdt_header *h = new_table("FACP", len);

	put32(h, 76, pm_tmr_blk);
	((uint8_t *)h)[91] = pm_tmr_blk ? 4 : 0;
	if (len >= FADT_V1_LEN)
		put32(h, 112, flags);
	return h;
}

static void x_pm_tmr_blk(struct acpi_sdt_header *h, uint8_t space,
			 uint64_t address)
{
	uint8_t *gas = (uint8_t *)h + 208;

	gas[0] = space;
	gas[1] = 32;
	gas[3] = 3;
	put64(gas, 4, address);
}

static void fadt_io_port_24bit(void **state)
{
	struct acpi_pm_timer t;
	const char *why;

	(void)state;
	/* QEMU q35: X_PM_TMR_BLK in I/O space at 0x608, no TMR_VAL_EXT. */
	x_pm_tmr_blk(fadt(FADT_V6_LEN, 0x608, 0), 1, 0x608);
	assert_true(acpi_fadt_pm_timer(table, &t, &why));
	assert_false(t.mmio);
	assert_int_equal(t.address, 0x608);
	assert_false(t.is_32bit);
}

static void fadt_extended_block_wins(void **state)
{
	struct acpi_pm_timer t;
	const char *why;

	(void)state;
	x_pm_tmr_blk(fadt(FADT_V6_LEN, 0x408, TMR_VAL_EXT), 0, 0xfed00008ull);
	assert_true(acpi_fadt_pm_timer(table, &t, &why));
	assert_true(t.mmio);
	assert_int_equal(t.address, 0xfed00008ull);
	assert_true(t.is_32bit);
}

static void fadt_old_table_uses_pm_tmr_blk(void **state)
{
	struct acpi_pm_timer t;
	const char *why;

	(void)state;
	/* ACPI 1.0: no X_ fields, the 32-bit port field only. */
	fadt(FADT_V1_LEN, 0xb008, TMR_VAL_EXT);
	assert_true(acpi_fadt_pm_timer(table, &t, &why));
	assert_false(t.mmio);
	assert_int_equal(t.address, 0xb008);
	assert_true(t.is_32bit);
	release(NULL);
	/* An empty X_ block falls back to PM_TMR_BLK too. */
	x_pm_tmr_blk(fadt(FADT_V6_LEN, 0x1808, 0), 1, 0);
	assert_true(acpi_fadt_pm_timer(table, &t, &why));
	assert_int_equal(t.address, 0x1808);
}

static void fadt_without_timer(void **state)
{
	struct acpi_pm_timer t;
	const char *why;

	(void)state;
	fadt(FADT_V6_LEN, 0, 0);
	assert_false(acpi_fadt_pm_timer(table, &t, &why));
	assert_string_equal(why, "the FADT names no PM timer block");
	release(NULL);
	x_pm_tmr_blk(fadt(FADT_V6_LEN, 0x608, HW_REDUCED), 1, 0x608);
	assert_false(acpi_fadt_pm_timer(table, &t, &why));
	assert_string_equal(why, "the FADT says hardware-reduced ACPI (no PM "
			    "timer)");
	release(NULL);
	/* Too short even for PM_TMR_LEN. */
	new_table("FACP", 80);
	put32(table, 76, 0x608);
	assert_false(acpi_fadt_pm_timer(table, &t, &why));
}

static void fadt_unusable_address(void **state)
{
	struct acpi_pm_timer t;
	const char *why;

	(void)state;
	x_pm_tmr_blk(fadt(FADT_V6_LEN, 0, 0), 2 /* PCI config */, 0x608);
	assert_false(acpi_fadt_pm_timer(table, &t, &why));
	assert_string_equal(why, "X_PM_TMR_BLK is neither in memory nor in I/O "
			    "space");
	release(NULL);
	x_pm_tmr_blk(fadt(FADT_V6_LEN, 0, 0), 1, 0x10008);
	assert_false(acpi_fadt_pm_timer(table, &t, &why));
	assert_string_equal(why, "the PM timer's port is above 0xffff");
}

static struct acpi_sdt_header *mcfg(unsigned entries)
{
	return new_table("MCFG", 44 + 16 * entries);
}

static void mcfg_entry(unsigned i, uint64_t base, uint16_t segment,
		       uint8_t bus_start, uint8_t bus_end)
{
	uint8_t *e = (uint8_t *)table + 44 + 16 * i;

	put64(e, 0, base);
	memcpy(e + 8, &segment, 2);
	e[10] = bus_start;
	e[11] = bus_end;
}

static void mcfg_segment0(void **state)
{
	struct pci_ecam_window w;
	const char *why;

	(void)state;
	mcfg(2);
	mcfg_entry(0, 0xe0000000ull, 1, 0, 63);
	mcfg_entry(1, 0xb0000000ull, 0, 0, 255);
	assert_true(acpi_mcfg_segment0(table, &w, &why));
	assert_int_equal(w.base, 0xb0000000ull);
	assert_int_equal(w.bus_start, 0);
	assert_int_equal(w.bus_end, 255);
	assert_int_equal(pci_ecam_size(&w), 256ull << 20);
}

static void mcfg_refusals(void **state)
{
	struct pci_ecam_window w;
	const char *why;

	(void)state;
	mcfg(0);
	assert_false(acpi_mcfg_segment0(table, &w, &why));
	assert_string_equal(why, "the MCFG has no allocation for PCI segment 0");
	release(NULL);
	mcfg(1);
	mcfg_entry(0, 0xb0080000ull, 0, 0, 255);
	assert_false(acpi_mcfg_segment0(table, &w, &why));
	assert_string_equal(why, "the MCFG's base for segment 0 is 0 or not "
			    "1 MiB aligned");
	mcfg_entry(0, 0, 0, 0, 255);
	assert_false(acpi_mcfg_segment0(table, &w, &why));
	mcfg_entry(0, 0xb0000000ull, 0, 9, 8);
	assert_false(acpi_mcfg_segment0(table, &w, &why));
	assert_string_equal(why, "the MCFG's bus range for segment 0 is empty");
	release(NULL);
	/* A length that cuts the only entry short: no entry at all. */
	new_table("MCFG", 44 + 15);
	assert_false(acpi_mcfg_segment0(table, &w, &why));
	release(NULL);
	new_table("MCFG", 20);
	assert_false(acpi_mcfg_segment0(table, &w, &why));
}

static void ecam_addresses(void **state)
{
	const struct pci_ecam_window w = { .base = 0xb0000000ull,
					   .bus_start = 0, .bus_end = 255 };
	const struct pci_ecam_window high = { .base = 0x3000000000ull,
					      .bus_start = 0x80,
					      .bus_end = 0x8f };

	(void)state;
	assert_int_equal(pci_ecam_address(&w, 0, 0, 0, 0), 0xb0000000ull);
	assert_int_equal(pci_ecam_address(&w, 0, 1, 0, 0x10), 0xb0008010ull);
	assert_int_equal(pci_ecam_address(&w, 2, 31, 7, 0xffc),
			 0xb0000000ull + (2 << 20) + (31 << 15) + (7 << 12) +
				 0xffc);
	/* Extended space (offsets >= 0x100) is reachable only here. */
	assert_int_equal(pci_ecam_address(&w, 0, 3, 0, 0x100),
			 0xb0018100ull);
	assert_int_equal(pci_ecam_address(&high, 0x81, 0, 1, 4),
			 0x3000000000ull + (1 << 20) + (1 << 12) + 4);
	assert_true(pci_ecam_covers(&high, 0x80));
	assert_true(pci_ecam_covers(&high, 0x8f));
	assert_false(pci_ecam_covers(&high, 0x7f));
	assert_false(pci_ecam_covers(&high, 0x90));
	assert_int_equal(pci_ecam_size(&high), 16ull << 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(fadt_io_port_24bit, release),
		cmocka_unit_test_teardown(fadt_extended_block_wins, release),
		cmocka_unit_test_teardown(fadt_old_table_uses_pm_tmr_blk,
					  release),
		cmocka_unit_test_teardown(fadt_without_timer, release),
		cmocka_unit_test_teardown(fadt_unusable_address, release),
		cmocka_unit_test_teardown(mcfg_segment0, release),
		cmocka_unit_test_teardown(mcfg_refusals, release),
		cmocka_unit_test(ecam_addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
