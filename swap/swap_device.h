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
#include "net/net_stack.h"

/*
 * Probes the drivers kind allows (AUTO: virtio-blk, NVMe, AHCI, then
 * ATA), reads byte 0..4095 of each device found and checks the header. On
 * success fills *hdr, prints
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

/*
 * debug.isolation_secret: fills the swap path's own data buffers with value
 * in every 8-byte word: the pages swap_device_open read headers into (one
 * per device it looked at) and the ATA driver's drain buffer. Returns how
 * many buffers. The drivers move guest pages straight between the device
 * and the guest's frames, so there is no bounce buffer to fill.
 */
unsigned swap_device_fill_buffers(uint64_t value);

/*
 * swap.device = nbd://...: the servers, and how to bring up the network
 * that reaches them (boot/ calls this before anything opens a device).
 */
void swap_device_set_remotes(const struct swap_remotes *r,
			     const struct net_config *net);

/* Most block devices apfvisor looks at (all drivers together). */
#define BLOCKDEV_MAX 8

/*
 * The block devices kind allows (AUTO: every virtio-blk function, every
 * NVMe namespace, every AHCI disk, then every ATA disk; NONE: none), each
 * probed once per run: fills out with up to max and returns how many.
 */
unsigned blockdev_find_all(enum swap_device_kind kind, struct blockdev **out,
			   unsigned max);

typedef enum hv_err (*blockdev_header_parser)(const void *page,
					      uint64_t dev_size,
					      struct swap_header_info *out,
					      char *err, size_t err_len);

/*
 * Reads the first 4 KiB of the idle device dev into page and checks them
 * with parse (swap_header_parse, trace_disk_header_parse). HV_OK with *hdr
 * filled, or with the reason in err: blk_run_sync's error when the read
 * failed, parse's (HV_ERR_BAD_FORMAT) when the header did not check out.
 */
enum hv_err blockdev_check_header(struct blockdev *dev, uint8_t *page,
				  blockdev_header_parser parse,
				  struct swap_header_info *hdr, char *err,
				  size_t err_len);

/* "auto", "virtio-blk", "nvme", "ahci", "ata" or "none", as in apfvisor.cfg. */
const char *swap_device_kind_name(enum swap_device_kind kind);

/*
 * Runs one page-sized request and waits for it, at most timeout_ms (by the
 * TSC; on a clock-less start-up path, a bounded spin). Only for an idle
 * device: any other completion polled meanwhile would be lost. Returns
 * HV_OK; HV_ERR_IO when the request completed with an error (any status
 * but BLK_OK); HV_ERR_BUSY when the device did not accept it, or
 * HV_ERR_TIMEOUT when it did not complete it in time (the page then still
 * belongs to the device).
 */
enum hv_err blk_run_sync(struct blockdev *dev, enum blk_op op,
			 uint64_t offset, uint64_t buffer_pa,
			 unsigned timeout_ms);

#endif
