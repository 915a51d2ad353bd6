/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * KVM's paravirtual IPI hypercall, KVM_HC_SEND_IPI (Documentation/virt/
 * kvm/x86/hypercalls.rst; arch/x86/kvm/lapic.c kvm_pv_send_ipi): one
 * VMCALL sends an IPI to many vCPUs by physical APIC ID. RBX and RCX are
 * a 128-bit bitmap (two 32-bit halves, a 64-bit bitmap in 32-bit code),
 * RDX the APIC ID of its bit 0, RSI the ICR's low half (vector, delivery
 * mode). Bit i of the low half means APIC ID min + i, bit i of the high
 * half min + width + i. The answer is the number of vCPUs the IPI went
 * to; IDs no vCPU has are skipped, as KVM skips them. KVM answers the
 * call whether or not CPUID offers it (KVM_FEATURE_PV_SEND_IPI is checked
 * only when the VMM asks KVM to enforce its CPUID), and so does apfvisor;
 * it does not offer the feature in CPUID, so Linux keeps its APIC IPIs.
 */
#ifndef GUEST_PV_SEND_IPI_H
#define GUEST_PV_SEND_IPI_H

#include "guest/vm.h"

#define KVM_HC_SEND_IPI 10

/*
 * From vCPU from; wide: 64-bit bitmap halves (the caller runs 64-bit
 * code). Takes dev.lock. Returns how many vCPUs were sent the IPI.
 */
unsigned guest_pv_send_ipi(struct vm *g, unsigned from, uint64_t low,
			   uint64_t high, uint64_t min, uint64_t icr,
			   bool wide);

#endif
