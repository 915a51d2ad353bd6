/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The ATA swap disk: a driver behind swap/blockdev.h for machines without
 * virtio, chiefly Bochs (tools/bochs-run --swap IMAGE attaches the image
 * as ata0-slave; the boot disk is ata0-master).
 */
#ifndef SWAP_ATA_H
#define SWAP_ATA_H

#include "swap/blockdev.h"

/*
 * Looks for an ATA hard disk on the legacy IDE ports, in the order
 * ata0-slave, ata1-master, ata1-slave. The primary master is the boot disk
 * and is never sent a command. Packet (ATAPI) devices are skipped. The
 * first ATA disk found decides:
 *   - usable: it is returned, after one line naming it;
 *   - unusable (no LBA, not 512-byte sectors, IDENTIFY DEVICE failed or
 *     timed out): one "apfvisor: error:" line, and NULL.
 * NULL without a word when there is no ATA disk. Floating buses (status
 * 0xFF) are recognised at once; every wait is bounded.
 */
struct blockdev *ata_probe(void);

#endif
