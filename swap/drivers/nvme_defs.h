/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the NVM Express 1.4 base specification fixes and the NVMe driver
 * (swap/nvme*.c) uses: the controller registers (3.1), the submission and
 * completion queue entries (4.2, 4.6), the admin and NVM opcodes (5, 6),
 * the Identify data fields (5.15.2) and the status codes (4.6.1.2).
 * Numbers only; no code.
 */
#ifndef SWAP_NVME_DEFS_H
#define SWAP_NVME_DEFS_H

#include "lib/types.h"

/* PCI class of an NVM Express controller (1.4, 2.1.5): 01:08:02. */
#define NVME_PCI_CLASS     0x01
#define NVME_PCI_SUBCLASS  0x08
#define NVME_PCI_PROG_IF   0x02

/* Controller registers (3.1), offsets in BAR0. */
#define NVME_REG_CAP       0x00        /* 64 bits */
#define NVME_REG_VS        0x08
#define NVME_REG_INTMS     0x0c
#define NVME_REG_CC        0x14
#define NVME_REG_CSTS      0x1c
#define NVME_REG_AQA       0x24
#define NVME_REG_ASQ       0x28        /* 64 bits */
#define NVME_REG_ACQ       0x30        /* 64 bits */
#define NVME_REG_DOORBELLS 0x1000

/* CAP (3.1.1). */
#define NVME_CAP_MQES(cap)   ((unsigned)((cap) & 0xffff))     /* 0-based */
#define NVME_CAP_TO(cap)     ((unsigned)(((cap) >> 24) & 0xff)) /* 500 ms */
#define NVME_CAP_DSTRD(cap)  ((unsigned)(((cap) >> 32) & 0xf))
#define NVME_CAP_CSS_NVM(cap) (((cap) >> 37) & 1)
#define NVME_CAP_MPSMIN(cap) ((unsigned)(((cap) >> 48) & 0xf))
#define NVME_CAP_TO_UNIT_MS  500

/* CC (3.1.5). */
#define NVME_CC_EN           BIT(0)
#define NVME_CC_CSS_NVM      (0u << 4)
#define NVME_CC_MPS_4K       (0u << 7)  /* 2 ^ (12 + MPS) bytes */
#define NVME_CC_AMS_RR       (0u << 11)
#define NVME_CC_IOSQES       (6u << 16) /* 2^6 = 64-byte SQ entries */
#define NVME_CC_IOCQES       (4u << 20) /* 2^4 = 16-byte CQ entries */

/* CSTS (3.1.6). */
#define NVME_CSTS_RDY        BIT(0)
#define NVME_CSTS_CFS        BIT(1)
/* What a read of a controller that left the bus returns. */
#define NVME_CSTS_GONE       0xffffffffu

/* Admin command opcodes (5, Figure 139). */
#define NVME_ADMIN_CREATE_SQ    0x01
#define NVME_ADMIN_CREATE_CQ    0x05
#define NVME_ADMIN_IDENTIFY     0x06
#define NVME_ADMIN_SET_FEATURES 0x09

/* NVM command set opcodes (6, Figure 346). */
#define NVME_CMD_WRITE       0x01
#define NVME_CMD_READ        0x02

/* Identify CNS values (5.15.1) and the feature we set (5.21.1.7). */
#define NVME_CNS_NAMESPACE   0x00
#define NVME_CNS_CONTROLLER  0x01
#define NVME_FEAT_NUM_QUEUES 0x07

/* Create I/O queue flags (5.4, 5.5): physically contiguous. */
#define NVME_QUEUE_PHYS_CONTIG BIT(0)

/* Submission queue entry (4.2): 64 bytes, little-endian. */
struct nvme_sqe {
	uint8_t opcode;
	uint8_t flags;
	uint16_t cid;
	uint32_t nsid;
	uint64_t reserved;
	uint64_t mptr;
	uint64_t prp1;
	uint64_t prp2;
	uint32_t cdw10, cdw11, cdw12, cdw13, cdw14, cdw15;
};

/* Completion queue entry (4.6): 16 bytes. */
struct nvme_cqe {
	uint32_t result;                /* DW0: command specific */
	uint32_t reserved;
	uint16_t sq_head;
	uint16_t sq_id;
	uint16_t cid;
	uint16_t status;                /* bit 0: phase tag; 15:1 status */
};

_Static_assert(sizeof(struct nvme_sqe) == 64, "NVMe SQ entry is 64 bytes");
_Static_assert(sizeof(struct nvme_cqe) == 16, "NVMe CQ entry is 16 bytes");

#define NVME_CQE_PHASE       BIT(0)
/* The status field (4.6.1): SC in bits 7:0, SCT in 10:8, DNR in 14. */
#define NVME_STATUS_FIELD(st) ((uint16_t)((st) >> 1))
#define NVME_STATUS_SC(f)    ((unsigned)((f) & 0xff))
#define NVME_STATUS_SCT(f)   ((unsigned)(((f) >> 8) & 0x7))
#define NVME_STATUS_DNR(f)   (((f) >> 14) & 1)

/* Identify Controller data (5.15.2.1, Figure 247), byte offsets. */
#define NVME_ID_CTRL_VID     0
#define NVME_ID_CTRL_SN      4          /* 20 ASCII bytes */
#define NVME_ID_CTRL_SN_LEN  20
#define NVME_ID_CTRL_MN      24         /* 40 ASCII bytes */
#define NVME_ID_CTRL_MN_LEN  40
#define NVME_ID_CTRL_MDTS    77
#define NVME_ID_CTRL_NN      516

/* Identify Namespace data (6.1.5, Figure 245), byte offsets. */
#define NVME_ID_NS_NSZE      0
#define NVME_ID_NS_NLBAF     25
#define NVME_ID_NS_FLBAS     26
#define NVME_ID_NS_LBAF      128        /* 16 dwords */
#define NVME_ID_NS_LBAF_MAX  16
#define NVME_FLBAS_INDEX(b)  ((unsigned)((b) & 0xf))
#define NVME_LBAF_MS(d)      ((unsigned)((d) & 0xffff))
#define NVME_LBAF_LBADS(d)   ((unsigned)(((d) >> 16) & 0xff))

#endif
