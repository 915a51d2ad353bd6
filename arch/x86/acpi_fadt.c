// SPDX-License-Identifier: BSD-2-Clause
#include "arch/x86/acpi_fadt.h"
#include "lib/string.h"

/* Byte offsets in the FADT (ACPI 6.5, Table 5.9). */
#define FADT_PM_TMR_BLK    76   /* 4 bytes, a port */
#define FADT_PM_TMR_LEN    91   /* 1 byte, 4 when the timer exists */
#define FADT_FLAGS         112  /* 4 bytes */
#define FADT_X_PM_TMR_BLK  208  /* a 12-byte Generic Address Structure */

#define FADT_FLAG_TMR_VAL_EXT     BIT(8)
#define FADT_FLAG_HW_REDUCED_ACPI BIT(20)
#define PM_TMR_LEN_MIN 4

/* Generic Address Structure (ACPI 6.5, 5.2.3.2). */
#define GAS_SIZE           12
#define GAS_SPACE_ID       0
#define GAS_ADDRESS        4
#define GAS_SPACE_MEMORY   0
#define GAS_SPACE_IO       1
#define IO_PORT_MAX        0xffffu

static bool covers(const struct acpi_sdt_header *t, unsigned off,
		   unsigned len)
{
	return t->length >= off + len;
}

static uint32_t read32(const struct acpi_sdt_header *t, unsigned off)
{
	uint32_t v;

	memcpy(&v, (const uint8_t *)t + off, sizeof(v));
	return v;
}

/* The 64-bit block; false when the table is too old or it is empty. */
static bool from_extended_block(const struct acpi_sdt_header *fadt,
				struct acpi_pm_timer *t, const char **why)
{
	const uint8_t *gas = (const uint8_t *)fadt + FADT_X_PM_TMR_BLK;

	if (!covers(fadt, FADT_X_PM_TMR_BLK, GAS_SIZE))
		return false;
	memcpy(&t->address, gas + GAS_ADDRESS, sizeof(t->address));
	if (!t->address)
		return false;
	if (gas[GAS_SPACE_ID] == GAS_SPACE_MEMORY) {
		t->mmio = true;
	} else if (gas[GAS_SPACE_ID] != GAS_SPACE_IO) {
		*why = "X_PM_TMR_BLK is neither in memory nor in I/O space";
		t->address = 0;
	}
	return true;
}

bool acpi_fadt_pm_timer(const struct acpi_sdt_header *fadt,
			struct acpi_pm_timer *t, const char **why)
{
	uint32_t flags = 0;

	*t = (struct acpi_pm_timer){ 0 };
	*why = NULL;
	if (covers(fadt, FADT_FLAGS, 4))
		flags = read32(fadt, FADT_FLAGS);
	if (flags & FADT_FLAG_HW_REDUCED_ACPI) {
		*why = "the FADT says hardware-reduced ACPI (no PM timer)";
		return false;
	}
	t->is_32bit = flags & FADT_FLAG_TMR_VAL_EXT;
	if (!from_extended_block(fadt, t, why)) {
		if (covers(fadt, FADT_PM_TMR_LEN, 1) &&
		    ((const uint8_t *)fadt)[FADT_PM_TMR_LEN] >= PM_TMR_LEN_MIN)
			t->address = read32(fadt, FADT_PM_TMR_BLK);
		if (!t->address)
			*why = "the FADT names no PM timer block";
	}
	if (!*why && !t->mmio && t->address > IO_PORT_MAX)
		*why = "the PM timer's port is above 0xffff";
	return !*why;
}
