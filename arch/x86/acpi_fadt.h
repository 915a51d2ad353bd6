/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The ACPI PM timer as the FADT describes it (ACPI 6.5, 5.2.9 and 4.8.3.3).
 * Pure parsing of an untrusted table: every field is read only when the
 * table's length covers it.
 */
#ifndef ARCH_X86_ACPI_FADT_H
#define ARCH_X86_ACPI_FADT_H

#include "arch/x86/acpi.h"

struct acpi_pm_timer {
	bool mmio;              /* system memory; else system I/O */
	uint64_t address;       /* port or physical address of the counter */
	bool is_32bit;          /* FADT flag TMR_VAL_EXT; else 24 bits count */
};

/*
 * Fills *t from X_PM_TMR_BLK when the FADT has one with a nonzero address,
 * else from PM_TMR_BLK. Returns false with *why naming what is missing or
 * unusable (hardware-reduced ACPI, no block, an address space other than
 * memory or I/O, a port above 0xffff).
 */
bool acpi_fadt_pm_timer(const struct acpi_sdt_header *fadt,
			struct acpi_pm_timer *t, const char **why);

#endif
