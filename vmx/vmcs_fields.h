/* SPDX-License-Identifier: BSD-2-Clause */
/* VMCS field encodings (SDM Vol. 3D, Appendix B). */
#ifndef VMX_VMCS_FIELDS_H
#define VMX_VMCS_FIELDS_H

/* 16-bit fields */
#define VMCS_VPID                       0x0000
#define VMCS_GUEST_ES_SELECTOR          0x0800
#define VMCS_GUEST_CS_SELECTOR          0x0802
#define VMCS_GUEST_SS_SELECTOR          0x0804
#define VMCS_GUEST_DS_SELECTOR          0x0806
#define VMCS_GUEST_FS_SELECTOR          0x0808
#define VMCS_GUEST_GS_SELECTOR          0x080a
#define VMCS_GUEST_LDTR_SELECTOR        0x080c
#define VMCS_GUEST_TR_SELECTOR          0x080e
#define VMCS_HOST_ES_SELECTOR           0x0c00
#define VMCS_HOST_CS_SELECTOR           0x0c02
#define VMCS_HOST_SS_SELECTOR           0x0c04
#define VMCS_HOST_DS_SELECTOR           0x0c06
#define VMCS_HOST_FS_SELECTOR           0x0c08
#define VMCS_HOST_GS_SELECTOR           0x0c0a
#define VMCS_HOST_TR_SELECTOR           0x0c0c

/* 64-bit fields */
#define VMCS_IO_BITMAP_A                0x2000
#define VMCS_IO_BITMAP_B                0x2002
#define VMCS_MSR_BITMAP                 0x2004
#define VMCS_TSC_OFFSET                 0x2010
#define VMCS_EPT_POINTER                0x201a
#define VMCS_GUEST_PHYSICAL_ADDRESS     0x2400
#define VMCS_LINK_POINTER               0x2800
#define VMCS_GUEST_IA32_DEBUGCTL        0x2802
#define VMCS_GUEST_IA32_PAT             0x2804
#define VMCS_GUEST_IA32_EFER            0x2806
/* PAE paging under EPT: the PDPTEs VM entry loads (SDM Vol. 3C, 26.3.2.4). */
#define VMCS_GUEST_PDPTE0               0x280a
#define VMCS_GUEST_PDPTE1               0x280c
#define VMCS_GUEST_PDPTE2               0x280e
#define VMCS_GUEST_PDPTE3               0x2810
#define VMCS_HOST_IA32_PAT              0x2c00
#define VMCS_HOST_IA32_EFER             0x2c02

/* 32-bit fields */
#define VMCS_PIN_BASED_CONTROLS         0x4000
#define VMCS_PROC_BASED_CONTROLS        0x4002
#define VMCS_EXCEPTION_BITMAP           0x4004
#define VMCS_PF_ERROR_CODE_MASK         0x4006
#define VMCS_PF_ERROR_CODE_MATCH        0x4008
#define VMCS_CR3_TARGET_COUNT           0x400a
#define VMCS_EXIT_CONTROLS              0x400c
#define VMCS_EXIT_MSR_STORE_COUNT       0x400e
#define VMCS_EXIT_MSR_LOAD_COUNT        0x4010
#define VMCS_ENTRY_CONTROLS             0x4012
#define VMCS_ENTRY_MSR_LOAD_COUNT       0x4014
#define VMCS_ENTRY_INTERRUPTION_INFO    0x4016
#define VMCS_ENTRY_EXCEPTION_ERROR_CODE 0x4018
#define VMCS_ENTRY_INSTRUCTION_LENGTH   0x401a
#define VMCS_PROC_BASED_CONTROLS2       0x401e
#define VMCS_VM_INSTRUCTION_ERROR       0x4400
#define VMCS_EXIT_REASON                0x4402
#define VMCS_EXIT_INTERRUPTION_INFO     0x4404
#define VMCS_EXIT_INTERRUPTION_ERROR    0x4406
#define VMCS_IDT_VECTORING_INFO         0x4408
#define VMCS_IDT_VECTORING_ERROR        0x440a
#define VMCS_EXIT_INSTRUCTION_LENGTH    0x440c
#define VMCS_EXIT_INSTRUCTION_INFO      0x440e
#define VMCS_GUEST_ES_LIMIT             0x4800
#define VMCS_GUEST_CS_LIMIT             0x4802
#define VMCS_GUEST_SS_LIMIT             0x4804
#define VMCS_GUEST_DS_LIMIT             0x4806
#define VMCS_GUEST_FS_LIMIT             0x4808
#define VMCS_GUEST_GS_LIMIT             0x480a
#define VMCS_GUEST_LDTR_LIMIT           0x480c
#define VMCS_GUEST_TR_LIMIT             0x480e
#define VMCS_GUEST_GDTR_LIMIT           0x4810
#define VMCS_GUEST_IDTR_LIMIT           0x4812
#define VMCS_GUEST_ES_ACCESS_RIGHTS     0x4814
#define VMCS_GUEST_CS_ACCESS_RIGHTS     0x4816
#define VMCS_GUEST_SS_ACCESS_RIGHTS     0x4818
#define VMCS_GUEST_DS_ACCESS_RIGHTS     0x481a
#define VMCS_GUEST_FS_ACCESS_RIGHTS     0x481c
#define VMCS_GUEST_GS_ACCESS_RIGHTS     0x481e
#define VMCS_GUEST_LDTR_ACCESS_RIGHTS   0x4820
#define VMCS_GUEST_TR_ACCESS_RIGHTS     0x4822
#define VMCS_GUEST_INTERRUPTIBILITY     0x4824
#define VMCS_GUEST_ACTIVITY_STATE       0x4826
#define VMCS_GUEST_SYSENTER_CS          0x482a
#define VMCS_PREEMPTION_TIMER_VALUE     0x482e
#define VMCS_HOST_SYSENTER_CS           0x4c00

