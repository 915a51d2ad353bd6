/* SPDX-License-Identifier: BSD-2-Clause */
/* Starting host application processors with INIT-SIPI-SIPI. */
#ifndef ARCH_X86_SMP_H
#define ARCH_X86_SMP_H

#include "arch/x86/percpu.h"

typedef void (*ap_entry_fn)(struct percpu *cpu);

/*
 * Copies the start code to trampoline_pa (a page below 1 MiB) once.
 * cr3 must be below 4 GiB: the AP loads it in 32-bit mode.
 */
void smp_init(uint64_t trampoline_pa, uint64_t cr3);

/*
 * Starts cpu (created with percpu_create) at entry, on its own stack, with
 * this hypervisor's GDT/IDT loaded. Returns false if it did not come online
 * within ~200 ms.
 */
bool smp_start_cpu(struct percpu *cpu, ap_entry_fn entry);

#endif
