// SPDX-License-Identifier: BSD-2-Clause
/*
 * NVMe controller bring-up (swap/drivers/nvme_ctrl.h). Section numbers are those
 * of the NVM Express Base Specification, revision 1.4; the order of the
 * steps is that of 7.6.1 "Initialization".
 */
#include "swap/drivers/nvme_ctrl.h"
#include "lib/console.h"
#include "lib/format.h"
#include "swap/drivers/nvme_command.h"
#include "swap/drivers/nvme_namespace.h"

static uint64_t cap_timeout_ms(const struct nvme_ctrl *c)
{
	/* CAP.TO is in 500 ms units; 0 would be no time at all. */
	return (uint64_t)MAX(NVME_CAP_TO(c->cap), 1u) * NVME_CAP_TO_UNIT_MS;
}

/* 3.1.6: waits until CSTS.RDY == ready, at most CAP.TO. */
static enum hv_err wait_ready(struct nvme_ctrl *c, bool ready)
{
	uint64_t limit = cap_timeout_ms(c) * c->regs.ticks_per_ms;
	uint64_t start = nvme_now(&c->regs);

	for (;;) {
		uint32_t csts = nvme_read32(&c->regs, NVME_REG_CSTS);

		if (csts == NVME_CSTS_GONE) {
			hv_error("%s: the controller does not answer (CSTS "
				 "reads 0x%08x)", c->name, csts);
			return HV_ERR_DEVICE;
		}
		if (ready && (csts & NVME_CSTS_CFS)) {
			hv_error("%s: the controller reports a fatal status "
				 "while being enabled (CSTS.CFS set, CSTS "
				 "0x%08x)", c->name, csts);
			return HV_ERR_DEVICE;
		}
		if (!!(csts & NVME_CSTS_RDY) == ready)
			return HV_OK;
		if (nvme_now(&c->regs) - start > limit) {
			hv_error("%s: CSTS.RDY did not become %u within CAP.TO "
				 "(%llu ms) after CC.EN = %u", c->name, ready,
				 (unsigned long long)cap_timeout_ms(c), ready);
			return HV_ERR_TIMEOUT;
		}
	}
}

enum hv_err nvme_ctrl_disable(struct nvme_ctrl *c)
{
	uint32_t cc = nvme_read32(&c->regs, NVME_REG_CC);

	nvme_write32(&c->regs, NVME_REG_CC, cc & ~(uint32_t)NVME_CC_EN);
	return wait_ready(c, false);
}

/*
 * Whether the controller is disabled: the first call clears CC.EN and
 * waits up to CAP.TO for CSTS.RDY to follow; later ones, while it has
 * not, read CSTS once more instead of waiting again. All ones in CSTS (no
 * answer on the bus, or a lie) does not count as disabled.
 */
static bool controller_disabled(struct nvme_ctrl *c)
{
	uint32_t csts;

	if (!c->stopped) {
		c->stopped = true;
		c->disabled = nvme_ctrl_disable(c) == HV_OK;
	} else if (!c->disabled) {
		csts = nvme_read32(&c->regs, NVME_REG_CSTS);
		c->disabled = csts != NVME_CSTS_GONE &&
			      !(csts & NVME_CSTS_RDY);
	}
	return c->disabled;
}

/*
 * A queue broke: disabling the controller aborts every command (7.3.1),
 * so no page handed back can still be written; the other queues fail
 * what they had. Until the controller is confirmed disabled it may still
 * write into the pages of the Reads in flight: every queue holds those
 * (nvme_queue_hold_all) and fails them once a later call finds CSTS.RDY
 * clear. True when the controller is disabled.
 */
static bool stop_controller(void *ctx)
{
	struct nvme_ctrl *c = ctx;
	bool asked = c->stopped, was_disabled = c->disabled;

	if (!controller_disabled(c)) {
		unsigned held = 0;

		for (unsigned i = 0; i < c->nns; i++) {
			nvme_queue_hold_all(&c->ns[i].queue,
					    "the controller was disabled");
			held += c->ns[i].queue.in_flight;
		}
		if (!asked && held)
			hv_error("%s: the pages of the Reads in flight stay "
				 "held until the controller's reset finishes",
				 c->name);
		return false;
	}
	if (!was_disabled)
		for (unsigned i = 0; i < c->nns; i++)
			nvme_queue_fail_all(&c->ns[i].queue,
					    "the controller was disabled");
	return true;
}

/*
 * Runs one admin command to its end. The wait is bounded: the queue
 * breaks itself (with its error line) at the command's deadline, and the
 * command ends not run (HV_ERR_DEVICE). HV_ERR_IO: an error status.
 */
