/* SPDX-License-Identifier: BSD-2-Clause */
/* Busy-wait delays from the 8254 PIT (channel 2), before the TSC is known. */
#ifndef ARCH_X86_PIT_H
#define ARCH_X86_PIT_H

#include "lib/types.h"

/*
 * Returns false when the PIT never signalled the end of a chunk (bounded
 * spin: no PIT, or one the platform gates off); the delay is then unknown.
 */
bool pit_delay_us(uint32_t us);

#endif
