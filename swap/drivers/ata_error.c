// SPDX-License-Identifier: BSD-2-Clause
/* The Error register's main cause (ATA/ATAPI-6 clause 7, Error register). */
#include "swap/drivers/ata_error.h"

#define ATA_STATUS_DF BIT(5)

const char *ata_error_name(uint8_t status, uint8_t error)
{
	static const struct {
		uint8_t bit;
		const char *name;
	} causes[] = {
		{ BIT(6), "uncorrectable data (UNC)" },
		{ BIT(4), "sector not found (IDNF)" },
		{ BIT(7), "interface CRC error (ICRC)" },
		{ BIT(2), "command aborted (ABRT)" },
		{ BIT(1), "no media (NM)" },
		{ BIT(5) | BIT(3), "media changed (MC, MCR)" },
	};

	if (status & ATA_STATUS_DF)
		return "device fault (DF)";
	for (unsigned i = 0; i < ARRAY_SIZE(causes); i++)
		if (error & causes[i].bit)
			return causes[i].name;
	return "device error";
}
