/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * AHCI register offsets, bits and the in-memory structures the HBA reads
 * and writes. Section numbers are those of "Serial ATA AHCI 1.3.1".
 */
#ifndef SWAP_AHCI_DEFS_H
#define SWAP_AHCI_DEFS_H

#include "lib/types.h"

/* Generic host control (3.1), offsets from ABAR (BAR5). */
#define AHCI_CAP          0x00
#define AHCI_GHC          0x04
#define AHCI_IS           0x08
#define AHCI_PI           0x0c
#define AHCI_VS           0x10
#define AHCI_CAP2         0x24
#define AHCI_BOHC         0x28

#define AHCI_CAP_NCS(cap)  ((((cap) >> 8) & 0x1f) + 1)  /* command slots */
#define AHCI_CAP_SCLO      BIT(24)  /* command list override */
#define AHCI_CAP_SNCQ      BIT(30)  /* native command queuing */
#define AHCI_CAP_S64A      BIT(31)  /* 64-bit addressing */

#define AHCI_GHC_IE        BIT(1)   /* interrupt enable */
#define AHCI_GHC_AE        BIT(31)  /* AHCI enable */

#define AHCI_CAP2_BOH      BIT(0)   /* BIOS/OS handoff */
#define AHCI_BOHC_BOS      BIT(0)   /* BIOS owned semaphore */
#define AHCI_BOHC_OOS      BIT(1)   /* OS owned semaphore */
#define AHCI_BOHC_BB       BIT(4)   /* BIOS busy */

#define AHCI_MAX_PORTS     32
#define AHCI_MAX_SLOTS     32

/* Port registers (3.3), offsets from the port's base. */
#define AHCI_PORT_BASE(n)  (0x100 + (n) * 0x80)
#define PX_CLB     0x00
#define PX_CLBU    0x04
#define PX_FB      0x08
#define PX_FBU     0x0c
#define PX_IS      0x10
#define PX_IE      0x14
#define PX_CMD     0x18
#define PX_TFD     0x20
#define PX_SIG     0x24
#define PX_SSTS    0x28
#define PX_SCTL    0x2c
#define PX_SERR    0x30
#define PX_SACT    0x34
#define PX_CI      0x38

/* PxCMD (3.3.7) */
#define PX_CMD_ST          BIT(0)   /* start: process the command list */
#define PX_CMD_CLO         BIT(3)   /* command list override */
#define PX_CMD_FRE         BIT(4)   /* FIS receive enable */
#define PX_CMD_FR          BIT(14)  /* FIS receive running */
#define PX_CMD_CR          BIT(15)  /* command list running */

/* PxIS (3.3.5): the bits that mean a command went wrong. */
#define PX_IS_UFS          BIT(4)   /* unknown FIS */
#define PX_IS_OFS          BIT(24)  /* overflow */
#define PX_IS_INFS         BIT(26)  /* interface non-fatal error */
#define PX_IS_IFS          BIT(27)  /* interface fatal error */
#define PX_IS_HBDS         BIT(28)  /* host bus data error */
#define PX_IS_HBFS         BIT(29)  /* host bus fatal error */
#define PX_IS_TFES         BIT(30)  /* task file error */
#define PX_IS_ERRORS       (PX_IS_UFS | PX_IS_OFS | PX_IS_INFS | \
			    PX_IS_IFS | PX_IS_HBDS | PX_IS_HBFS | PX_IS_TFES)

/* PxTFD (3.3.8): the ATA Status and Error registers. */
#define PX_TFD_STS(tfd)    ((uint8_t)(tfd))
#define PX_TFD_ERR(tfd)    ((uint8_t)((tfd) >> 8))
#define ATA_STS_BSY        BIT(7)
#define ATA_STS_DF         BIT(5)
#define ATA_STS_DRQ        BIT(3)
#define ATA_STS_ERR        BIT(0)

/* PxSSTS (3.3.10) */
#define PX_SSTS_DET(s)     ((s) & 0xf)
#define PX_SSTS_DET_MASK   0xfu
#define PX_SSTS_IPM(s)     (((s) >> 8) & 0xf)
#define PX_SSTS_DET_PRESENT 3        /* device there, phy communicating */
#define PX_SSTS_IPM_ACTIVE  1

/* PxSCTL (3.3.11) */
#define PX_SCTL_DET_MASK     0xfu
#define PX_SCTL_DET_COMRESET 1u       /* held >= 1 ms, then back to 0 */

/* PxSIG (3.3.9): what the device's first D2H register FIS said. */
#define AHCI_SIG_ATA       0x00000101u

/* Command header (4.2.2), 32 bytes, AHCI_MAX_SLOTS per command list. */
struct ahci_cmd_header {
	uint32_t flags;         /* CFL 4:0, A 5, W 6, P 7, R 8, C 10, PRDTL */
	uint32_t prdbc;         /* bytes transferred, written by the HBA */
	uint32_t ctba, ctbau;   /* command table, 128-byte aligned */
	uint32_t reserved[4];
};
_Static_assert(sizeof(struct ahci_cmd_header) == 32, "AHCI 4.2.2");

#define AHCI_HDR_CFL(dwords)   ((uint32_t)(dwords) & 0x1f)
#define AHCI_HDR_WRITE         BIT(6)
#define AHCI_HDR_CLEAR_BUSY    BIT(10)
#define AHCI_HDR_PRDTL(n)      ((uint32_t)(n) << 16)

/* Physical region descriptor (4.2.3.3). */
struct ahci_prd {
	uint32_t dba, dbau;     /* data base address, word aligned */
	uint32_t reserved;
	uint32_t dbc;           /* 21:0 byte count - 1 (odd), 31 interrupt */
};
_Static_assert(sizeof(struct ahci_prd) == 16, "AHCI 4.2.3.3");

/* Command table (4.2.3) with the one PRD a 4 KiB page needs. */
#define AHCI_CFIS_BYTES 64
struct ahci_cmd_table {
	uint8_t cfis[AHCI_CFIS_BYTES];
	uint8_t acmd[16];
	uint8_t reserved[48];
	struct ahci_prd prdt[1];
	uint8_t pad[112];       /* to 256 bytes: keeps 128-byte alignment */
};
_Static_assert(sizeof(struct ahci_cmd_table) == 256, "AHCI 4.2.3");

#define AHCI_CMD_LIST_BYTES  (AHCI_MAX_SLOTS * sizeof(struct ahci_cmd_header))
#define AHCI_RX_FIS_BYTES    256    /* 4.2.1, 256-byte aligned */
#define AHCI_RX_FIS_D2H      0x40   /* the last D2H register FIS */

/* Register FIS - host to device (SATA 3.x 10.5.5), 5 dwords. */
#define FIS_TYPE_REG_H2D   0x27
#define FIS_H2D_DWORDS     5
#define FIS_H2D_COMMAND    BIT(7)   /* byte 1: a command, not control */

/* ATA commands (ACS-3 7.x) and the Device register's LBA bit. */
#define ATA_CMD_READ_DMA_EXT       0x25
#define ATA_CMD_WRITE_DMA_EXT      0x35
#define ATA_CMD_READ_FPDMA_QUEUED  0x60
#define ATA_CMD_WRITE_FPDMA_QUEUED 0x61
#define ATA_CMD_IDENTIFY_DEVICE    0xec
#define ATA_DEV_LBA                BIT(6)

#endif