/* natural-width fields */
#define VMCS_CR0_GUEST_HOST_MASK        0x6000
#define VMCS_CR4_GUEST_HOST_MASK        0x6002
#define VMCS_CR0_READ_SHADOW            0x6004
#define VMCS_CR4_READ_SHADOW            0x6006
#define VMCS_EXIT_QUALIFICATION         0x6400
#define VMCS_GUEST_LINEAR_ADDRESS       0x640a
#define VMCS_GUEST_CR0                  0x6800
#define VMCS_GUEST_CR3                  0x6802
#define VMCS_GUEST_CR4                  0x6804
#define VMCS_GUEST_ES_BASE              0x6806
#define VMCS_GUEST_CS_BASE              0x6808
#define VMCS_GUEST_SS_BASE              0x680a
#define VMCS_GUEST_DS_BASE              0x680c
#define VMCS_GUEST_FS_BASE              0x680e
#define VMCS_GUEST_GS_BASE              0x6810
#define VMCS_GUEST_LDTR_BASE            0x6812
#define VMCS_GUEST_TR_BASE              0x6814
#define VMCS_GUEST_GDTR_BASE            0x6816
#define VMCS_GUEST_IDTR_BASE            0x6818
#define VMCS_GUEST_DR7                  0x681a
#define VMCS_GUEST_RSP                  0x681c
#define VMCS_GUEST_RIP                  0x681e
#define VMCS_GUEST_RFLAGS               0x6820
#define VMCS_GUEST_PENDING_DEBUG        0x6822
#define VMCS_GUEST_SYSENTER_ESP         0x6824
#define VMCS_GUEST_SYSENTER_EIP         0x6826
#define VMCS_HOST_CR0                   0x6c00
#define VMCS_HOST_CR3                   0x6c02
#define VMCS_HOST_CR4                   0x6c04
#define VMCS_HOST_FS_BASE               0x6c06
#define VMCS_HOST_GS_BASE               0x6c08
#define VMCS_HOST_TR_BASE               0x6c0a
#define VMCS_HOST_GDTR_BASE             0x6c0c
#define VMCS_HOST_IDTR_BASE             0x6c0e
#define VMCS_HOST_SYSENTER_ESP          0x6c10
#define VMCS_HOST_SYSENTER_EIP          0x6c12
#define VMCS_HOST_RSP                   0x6c14
#define VMCS_HOST_RIP                   0x6c16

/* Segment access rights in the VMCS format (SDM Vol. 3C, 25.4.1). */
#define VMX_AR_UNUSABLE                 (1u << 16)

/* VM-entry interruption information (SDM Vol. 3C, 25.8.3). */
/* Segment access rights (SDM Vol. 3C 24.4.1, Table 24-2): L, 64-bit code. */
#define SEGMENT_AR_L                    (1u << 13)

#define INTR_INFO_VALID                 (1u << 31)
#define INTR_INFO_DELIVER_ERROR_CODE    (1u << 11)
#define INTR_TYPE_EXTERNAL              (0u << 8)
#define INTR_TYPE_NMI                   (2u << 8)
#define INTR_TYPE_HW_EXCEPTION          (3u << 8)
#define INTR_TYPE_SW_INTERRUPT          (4u << 8)
#define INTR_TYPE_PRIV_SW_EXCEPTION     (5u << 8)
#define INTR_TYPE_SW_EXCEPTION          (6u << 8)
#define INTR_TYPE_MASK                  (7u << 8)
#define INTR_VECTOR_MASK                0xffu

/* Guest interruptibility state (SDM Vol. 3C, 25.4.2, Table 25-3). */
#define INTERRUPTIBILITY_STI            (1u << 0)
#define INTERRUPTIBILITY_MOV_SS         (1u << 1)
#define INTERRUPTIBILITY_NMI            (1u << 3)

/* Exit reason field: bit 31 = VM-entry failure (SDM Vol. 3C, 28.2.1). */
#define EXIT_REASON_ENTRY_FAILURE       (1u << 31)
#define EXIT_REASON_BASIC_MASK          0xffffu

#endif
