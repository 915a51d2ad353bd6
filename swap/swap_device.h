/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The swap device: the block device named by swap.device that carries a
 * valid apfvisor swap header (swap/swap_format.h). Opening it only reads;
 * nothing is ever written to a device whose header did not check out.
 */
#ifndef SWAP_SWAP_DEVICE_H
#define SWAP_SWAP_DEVICE_H

#include "swap/swap_params.h"
#include "swap/blockdev.h"
#include "swap/swap_format.h"

/*
 * Probes the drivers kind allows (AUTO: virtio-blk, then ATA), reads byte
 * 0..4095 of each device found and checks the header. On success fills
 * *hdr, prints
 *   "apfvisor: swap: <device>, <size> MiB, <pages> pages, uuid <uuid>"
 * and returns the device (idle: nothing in flight). Otherwise returns NULL
 * after one "apfvisor: error: swap: <device>: <why>" line per device found,
 * or, when no driver found a device (nor said why it rejected one),
 *   "apfvisor: error: swap: no swap device found (swap.device = <kind>):
 *    attach one (...)", naming the run scripts' --swap option.
 * SWAP_DEVICE_NONE returns NULL without a word. A driver may print its own
 * line when it finds or rejects its device.
 */
struct blockdev *swap_device_open(enum swap_device_kind kind,
				  struct swap_header_info *hdr);

/* "auto", "virtio-blk", "ata" or "none", as in apfvisor.cfg. */
const char *swap_device_kind_name(enum swap_device_kind kind);

/*
 * Runs one page-sized request and waits for it, at most timeout_ms (by the
 * TSC; on a clock-less start-up path, a bounded spin). Only for an idle
 * device: any other completion polled meanwhile would be lost. Returns the
 * request's status, or -1 when the device did not accept the request or
 * did not complete it in time (the page then still belongs to the device).
 */
int blk_run_sync(struct blockdev *dev, enum blk_op op, uint64_t offset,
		 uint64_t buffer_pa, unsigned timeout_ms);

#endif
