/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An NVMe controller brought up for swap (NVMe 1.4, 7.6.1): reset, admin
 * queue, enable, Identify Controller, the number of I/O queues, Identify
 * Namespace for each NSID, and one polled I/O queue pair per usable
 * namespace, each namespace a block device (swap/drivers/nvme_namespace.c).
 * Plain C over struct nvme_regs; swap/drivers/nvme.c supplies the PCI function,
 * the MMIO and the memory.
 */
#ifndef SWAP_NVME_CTRL_H
#define SWAP_NVME_CTRL_H

#include "swap/blockdev.h"
#include "swap/drivers/nvme_identify.h"
#include "swap/drivers/nvme_queue.h"

#define NVME_MAX_NAMESPACES 4   /* block devices per controller, at most */
#define NVME_SCAN_NSIDS     32  /* NSIDs looked at, at most */
#define NVME_ADMIN_ENTRIES  16
#define NVME_IO_TIMEOUT_MS  10000

struct nvme_ctrl;

struct nvme_namespace {
	struct blockdev bdev;
	struct nvme_ctrl *ctrl;
	char name[40];                  /* "nvme 00:04.0 ns1" */
	uint32_t nsid;
	struct nvme_ns_info info;
	struct nvme_queue queue;        /* its own I/O queue pair */
	uint64_t poison_seed;           /* swap/drivers/read_poison.h */
};

struct nvme_ctrl {
	char name[24];                  /* "nvme 00:04.0" */
	struct nvme_regs regs;
	uint64_t regs_size;             /* bytes of register space (BAR0) */
	/* Zeroed, page-aligned pages whose address is the bus address. */
	void *(*alloc_pages)(unsigned npages);
	uint64_t cap;
	struct nvme_queue admin;
	uint8_t *identify;              /* one page for Identify data */
	struct nvme_ctrl_info info;
	struct nvme_namespace ns[NVME_MAX_NAMESPACES];
	unsigned nns;
	bool stopped;                   /* CC.EN cleared after a queue broke */
	bool disabled;                  /* ... and CSTS.RDY seen back at 0 */
};

/*
 * Everything from the reset to the namespaces' queues. regs (but its
 * doorbell stride, read from CAP here), regs_size, name and alloc_pages
 * are set by the caller. HV_OK, or after one "apfvisor: error: <name>: ..."
 * line: HV_ERR_DEVICE (it does not answer, reports a fatal status, or broke
 * its admin queue), HV_ERR_TIMEOUT (CSTS.RDY did not follow CC.EN),
 * HV_ERR_UNSUPPORTED (CAP asks for what apfvisor cannot do), HV_ERR_BUSY
 * (the admin queue was full), HV_ERR_IO (an admin command failed), or
 * HV_ERR_NOT_FOUND (no usable namespace).
 */
enum hv_err nvme_ctrl_bring_up(struct nvme_ctrl *c);

/*
 * 3.1.5, 7.3.1: CC.EN = 0 and wait for CSTS.RDY = 0, at most CAP.TO.
 * HV_OK, or after an error line: HV_ERR_TIMEOUT (CSTS.RDY stayed set), or
 * HV_ERR_DEVICE (CSTS reads all ones).
 */
enum hv_err nvme_ctrl_disable(struct nvme_ctrl *c);

#endif
