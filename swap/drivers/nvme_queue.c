// SPDX-License-Identifier: BSD-2-Clause
/*
 * One polled NVMe queue pair (swap/drivers/nvme_queue.h). Section numbers are
 * those of the NVM Express Base Specification, revision 1.4.
 */
#include "swap/drivers/nvme_queue.h"
#include "lib/console.h"
#include "lib/format.h"
#include "lib/string.h"
#include "swap/drivers/nvme_command.h"

void nvme_queue_init(struct nvme_queue *q, const struct nvme_regs *regs,
		     uint16_t qid, uint16_t entries, void *sq_mem,
		     void *cq_mem, uint64_t timeout_ticks)
{
	if (entries > NVME_QUEUE_ENTRIES)
		entries = NVME_QUEUE_ENTRIES;
	q->regs = regs;
	q->qid = qid;
	q->entries = entries;
	q->sq = sq_mem;
	q->cq = cq_mem;
	memset(cq_mem, 0, entries * sizeof(struct nvme_cqe));
	q->sq_tail = q->cq_head = 0;
	q->phase = 1;           /* 4.6: the first pass writes phase 1 */
	q->in_flight = q->nlocal = 0;
	q->timeout_ticks = timeout_ticks;
	q->broken = NULL;
	q->nfree = nvme_queue_depth(q);
	for (unsigned i = 0; i < q->nfree; i++) {
		q->free_slot[i] = (uint8_t)(q->nfree - 1 - i);
		q->slot[i].busy = false;
	}
}

unsigned nvme_queue_depth(const struct nvme_queue *q)
{
	return q->entries - 1u;
}

static void complete_locally(struct nvme_queue *q, unsigned slot,
			     enum blk_status blk)
{
	q->local[q->nlocal].slot = (uint8_t)slot;
	q->local[q->nlocal].blk = blk;
	q->nlocal++;
}

/* A command whose page the controller writes: a Read of an I/O queue. */
static bool writes_page(const struct nvme_queue *q, unsigned s)
{
	return q->qid != 0 && q->slot[s].opcode == NVME_CMD_READ;
}

/* Everything in flight fails, but with !disabled the Reads stay held. */
static void end_in_flight(struct nvme_queue *q, const char *why,
			  bool disabled)
{
	if (!q->broken)
		q->broken = why;
	for (unsigned s = 0; s < nvme_queue_depth(q); s++) {
		if (!q->slot[s].busy)
			continue;
		if (!disabled && writes_page(q, s)) {
			if (!q->slot[s].held)
				q->frames_held++;
			q->slot[s].held = true;
			continue;
		}
		q->slot[s].busy = false;
		q->slot[s].held = false;
		q->in_flight--;
		complete_locally(q, s, BLK_IO_ERROR);
	}
}

void nvme_queue_fail_all(struct nvme_queue *q, const char *why)
{
	end_in_flight(q, why, true);
}

void nvme_queue_hold_all(struct nvme_queue *q, const char *why)
{
	end_in_flight(q, why, false);
}

static bool controller_stopped(struct nvme_queue *q)
{
	return !q->stop_controller || q->stop_controller(q->ctx);
}

/*
 * The controller did what a working one never does: stop it, so that it
 * cannot write into pages we hand back, and fail what it had.
 */
static void break_queue(struct nvme_queue *q, const char *why,
			const char *fmt, ...) PRINTF_LIKE(3, 4);

static void break_queue(struct nvme_queue *q, const char *why,
			const char *fmt, ...)
{
	char detail[160];
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	hv_error("%s: %s (%s); the controller is disabled, its %u "
		 "command(s) in flight fail", q->name, why, detail,
		 q->in_flight);
	q->broken = why;
	q->device_errors++;
	end_in_flight(q, why, controller_stopped(q));
}

static int take_slot(struct nvme_queue *q, void *cookie)
{
	unsigned slot;

	if (!q->nfree)
		return -1;
	slot = q->free_slot[--q->nfree];
	q->slot[slot].cookie = cookie;
	/* Not sent (yet): no command to name on completion. */
	q->slot[slot].opcode = 0;
	q->slot[slot].lba = q->slot[slot].prp1 = 0;
	return (int)slot;
}

enum hv_err nvme_queue_complete_locally(struct nvme_queue *q, void *cookie,
					enum blk_status blk)
{
	int slot = take_slot(q, cookie);

	if (slot < 0)
		return HV_ERR_BUSY;
	complete_locally(q, (unsigned)slot, blk);
	return HV_OK;
}

/*
 * 4.1: write the entry, then the new tail to the doorbell; the release
 * fence orders the entry's bytes before the doorbell write.
 */
enum hv_err nvme_queue_submit(struct nvme_queue *q, const struct nvme_sqe *cmd,
			      uint64_t lba, void *cookie)
{
	int slot = take_slot(q, cookie);
	struct nvme_sqe entry = *cmd;

	if (slot < 0)
		return HV_ERR_BUSY;
	if (q->broken) {
		complete_locally(q, (unsigned)slot, BLK_IO_ERROR);
		return HV_OK;
	}
	entry.cid = (uint16_t)slot;
	q->slot[slot].busy = true;
	q->slot[slot].held = false;
	q->slot[slot].opcode = cmd->opcode;
	q->slot[slot].lba = lba;
	q->slot[slot].prp1 = cmd->prp1;
	q->slot[slot].deadline = nvme_now(q->regs) + q->timeout_ticks;
	q->in_flight++;
	*(struct nvme_sqe *)&q->sq[q->sq_tail] = entry;
	q->sq_tail = (uint16_t)((q->sq_tail + 1) % q->entries);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	nvme_write32(q->regs, nvme_sq_doorbell(q->regs, q->qid), q->sq_tail);
	return HV_OK;
}

