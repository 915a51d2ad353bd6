// SPDX-License-Identifier: BSD-2-Clause
/*
 * NVMe namespaces behind swap/blockdev.h (swap/drivers/nvme_namespace.h).
 */
#include "swap/drivers/nvme_namespace.h"
#include "lib/console.h"
#include "swap/drivers/nvme_command.h"
#include "swap/drivers/read_poison.h"

static bool in_range(const struct nvme_namespace *ns,
		     const struct blk_request *req)
{
	return IS_ALIGNED(req->offset, PAGE_SIZE) &&
	       IS_ALIGNED(req->buffer_pa, PAGE_SIZE) &&
	       req->offset < ns->bdev.size &&
	       ns->bdev.size - req->offset >= PAGE_SIZE;
}

static enum hv_err nvme_ns_submit(struct blockdev *dev,
				  const struct blk_request *req)
{
	struct nvme_namespace *ns = dev->driver;
	struct nvme_sqe cmd;
	enum hv_err err;

	if (!in_range(ns, req))
		return nvme_queue_complete_locally(&ns->queue, req->cookie,
						   BLK_OUT_OF_RANGE);
	nvme_cmd_page_io(&cmd, req->op, ns->nsid, ns->info.lba_shift,
			 req->offset, req->buffer_pa);
	/* No byte count comes back: see page_written. */
	if (req->op == BLK_READ)
		read_poison_fill(req->buffer_pa,
				 read_poison_word(ns->poison_seed,
						  req->buffer_pa));
	err = nvme_queue_submit(&ns->queue, &cmd,
				req->offset >> ns->info.lba_shift, req->cookie);
	if (err)
		return err;
	if (req->op == BLK_WRITE)
		dev->writes++;
	else
		dev->reads++;
	return HV_OK;
}

/*
 * A Read that completed with success: did the controller write its whole
 * page? An NVMe completion carries no byte count, so the page was filled
 * with poison before the Read (swap/drivers/read_poison.h); a word still holding
 * it was never written, and the Read fails as if the controller had
 * reported an error (counted; the first one shown). The poison, not a
 * cleared page: a page left cleared would pass for a page of zeros.
 */
static bool page_written(struct nvme_namespace *ns,
			 const struct nvme_done *d)
{
	unsigned left = read_poison_left(d->prp1,
					 read_poison_word(ns->poison_seed,
							  d->prp1));

	if (!left)
		return true;
	if (!ns->bdev.short_transfers)
		hv_error("%s: a short read: the Read of LBA %llu completed "
			 "with success, but %u of the page's %u words were "
			 "never written; it fails (later ones are only "
			 "counted)", ns->name, (unsigned long long)d->lba,
			 left, (unsigned)READ_POISON_WORDS);
	ns->bdev.short_transfers++;
	return false;
}

static unsigned nvme_ns_poll(struct blockdev *dev, struct blk_completion *out,
			     unsigned max)
{
	struct nvme_namespace *ns = dev->driver;
	struct nvme_done done[NVME_QUEUE_SLOTS];
	unsigned n = nvme_queue_poll(&ns->queue, done,
				     MIN(max, (unsigned)ARRAY_SIZE(done)));

	for (unsigned i = 0; i < n; i++) {
		enum blk_status st = done[i].blk;

		if (st == BLK_OK && done[i].opcode == NVME_CMD_READ &&
		    !page_written(ns, &done[i]))
			st = BLK_IO_ERROR;
		out[i] = (struct blk_completion){ done[i].cookie, st };
		if (st != BLK_OK)
			dev->errors++;
	}
	dev->frames_held = ns->queue.frames_held;
	return n;
}

static const struct blockdev_ops nvme_ns_ops = {
	.submit = nvme_ns_submit,
	.poll = nvme_ns_poll,
};

void nvme_namespace_init(struct nvme_namespace *ns)
{
	ns->bdev = (struct blockdev){
		.ops = &nvme_ns_ops,
		.name = ns->name,
		.size = ns->info.lbas << ns->info.lba_shift,
		.queue_depth = nvme_queue_depth(&ns->queue),
		.driver = ns,
	};
	ns->poison_seed = read_poison_seed(nvme_now(ns->queue.regs) ^
					   ns->nsid);
}
