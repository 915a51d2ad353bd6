/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: the NVMe driver (swap/drivers/nvme_ctrl.c, nvme_queue.c,
 * nvme_namespace.c, nvme_command.c, nvme_identify.c) with the fuzzer as
 * the controller behind struct nvme_mmio_ops. The input is a header (CAP,
 * the BAR's size, the Set Features answer) and then a script the
 * controller follows one step per CSTS read (the driver reads CSTS in each
 * wait and each poll that finds nothing): fetch a command and complete it
 * honestly with any status and result (Identify data, Read data from the
 * input), post any completion entry at all (any command identifier,
 * queue, phase, status), answer CSTS with any value (CFS, all ones, RDY
 * dropped), let time pass. After the bring-up, the script goes on with
 * the block layer's side: Read and Write requests of any offset on each
 * namespace, polls, and the controller's steps; at the end every request
 * is polled back with time running out.
 *
 * Beyond the sanitizers' checks (the queue and Identify pages are the
 * exact allocations the driver asked for):
 *   - every register access lies inside the BAR, dword aligned; doorbells
 *     only while the controller is enabled, naming one of the five queues
 *     with a value inside a queue of 64;
 *   - every address the driver gives the controller (admin queues, I/O
 *     queues, Identify pages, data pages) is a page it allocated or the
 *     page of a request in flight; a Read or Write covers one page of
 *     LBAs inside its namespace, and (unless the controller made a
 *     completion up on that queue, which may hand a page back early) is
 *     the request's, in its direction, at its offset;
 *   - a bring-up that succeeds leaves 1 to 4 namespaces, each of at
 *     least a page;
 *   - every request is handed back exactly once, out-of-range ones (not
 *     page-aligned, past the end) as BLK_OUT_OF_RANGE without reaching
 *     the controller.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/console.h"
#include "swap/drivers/nvme_ctrl.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_guest_ram.h"
#include "tests/fuzz/fuzz_pages.h"
#include "tests/fuzz/fuzz_script.h"

#define QUEUES (NVME_MAX_NAMESPACES + 1)
#define MAX_PAGES 32
#define MAX_REQUESTS 96

void hv_info(const char *fmt, ...)
{
	(void)fmt;
}

void hv_error(const char *fmt, ...)
{
	(void)fmt;
}

struct fake_queue {
	bool sq, cq;                    /* exist */
	uint8_t *sq_mem, *cq_mem;
	uint16_t sq_entries, cq_entries;
	uint16_t sq_head, sq_tail;      /* fetched up to / doorbell */
	uint16_t cq_tail, cq_phase;
	uint16_t cqid;                  /* the SQ's CQ */
	bool made_up;                   /* a completion nobody asked for */
};

/* A request the block layer has out. */
struct request {
	uint8_t *page;
	uint64_t offset;
	unsigned ns;
	enum blk_op op;
	bool out, in_range;
};

static struct {
	struct fuzz_script *in;
	uint64_t cap, now, bar_size;
	uint32_t cc, aqa, csts_once;
	bool csts_override;
	uint64_t asq, acq;
	uint32_t queues_result;
	struct fake_queue q[QUEUES];
	uint8_t *pages[MAX_PAGES];
	unsigned npages;
	struct request req[MAX_REQUESTS];
	unsigned nreq;
	struct nvme_ctrl *ctrl;
} dev;

/* The page the driver allocated at pa, or NULL. */
static uint8_t *own_page(uint64_t pa)
{
	for (unsigned i = 0; i < dev.npages; i++)
		if ((uintptr_t)dev.pages[i] == pa)
			return dev.pages[i];
	return NULL;
}

static void *alloc_pages(unsigned npages)
{
	CHECK(npages == 1 && dev.npages < MAX_PAGES);
	dev.pages[dev.npages] = fuzz_page_alloc();
	CHECK(dev.pages[dev.npages]);
	return dev.pages[dev.npages++];
}

/* ---- the controller ---- */

static void reset_queues(void)
{
	memset(dev.q, 0, sizeof(dev.q));
}

static void enable(void)
{
	struct fake_queue *a = &dev.q[0];

	reset_queues();
	a->sq_mem = own_page(dev.asq);
	a->cq_mem = own_page(dev.acq);
	CHECK(a->sq_mem && a->cq_mem);
	a->sq_entries = (uint16_t)((dev.aqa & 0xfff) + 1);
	a->cq_entries = (uint16_t)((dev.aqa >> 16 & 0xfff) + 1);
	CHECK(a->sq_entries >= 2 && a->sq_entries <= PAGE_SIZE / 64);
	CHECK(a->cq_entries >= 2 && a->cq_entries <= PAGE_SIZE / 16);
	a->sq = a->cq = true;
	a->cq_phase = 1;
}

