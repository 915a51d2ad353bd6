/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One AHCI port with a SATA disk: its command engine (stop, start, error
 * recovery) and its command slots, polled. All register access goes
 * through swap/drivers/ahci_regs.h, all slot contents through swap/drivers/ahci_cmd.h, so
 * that tests/unit/test_ahci.c drives this file over a fake HBA.
 *
 * Several slots are in flight at once (NCQ when the disk and the HBA both
 * have it, else DMA EXT commands that the HBA runs one after another).
 * A task-file or interface error fails every command in flight at that
 * moment (the HBA stops the list; with NCQ the device aborts them all),
 * after which the port is restarted and takes new commands. A command
 * that does not finish within AHCI_IO_TIMEOUT_MS, or a port that cannot
 * be restarted, fails the disk: later requests complete at once with
 * BLK_IO_ERROR. Each of these prints one "apfvisor: error:" line. While
 * the port cannot be stopped (PxCMD.CR stays set) the HBA may still
 * write into the pages of reads: those stay in flight, held, until a
 * poll finds CR clear.
 *
 * A command that ends without an error but moved less than its page
 * fails too (counted in short_transfers): PRDBC tells for DMA commands;
 * with NCQ, where the HBA need not update PRDBC, a read's page is
 * poisoned before and checked after (swap/drivers/read_poison.h).
 */
#ifndef SWAP_AHCI_PORT_H
#define SWAP_AHCI_PORT_H

#include "swap/drivers/ahci_cmd.h"
#include "swap/drivers/ahci_regs.h"

/* AHCI 1.3.1 10.1.2: CR and FR clear within 500 ms of ST or FRE. */
#define AHCI_STOP_TIMEOUT_MS     500
/* A disk just reset or spun up may stay busy for seconds. */
#define AHCI_READY_TIMEOUT_MS    5000
/* SATA link up after a COMRESET: Linux waits a second at most too. */
#define AHCI_LINK_TIMEOUT_MS     1000
#define AHCI_IDENTIFY_TIMEOUT_MS 5000
#define AHCI_IO_TIMEOUT_MS       10000
#define AHCI_ERRORS_SHOWN        8

/* Command list, received FIS and AHCI_MAX_SLOTS command tables. */
#define AHCI_PORT_MEM_PAGES 3

enum ahci_slot_state {
	AHCI_SLOT_FREE,
	AHCI_SLOT_ISSUED,       /* handed to the HBA */
	AHCI_SLOT_DONE,         /* status known, not yet polled */
};

struct ahci_slot {
	enum ahci_slot_state state;
	enum blk_status status;
	enum blk_op op;
	uint64_t lba;
	uint64_t buffer_pa;
	void *cookie;
	uint64_t deadline;      /* TSC */
	bool held;              /* failed, kept until the port stops */
};

struct ahci_port {
	const struct ahci_hba *hba;
	unsigned index;
	char name[32];                  /* "ahci 00:1f.2 port2" */
	struct ahci_cmd_header *cmd_list;
	uint8_t *rx_fis;
	struct ahci_cmd_table *tables;
	unsigned nslots;
	bool ncq;
	uint64_t size;                  /* bytes, whole pages */
	bool failed;                    /* no more commands to the disk */
	uint32_t issued;                /* slots in PxCI / PxSACT */
	uint32_t busy;                  /* slots not free */
	unsigned next_slot;
	unsigned errors_shown;
	uint64_t poison_seed;           /* swap/drivers/read_poison.h */
	struct ahci_slot slot[AHCI_MAX_SLOTS];
	/* counters */
	uint64_t short_transfers;       /* struct blockdev's, see there */
	uint64_t frames_held;           /* struct blockdev's, see there */
};

/*
 * Names the port and lays its command list, received-FIS area and tables
 * out in mem (AHCI_PORT_MEM_PAGES pages, page-aligned, DMA-able: below
 * 4 GiB unless the HBA has CAP.S64A). Touches no register.
 */
void ahci_port_attach(struct ahci_port *p, const struct ahci_hba *hba,
		      unsigned index, void *mem);

/*
 * Stops the port's command engine the way AHCI 1.3.1 10.1.2 asks:
 * PxCMD.ST = 0, wait for CR = 0, then FRE = 0, wait for FR = 0, each wait
 * bounded. False (after one error line) when the port would not stop.
 */
bool ahci_port_stop(struct ahci_port *p);

/*
 * Sets FRE, waits until the device is not busy (PxTFD BSY, DRQ), sets ST.
 * False (after one error line) on a timeout.
 */
bool ahci_port_start(struct ahci_port *p);

/*
 * Takes the port over from whoever ran it (the firmware): stop, our own
 * command list and FIS area, interrupts off, errors cleared, start.
 */
bool ahci_port_init(struct ahci_port *p);

/*
 * IDENTIFY DEVICE into words (256 words, DMA-able, zeroed first), in slot
 * 0 of an idle port, waited for. False after one error line.
 */
bool ahci_port_identify(struct ahci_port *p, uint16_t *words);

/* Queue depth, NCQ and size, known after IDENTIFY DEVICE. */
void ahci_port_configure(struct ahci_port *p, unsigned nslots, bool ncq,
			 uint64_t size);

/* As blockdev_ops.submit: HV_OK, or HV_ERR_BUSY when every slot is taken. */
enum hv_err ahci_port_submit(struct ahci_port *p,
			     const struct blk_request *req);

/* As blockdev_ops.poll: never waits. */
unsigned ahci_port_poll(struct ahci_port *p, struct blk_completion *out,
			unsigned max);

#endif
