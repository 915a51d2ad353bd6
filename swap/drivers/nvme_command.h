/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Building the NVMe commands the driver sends (NVMe 1.4, 5 and 6) and
 * naming what comes back: plain C over struct nvme_sqe, no I/O. Every data
 * buffer is one 4 KiB page aligned to 4 KiB, so PRP1 alone describes it
 * (4.3: with a memory page size of 4 KiB, PRP2 is not used).
 */
#ifndef SWAP_NVME_COMMAND_H
#define SWAP_NVME_COMMAND_H

#include "swap/drivers/nvme_defs.h"
#include "swap/blockdev.h"

/* Identify (5.15) of the controller, or of namespace nsid, into page_pa. */
void nvme_cmd_identify(struct nvme_sqe *c, uint8_t cns, uint32_t nsid,
		       uint64_t page_pa);

/* Set Features, Number of Queues (5.21.1.7): pairs I/O queue pairs. */
void nvme_cmd_set_queue_count(struct nvme_sqe *c, unsigned pairs);

/* Create I/O Completion / Submission Queue (5.4, 5.5), polled (IEN = 0). */
void nvme_cmd_create_cq(struct nvme_sqe *c, uint16_t qid, uint16_t entries,
			uint64_t pa);
void nvme_cmd_create_sq(struct nvme_sqe *c, uint16_t qid, uint16_t entries,
			uint64_t pa, uint16_t cqid);

/*
 * Read or Write (6.9, 6.15) of one 4 KiB page at byte offset `offset` of
 * namespace nsid, whose LBAs are 1 << lba_shift bytes (9..12).
 */
void nvme_cmd_page_io(struct nvme_sqe *c, enum blk_op op, uint32_t nsid,
		      unsigned lba_shift, uint64_t offset, uint64_t page_pa);

/* The I/O queue pairs the controller granted: Set Features' DW0. */
unsigned nvme_granted_queue_pairs(uint32_t result);

/* "Identify", "Read", ...: what a command was, for error lines. */
const char *nvme_opcode_name(bool admin, uint8_t opcode);

/* A few generic status codes by name (4.6.1.2.1), else "". */
const char *nvme_status_name(uint16_t status_field);

#endif
