/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An NVMe namespace as a block device (swap/blockdev.h): each 4 KiB page
 * request becomes one Read or Write on the namespace's own I/O queue pair.
 * A Read's page is poisoned first, and a Read that succeeds with poison
 * left in it fails (swap/drivers/read_poison.h): NVMe reports no byte count.
 */
#ifndef SWAP_NVME_NAMESPACE_H
#define SWAP_NVME_NAMESPACE_H

#include "swap/drivers/nvme_ctrl.h"

/* Fills ns->bdev from ns->info and ns->queue (set up by nvme_ctrl.c). */
void nvme_namespace_init(struct nvme_namespace *ns);

#endif
