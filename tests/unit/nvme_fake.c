// SPDX-License-Identifier: BSD-2-Clause
/* A fake NVMe controller (tests/unit/nvme_fake.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/nvme_fake.h"
#include "lib/bytes.h"

#define FAKE_DSTRD   1
#define FAKE_STRIDE  (4u << FAKE_DSTRD)
#define SC_INVALID_FIELD     0x02
#define SC_INVALID_NAMESPACE 0x0b

static void *pa_ptr(uint64_t pa)
{
	return (void *)(uintptr_t)pa;
}

void fake_nvme_init(struct fake_nvme *f)
{
	memset(f, 0, sizeof(*f));
	/* MQES 1023, CQR, TO 1, DSTRD 1, CSS NVM, MPSMIN 0 (3.1.1). */
	f->cap = 1023 | BIT(16) | 1ull << 24 | (uint64_t)FAKE_DSTRD << 32 |
		 BIT(37);
	f->bogus_cid = -1;
	f->short_read = -1;
	f->queues_granted = 63;
}

void fake_nvme_add_ns(struct fake_nvme *f, uint32_t nsid, uint64_t lbas,
		      unsigned lba_shift)
{
	struct fake_nvme_ns *ns = &f->ns[nsid - 1];

	assert_true(nsid >= 1 && nsid <= FAKE_NVME_NAMESPACES);
	assert_true((lbas << lba_shift) <= FAKE_NVME_DISK_BYTES);
	ns->lbas = lbas;
	ns->lba_shift = lba_shift;
	ns->disk = calloc(1, FAKE_NVME_DISK_BYTES);
	assert_non_null(ns->disk);
	if (nsid > f->nns)
		f->nns = nsid;
}

void fake_nvme_free(struct fake_nvme *f)
{
	for (unsigned i = 0; i < FAKE_NVME_NAMESPACES; i++)
		free(f->ns[i].disk);
}

static void put_ascii(uint8_t *p, const char *s, size_t len)
{
	memset(p, ' ', len);
	memcpy(p, s, strlen(s));
}

static uint16_t identify(struct fake_nvme *f, const struct nvme_sqe *c)
{
	uint8_t *page = pa_ptr(c->prp1);
	const struct fake_nvme_ns *ns;

	memset(page, 0, 4096);
	if (c->cdw10 == NVME_CNS_CONTROLLER) {
		le_put(page, NVME_ID_CTRL_VID, 2, 0x1b36);
		put_ascii(page + NVME_ID_CTRL_SN, "APFFAKE0", 20);
		put_ascii(page + NVME_ID_CTRL_MN, "fake NVMe", 40);
		le_put(page, NVME_ID_CTRL_NN, 4, f->nns);
		return 0;
	}
	assert_int_equal(c->cdw10, NVME_CNS_NAMESPACE);
	if (c->nsid == 0 || c->nsid > f->nns)
		return SC_INVALID_NAMESPACE;
	ns = &f->ns[c->nsid - 1];
	if (!ns->lbas)
		return 0;               /* inactive: all zeros */
	le_put(page, NVME_ID_NS_NSZE, 8, ns->lbas);
	/* Two formats: 512 bytes, and the namespace's, which is in use. */
	page[NVME_ID_NS_NLBAF] = 1;
	page[NVME_ID_NS_FLBAS] = 1;
	le_put(page, NVME_ID_NS_LBAF, 4, 9 << 16);
	le_put(page, NVME_ID_NS_LBAF + 4, 4, ns->lba_shift << 16 |
	       ns->metadata);
	return 0;
}

static uint16_t create_queue(struct fake_nvme *f, const struct nvme_sqe *c,
			     bool is_sq)
{
	uint16_t qid = c->cdw10 & 0xffff;
	struct fake_nvme_queue *q = is_sq ? &f->sq[qid] : &f->cq[qid];

	assert_true(qid > 0 && qid < FAKE_NVME_QUEUES);
	assert_true(c->cdw11 & NVME_QUEUE_PHYS_CONTIG);
	if (is_sq) {
		/* 5.5: the CQ it names exists; priority 0. */
		assert_true(f->cq[c->cdw11 >> 16].exists);
		q->cqid = (uint16_t)(c->cdw11 >> 16);
	} else {
		assert_false(c->cdw11 & BIT(1));    /* IEN: we poll */
	}
	assert_false(q->exists);
	*q = (struct fake_nvme_queue){ .exists = true, .pa = c->prp1,
		.entries = (uint16_t)((c->cdw10 >> 16) + 1), .phase = 1,
		.cqid = q->cqid };
	assert_true(q->entries >= 2 && q->entries <= 1024);
	return 0;
}

