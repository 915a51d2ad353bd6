/* SPDX-License-Identifier: BSD-2-Clause */
/* The MSR bitmap: which guest RDMSR/WRMSR exit (SDM Vol. 3C, 25.6.9). */
#ifndef VMX_MSR_BITMAP_H
#define VMX_MSR_BITMAP_H

#include "lib/types.h"

/* A page (host-physical) where every MSR exits except the pass-through set. */
uint64_t msr_bitmap_create(void);

/* Clears the read and write exit bits of msr in the bitmap page. */
void msr_bitmap_pass_through(uint8_t *bitmap, uint32_t msr);

#endif
