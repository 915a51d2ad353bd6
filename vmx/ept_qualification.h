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

#endif
