/* SPDX-License-Identifier: BSD-2-Clause */
/* Busy-wait delays from the 8254 PIT (channel 2), before the TSC is known. */
#ifndef ARCH_X86_PIT_H
#define ARCH_X86_PIT_H

#include "lib/types.h"

void pit_delay_us(uint32_t us);

#endif