static void post(unsigned cqid, const struct nvme_cqe *e)
{
	struct fake_queue *c = &dev.q[cqid];

	if (!c->cq)
		return;
	memcpy(c->cq_mem + 16u * c->cq_tail, e, sizeof(*e));
	if (++c->cq_tail == c->cq_entries) {
		c->cq_tail = 0;
		c->cq_phase ^= 1;
	}
}

/* The data page of a request in flight on namespace nsid, or NULL. */
static struct request *request_at(uint64_t pa, uint32_t nsid)
{
	for (unsigned i = 0; i < dev.nreq; i++)
		if (dev.req[i].out && (uintptr_t)dev.req[i].page == pa &&
		    dev.ctrl->ns[dev.req[i].ns].nsid == nsid)
			return &dev.req[i];
	return NULL;
}

/* What a command asks the controller to touch, checked; its status. */
static uint16_t run_command(unsigned qid, const struct nvme_sqe *c,
			    uint32_t *result)
{
	struct fuzz_script *in = dev.in;
	uint16_t status = (uint16_t)fuzz_take(in, 2) & 0x7fff;
	unsigned id = c->cdw10 & 0xffff, size = (c->cdw10 >> 16) + 1;
	uint8_t *page;

	*result = (uint32_t)fuzz_take(in, 4);
	if (qid) {              /* Read or Write of one page */
		const struct nvme_namespace *ns = &dev.ctrl->ns[qid - 1];
		uint64_t slba = c->cdw10 | (uint64_t)c->cdw11 << 32;
		uint64_t nlb = (c->cdw12 & 0xffff) + 1ull;
		struct request *r = request_at(c->prp1, c->nsid);

		CHECK(c->opcode == NVME_CMD_READ || c->opcode == NVME_CMD_WRITE);
		CHECK(c->nsid == ns->nsid);
		CHECK(nlb << ns->info.lba_shift == PAGE_SIZE);
		CHECK(slba < ns->info.lbas && nlb <= ns->info.lbas - slba);
		/*
		 * After a made-up completion the request may have been
		 * handed back early and its page given to another: only the
		 * command itself can be checked then.
		 */
		if (dev.q[qid].made_up)
			return status;
		CHECK(r);
		CHECK(r->op == (c->opcode == NVME_CMD_READ ? BLK_READ :
				BLK_WRITE));
		CHECK(slba << ns->info.lba_shift == r->offset);
		if (!status && c->opcode == NVME_CMD_READ)
			memset(r->page, (int)*result, PAGE_SIZE);
		return status;
	}
	switch (c->opcode) {
	case NVME_ADMIN_IDENTIFY:
		page = own_page(c->prp1);
		CHECK(page);
		/* Its data: a few pieces anywhere in the page. */
		for (unsigned n = (unsigned)fuzz_take(in, 1) % 4; n; n--)
			fuzz_ram_piece(in, page, PAGE_SIZE);
		break;
	case NVME_ADMIN_SET_FEATURES:
		*result = dev.queues_result;
		break;
	case NVME_ADMIN_CREATE_CQ:
		CHECK(id >= 1 && id < QUEUES && own_page(c->prp1));
		CHECK(size >= 2 && size * 16 <= PAGE_SIZE);
		if (!status) {
			dev.q[id].cq = true;
			dev.q[id].cq_mem = own_page(c->prp1);
			dev.q[id].cq_entries = (uint16_t)size;
			dev.q[id].cq_tail = 0;
			dev.q[id].cq_phase = 1;
		}
		break;
	case NVME_ADMIN_CREATE_SQ:
		CHECK(id >= 1 && id < QUEUES && own_page(c->prp1));
		CHECK(size >= 2 && size * 64 <= PAGE_SIZE);
		CHECK(c->cdw11 >> 16 == id);    /* its own CQ */
		if (!status) {
			dev.q[id].sq = true;
			dev.q[id].sq_mem = own_page(c->prp1);
			dev.q[id].sq_entries = (uint16_t)size;
			dev.q[id].sq_head = dev.q[id].sq_tail = 0;
			dev.q[id].cqid = (uint16_t)(c->cdw11 >> 16);
		}
		break;
	default:
		CHECK(!"an admin command the driver never sends");
	}
	return status;
}

