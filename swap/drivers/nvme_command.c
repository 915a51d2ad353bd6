// SPDX-License-Identifier: BSD-2-Clause
/*
 * NVMe command building and naming (swap/drivers/nvme_command.h). Section numbers
 * are those of the NVM Express Base Specification, revision 1.4.
 */
#include "swap/drivers/nvme_command.h"

void nvme_cmd_identify(struct nvme_sqe *c, uint8_t cns, uint32_t nsid,
		       uint64_t page_pa)
{
	*c = (struct nvme_sqe){
		.opcode = NVME_ADMIN_IDENTIFY,
		.nsid = nsid,
		.prp1 = page_pa,
		.cdw10 = cns,
	};
}

/* NSQR in CDW11 15:0, NCQR in 31:16, both 0-based. */
void nvme_cmd_set_queue_count(struct nvme_sqe *c, unsigned pairs)
{
	uint32_t n = pairs - 1;

	*c = (struct nvme_sqe){
		.opcode = NVME_ADMIN_SET_FEATURES,
		.cdw10 = NVME_FEAT_NUM_QUEUES,
		.cdw11 = n | n << 16,
	};
}

unsigned nvme_granted_queue_pairs(uint32_t result)
{
	unsigned sq = (result & 0xffff) + 1, cq = (result >> 16) + 1;

	return sq < cq ? sq : cq;
}

/* CDW10: QID in 15:0, size (0-based) in 31:16. */
void nvme_cmd_create_cq(struct nvme_sqe *c, uint16_t qid, uint16_t entries,
			uint64_t pa)
{
	*c = (struct nvme_sqe){
		.opcode = NVME_ADMIN_CREATE_CQ,
		.prp1 = pa,
		.cdw10 = qid | (uint32_t)(entries - 1) << 16,
		.cdw11 = NVME_QUEUE_PHYS_CONTIG,
	};
}

/* CDW11: the completion queue in 31:16, priority 0 (round robin). */
void nvme_cmd_create_sq(struct nvme_sqe *c, uint16_t qid, uint16_t entries,
			uint64_t pa, uint16_t cqid)
{
	*c = (struct nvme_sqe){
		.opcode = NVME_ADMIN_CREATE_SQ,
		.prp1 = pa,
		.cdw10 = qid | (uint32_t)(entries - 1) << 16,
		.cdw11 = NVME_QUEUE_PHYS_CONTIG | (uint32_t)cqid << 16,
	};
}

/* SLBA in CDW10-11, NLB (0-based) in CDW12 15:0. */
void nvme_cmd_page_io(struct nvme_sqe *c, enum blk_op op, uint32_t nsid,
		      unsigned lba_shift, uint64_t offset, uint64_t page_pa)
{
	uint64_t slba = offset >> lba_shift;

	*c = (struct nvme_sqe){
		.opcode = op == BLK_WRITE ? NVME_CMD_WRITE : NVME_CMD_READ,
		.nsid = nsid,
		.prp1 = page_pa,
		.cdw10 = (uint32_t)slba,
		.cdw11 = (uint32_t)(slba >> 32),
		.cdw12 = (PAGE_SIZE >> lba_shift) - 1,
	};
}

const char *nvme_opcode_name(bool admin, uint8_t opcode)
{
	if (admin) {
		switch (opcode) {
		case NVME_ADMIN_CREATE_SQ: return "Create I/O Submission Queue";
		case NVME_ADMIN_CREATE_CQ: return "Create I/O Completion Queue";
		case NVME_ADMIN_IDENTIFY: return "Identify";
		case NVME_ADMIN_SET_FEATURES: return "Set Features";
		default: return "admin command";
		}
	}
	switch (opcode) {
	case NVME_CMD_READ: return "Read";
	case NVME_CMD_WRITE: return "Write";
	default: return "I/O command";
	}
}

/* Generic command status (SCT 0), Figure 126. */
const char *nvme_status_name(uint16_t status_field)
{
	if (NVME_STATUS_SCT(status_field) != 0)
		return "";
	switch (NVME_STATUS_SC(status_field)) {
	case 0x01: return "Invalid Command Opcode";
	case 0x02: return "Invalid Field in Command";
	case 0x04: return "Data Transfer Error";
	case 0x06: return "Internal Error";
	case 0x07: return "Command Abort Requested";
	case 0x08: return "Command Aborted due to SQ Deletion";
	case 0x0b: return "Invalid Namespace or Format";
	case 0x80: return "LBA Out of Range";
	case 0x81: return "Capacity Exceeded";
	case 0x82: return "Namespace Not Ready";
	default: return "";
	}
}
