/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The exit qualification of an EPT violation (SDM Vol. 3C, Table 28-7) and
 * the decisions made from it, as pure functions the unit tests reach.
 */
#ifndef VMX_EPT_QUALIFICATION_H
#define VMX_EPT_QUALIFICATION_H

#include "lib/types.h"

#define EPT_QUAL_READ BIT(0)
#define EPT_QUAL_WRITE BIT(1)
#define EPT_QUAL_FETCH BIT(2)
#define EPT_QUAL_LINEAR_VALID BIT(7)
#define EPT_QUAL_FINAL_TRANSLATION BIT(8)
#define EPT_QUAL_NMI_UNBLOCKED_BY_IRET BIT(12)

/* IDT-vectoring information: valid bit (SDM Vol. 3C, 25.9.3). */
#define EPT_IDT_VECTORING_VALID BIT(31)

/*
 * True when the guest must get "blocking by NMI" back before it resumes:
 * the violation hit while an IRET was unblocking NMIs (bit 12), and not
 * during event delivery (then bit 12 is undefined; 28.2.3).
 */
static inline bool ept_violation_reblocks_nmi(uint64_t qualification,
					      uint32_t idt_vectoring_info)
{
	return (qualification & EPT_QUAL_NMI_UNBLOCKED_BY_IRET) &&
	       !(idt_vectoring_info & EPT_IDT_VECTORING_VALID);
}

/*
 * What an access to a guest-physical address that is neither RAM nor a
 * device becomes: a load or store by an instruction is emulated as a PC
 * answers it (reads all ones, writes dropped); the CPU's own accesses
 * there, an instruction fetch or a read of a paging-structure entry during
 * a page walk (bit 7 set, bit 8 clear: SDM Vol. 3C, Table 28-7), have no
 * instruction to emulate and end the VM. A page walk into a device page
 * likewise must not be emulated as the instruction at RIP.
 */
enum ept_unclaimed_access {
	EPT_UNCLAIMED_EMULATE,
	EPT_UNCLAIMED_FETCH,
	EPT_UNCLAIMED_PAGE_WALK,
};

static inline bool ept_violation_in_page_walk(uint64_t qualification)
{
	return (qualification & EPT_QUAL_LINEAR_VALID) &&
	       !(qualification & EPT_QUAL_FINAL_TRANSLATION);
}

static inline enum ept_unclaimed_access
ept_unclaimed_access_kind(uint64_t qualification)
{
	if (ept_violation_in_page_walk(qualification))
		return EPT_UNCLAIMED_PAGE_WALK;
	if (qualification & EPT_QUAL_FETCH)
		return EPT_UNCLAIMED_FETCH;
	return EPT_UNCLAIMED_EMULATE;
}

#endif
