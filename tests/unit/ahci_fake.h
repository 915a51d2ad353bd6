/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A fake AHCI HBA behind swap/drivers/ahci_regs.h, for the tests of
 * swap/drivers/ahci_port.c: port registers with the PxCMD handshakes (CR follows
 * ST, FR follows FRE, unless told to stick), and a SATA disk per port
 * backed by memory that runs the command slots it is given (IDENTIFY
 * DEVICE, READ/WRITE DMA EXT, READ/WRITE FPDMA QUEUED) a few register
 * reads after they are issued, with injected task-file errors, commands
 * that never finish and transfers cut short. Like QEMU's, it updates
 * PRDBC for DMA commands only, never for NCQ ones. Like a real disk (and
 * QEMU, whose failed NCQ tags may still be busy), after a failed NCQ
 * command it aborts every command until a COMRESET (PxSCTL.DET 1, then
 * 0) resets it.
 */
#ifndef TESTS_UNIT_AHCI_FAKE_H
#define TESTS_UNIT_AHCI_FAKE_H

#include "lib/types.h"
#include "swap/drivers/ahci_regs.h"

#define FAKE_AHCI_PORTS 4
#define FAKE_AHCI_SECTORS 2048          /* 1 MiB disks */
#define FAKE_AHCI_CMD_LOG 16

struct fake_ahci_port {
	/* registers */
	uint32_t clb, clbu, fb, fbu, is, ie, cmd, tfd, sig, ssts, sctl, serr;
	uint32_t sact, ci;
	/* behaviour */
	bool cr_stuck;                  /* CR stays set when ST is cleared */
	bool hang;                      /* commands never finish */
	bool identify_no_data;          /* IDENTIFY ends, no data moved */
	bool fail_set;                  /* task-file error on fail_lba */
	uint64_t fail_lba;
	bool ncq_failed;                /* aborts all until a COMRESET */
	bool link_lost_on_reset;        /* PxSSTS.DET 0 after a COMRESET */
	uint8_t fail_error;             /* the ATA Error register then */
	unsigned latency;               /* PxCI reads before a slot runs */
	int short_transfer;             /* >= 0: the next read or write moves
					   only that many bytes, and ends
					   without an error */
	/* the disk */
	uint16_t identify[256];
	uint8_t data[FAKE_AHCI_SECTORS * 512];
	/* what the driver did */
	unsigned age[32];               /* PxCI reads since each slot issued */
	unsigned commands;              /* commands run */
	unsigned comresets;
	uint8_t last_command;
	uint32_t cmd_writes[FAKE_AHCI_CMD_LOG];  /* PxCMD values written */
	unsigned ncmd_writes;
};

extern struct fake_ahci_port fake_ahci[FAKE_AHCI_PORTS];
extern uint32_t fake_ahci_cap;
extern uint64_t fake_tsc;

/* No ports, clock at 0, CAP: 32 slots, NCQ, 64-bit, CLO. */
void fake_ahci_reset(void);

/*
 * A SATA disk on port n, idle, as firmware that used it leaves it: ST,
 * FRE, CR, FR set, a signature, DET = 3, IDENTIFY data for
 * FAKE_AHCI_SECTORS sectors with LBA48 and NCQ depth 32; data filled with
 * a byte pattern.
 */
void fake_ahci_disk(unsigned n);

/* The HBA of the tests: ABAR unused, "00:1f.2". */
extern struct ahci_hba fake_hba;

#endif
