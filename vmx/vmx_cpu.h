/* SPDX-License-Identifier: BSD-2-Clause */
/* VMX operation on one host CPU. */
#ifndef VMX_VMX_CPU_H
#define VMX_VMX_CPU_H

#include "arch/x86/percpu.h"

/* The VMCS revision identifier (IA32_VMX_BASIC[30:0]). */
uint32_t vmx_revision_id(void);

/*
 * Sets IA32_FEATURE_CONTROL if needed, applies the CR0/CR4 fixed bits and
 * executes VMXON. Prints an error line and returns false on failure.
 */
bool vmx_cpu_on(struct percpu *cpu);

#endif
