/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SATA disks on AHCI host bus adapters (PCI class 01:06:01), polled, behind
 * the block interface of swap/blockdev.h: one blockdev per disk, named
 * "ahci BB:DD.F portN". tools/qemu-run --swap IMAGE --swap-kind ahci
 * attaches a swap image to q35's built-in AHCI (00:1f.2).
 */
#ifndef SWAP_AHCI_H
#define SWAP_AHCI_H

#include "swap/blockdev.h"

/*
 * The port the firmware loaded apfvisor from (boot/ reads it from the
 * loaded image's device path before ExitBootServices): the port of an
 * AHCI function at PCI device dev, function fn is never touched, not even
 * stopped, whatever the bus. Without this call every port is probed
 * (which only reads: nothing is written to a disk without a swap header).
 */
void ahci_skip_boot_port(uint8_t dev, uint8_t fn, unsigned port);

/*
 * Every AHCI function: AHCI mode on (GHC.AE), interrupts off, bus master
 * on; every implemented port with a SATA disk (PxSSTS.DET = 3, PxSIG
 * 00000101h) taken over (its command engine stopped, our own command list
 * and FIS area, started again) and identified. Each disk is
 *   - usable: kept, after one line naming it;
 *   - unusable (engine does not stop, IDENTIFY DEVICE failed, no 48-bit
 *     LBA, not 512-byte sectors): one "apfvisor: error:" line.
 * Ports without a disk and ATAPI devices are left alone without a word.
 * Probed on the first call only; fills out with up to max disks and
 * returns how many.
 */
unsigned ahci_probe_all(struct blockdev **out, unsigned max);

#endif
