/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Reading the host's ACPI tables (ACPI 6.x, 5.2): the MADT lists the CPUs.
 * Pure parsing over memory, so tests/unit can feed it crafted tables.
 */
#ifndef ARCH_X86_ACPI_H
#define ARCH_X86_ACPI_H

#include "lib/types.h"

struct acpi_sdt_header {
	char signature[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	uint32_t creator_id;
	uint32_t creator_revision;
} PACKED;

struct acpi_rsdp {
	char signature[8];              /* "RSD PTR " */
	uint8_t checksum;
	char oem_id[6];
	uint8_t revision;               /* 2+ has the XSDT address */
	uint32_t rsdt_address;
	uint32_t length;
	uint64_t xsdt_address;
	uint8_t extended_checksum;
	uint8_t reserved[3];
} PACKED;

bool acpi_checksum_ok(const void *p, size_t len);

/* Finds a table by signature through the XSDT (or RSDT); NULL if absent. */
const struct acpi_sdt_header *acpi_find_table(uint64_t rsdp_pa,
					      const char sig[4]);

/*
 * Fills apic_ids with the APIC IDs of the enabled (or online-capable) CPUs
 * of a MADT; returns how many there are (may exceed max; only max stored).
 */
unsigned acpi_madt_cpus(const struct acpi_sdt_header *madt,
			uint32_t *apic_ids, unsigned max);

#endif
