/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The bytes of the guest instruction at a linear address, fetched through
 * the guest's own page tables: for the exits whose instruction apfvisor
 * must see (emulated MMIO, vmx/exit_mmio.c; a whole-page store,
 * vmx/exit_ept.c). The VM exit gives no instruction length for EPT
 * violations (SDM Vol. 3C 28.2.1).
 */
#ifndef VMX_INSN_FETCH_H
#define VMX_INSN_FETCH_H

#include "vmx/vcpu.h"

/*
 * Up to max bytes at la, up to the first that cannot be read: one page
 * walk per page the instruction touches (a walk per byte made an xAPIC
 * EOI cost ~20,000 cycles under Bochs), byte by byte only where a read
 * fails. la_mask cuts linear addresses to 32 bits outside 64-bit code:
 * there an instruction at the top of the linear space goes on at 0.
 * Returns the bytes fetched.
 */
unsigned vcpu_fetch_instruction(struct vcpu *v, uint64_t la, uint64_t la_mask,
				uint8_t *bytes, unsigned max);

#endif
