/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: the host's ACPI table parsers (arch/x86/acpi.c's MADT
 * walk, acpi_fadt.c's PM timer, acpi_mcfg.c's ECAM window) over arbitrary
 * bytes. The input is the table; its length field is set to the input's
 * size, as acpi_find_table guarantees by checksumming that many bytes, and
 * the copy is a heap block of exactly that size so that ASan catches any
 * read beyond it. Promises: a PM timer has an address, a port fits 16
 * bits; an ECAM window is 1 MiB aligned with a non-empty bus range; a
 * refusal is a non-empty phrase; the MADT walk stores no more than asked.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86/acpi.h"
#include "arch/x86/acpi_fadt.h"
#include "arch/x86/acpi_mcfg.h"
#include "tests/fuzz/fuzz_check.h"

#define MADT_IDS 4

static void check_fadt(const struct acpi_sdt_header *t)
{
	struct acpi_pm_timer pm;
	const char *why = NULL;

	if (!acpi_fadt_pm_timer(t, &pm, &why)) {
		CHECK(why && why[0]);
		return;
	}
	CHECK(pm.address != 0);
	CHECK(pm.mmio || pm.address <= 0xffff);
}

static void check_mcfg(const struct acpi_sdt_header *t)
{
	struct pci_ecam_window w;
	const char *why = NULL;

	if (!acpi_mcfg_segment0(t, &w, &why)) {
		CHECK(why && why[0]);
		return;
	}
	CHECK(w.base && (w.base & 0xfffff) == 0);
	CHECK(w.segment == 0 && w.bus_start <= w.bus_end);
	CHECK(pci_ecam_address(&w, w.bus_end, 31, 7, 0xfff) <
	      w.base + pci_ecam_size(&w) || w.base + pci_ecam_size(&w) < w.base);
}

static void check_madt(const struct acpi_sdt_header *t)
{
	uint32_t ids[MADT_IDS + 1];

	ids[MADT_IDS] = 0x5a5a5a5a;
	(void)acpi_madt_cpus(t, ids, MADT_IDS);
	CHECK(ids[MADT_IDS] == 0x5a5a5a5a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct acpi_sdt_header *t;

	if (size < sizeof(*t) || size > 1 << 16)
		return 0;
	t = malloc(size);
	if (!t)
		return 0;
	memcpy(t, data, size);
	t->length = (uint32_t)size;
	check_fadt(t);
	check_mcfg(t);
	check_madt(t);
	free(t);
	return 0;
}
