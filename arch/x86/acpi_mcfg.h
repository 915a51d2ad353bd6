/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The ECAM windows the ACPI MCFG lists (PCI Firmware Specification 3.2,
 * 4.1.2). Pure parsing of an untrusted table.
 */
#ifndef ARCH_X86_ACPI_MCFG_H
#define ARCH_X86_ACPI_MCFG_H

#include "arch/x86/acpi.h"
#include "arch/x86/pci_ecam.h"

/*
 * The first allocation for PCI segment 0 (the one apfvisor scans). Returns
 * false with *why when there is none or it is unusable (base 0 or not
 * 1 MiB aligned, first bus after the last).
 */
bool acpi_mcfg_segment0(const struct acpi_sdt_header *mcfg,
			struct pci_ecam_window *w, const char **why);

#endif