static enum hv_err run_admin(struct nvme_ctrl *c, const struct nvme_sqe *cmd,
			     const char *what, uint32_t *result)
{
	struct nvme_done done;

	if (nvme_queue_submit(&c->admin, cmd, 0, NULL)) {
		hv_error("%s: %s: the admin queue is full", c->name, what);
		return HV_ERR_BUSY;
	}
	while (!nvme_queue_poll(&c->admin, &done, 1))
		;
	if (done.status == NVME_STATUS_NOT_RUN)
		return HV_ERR_DEVICE;
	if (done.status) {
		hv_error("%s: %s failed: status 0x%03x (SCT %u, SC 0x%02x%s%s)",
			 c->name, what, done.status,
			 NVME_STATUS_SCT(done.status),
			 NVME_STATUS_SC(done.status),
			 *nvme_status_name(done.status) ? ": " : "",
			 nvme_status_name(done.status));
		return HV_ERR_IO;
	}
	if (result)
		*result = done.result;
	return HV_OK;
}

/* 3.1.1: what apfvisor needs of CAP. */
static enum hv_err check_cap(struct nvme_ctrl *c)
{
	uint64_t needed;

	c->cap = nvme_read64(&c->regs, NVME_REG_CAP);
	if (c->cap == UINT64_MAX) {
		hv_error("%s: the controller does not answer (CAP reads all "
			 "ones)", c->name);
		return HV_ERR_DEVICE;
	}
	if (!NVME_CAP_CSS_NVM(c->cap)) {
		hv_error("%s: the controller does not support the NVM command "
			 "set (CAP 0x%016llx)", c->name,
			 (unsigned long long)c->cap);
		return HV_ERR_UNSUPPORTED;
	}
	/* MQES is 0-based and 0 is invalid: a queue holds at least two. */
	if (!NVME_CAP_MQES(c->cap)) {
		hv_error("%s: the controller's queues hold one entry (CAP.MQES "
			 "0); a queue needs two", c->name);
		return HV_ERR_UNSUPPORTED;
	}
	if (NVME_CAP_MPSMIN(c->cap)) {
		hv_error("%s: the controller's smallest memory page is %llu "
			 "KiB, apfvisor uses 4 KiB (CAP.MPSMIN)", c->name,
			 (unsigned long long)(4ull << NVME_CAP_MPSMIN(c->cap)));
		return HV_ERR_UNSUPPORTED;
	}
	c->regs.doorbell_stride = 4u << NVME_CAP_DSTRD(c->cap);
	/* The doorbells of the admin queue and of every I/O queue pair. */
	needed = nvme_cq_doorbell(&c->regs, NVME_MAX_NAMESPACES) + 4;
	if (c->regs_size < needed) {
		hv_error("%s: BAR0 has %llu bytes, the doorbells need %llu "
			 "(CAP.DSTRD %u)", c->name,
			 (unsigned long long)c->regs_size,
			 (unsigned long long)needed, NVME_CAP_DSTRD(c->cap));
		return HV_ERR_UNSUPPORTED;
	}
	if (!c->regs.ticks_per_ms)
		c->regs.ticks_per_ms = 1;
	return HV_OK;
}

/* 7.6.1 steps 1-4: reset, admin queue, CC, wait for CSTS.RDY. */
static enum hv_err enable(struct nvme_ctrl *c)
{
	uint16_t entries = NVME_ADMIN_ENTRIES;
	void *sq = c->alloc_pages(1), *cq = c->alloc_pages(1);
	enum hv_err err = nvme_ctrl_disable(c);

	if (err)
		return err;
	nvme_queue_init(&c->admin, &c->regs, 0, entries, sq, cq,
			NVME_IO_TIMEOUT_MS * c->regs.ticks_per_ms);
	c->admin.name = c->name;
	c->admin.stop_controller = stop_controller;
	c->admin.ctx = c;
	/* 3.1.8: ACQS in 27:16, ASQS in 11:0, both 0-based. */
	nvme_write32(&c->regs, NVME_REG_AQA,
		     (uint32_t)(entries - 1) << 16 | (entries - 1u));
	nvme_write64(&c->regs, NVME_REG_ASQ, (uint64_t)(uintptr_t)sq);
	nvme_write64(&c->regs, NVME_REG_ACQ, (uint64_t)(uintptr_t)cq);
	nvme_write32(&c->regs, NVME_REG_CC,
		     NVME_CC_CSS_NVM | NVME_CC_MPS_4K | NVME_CC_AMS_RR |
		     NVME_CC_IOSQES | NVME_CC_IOCQES | NVME_CC_EN);
	return wait_ready(c, true);
}