static uint16_t admin(struct fake_nvme *f, const struct nvme_sqe *c,
		      uint32_t *result)
{
	if (c->opcode == f->fail_admin_opcode)
		return SC_INVALID_FIELD;
	switch (c->opcode) {
	case NVME_ADMIN_IDENTIFY:
		return identify(f, c);
	case NVME_ADMIN_SET_FEATURES:
		assert_int_equal(c->cdw10, NVME_FEAT_NUM_QUEUES);
		*result = f->queues_granted | f->queues_granted << 16;
		return 0;
	case NVME_ADMIN_CREATE_CQ:
		return create_queue(f, c, false);
	case NVME_ADMIN_CREATE_SQ:
		return create_queue(f, c, true);
	default:
		fail_msg("unexpected admin opcode 0x%02x", c->opcode);
		return 0;
	}
}

static uint16_t io(struct fake_nvme *f, const struct nvme_sqe *c)
{
	const struct fake_nvme_ns *ns;
	uint64_t slba = c->cdw10 | (uint64_t)c->cdw11 << 32, offset;
	uint16_t status = f->fail_status;
	size_t bytes;

	assert_true(c->nsid >= 1 && c->nsid <= f->nns);
	ns = &f->ns[c->nsid - 1];
	f->io_commands++;
	f->last_slba = slba;
	f->last_nlb = c->cdw12 & 0xffff;
	bytes = (size_t)(f->last_nlb + 1) << ns->lba_shift;
	offset = slba << ns->lba_shift;
	/* One page through PRP1, no PRP2 (4.3). */
	assert_int_equal(bytes, 4096);
	assert_int_equal(c->prp1 % 4096, 0);
	assert_int_equal(c->prp2, 0);
	assert_true(slba + f->last_nlb < ns->lbas);
	f->fail_status = 0;
	if (status)
		return status;
	if (c->opcode == NVME_CMD_READ && f->short_read >= 0) {
		bytes = (size_t)f->short_read;
		f->short_read = -1;
	}
	if (c->opcode == NVME_CMD_READ)
		memcpy(pa_ptr(c->prp1), ns->disk + offset, bytes);
	else if (c->opcode == NVME_CMD_WRITE)
		memcpy(ns->disk + offset, pa_ptr(c->prp1), bytes);
	else
		fail_msg("unexpected I/O opcode 0x%02x", c->opcode);
	return 0;
}

/* 4.6: the entry, then its status word with the phase tag. */
static void post(struct fake_nvme *f, uint16_t qid, uint16_t cid,
		 uint16_t status, uint32_t result)
{
	struct fake_nvme_queue *sq = &f->sq[qid], *cq = &f->cq[sq->cqid];
	struct nvme_cqe *e = (struct nvme_cqe *)pa_ptr(cq->pa) + cq->tail;

	/* 4.1.2: never post into a full completion queue. */
	assert_int_not_equal((cq->tail + 1) % cq->entries, cq->head);
	if (f->bogus_cid >= 0) {
		cid = (uint16_t)f->bogus_cid;
		f->bogus_cid = -1;
	}
	e->result = result;
	e->sq_head = sq->head;
	e->sq_id = qid;
	e->cid = cid;
	__atomic_store_n(&e->status, (uint16_t)(status << 1 | cq->phase),
			 __ATOMIC_RELEASE);
	if (++cq->tail == cq->entries) {
		cq->tail = 0;
		cq->phase ^= 1;
	}
}

