/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * How the NVMe driver's plain-C parts (swap/drivers/nvme_queue.c, nvme_ctrl.c,
 * nvme_namespace.c) reach a controller: 32-bit register reads and writes
 * and a clock, through a table of functions. swap/drivers/nvme.c fills it with
 * MMIO on BAR0 and the TSC; the unit tests with a fake controller.
 */
#ifndef SWAP_NVME_REGS_H
#define SWAP_NVME_REGS_H

#include "lib/types.h"
#include "swap/drivers/nvme_defs.h"

struct nvme_mmio_ops {
	uint32_t (*read32)(void *ctx, uint32_t off);
	void (*write32)(void *ctx, uint32_t off, uint32_t val);
	uint64_t (*now)(void *ctx);     /* clock ticks, never going back */
};

struct nvme_regs {
	const struct nvme_mmio_ops *ops;
	void *ctx;
	uint32_t doorbell_stride;       /* bytes: 4 << CAP.DSTRD (3.1.1) */
	uint64_t ticks_per_ms;
};

static inline uint32_t nvme_read32(const struct nvme_regs *r, uint32_t off)
{
	return r->ops->read32(r->ctx, off);
}

static inline void nvme_write32(const struct nvme_regs *r, uint32_t off,
				uint32_t val)
{
	r->ops->write32(r->ctx, off, val);
}

/* 64-bit registers as two dword accesses, low first (3.1). */
static inline uint64_t nvme_read64(const struct nvme_regs *r, uint32_t off)
{
	uint64_t lo = nvme_read32(r, off);

	return lo | (uint64_t)nvme_read32(r, off + 4) << 32;
}

static inline void nvme_write64(const struct nvme_regs *r, uint32_t off,
				uint64_t val)
{
	nvme_write32(r, off, (uint32_t)val);
	nvme_write32(r, off + 4, (uint32_t)(val >> 32));
}

static inline uint64_t nvme_now(const struct nvme_regs *r)
{
	return r->ops->now(r->ctx);
}

/* 3.1.24, 3.1.25: queue y's SQ tail and CQ head doorbells. */
static inline uint32_t nvme_sq_doorbell(const struct nvme_regs *r,
					uint16_t qid)
{
	return NVME_REG_DOORBELLS + 2u * qid * r->doorbell_stride;
}

static inline uint32_t nvme_cq_doorbell(const struct nvme_regs *r,
					uint16_t qid)
{
	return NVME_REG_DOORBELLS + (2u * qid + 1) * r->doorbell_stride;
}

#endif
