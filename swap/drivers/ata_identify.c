// SPDX-License-Identifier: BSD-2-Clause
/*
 * IDENTIFY DEVICE data: the word numbers and bits below are those of
 * ATA/ATAPI-6 8.15; words 106 and 117-118 (logical sector size) came
 * later (ATA/ATAPI-7, ACS-3 7.12.7) and read as zero on older disks.
 */
#include "swap/drivers/ata_identify.h"
#include "lib/string.h"

#define ID_CONFIG          0    /* general configuration */
#define ID_MODEL           27   /* words 27-46: model number, 40 ASCII */
#define ID_CAPABILITIES    49
#define ID_LBA28_SECTORS   60   /* words 60-61 */
#define ID_QUEUE_DEPTH     75   /* bits 4:0: maximum queue depth - 1 */
#define ID_SATA_CAPS       76   /* Serial ATA capabilities */
#define ID_COMMAND_SET_2   83   /* command sets supported */
#define ID_LBA48_SECTORS   100  /* words 100-103 */
#define ID_SECTOR_SIZE     106  /* physical/logical sector size */
#define ID_LOGICAL_WORDS   117  /* words 117-118: logical sector, words */
#define ID_INTEGRITY       255

#define CONFIG_NOT_ATA        BIT(15)  /* a packet (ATAPI) device */
#define CONFIG_INCOMPLETE     BIT(2)   /* response incomplete */
#define CAP_LBA               BIT(9)
#define CMDSET2_LBA48         BIT(10)
#define SATA_CAPS_NCQ         BIT(8)
#define SECTOR_SIZE_LONG      BIT(12)  /* logical sector > 256 words */
#define INTEGRITY_SIGNATURE   0xa5

/* Words 83 and 106 hold data only when bits 15:14 read 01b. */
static bool word_valid(uint16_t w)
{
	return (w & 0xc000) == 0x4000;
}

static uint64_t words_u64(const uint16_t *w, unsigned first, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = n; i-- > 0;)
		v = v << 16 | w[first + i];
	return v;
}

/*
 * Word 255: when bits 7:0 are A5h, bits 15:8 make the byte sum of all
 * 512 bytes zero (ATA/ATAPI-6 8.15). Without the signature there is
 * nothing to check.
 */
static bool checksum_ok(const uint16_t *w)
{
	uint8_t sum = 0;

	if ((w[ID_INTEGRITY] & 0xff) != INTEGRITY_SIGNATURE)
		return true;
	for (unsigned i = 0; i < ATA_IDENTIFY_WORDS; i++)
		sum += (uint8_t)(w[i] & 0xff) + (uint8_t)(w[i] >> 8);
	return sum == 0;
}

/* ATA strings hold two characters per word, the first in bits 15:8. */
static void copy_model(const uint16_t *w, char *out)
{
	unsigned n = 0;

	for (unsigned i = 0; i < ATA_MODEL_CHARS / 2; i++) {
		out[n++] = (char)(w[ID_MODEL + i] >> 8);
		out[n++] = (char)(w[ID_MODEL + i] & 0xff);
	}
	for (unsigned i = 0; i < n; i++)
		if (out[i] < 0x20 || out[i] > 0x7e)
			out[i] = '?';
	while (n > 0 && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
}

/* 512 unless words 106 and 117-118 say otherwise (ACS-3 7.12.7). */
static uint64_t logical_sector_bytes(const uint16_t *w)
{
	uint16_t size = w[ID_SECTOR_SIZE];

	if (!word_valid(size) || !(size & SECTOR_SIZE_LONG))
		return ATA_SECTOR_SIZE;
	return words_u64(w, ID_LOGICAL_WORDS, 2) * 2;
}

/*
 * LBA48 as Linux's ata_id_has_lba48() decides it: word 83 valid, bit 10
 * set, and a non-zero 48-bit capacity.
 */
static bool has_lba48(const uint16_t *w)
{
	return word_valid(w[ID_COMMAND_SET_2]) &&
	       (w[ID_COMMAND_SET_2] & CMDSET2_LBA48) &&
	       words_u64(w, ID_LBA48_SECTORS, 4) != 0;
}

/*
 * Native Command Queuing: word 76 bit 8 on a SATA device (the word reads
 * 0000h or FFFFh on parallel ATA), depth from word 75 (ACS-3 7.12.7).
 */
static unsigned ncq_depth(const uint16_t *w)
{
	uint16_t caps = w[ID_SATA_CAPS];

	if (caps == 0 || caps == 0xffff || !(caps & SATA_CAPS_NCQ))
		return 0;
	return (w[ID_QUEUE_DEPTH] & 0x1f) + 1u;
}

const char *ata_identity_parse(const uint16_t *w, struct ata_identity *out)
{
	memset(out, 0, sizeof(*out));
	copy_model(w, out->model);
	if (w[ID_CONFIG] & CONFIG_NOT_ATA)
		return "not an ATA disk (IDENTIFY word 0 bit 15 set)";
	if (w[ID_CONFIG] & CONFIG_INCOMPLETE)
		return "IDENTIFY DEVICE data incomplete (word 0 bit 2 set)";
	if (!checksum_ok(w))
		return "IDENTIFY DEVICE data checksum mismatch (word 255)";
	if (!(w[ID_CAPABILITIES] & CAP_LBA))
		return "no LBA addressing (IDENTIFY word 49 bit 9 clear)";
	if (logical_sector_bytes(w) != ATA_SECTOR_SIZE)
		return "logical sectors are not 512 bytes (IDENTIFY words "
		       "106, 117-118)";
	out->lba48 = has_lba48(w);
	out->ncq_depth = ncq_depth(w);
	if (out->lba48)
		out->sectors = MIN(words_u64(w, ID_LBA48_SECTORS, 4),
				   ATA_LBA48_LIMIT - 1);
	else
		out->sectors = MIN(words_u64(w, ID_LBA28_SECTORS, 2),
				   ATA_LBA28_LIMIT - 1);
	if (out->sectors < PAGE_SIZE / ATA_SECTOR_SIZE)
		return "smaller than one 4 KiB page";
	return NULL;
}
