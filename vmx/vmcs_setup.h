/* SPDX-License-Identifier: BSD-2-Clause */
/* Building a vCPU's VMCS: controls, host state, and its first guest state. */
#ifndef VMX_VMCS_SETUP_H
#define VMX_VMCS_SETUP_H

#include "vmx/vcpu.h"

/* Where and how a vCPU starts; filled by the guest loader (guest/). */
struct vcpu_entry_state {
	uint64_t rip, rsp, rflags;
	uint64_t cr0, cr3, cr4, efer;
	uint64_t gdtr_base;
	uint16_t gdtr_limit;
	bool long_mode;         /* 64-bit flat segments; else real mode */
	uint64_t rdi, rsi;      /* boot arguments in registers */
	uint16_t real_mode_cs;  /* real mode only: CS selector, base = CS << 4 */
};

/* Allocates, clears and loads v's VMCS, then fills every field. */
bool vmcs_setup(struct vcpu *v, uint64_t eptp, const struct vcpu_entry_state *s);

/* Replaces the guest state of the current VMCS (a SIPI restart). */
void vmcs_load_entry_state(const struct vcpu_entry_state *s);

/* The state a SIPI with this vector starts an AP in (SDM Vol. 3A, 9.1.4). */
void vcpu_sipi_entry_state(uint8_t vector, struct vcpu_entry_state *s);

#endif
