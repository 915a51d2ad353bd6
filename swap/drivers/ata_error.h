/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The cause of a failed ATA command in words, from its Status and Error
 * registers (ATA/ATAPI-6 clause 7): shared by the ATA and AHCI drivers.
 */
#ifndef SWAP_ATA_ERROR_H
#define SWAP_ATA_ERROR_H

#include "lib/types.h"

/* "uncorrectable data (UNC)", "device fault (DF)", ..., "device error". */
const char *ata_error_name(uint8_t status, uint8_t error);

#endif