/* The oldest command of queue qid fetched and completed, if any. */
static void complete_one(unsigned qid)
{
	struct fake_queue *s = &dev.q[qid];
	struct nvme_sqe c;
	struct nvme_cqe e = { 0 };
	uint16_t status;

	if (!s->sq || s->sq_head == s->sq_tail || !(dev.cc & NVME_CC_EN))
		return;
	memcpy(&c, s->sq_mem + 64u * s->sq_head, sizeof(c));
	s->sq_head = (uint16_t)((s->sq_head + 1) % s->sq_entries);
	status = run_command(qid, &c, &e.result);
	e.sq_head = s->sq_head;
	e.sq_id = (uint16_t)qid;
	e.cid = c.cid;
	e.status = (uint16_t)(status << 1 | dev.q[qid ? s->cqid : 0].cq_phase);
	post(qid ? s->cqid : 0, &e);
}

/* One step of the controller's script. */
static void step(void)
{
	struct fuzz_script *in = dev.in;
	unsigned op = (unsigned)fuzz_take(in, 1), qid = (op >> 3) % QUEUES;
	struct nvme_cqe e;

	switch (op & 7) {
	case 1:
	case 2:
		complete_one(qid);
		break;
	case 3:                 /* any entry at all */
		e = (struct nvme_cqe){
			.result = (uint32_t)fuzz_take(in, 4),
			.sq_id = (uint16_t)fuzz_take(in, 1),
			.cid = (uint16_t)fuzz_take(in, 2),
			.status = (uint16_t)fuzz_take(in, 2),
		};
		post(qid, &e);
		dev.q[qid].made_up = true;
		break;
	case 4:
		dev.csts_once = (uint32_t)fuzz_take(in, 4);
		dev.csts_override = true;
		break;
	case 5:
		dev.now += fuzz_take(in, 3) << 8;
		break;
	default:
		break;
	}
}

static void check_register(uint32_t off)
{
	CHECK(off % 4 == 0 && off + 4 <= dev.bar_size);
}

static uint32_t reg_read(void *ctx, uint32_t off)
{
	uint32_t csts;

	CHECK(ctx == &dev);
	check_register(off);
	switch (off) {
	case NVME_REG_CAP:
		return (uint32_t)dev.cap;
	case NVME_REG_CAP + 4:
		return (uint32_t)(dev.cap >> 32);
	case NVME_REG_CC:
		return dev.cc;
	case NVME_REG_CSTS:
		step();
		csts = dev.cc & NVME_CC_EN ? NVME_CSTS_RDY : 0;
		if (dev.csts_override)
			csts = dev.csts_once;
		dev.csts_override = false;
		return csts;
	default:
		return 0;
	}
}

static void reg_write(void *ctx, uint32_t off, uint32_t val)
{
	const struct nvme_regs *r = &dev.ctrl->regs;

	CHECK(ctx == &dev);
	check_register(off);
	if (off >= NVME_REG_DOORBELLS) {
		unsigned index = (off - NVME_REG_DOORBELLS) /
				 r->doorbell_stride;
		unsigned qid = index / 2;
		struct fake_queue *q = &dev.q[qid % QUEUES];

		CHECK((off - NVME_REG_DOORBELLS) % r->doorbell_stride == 0);
		CHECK(qid < QUEUES && (dev.cc & NVME_CC_EN));
		CHECK(val < NVME_QUEUE_ENTRIES);
		/* A queue the controller claimed (a made-up completion) but
		 * never made is the controller's own business. */
		if (index % 2 == 0 && q->sq && val < q->sq_entries)
			q->sq_tail = (uint16_t)val;
		return;
	}
	switch (off) {
	case NVME_REG_CC:
		if ((val & NVME_CC_EN) && !(dev.cc & NVME_CC_EN)) {
			dev.cc = val;
			enable();
		} else if (!(val & NVME_CC_EN)) {
			reset_queues();
		}
		dev.cc = val;
		break;
	case NVME_REG_AQA:
		CHECK(!(dev.cc & NVME_CC_EN));
		dev.aqa = val;
		break;
	case NVME_REG_ASQ:
		dev.asq = (dev.asq & ~0xffffffffull) | val;
		break;
	case NVME_REG_ASQ + 4:
		dev.asq = (dev.asq & 0xffffffffull) | (uint64_t)val << 32;
		break;
	case NVME_REG_ACQ:
		dev.acq = (dev.acq & ~0xffffffffull) | val;
		break;
	case NVME_REG_ACQ + 4:
		dev.acq = (dev.acq & 0xffffffffull) | (uint64_t)val << 32;
		break;
	default:
		CHECK(!"a register the driver never writes");
	}
}

