/* SPDX-License-Identifier: BSD-2-Clause */
/* Building a vCPU's VMCS: controls, host state, and its first guest state. */
#ifndef VMX_VMCS_SETUP_H
#define VMX_VMCS_SETUP_H

#include "vmx/vcpu.h"

/* Allocates, clears and loads v's VMCS, then fills every field. */
bool vmcs_setup(struct vcpu *v, uint64_t eptp, const struct vcpu_entry_state *s);

/* Replaces the guest state of the current VMCS (a SIPI restart). */
void vmcs_load_entry_state(const struct vcpu_entry_state *s);

/* The state a SIPI with this vector starts an AP in (SDM Vol. 3A, 9.1.4). */
void vcpu_sipi_entry_state(uint8_t vector, struct vcpu_entry_state *s);

#endif
