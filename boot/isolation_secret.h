/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * debug.isolation_secret: a 64-bit value written, before the guest
 * starts, into memory the guest must never see — a hypervisor heap page,
 * every free frame of the guest's frame pool (which the guest gets only
 * zero-filled or holding its own data), and the boot CPU's stack. The
 * test guest `isolation` scans all of its RAM for it and must not find
 * it (tests/bochs/test_guests.py).
 */
#ifndef BOOT_ISOLATION_SECRET_H
#define BOOT_ISOLATION_SECRET_H

#include "guest/vm.h"

/* Plants secret (not 0) and prints where, in one line. */
void isolation_secret_plant(struct vm *vm, uint64_t secret);

#endif
