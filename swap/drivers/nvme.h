/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NVMe (NVM Express 1.4) over PCI, polled, behind the block interface of
 * swap/blockdev.h: every usable namespace of every controller is one
 * block device named "nvme BB:DD.F nsN", with its own I/O queue pair.
 */
#ifndef SWAP_NVME_H
#define SWAP_NVME_H

#include "swap/blockdev.h"

/*
 * Every namespace of every NVMe controller (PCI class 01:08:02, at most
 * 2 controllers), in PCI and NSID order: fills out with up to max and
 * returns how many. The bus is scanned on the first call only; later
 * calls return the same devices. Prints nothing when there is no
 * controller; one "apfvisor: error: nvme BB:DD.F: ..." line for a
 * controller that is there but unusable.
 */
unsigned nvme_probe_all(struct blockdev **out, unsigned max);

#endif
