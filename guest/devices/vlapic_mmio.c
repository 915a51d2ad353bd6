// SPDX-License-Identifier: BSD-2-Clause
/*
 * Loads and stores in the xAPIC page, turned into register accesses
 * (guest/devices/vlapic.c does the registers' work in the mode the APIC is in).
 */
#include "guest/devices/vlapic_mmio.h"

#define REG_SLOT 16u            /* one register every 16 bytes */
#define REG_BYTES 4u            /* of which the first 4 are the register */

uint64_t vlapic_mmio_read(const struct vlapic *a, uint32_t offset,
			  unsigned size, uint64_t now_tsc)
{
	unsigned in_slot = offset % REG_SLOT;
	uint64_t reg = 0, mask;

	if (in_slot >= REG_BYTES ||
	    vlapic_reg_read(a, offset / REG_SLOT, now_tsc, &reg) == VLAPIC_GP)
		return 0;
	mask = size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;
	return ((uint32_t)reg >> (8 * in_slot)) & mask;
}

int vlapic_mmio_write(struct vlapic *a, uint32_t offset, unsigned size,
		      uint32_t val, uint64_t now_tsc,
		      struct vlapic_ipi *ipi_out)
{
	int rc;

	if (size != REG_BYTES || offset % REG_SLOT ||
	    offset >= VLAPIC_MMIO_SIZE)
		return 0;
	rc = vlapic_reg_write(a, offset / REG_SLOT, val, now_tsc, ipi_out);
	return rc == VLAPIC_GP ? 0 : rc;
}
