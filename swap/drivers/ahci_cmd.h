/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The plain-C half of the AHCI driver: what goes into a command slot
 * (command header, command FIS, PRDT), which slot a request takes, and
 * what the port registers say went wrong. No register access here, so
 * that tests/unit/ checks all of it without an HBA.
 */
#ifndef SWAP_AHCI_CMD_H
#define SWAP_AHCI_CMD_H

#include "swap/drivers/ahci_defs.h"
#include "swap/blockdev.h"

#define AHCI_SECTOR_SIZE 512
#define AHCI_SECTORS_PER_PAGE (PAGE_SIZE / AHCI_SECTOR_SIZE)

/*
 * One 4 KiB page at sector lba: READ/WRITE DMA EXT, or with ncq READ/WRITE
 * FPDMA QUEUED with the slot number as its tag. table_pa is the table's
 * physical address, buffer_pa the page's.
 */
void ahci_cmd_build_rw(struct ahci_cmd_header *hdr,
		       struct ahci_cmd_table *table, uint64_t table_pa,
		       enum blk_op op, uint64_t lba, uint64_t buffer_pa,
		       bool ncq, unsigned tag);

/* IDENTIFY DEVICE into the 512 bytes at buffer_pa (PIO data-in). */
void ahci_cmd_build_identify(struct ahci_cmd_header *hdr,
			     struct ahci_cmd_table *table, uint64_t table_pa,
			     uint64_t buffer_pa);

/*
 * The first free slot at or after *next (wrapping at nslots) among those
 * not set in busy; *next moves past it, so slots are used in turn. -1
 * when all nslots are busy.
 */
int ahci_slot_alloc(uint32_t busy, unsigned nslots, unsigned *next);

/*
 * How many commands a disk gets in flight: NCQ (*ncq set) when the HBA
 * (CAP.SNCQ) and the disk (ncq_depth > 0, from IDENTIFY) both have it,
 * bounded by both; else DMA commands in every slot of CAP.NCS.
 */
unsigned ahci_queue_depth(uint32_t cap, unsigned ncq_depth, bool *ncq);

/* A SATA disk is there and talking: PxSSTS.DET = 3 and PxSIG is ATA's. */
bool ahci_port_has_disk(uint32_t ssts, uint32_t sig);

/*
 * Why the commands of a port failed, from PxIS (its error bits) and PxTFD:
 * "task file error: uncorrectable data (UNC)", "host bus fatal error
 * (HBFS)", ...
 */
const char *ahci_error_cause(uint32_t pxis, uint32_t pxtfd);

#endif
