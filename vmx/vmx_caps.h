/* SPDX-License-Identifier: BSD-2-Clause */
/* What apfvisor needs from VT-x, and the check that it is all there. */
#ifndef VMX_VMX_CAPS_H
#define VMX_VMX_CAPS_H

#include "lib/types.h"

/*
 * Checks every requirement on the current CPU and prints one line
 * "apfvisor: error: <what is missing>" per missing one. Also sets and locks
 * IA32_FEATURE_CONTROL when the firmware left it unlocked.
 */
bool vmx_check_support(void);

/* Enables VMX in IA32_FEATURE_CONTROL on this CPU; false when locked off. */
bool vmx_enable_feature_control(void);

/*
 * Adjusts a wanted control value to the allowed-0/allowed-1 settings of a
 * capability MSR value (SDM Vol. 3D, A.3-A.5): bits that must be 1 are set,
 * bits that may not be 1 are cleared.
 */
static inline uint32_t vmx_adjust_controls(uint64_t cap_msr, uint32_t wanted)
{
	uint32_t must_be_one = (uint32_t)cap_msr;
	uint32_t may_be_one = (uint32_t)(cap_msr >> 32);

	return (wanted | must_be_one) & may_be_one;
}

#endif
