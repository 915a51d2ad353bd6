/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The values the CPU refuses with #GP when software loads them into the
 * control registers and MSRs whose writes apfvisor emulates. The rules
 * are the SDM's (Vol. 3A 2.5, 4.1.1, 11.12.2, 17.4.1; Vol. 4 for the MSR
 * layouts) as KVM applies them (kvm_is_valid_cr0 and kvm_set_cr0,
 * set_efer, kvm_pat_valid, vmx_set_msr in arch/x86/kvm/). Emulating a
 * write without them would put into the VMCS a value that fails the next
 * VM entry (SDM Vol. 3C 26.3.1), so the guest gets the CPU's #GP instead.
 */
#ifndef ARCH_X86_REGISTER_RULES_H
#define ARCH_X86_REGISTER_RULES_H

#include "arch/x86/cpu.h"

#define CR4_LA57        BIT(12)
#define CR4_PCIDE       BIT(17)

#define DEBUGCTL_LBR    BIT(0)
#define DEBUGCTL_BTF    BIT(1)

/* The DEBUGCTL bits a guest may set: branch recording and single-step
 * on branches, as KVM offers without a virtual PMU. */
#define DEBUGCTL_GUEST_WRITABLE (DEBUGCTL_LBR | DEBUGCTL_BTF)

/*
 * IA32_PAT: eight entries, each one of the memory types UC (0), WC (1),
 * WT (4), WP (5), WB (6), UC- (7); 2, 3 and 8-255 are reserved.
 */
static inline bool pat_value_valid(uint64_t value)
{
	for (unsigned i = 0; i < 8; i++) {
		uint8_t type = (uint8_t)(value >> (8 * i));

		if (type > 7 || type == 2 || type == 3)
			return false;
	}
	return true;
}

/*
 * MTRR memory types (SDM Vol. 3A 11.11.1): UC (0), WC (1), WT (4), WP (5),
 * WB (6); 2, 3 and 7 (UC-, a PAT type only) are reserved.
 */
static inline bool mtrr_type_valid(uint8_t type)
{
	return type <= 6 && type != 2 && type != 3;
}

/* A fixed-range MTRR: eight types, one per byte. */
static inline bool mtrr_fixed_value_valid(uint64_t value)
{
	for (unsigned i = 0; i < 8; i++)
		if (!mtrr_type_valid((uint8_t)(value >> (8 * i))))
			return false;
	return true;
}

/* Bits 63 down to va_bits - 1 all equal (va_bits: 48, or 57 with LA57). */
static inline bool address_canonical(uint64_t va, unsigned va_bits)
{
	int64_t top = (int64_t)(va << (64 - va_bits)) >> (64 - va_bits);

	return (uint64_t)top == va;
}

static inline unsigned guest_va_bits(uint64_t cr4)
{
	return cr4 & CR4_LA57 ? 57 : 48;
}

static inline bool debugctl_value_valid(uint64_t value)
{
	return !(value & ~DEBUGCTL_GUEST_WRITABLE);
}

/*
 * MOV to CR0 of `value` when CR0 was `old`, with the given EFER and CR4,
 * and `cs_long` the L bit of the current code segment (64-bit mode).
 */
static inline bool cr0_write_valid(uint64_t value, uint64_t old,
				   uint64_t efer, uint64_t cr4, bool cs_long)
{
	bool paging_on = (value & CR0_PG) && !(old & CR0_PG);
	bool paging_off = !(value & CR0_PG) && (old & CR0_PG);

	if (value >> 32)
		return false;           /* bits 63:32 are reserved */
	if ((value & CR0_NW) && !(value & CR0_CD))
		return false;
	if ((value & CR0_PG) && !(value & CR0_PE))
		return false;
	/* Paging on with LME: IA-32e mode needs PAE, and not from a
	 * 64-bit code segment (which cannot be running yet). */
	if (paging_on && (efer & EFER_LME) &&
	    (!(cr4 & CR4_PAE) || cs_long))
		return false;
	/* Paging off from 64-bit code, or with PCIDs on. */
	if (paging_off && (((efer & EFER_LMA) && cs_long) ||
			   (cr4 & CR4_PCIDE)))
		return false;
	return true;
}

/*
 * WRMSR of EFER: only the `writable` bits, and LME may not change while
 * paging is on (LMA is the CPU's: the caller keeps the old one).
 */
static inline bool efer_write_valid(uint64_t value, uint64_t old,
				    uint64_t cr0, uint64_t writable)
{
	if (value & ~writable)
		return false;
	if ((cr0 & CR0_PG) && ((value ^ old) & EFER_LME))
		return false;
	return true;
}

#endif
