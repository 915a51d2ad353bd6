/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PCI Express enhanced configuration access (ECAM, PCI Express Base 4.0,
 * 7.2.2): each function's 4 KiB of configuration space is memory at
 * base + (bus - first bus) << 20 | device << 15 | function << 12.
 */
#ifndef ARCH_X86_PCI_ECAM_H
#define ARCH_X86_PCI_ECAM_H

#include "lib/types.h"

#define PCI_ECAM_BUS_SHIFT 20
#define PCI_ECAM_DEV_SHIFT 15
#define PCI_ECAM_FN_SHIFT  12
#define PCI_ECAM_CONFIG_SIZE 0x1000

/* One MCFG allocation (ACPI MCFG, PCI Firmware Specification 3.2, 4.1.2). */
struct pci_ecam_window {
	uint64_t base;          /* the address of bus_start's space */
	uint16_t segment;
	uint8_t bus_start, bus_end;
};

static inline bool pci_ecam_covers(const struct pci_ecam_window *w,
				   uint8_t bus)
{
	return bus >= w->bus_start && bus <= w->bus_end;
}

/* The window's size in bytes (1 MiB per bus). */
static inline uint64_t pci_ecam_size(const struct pci_ecam_window *w)
{
	return (uint64_t)(w->bus_end - w->bus_start + 1) << PCI_ECAM_BUS_SHIFT;
}

/* Where register off of bus:dev.fn lives; bus must be covered. */
static inline uint64_t pci_ecam_address(const struct pci_ecam_window *w,
					uint8_t bus, uint8_t dev, uint8_t fn,
					uint16_t off)
{
	return w->base +
	       ((uint64_t)(bus - w->bus_start) << PCI_ECAM_BUS_SHIFT) +
	       ((uint64_t)(dev & 31) << PCI_ECAM_DEV_SHIFT) +
	       ((uint64_t)(fn & 7) << PCI_ECAM_FN_SHIFT) +
	       (off & (PCI_ECAM_CONFIG_SIZE - 1));
}

#endif
