/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * debug.blockdev_selftest = on: instead of a guest, exercise the swap
 * device's driver: write a few thousand slots with a per-run pattern,
 * several requests in flight, read them back and compare. Needs no VT-x,
 * so tests/qemu runs it under QEMU TCG on virtio-blk.
 */
#ifndef SWAP_BLOCKDEV_SELFTEST_H
#define SWAP_BLOCKDEV_SELFTEST_H

#include "swap/swap_params.h"

/*
 * Opens the swap device of that kind (swap_device_open prints why when
 * there is none), then prints
 *   "apfvisor: blockdev selftest: wrote N pages, read N pages,
 *    mismatches M, errors E"
 * and "apfvisor: blockdev selftest: PASS" or "... FAIL". Only the slots
 * are written, never the header page (which is read back and checked at
 * the end).
 */
void blockdev_selftest_run(enum swap_device_kind kind);

#endif
