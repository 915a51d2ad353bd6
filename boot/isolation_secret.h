/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * debug.isolation_secret: a 64-bit value written, before the guest
 * starts, into memory the guest must never see — a hypervisor heap page,
 * every free frame of the guest's frame pool (which the guest gets only
 * zero-filled or holding its own data), and the boot CPU's stack. With
 * swap, also into every frame freed during the run, the swap drivers' own
 * buffers and, with debug.swap_fail_*, the slots of failed writes and the
 * frames of failed reads. The test guest `isolation` scans all of its RAM
 * for it and must not find it (tests/bochs/test_guests.py; under swap,
 * test_isolation_scan_under_swap).
 */
#ifndef BOOT_ISOLATION_SECRET_H
#define BOOT_ISOLATION_SECRET_H

#include "guest/vm.h"

/* Plants secret (not 0) and prints where: one line, two with swap. */
void isolation_secret_plant(struct vm *vm, uint64_t secret);

#endif
