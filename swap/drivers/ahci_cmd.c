// SPDX-License-Identifier: BSD-2-Clause
/*
 * Command slots of an AHCI port: the command header (AHCI 1.3.1 4.2.2),
 * the command table with its register FIS (SATA 10.5.5) and one PRD
 * (4.2.3.3), slot allocation, and the causes of a port error (3.3.5).
 */
#include "swap/drivers/ahci_cmd.h"
#include "swap/drivers/ata_error.h"
#include "lib/string.h"

/* FIS byte offsets of the H2D register FIS (SATA 10.5.5). */
enum {
	FIS_TYPE, FIS_FLAGS, FIS_COMMAND, FIS_FEATURE_LO,
	FIS_LBA0, FIS_LBA1, FIS_LBA2, FIS_DEVICE,
	FIS_LBA3, FIS_LBA4, FIS_LBA5, FIS_FEATURE_HI,
	FIS_COUNT_LO, FIS_COUNT_HI,
};

/* NCQ commands carry their tag in Count bits 7:3 (ACS-3 7.23, 7.61). */
#define NCQ_TAG_SHIFT 3

static void set_lba(uint8_t *fis, uint64_t lba)
{
	fis[FIS_LBA0] = (uint8_t)lba;
	fis[FIS_LBA1] = (uint8_t)(lba >> 8);
	fis[FIS_LBA2] = (uint8_t)(lba >> 16);
	fis[FIS_LBA3] = (uint8_t)(lba >> 24);
	fis[FIS_LBA4] = (uint8_t)(lba >> 32);
	fis[FIS_LBA5] = (uint8_t)(lba >> 40);
}

static uint8_t *start_fis(struct ahci_cmd_table *table, uint8_t command)
{
	uint8_t *fis = table->cfis;

	memset(table, 0, sizeof(*table));
	fis[FIS_TYPE] = FIS_TYPE_REG_H2D;
	fis[FIS_FLAGS] = FIS_H2D_COMMAND;
	fis[FIS_COMMAND] = command;
	fis[FIS_DEVICE] = ATA_DEV_LBA;
	return fis;
}

static void set_slot(struct ahci_cmd_header *hdr,
		     struct ahci_cmd_table *table, uint64_t table_pa,
		     uint64_t buffer_pa, uint32_t bytes, bool write)
{
	table->prdt[0].dba = (uint32_t)buffer_pa;
	table->prdt[0].dbau = (uint32_t)(buffer_pa >> 32);
	table->prdt[0].dbc = bytes - 1;
	memset(hdr, 0, sizeof(*hdr));
	hdr->flags = AHCI_HDR_CFL(FIS_H2D_DWORDS) | AHCI_HDR_PRDTL(1) |
		     (write ? AHCI_HDR_WRITE : 0);
	hdr->ctba = (uint32_t)table_pa;
	hdr->ctbau = (uint32_t)(table_pa >> 32);
}

void ahci_cmd_build_rw(struct ahci_cmd_header *hdr,
		       struct ahci_cmd_table *table, uint64_t table_pa,
		       enum blk_op op, uint64_t lba, uint64_t buffer_pa,
		       bool ncq, unsigned tag)
{
	bool write = op == BLK_WRITE;
	uint8_t *fis;

	if (ncq) {
		fis = start_fis(table, write ? ATA_CMD_WRITE_FPDMA_QUEUED :
					       ATA_CMD_READ_FPDMA_QUEUED);
		/* The sector count moves to Features; Count holds the tag. */
		fis[FIS_FEATURE_LO] = AHCI_SECTORS_PER_PAGE;
		fis[FIS_COUNT_LO] = (uint8_t)(tag << NCQ_TAG_SHIFT);
	} else {
		fis = start_fis(table, write ? ATA_CMD_WRITE_DMA_EXT :
					       ATA_CMD_READ_DMA_EXT);
		fis[FIS_COUNT_LO] = AHCI_SECTORS_PER_PAGE;
	}
	set_lba(fis, lba);
	set_slot(hdr, table, table_pa, buffer_pa, PAGE_SIZE, write);
}

void ahci_cmd_build_identify(struct ahci_cmd_header *hdr,
			     struct ahci_cmd_table *table, uint64_t table_pa,
			     uint64_t buffer_pa)
{
	uint8_t *fis = start_fis(table, ATA_CMD_IDENTIFY_DEVICE);

	fis[FIS_DEVICE] = 0;
	set_slot(hdr, table, table_pa, buffer_pa, AHCI_SECTOR_SIZE, false);
}

int ahci_slot_alloc(uint32_t busy, unsigned nslots, unsigned *next)
{
	for (unsigned i = 0; i < nslots; i++) {
		unsigned slot = (*next + i) % nslots;

		if (!(busy & BIT(slot))) {
			*next = (slot + 1) % nslots;
			return (int)slot;
		}
	}
	return -1;
}

unsigned ahci_queue_depth(uint32_t cap, unsigned ncq_depth, bool *ncq)
{
	unsigned slots = AHCI_CAP_NCS(cap);

	*ncq = (cap & AHCI_CAP_SNCQ) && ncq_depth;
	return *ncq ? MIN(slots, ncq_depth) : slots;
}

bool ahci_port_has_disk(uint32_t ssts, uint32_t sig)
{
	return PX_SSTS_DET(ssts) == PX_SSTS_DET_PRESENT && sig == AHCI_SIG_ATA;
}

const char *ahci_error_cause(uint32_t pxis, uint32_t pxtfd)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} causes[] = {
		{ PX_IS_HBFS, "host bus fatal error (HBFS)" },
		{ PX_IS_HBDS, "host bus data error (HBDS)" },
		{ PX_IS_IFS, "interface fatal error (IFS)" },
		{ PX_IS_INFS, "interface non-fatal error (INFS)" },
		{ PX_IS_OFS, "overflow (OFS)" },
		{ PX_IS_UFS, "unknown FIS (UFS)" },
	};

	if (pxis & PX_IS_TFES)
		return ata_error_name(PX_TFD_STS(pxtfd), PX_TFD_ERR(pxtfd));
	for (unsigned i = 0; i < ARRAY_SIZE(causes); i++)
		if (pxis & causes[i].bit)
			return causes[i].name;
	return "unknown error";
}
