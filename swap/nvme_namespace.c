// SPDX-License-Identifier: BSD-2-Clause
/*
 * NVMe namespaces behind swap/blockdev.h (swap/nvme_namespace.h).
 */
#include "swap/nvme_namespace.h"
#include "swap/nvme_command.h"

static bool in_range(const struct nvme_namespace *ns,
		     const struct blk_request *req)
{
	return IS_ALIGNED(req->offset, PAGE_SIZE) &&
	       IS_ALIGNED(req->buffer_pa, PAGE_SIZE) &&
	       req->offset < ns->bdev.size &&
	       ns->bdev.size - req->offset >= PAGE_SIZE;
}

static int nvme_ns_submit(struct blockdev *dev, const struct blk_request *req)
{
	struct nvme_namespace *ns = dev->driver;
	struct nvme_sqe cmd;
	int ret;

	if (!in_range(ns, req))
		return nvme_queue_complete_locally(&ns->queue, req->cookie,
						   BLK_OUT_OF_RANGE);
	nvme_cmd_page_io(&cmd, req->op, ns->nsid, ns->info.lba_shift,
			 req->offset, req->buffer_pa);
	ret = nvme_queue_submit(&ns->queue, &cmd,
				req->offset >> ns->info.lba_shift, req->cookie);
	if (ret)
		return ret;
	if (req->op == BLK_WRITE)
		dev->writes++;
	else
		dev->reads++;
	return 0;
}

static unsigned nvme_ns_poll(struct blockdev *dev, struct blk_completion *out,
			     unsigned max)
{
	struct nvme_namespace *ns = dev->driver;
	struct nvme_done done[NVME_QUEUE_SLOTS];
	unsigned n = nvme_queue_poll(&ns->queue, done,
				     MIN(max, (unsigned)ARRAY_SIZE(done)));

	for (unsigned i = 0; i < n; i++) {
		out[i] = (struct blk_completion){ done[i].cookie, done[i].blk };
		if (done[i].blk != BLK_OK)
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
}
