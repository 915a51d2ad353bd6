/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the ATA driver (swap/drivers/ata.c) needs from the 256 words of IDENTIFY
 * DEVICE data (ATA/ATAPI-6 8.15; ACS-3 7.12.7 for the sector size words),
 * as plain C over plain data so that tests/unit/ checks it without a disk.
 */
#ifndef SWAP_ATA_IDENTIFY_H
#define SWAP_ATA_IDENTIFY_H

#include "lib/types.h"

#define ATA_IDENTIFY_WORDS 256
#define ATA_SECTOR_SIZE 512
#define ATA_MODEL_CHARS 40              /* words 27-46 */

/* 28-bit LBAs end here (READ SECTORS and its kin address LBA 27:0). */
#define ATA_LBA28_LIMIT (1ull << 28)
/* ... and 48-bit ones here: words 100-103 are four, the LBA field six. */
#define ATA_LBA48_LIMIT (1ull << 48)

struct ata_identity {
	uint64_t sectors;       /* user-addressable sectors of 512 bytes */
	bool lba48;             /* the 48-bit Address feature set is there */
	unsigned ncq_depth;     /* NCQ queue depth (SATA), 0: no NCQ */
	char model[ATA_MODEL_CHARS + 1]; /* printable, trailing blanks cut */
};

/*
 * Fills *out from IDENTIFY DEVICE data. Returns NULL when the disk can be
 * used (LBA addressing, 512-byte logical sectors, at least one 4 KiB page),
 * else a phrase saying why not, for the caller's error line.
 */
const char *ata_identity_parse(const uint16_t *words,
			       struct ata_identity *out);

#endif