/* The clock: input-driven while the script lasts, then racing on. */
static uint64_t now(void *ctx)
{
	CHECK(ctx == &dev);
	dev.now += dev.in->left ? 1 : 1ull << 32;
	return dev.now;
}

static const struct nvme_mmio_ops ops = {
	.read32 = reg_read,
	.write32 = reg_write,
	.now = now,
};

/* ---- the block layer's side ---- */

static void take_completions(unsigned ns, unsigned max)
{
	struct blockdev *b = &dev.ctrl->ns[ns].bdev;
	struct blk_completion out[NVME_QUEUE_SLOTS];
	unsigned n = b->ops->poll(b, out, max);

	CHECK(n <= max);
	for (unsigned i = 0; i < n; i++) {
		struct request *r = out[i].cookie;

		CHECK(r >= dev.req && r < dev.req + dev.nreq && r->out);
		CHECK(r->ns == ns);
		CHECK(out[i].status == BLK_OK || out[i].status == BLK_IO_ERROR ||
		      out[i].status == BLK_OUT_OF_RANGE);
		CHECK((out[i].status == BLK_OUT_OF_RANGE) == !r->in_range);
		r->out = false;
		fuzz_page_free(r->page);
		r->page = NULL;
	}
}

static void submit(unsigned ns, unsigned how)
{
	struct blockdev *b = &dev.ctrl->ns[ns].bdev;
	struct request *r;
	uint64_t offset = how & 0x40 ? fuzz_take(dev.in, 8)
				     : fuzz_take(dev.in, 2) * PAGE_SIZE;

	if (dev.nreq == MAX_REQUESTS)
		return;
	r = &dev.req[dev.nreq];
	*r = (struct request){
		.page = fuzz_page_alloc(),
		.offset = offset,
		.ns = ns,
		.op = how & 0x80 ? BLK_WRITE : BLK_READ,
		.out = true,
		.in_range = offset % PAGE_SIZE == 0 && offset < b->size &&
			    b->size - offset >= PAGE_SIZE,
	};
	CHECK(r->page);
	if (b->ops->submit(b, &(struct blk_request){
			.op = r->op, .offset = offset,
			.buffer_pa = (uintptr_t)r->page, .cookie = r })) {
		fuzz_page_free(r->page);        /* every slot taken */
		return;
	}
	dev.nreq++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_script in = { data, size };
	struct nvme_ctrl *c = calloc(1, sizeof(*c));

	memset(&dev, 0, sizeof(dev));
	fuzz_pages_reset();
	dev.in = &in;
	dev.ctrl = c;
	dev.now = 1;
	dev.cap = fuzz_take(&in, 8);
	dev.bar_size = 1ull << (12 + fuzz_take(&in, 1) % 8);
	dev.queues_result = (uint32_t)fuzz_take(&in, 4);
	memcpy(c->name, "nvme 00:04.0", 13);
	c->regs = (struct nvme_regs){ .ops = &ops, .ctx = &dev,
				      .ticks_per_ms = 1000 };
	c->regs_size = dev.bar_size;
	c->alloc_pages = alloc_pages;

	if (nvme_ctrl_bring_up(c) == HV_OK) {
		CHECK(c->nns >= 1 && c->nns <= NVME_MAX_NAMESPACES);
		for (unsigned i = 0; i < c->nns; i++)
			CHECK(c->ns[i].bdev.size >= PAGE_SIZE &&
			      c->ns[i].queue.qid == i + 1);
		while (in.left) {
			unsigned how = (unsigned)fuzz_take(&in, 1);
			unsigned ns = (how >> 2) % c->nns;

			switch (how & 3) {
			case 0:
				submit(ns, how);
				break;
			case 1:
				take_completions(ns, 1 + how % NVME_QUEUE_SLOTS);
				break;
			default:
				step();
				break;
			}
		}
		/* Every request back, the deadlines passing. */
		for (unsigned i = 0; i < c->nns; i++)
			for (unsigned n = 0; n < 8; n++)
				take_completions(i, NVME_QUEUE_SLOTS);
		for (unsigned i = 0; i < dev.nreq; i++)
			CHECK(!dev.req[i].out);
	}
	free(c);
	return 0;
}
