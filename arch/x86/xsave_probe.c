// SPDX-License-Identifier: BSD-2-Clause
#include "arch/x86/xsave_probe.h"
#include "arch/x86/cpu.h"

#define CPUID_D1_EAX_XSAVEC BIT(1)
#define XCR0_AVX_BIT BIT(2)
#define YMM_HI_BYTES 16

void xsavec_store_ymm(void *area);

static bool all_bytes(const uint8_t *p, unsigned n, uint8_t value)
{
	for (unsigned i = 0; i < n; i++)
		if (p[i] != value)
			return false;
	return true;
}

enum xsavec_layout xsavec_layout_of(const uint8_t *area)
{
	/* Upper half of YMM0: the first 16 bytes of the AVX component. */
	if (all_bytes(area + XSAVEC_FIRST_EXTENDED_OFFSET, YMM_HI_BYTES, 0xff) &&
	    all_bytes(area + XSAVEC_SSE_REGS_OFFSET, YMM_HI_BYTES, 0))
		return XSAVEC_LAYOUT_RIGHT;
	return XSAVEC_LAYOUT_WRONG;
}

enum xsavec_layout xsavec_probe(void)
{
	static uint8_t area[XSAVEC_PROBE_AREA_SIZE] __attribute__((aligned(64)));
	struct cpuid_regs id, d0, d1;

	cpuid_count(CPUID_LEAF_FEATURES, 0, &id);
	if (!(id.ecx & CPUID_1_ECX_XSAVE) || !(id.ecx & CPUID_1_ECX_AVX))
		return XSAVEC_LAYOUT_NOT_TESTED;
	cpuid_count(CPUID_LEAF_XSAVE, 0, &d0);
	cpuid_count(CPUID_LEAF_XSAVE, 1, &d1);
	if (!(d1.eax & CPUID_D1_EAX_XSAVEC) || !(d0.eax & XCR0_AVX_BIT))
		return XSAVEC_LAYOUT_NOT_TESTED;
	write_cr4(read_cr4() | CR4_OSXSAVE);
	for (unsigned i = 0; i < sizeof(area); i++)
		area[i] = 0;
	xsavec_store_ymm(area);
	return xsavec_layout_of(area);
}
