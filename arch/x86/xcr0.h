/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * XCR0, the XSAVE feature-enable register (SDM Vol. 1, 13.3), and the
 * combinations a guest may load with XSETBV. The rules are KVM's
 * (__kvm_set_xcr in arch/x86/kvm/x86.c), which are the CPU's own: a value
 * that breaks one makes XSETBV raise #GP, so the hypervisor injects #GP
 * instead of executing an XSETBV that would fault in root mode.
 */
#ifndef ARCH_X86_XCR0_H
#define ARCH_X86_XCR0_H

#include "lib/types.h"

#define XCR0_X87        BIT(0)
#define XCR0_SSE        BIT(1)
#define XCR0_AVX        BIT(2)
#define XCR0_BNDREGS    BIT(3)          /* MPX */
#define XCR0_BNDCSR     BIT(4)
#define XCR0_OPMASK     BIT(5)          /* AVX-512 */
#define XCR0_ZMM_HI256  BIT(6)
#define XCR0_HI16_ZMM   BIT(7)
#define XCR0_XTILE_CFG  BIT(17)         /* AMX */
#define XCR0_XTILE_DATA BIT(18)

#define XCR0_MPX (XCR0_BNDREGS | XCR0_BNDCSR)
#define XCR0_AVX512 (XCR0_OPMASK | XCR0_ZMM_HI256 | XCR0_HI16_ZMM)
#define XCR0_XTILE (XCR0_XTILE_CFG | XCR0_XTILE_DATA)

/*
 * Whether XSETBV may load value into XCR0 when the guest's CPUID leaf 0xD
 * reports the feature bits supported (EDX:EAX of subleaf 0).
 */
static inline bool xcr0_value_valid(uint64_t value, uint64_t supported)
{
	if (value & ~(supported | XCR0_X87))
		return false;
	if (!(value & XCR0_X87))
		return false;
	if ((value & XCR0_AVX) && !(value & XCR0_SSE))
		return false;
	if (!(value & XCR0_BNDREGS) != !(value & XCR0_BNDCSR))
		return false;
	if ((value & XCR0_AVX512) &&
	    (!(value & XCR0_AVX) || (value & XCR0_AVX512) != XCR0_AVX512))
		return false;
	if ((value & XCR0_XTILE) && (value & XCR0_XTILE) != XCR0_XTILE)
		return false;
	return true;
}

#endif
