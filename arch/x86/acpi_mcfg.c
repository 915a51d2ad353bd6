// SPDX-License-Identifier: BSD-2-Clause
#include "arch/x86/acpi_mcfg.h"
#include "lib/string.h"

/* The header, then 8 reserved bytes, then 16-byte allocations. */
#define MCFG_ENTRIES_OFFSET 44
#define MCFG_ENTRY_SIZE     16
#define MCFG_BASE           0   /* 8 bytes */
#define MCFG_SEGMENT        8   /* 2 bytes */
#define MCFG_BUS_START      10
#define MCFG_BUS_END        11

static void read_entry(const uint8_t *e, struct pci_ecam_window *w)
{
	memcpy(&w->base, e + MCFG_BASE, sizeof(w->base));
	memcpy(&w->segment, e + MCFG_SEGMENT, sizeof(w->segment));
	w->bus_start = e[MCFG_BUS_START];
	w->bus_end = e[MCFG_BUS_END];
}

bool acpi_mcfg_segment0(const struct acpi_sdt_header *mcfg,
			struct pci_ecam_window *w, const char **why)
{
	const uint8_t *table = (const uint8_t *)mcfg;
	uint32_t n = 0;

	if (mcfg->length >= MCFG_ENTRIES_OFFSET)
		n = (mcfg->length - MCFG_ENTRIES_OFFSET) / MCFG_ENTRY_SIZE;
	for (uint32_t i = 0; i < n; i++) {
		read_entry(table + MCFG_ENTRIES_OFFSET + i * MCFG_ENTRY_SIZE, w);
		if (w->segment != 0)
			continue;
		if (!w->base || !IS_ALIGNED(w->base, MiB(1)))
			*why = "the MCFG's base for segment 0 is 0 or not "
			       "1 MiB aligned";
		else if (w->bus_start > w->bus_end)
			*why = "the MCFG's bus range for segment 0 is empty";
		else
			return true;
		return false;
	}
	*why = "the MCFG has no allocation for PCI segment 0";
	return false;
}