void fake_nvme_run(struct fake_nvme *f, uint16_t qid)
{
	struct fake_nvme_queue *sq = &f->sq[qid];

	if (!(f->csts & NVME_CSTS_RDY) || !sq->exists)
		return;
	while (sq->head != sq->tail) {
		struct nvme_sqe c = ((struct nvme_sqe *)pa_ptr(sq->pa))[sq->head];
		uint32_t result = 0;
		uint16_t status;

		sq->head = (uint16_t)((sq->head + 1) % sq->entries);
		status = qid ? io(f, &c) : admin(f, &c, &result);
		post(f, qid, c.cid, status, result);
	}
}

/* 7.3.1: a reset deletes every queue. */
static void write_cc(struct fake_nvme *f, uint32_t val)
{
	bool was = f->cc & NVME_CC_EN, now = val & NVME_CC_EN;

	f->cc = val;
	if (!was && now) {
		f->sq[0] = (struct fake_nvme_queue){ .exists = true,
			.pa = f->asq, .entries = (f->aqa & 0xfff) + 1 };
		f->cq[0] = (struct fake_nvme_queue){ .exists = true,
			.pa = f->acq, .entries = ((f->aqa >> 16) & 0xfff) + 1,
			.phase = 1 };
		if (!f->never_ready)
			f->csts |= NVME_CSTS_RDY;
	} else if (was && !now) {
		f->disables++;
		memset(f->sq, 0, sizeof(f->sq));
		memset(f->cq, 0, sizeof(f->cq));
		if (!f->stuck_ready)
			f->csts &= ~NVME_CSTS_RDY;
	}
}

static void write_doorbell(struct fake_nvme *f, uint32_t off, uint32_t val)
{
	unsigned index = (off - NVME_REG_DOORBELLS) / FAKE_STRIDE;
	uint16_t qid = (uint16_t)(index / 2);

	assert_int_equal((off - NVME_REG_DOORBELLS) % FAKE_STRIDE, 0);
	assert_true(qid < FAKE_NVME_QUEUES);
	if (index % 2) {
		assert_true(f->cq[qid].exists);
		assert_true(val < f->cq[qid].entries);
		f->cq[qid].head = (uint16_t)val;
		return;
	}
	assert_true(f->sq[qid].exists);
	assert_true(val < f->sq[qid].entries);
	f->sq[qid].tail = (uint16_t)val;
	if (!f->hold)
		fake_nvme_run(f, qid);
}

static uint32_t fake_read32(void *ctx, uint32_t off)
{
	struct fake_nvme *f = ctx;

	switch (off) {
	case NVME_REG_CAP: return (uint32_t)f->cap;
	case NVME_REG_CAP + 4: return (uint32_t)(f->cap >> 32);
	case NVME_REG_VS: return 0x00010400;
	case NVME_REG_CC: return f->cc;
	case NVME_REG_CSTS: return f->csts;
	case NVME_REG_AQA: return f->aqa;
	default:
		fail_msg("read of register 0x%x", off);
		return 0;
	}
}

static void fake_write32(void *ctx, uint32_t off, uint32_t val)
{
	struct fake_nvme *f = ctx;

	if (off >= NVME_REG_DOORBELLS) {
		write_doorbell(f, off, val);
		return;
	}
	/* 3.1.8-3.1.10: set while the controller is disabled. */
	if (off == NVME_REG_AQA || (off >= NVME_REG_ASQ && off < 0x38))
		assert_false(f->cc & NVME_CC_EN);
	switch (off) {
	case NVME_REG_CC: write_cc(f, val); break;
	case NVME_REG_AQA: f->aqa = val; break;
	case NVME_REG_ASQ: f->asq = (f->asq & ~0xffffffffull) | val; break;
	case NVME_REG_ASQ + 4:
		f->asq = (uint32_t)f->asq | (uint64_t)val << 32;
		break;
	case NVME_REG_ACQ: f->acq = (f->acq & ~0xffffffffull) | val; break;
	case NVME_REG_ACQ + 4:
		f->acq = (uint32_t)f->acq | (uint64_t)val << 32;
		break;
	default:
		fail_msg("write of register 0x%x", off);
	}
}

static uint64_t fake_now(void *ctx)
{
	struct fake_nvme *f = ctx;

	return ++f->clock;
}

const struct nvme_mmio_ops fake_nvme_ops = {
	.read32 = fake_read32,
	.write32 = fake_write32,
	.now = fake_now,
};
