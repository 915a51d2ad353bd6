/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The one door to an AHCI HBA's registers: 32-bit reads and writes at an
 * offset from ABAR. swap/drivers/ahci_mmio.c implements them over the memory-mapped
 * BAR; the host unit tests link a fake HBA instead (tests/unit/ahci_fake.c).
 */
#ifndef SWAP_AHCI_REGS_H
#define SWAP_AHCI_REGS_H

#include "lib/types.h"

struct ahci_hba {
	uintptr_t abar;         /* the register block (identity-mapped) */
	uint32_t cap;           /* CAP as read at bring-up */
	char pci_name[8];       /* "00:1f.2" */
};

uint32_t ahci_read32(const struct ahci_hba *hba, uint32_t reg);
void ahci_write32(const struct ahci_hba *hba, uint32_t reg, uint32_t value);

#endif
