// SPDX-License-Identifier: BSD-2-Clause
/*
 * AHCI registers over the memory-mapped ABAR (swap/drivers/ahci_regs.h). Every
 * register is a naturally aligned dword (AHCI 1.3.1 3). The compiler
 * barriers keep the command list and tables written before the write to
 * PxCI that hands them to the HBA, and the data read only after the read
 * that says the HBA is done: x86 keeps the CPU's order (uncached MMIO).
 */
#include "swap/drivers/ahci_regs.h"

uint32_t ahci_read32(const struct ahci_hba *hba, uint32_t reg)
{
	uint32_t v = *(volatile uint32_t *)(hba->abar + reg);

	__asm__ volatile("" ::: "memory");
	return v;
}

void ahci_write32(const struct ahci_hba *hba, uint32_t reg, uint32_t value)
{
	__asm__ volatile("" ::: "memory");
	*(volatile uint32_t *)(hba->abar + reg) = value;
}
