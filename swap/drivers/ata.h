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
 * and is never sent a command. Packet (ATAPI) devices are skipped. Each
 * ATA disk found is
 *   - usable: kept, after one line naming it;
 *   - unusable (no LBA, not 512-byte sectors, IDENTIFY DEVICE failed or
 *     timed out): one "apfvisor: error:" line, and left alone.
 * Floating buses (status 0xFF) are recognised at once; every wait is
 * bounded. The ports are probed on the first call only; later calls
 * return the same disks. Fills out with up to max of them, in port
 * order, and returns how many.
 */
unsigned ata_probe_all(struct blockdev **out, unsigned max);

/* Host unit tests: forget the disks, probe again on the next call. */
void ata_forget(void);

/* The first usable disk of ata_probe_all(), or NULL. */
struct blockdev *ata_probe(void);

/*
 * debug.isolation_secret: fills the driver's one buffer of its own, where
 * the data blocks of a failed read that are left after the error are
 * drained to, with value in every 8-byte word.
 */
void ata_fill_drain_buffer(uint64_t value);

#endif