/* "Read of LBA 8" / "Identify": the command in slot s, for messages. */
static void describe(const struct nvme_queue *q, unsigned s, char *buf,
		     size_t len)
{
	const char *name = nvme_opcode_name(q->qid == 0, q->slot[s].opcode);

	if (q->qid == 0)
		fmt_snprintf(buf, len, "%s, command id %u", name, s);
	else
		fmt_snprintf(buf, len, "%s of LBA %llu, command id %u", name,
			     (unsigned long long)q->slot[s].lba, s);
}

/*
 * One new completion entry (its phase tag already checked), read once:
 * the slot it answers, or -1 with the queue broken.
 */
static int check_completion(struct nvme_queue *q,
			    const volatile struct nvme_cqe *e)
{
	uint16_t cid = e->cid, sq_id = e->sq_id;

	if (sq_id != q->qid) {
		break_queue(q, "the controller posted a completion for "
			    "another queue", "submission queue %u, command "
			    "id %u", sq_id, cid);
		return -1;
	}
	if (cid >= nvme_queue_depth(q) || !q->slot[cid].busy) {
		break_queue(q, "the controller completed a command it did not "
			    "have", "command id %u, completed twice or never "
			    "submitted", cid);
		return -1;
	}
	return cid;
}

static void finish(struct nvme_queue *q, unsigned slot, enum blk_status blk,
		   uint16_t status, uint32_t result, struct nvme_done *out)
{
	*out = (struct nvme_done){
		.cookie = q->slot[slot].cookie,
		.blk = blk,
		.status = status,
		.result = result,
		.opcode = q->slot[slot].opcode,
		.lba = q->slot[slot].lba,
		.prp1 = q->slot[slot].prp1,
	};
	q->free_slot[q->nfree++] = (uint8_t)slot;
}

/*
 * 4.6: an entry is new when its phase tag equals the one expected for
 * this pass over the ring; the expected tag flips at each wrap. The
 * acquire fence orders the reads of the entry after that of its tag.
 */
static unsigned take_completions(struct nvme_queue *q, struct nvme_done *out,
				 unsigned max, bool *drained)
{
	unsigned n = 0;

	*drained = false;
	while (n < max) {
		const volatile struct nvme_cqe *e = &q->cq[q->cq_head];
		uint16_t status = e->status;
		int slot;

		if ((status & NVME_CQE_PHASE) != q->phase) {
			*drained = true;
			break;
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		slot = check_completion(q, e);
		if (slot < 0)
			return n;
		q->slot[slot].busy = false;
		q->in_flight--;
		status = NVME_STATUS_FIELD(status);
		finish(q, (unsigned)slot, status ? BLK_IO_ERROR : BLK_OK,
		       status, e->result, &out[n++]);
		if (++q->cq_head == q->entries) {
			q->cq_head = 0;
			q->phase ^= 1;
		}
	}
	/* 4.1: tell the controller which entries it may reuse. */
	if (n)
		nvme_write32(q->regs, nvme_cq_doorbell(q->regs, q->qid),
			     q->cq_head);
	return n;
}

/* 3.1.6: CSTS.CFS, or all ones when the controller is gone. */
static bool check_controller(struct nvme_queue *q)
{
	uint32_t csts = nvme_read32(q->regs, NVME_REG_CSTS);

	if (csts == NVME_CSTS_GONE) {
		break_queue(q, "the controller does not answer", "CSTS reads "
			    "0x%08x", csts);
		return false;
	}
	if (csts & NVME_CSTS_CFS) {
		break_queue(q, "the controller reports a fatal status",
			    "CSTS.CFS set, CSTS 0x%08x", csts);
		return false;
	}
	return true;
}

static void check_deadlines(struct nvme_queue *q)
{
	uint64_t now = nvme_now(q->regs);
	char what[96];

	for (unsigned s = 0; s < nvme_queue_depth(q); s++) {
		if (!q->slot[s].busy || now <= q->slot[s].deadline)
			continue;
		describe(q, s, what, sizeof(what));
		break_queue(q, "a command did not complete in time", "%s, "
			    "%llu ms", what, (unsigned long long)
			    (q->timeout_ticks / q->regs->ticks_per_ms));
		return;
	}
}

unsigned nvme_queue_poll(struct nvme_queue *q, struct nvme_done *out,
			 unsigned max)
{
	bool drained = false;
	unsigned n = 0;

	if (!q->broken) {
		n = take_completions(q, out, max, &drained);
		/*
		 * Completions still in the ring are not late: deadlines
		 * after. CSTS is read only when nothing came back.
		 */
		if (!q->broken && drained && q->in_flight &&
		    (n || check_controller(q)))
			check_deadlines(q);
	} else if (q->in_flight && controller_stopped(q)) {
		/* Reads held for a reset that has now finished. */
		nvme_queue_fail_all(q, q->broken);
	}
	while (n < max && q->nlocal) {
		q->nlocal--;
		finish(q, q->local[q->nlocal].slot, q->local[q->nlocal].blk,
		       NVME_STATUS_NOT_RUN, 0, &out[n++]);
	}
	return n;
}
