/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Two legacy IDE channels (0x1F0/0x3F6 and 0x170/0x376) behind the fake
 * port I/O of tests/unit/fake_x86, for the tests of swap/drivers/ata.c: ATA disks
 * backed by memory, packet devices, absent devices and floating buses,
 * with injected latency, device errors and devices that stay busy. It
 * records what the driver did that it must not do (commands to the boot
 * disk, data port accesses without DRQ, software resets).
 */
#ifndef TESTS_UNIT_ATA_FAKE_H
#define TESTS_UNIT_ATA_FAKE_H

#include "lib/types.h"

enum fake_kind {
	FAKE_NONE,
	FAKE_DISK,
	FAKE_PACKET,
};

struct fake_dev {
	enum fake_kind kind;
	uint16_t identify[256];
	uint64_t sectors;
	/* Only a window of a large disk is backed: sectors data_base... */
	uint8_t *data;                  /* data_sectors * 512 bytes */
	uint64_t data_base, data_sectors;
	/* fault injection */
	unsigned latency;               /* status reads showing BSY after a
					   command or a data block */
	bool stuck;                     /* BSY for ever after a command */
	bool fail_set;                  /* ERR on the sector fail_lba */
	uint64_t fail_lba;
	uint8_t fail_error;             /* the Error register then */
	bool fail_drq;                  /* a read still offers the data
					   blocks to the end (ERR and DRQ) */
	int count_skew;                 /* sectors moved beyond (> 0) or
					   short of (< 0) the count asked */
	/* state */
	uint8_t status, error;
	unsigned busy_reads;
	uint8_t cmd;
	bool writing;
	uint64_t lba;
	unsigned remaining;             /* sectors left in the command */
	unsigned word;                  /* next word of buf */
	uint16_t buf[256];
	/* what the driver did */
	unsigned commands;
	unsigned last_count;            /* sectors of the last read/write */
	bool last_ext;                  /* ... and whether it was EXT */
};

struct fake_channel {
	bool present;                   /* false: nothing decodes the ports */
	struct fake_dev dev[2];
	unsigned sel;                   /* DEV bit of the Device register */
	/* Count, LBA Low, Mid, High: [written last, written before] */
	uint8_t reg[4][2];
	uint8_t device;
	uint8_t devctl;
};

extern struct fake_channel fake_ata[2];
extern uint64_t fake_tsc;
extern unsigned fake_srst;              /* writes with SRST set */
extern unsigned fake_no_drq_access;     /* data port used without DRQ */

/* Both channels floating, clock at 0, counters cleared. */
void fake_ata_reset(void);

/*
 * A disk of sectors sectors (IDENTIFY data with LBA, LBA48 when lba48,
 * model "FAKE DISK"). Its first FAKE_DATA_SECTORS at most are backed by
 * memory filled with a byte pattern (freed by fake_ata_reset); other
 * sectors fail with IDNF unless fake_window moves the backing. Marks the
 * channel present.
 */
#define FAKE_DATA_SECTORS 65536
void fake_disk(unsigned channel, unsigned position, uint64_t sectors,
	       bool lba48);
/* Backs sectors base... of the disk instead (same size, same pattern). */
void fake_window(struct fake_dev *d, uint64_t base);

/* ERR with the given Error register on the sector lba, from now on. */
void fake_fail(struct fake_dev *d, uint64_t lba, uint8_t error);

/* A packet device (aborts IDENTIFY DEVICE with the packet signature). */
void fake_packet(unsigned channel, unsigned position);

/* Recomputes word 255 after a test changed the IDENTIFY data. */
void fake_identify_checksum(struct fake_dev *d);

#endif