/* 7.6.1 step 7 (5.4, 5.5): the completion queue before its SQ. */
static enum hv_err create_io_queues(struct nvme_ctrl *c,
				    struct nvme_namespace *ns, uint16_t qid)
{
	uint16_t entries = (uint16_t)MIN(NVME_QUEUE_ENTRIES,
					 NVME_CAP_MQES(c->cap) + 1u);
	void *sq = c->alloc_pages(1), *cq = c->alloc_pages(1);
	struct nvme_sqe cmd;
	enum hv_err err;

	nvme_queue_init(&ns->queue, &c->regs, qid, entries, sq, cq,
			NVME_IO_TIMEOUT_MS * c->regs.ticks_per_ms);
	ns->queue.name = ns->name;
	ns->queue.stop_controller = stop_controller;
	ns->queue.ctx = c;
	nvme_cmd_create_cq(&cmd, qid, entries, (uint64_t)(uintptr_t)cq);
	err = run_admin(c, &cmd, "Create I/O Completion Queue", NULL);
	if (err)
		return err;
	nvme_cmd_create_sq(&cmd, qid, entries, (uint64_t)(uintptr_t)sq, qid);
	return run_admin(c, &cmd, "Create I/O Submission Queue", NULL);
}

/* Identify Namespace nsid: its block device when it can hold swap. */
static enum hv_err add_namespace(struct nvme_ctrl *c, uint32_t nsid)
{
	struct nvme_namespace *ns = &c->ns[c->nns];
	enum nvme_ns_verdict verdict;
	struct nvme_sqe cmd;
	char what[40];
	const char *why;
	enum hv_err err;

	fmt_snprintf(what, sizeof(what), "Identify Namespace %u", nsid);
	nvme_cmd_identify(&cmd, NVME_CNS_NAMESPACE, nsid,
			  (uint64_t)(uintptr_t)c->identify);
	err = run_admin(c, &cmd, what, NULL);
	if (err)
		return err;
	verdict = nvme_parse_ns_info(c->identify, &ns->info, &why);
	if (verdict == NVME_NS_INACTIVE)
		return HV_OK;
	if (verdict == NVME_NS_UNUSABLE) {
		hv_info("%s: namespace %u not used: %s", c->name, nsid, why);
		return HV_OK;
	}
	ns->ctrl = c;
	ns->nsid = nsid;
	fmt_snprintf(ns->name, sizeof(ns->name), "%s ns%u", c->name, nsid);
	err = create_io_queues(c, ns, (uint16_t)(c->nns + 1));
	if (err)
		return err;
	nvme_namespace_init(ns);
	hv_info("%s: %s, %llu MiB in %u-byte LBAs, %u commands in flight",
		ns->name, c->info.model,
		(unsigned long long)(ns->bdev.size >> 20),
		1u << ns->info.lba_shift, ns->bdev.queue_depth);
	c->nns++;
	return HV_OK;
}

/* 7.6.1 steps 5-8. */
static enum hv_err find_namespaces(struct nvme_ctrl *c)
{
	unsigned pairs = 0, last;
	struct nvme_sqe cmd;
	uint32_t result;
	enum hv_err err;

	nvme_cmd_identify(&cmd, NVME_CNS_CONTROLLER, 0,
			  (uint64_t)(uintptr_t)c->identify);
	err = run_admin(c, &cmd, "Identify Controller", NULL);
	if (err)
		return err;
	nvme_parse_ctrl_info(c->identify, &c->info);
	nvme_cmd_set_queue_count(&cmd, NVME_MAX_NAMESPACES);
	err = run_admin(c, &cmd, "Set Features (Number of Queues)", &result);
	if (err)
		return err;
	pairs = MIN(nvme_granted_queue_pairs(result), NVME_MAX_NAMESPACES);
	last = MIN(c->info.namespaces, NVME_SCAN_NSIDS);
	for (uint32_t nsid = 1; nsid <= last && c->nns < pairs; nsid++) {
		err = add_namespace(c, nsid);
		if (err)
			return err;
	}
	if (!c->nns) {
		hv_error("%s: no usable namespace (%s, %u namespace(s))",
			 c->name, c->info.model, c->info.namespaces);
		return HV_ERR_NOT_FOUND;
	}
	return HV_OK;
}

enum hv_err nvme_ctrl_bring_up(struct nvme_ctrl *c)
{
	enum hv_err err;

	c->nns = 0;
	c->stopped = c->disabled = false;
	err = check_cap(c);
	if (!err)
		err = enable(c);
	if (err)
		return err;
	c->identify = c->alloc_pages(1);
	err = find_namespaces(c);
	/* A broken admin queue has disabled it already. */
	if (err)
		controller_disabled(c);
	return err;
}
