/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A fake NVMe controller for the unit tests of swap/nvme_*.c: the
 * registers of NVMe 1.4, 3.1 behind struct nvme_mmio_ops, the admin
 * commands the driver sends (Identify, Set Features, Create I/O CQ/SQ)
 * and Read/Write on an in-memory disk per namespace, completions posted
 * with the phase tag as a controller does. Knobs make it misbehave: never
 * ready, stuck ready, a fatal status, an error status, silence, a bogus
 * command identifier, a Read that succeeds without writing all of its
 * page. Its clock advances one tick per reading.
 */
#ifndef TESTS_UNIT_NVME_FAKE_H
#define TESTS_UNIT_NVME_FAKE_H

#include "swap/drivers/nvme_ctrl.h"

#define FAKE_NVME_QUEUES     8
#define FAKE_NVME_NAMESPACES 4
#define FAKE_NVME_DISK_BYTES (64 * 4096)

struct fake_nvme_queue {
	bool exists;
	uint64_t pa;
	uint16_t entries;
	uint16_t head, tail;            /* SQ: consumed / doorbell; CQ: */
	uint16_t cqid;                  /* SQ: its CQ */
	uint16_t phase;                 /* CQ: tag of the next entry */
};

struct fake_nvme_ns {
	uint64_t lbas;                  /* 0: inactive */
	unsigned lba_shift;
	unsigned metadata;              /* bytes per LBA in its format */
	uint8_t *disk;
};

struct fake_nvme {
	/* registers */
	uint64_t cap;
	uint32_t cc, csts, aqa;
	uint64_t asq, acq;
	uint64_t clock;
	/* behaviour */
	bool never_ready;               /* CSTS.RDY never becomes 1 */
	bool stuck_ready;               /* CSTS.RDY never becomes 0 */
	bool hold;                      /* fetch nothing until fake_nvme_run */
	uint16_t fail_status;           /* the next I/O command's status */
	uint8_t fail_admin_opcode;      /* that admin command fails */
	int bogus_cid;                  /* >= 0: the next completion's CID */
	int short_read;                 /* >= 0: the next Read writes only
					   that many bytes of its page, and
					   completes with success */
	uint32_t queues_granted;        /* Set Features result, 0-based */
	/* model */
	struct fake_nvme_queue sq[FAKE_NVME_QUEUES], cq[FAKE_NVME_QUEUES];
	struct fake_nvme_ns ns[FAKE_NVME_NAMESPACES];
	unsigned nns;                   /* NN */
	/* what the driver did */
	unsigned disables;              /* CC.EN 1 -> 0 */
	unsigned io_commands;
	uint16_t last_nlb;              /* 0-based, of the last Read/Write */
	uint64_t last_slba;
};

extern const struct nvme_mmio_ops fake_nvme_ops;

/* A working controller: MQES 1023, TO 1 (500 ms), DSTRD 1 (stride 8). */
void fake_nvme_init(struct fake_nvme *f);

/* Namespace nsid (1-based) with lbas LBAs of 1 << lba_shift bytes. */
void fake_nvme_add_ns(struct fake_nvme *f, uint32_t nsid, uint64_t lbas,
		      unsigned lba_shift);

/* Executes every command the host has published on queue qid. */
void fake_nvme_run(struct fake_nvme *f, uint16_t qid);

/* Free everything fake_nvme_add_ns allocated. */
void fake_nvme_free(struct fake_nvme *f);

#endif
