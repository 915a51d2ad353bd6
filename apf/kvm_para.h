/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guest-visible numbers of KVM's paravirtual async page fault ABI
 * (arch/x86/include/uapi/asm/kvm_para.h, Documentation/virt/kvm/x86/msr.rst;
 * ../shared/APF-PROTOCOL.md sections 1 to 3). Named once here: apf/ keeps
 * the protocol state, guest/ advertises the CPUID bits, vmx/ writes the
 * shared area and injects.
 */
#ifndef APF_KVM_PARA_H
#define APF_KVM_PARA_H

#include "lib/types.h"

/* Feature bits in EAX of CPUID 0x40000001. */
#define KVM_FEATURE_ASYNC_PF BIT(4)
#define KVM_FEATURE_ASYNC_PF_VMEXIT BIT(10)
#define KVM_FEATURE_ASYNC_PF_INT BIT(14)

#define MSR_KVM_ASYNC_PF_EN 0x4b564d02u
#define MSR_KVM_ASYNC_PF_INT 0x4b564d06u
#define MSR_KVM_ASYNC_PF_ACK 0x4b564d07u

/* MSR_KVM_ASYNC_PF_EN: bits 5:0 are flags, bits 63:6 the area's GPA. */
#define KVM_ASYNC_PF_ENABLED BIT(0)
#define KVM_ASYNC_PF_SEND_ALWAYS BIT(1)
#define KVM_ASYNC_PF_DELIVERY_AS_PF_VMEXIT BIT(2)
#define KVM_ASYNC_PF_DELIVERY_AS_INT BIT(3)
#define KVM_ASYNC_PF_EN_RESERVED (BIT(4) | BIT(5))
#define KVM_ASYNC_PF_AREA_ALIGN 64u

/* MSR_KVM_ASYNC_PF_INT: bits 7:0 the vector, the rest reserved. */
#define KVM_ASYNC_PF_VEC_MASK 0xffu

/* MSR_KVM_ASYNC_PF_ACK: bit 0 says "the token slot is free again". */
#define KVM_ASYNC_PF_ACK_SLOT_FREE BIT(0)

/*
 * struct kvm_vcpu_pv_apf_data: only its first 8 bytes are ABI the host
 * touches (KVM's cache covers exactly these), the rest is guest padding.
 */
#define KVM_APF_AREA_FLAGS_OFFSET 0u    /* u32, host writes the reason */
#define KVM_APF_AREA_TOKEN_OFFSET 4u    /* u32, host writes page-ready token */
#define KVM_APF_AREA_HOST_BYTES 8u

#define KVM_PV_REASON_PAGE_NOT_PRESENT 1u

/* "Page ready" for every task of the receiving vCPU (kvm_async_pf_wakeup_all). */
#define KVM_APF_TOKEN_WAKE_ALL 0xffffffffu

/* #PF vector and error code of an injected "page not present". */
#define KVM_APF_PF_VECTOR 14u
#define KVM_APF_PF_ERROR_CODE 0u

#endif
