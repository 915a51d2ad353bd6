/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * virtio-blk over the virtio 1.0 "modern" PCI transport (virtio 1.0, 4.1 and
 * 5.2), polled, behind the block interface of swap/blockdev.h. One split
 * virtqueue; each request is three descriptors (header, one 4 KiB page,
 * status byte).
 */
#ifndef SWAP_VIRTIO_BLK_H
#define SWAP_VIRTIO_BLK_H

#include "swap/blockdev.h"

/*
 * Finds the first usable virtio-blk PCI function (vendor 0x1af4, device 0x1042, or
 * the transitional 0x1001 when it has the modern capabilities) and brings it
 * up to DRIVER_OK. Returns NULL and prints nothing when there is none;
 * prints one "apfvisor: error: virtio-blk BB:DD.F: ..." line and returns
 * NULL when the device is there but unusable.
 */
struct blockdev *virtio_blk_probe(void);

/*
 * Every virtio-blk function (at most 4), each brought up as above, in PCI
 * order: fills out with up to max and returns how many. The bus is
 * scanned on the first call only; later calls return the same devices.
 */
unsigned virtio_blk_probe_all(struct blockdev **out, unsigned max);

#endif
