/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The architectural numbers of arch/x86/cpu.h (CPUID leaves and bits,
 * control-register and EFER bits, MSR indexes, RFLAGS bits), apart from
 * its instructions, so that host unit tests can use them with fake
 * instructions (tests/unit/fake_cpu/).
 */
#ifndef ARCH_X86_CPU_DEFS_H
#define ARCH_X86_CPU_DEFS_H

#include "lib/types.h"

/* CPUID leaves and bits (SDM Vol. 2A, CPUID). */
#define CPUID_LEAF_FEATURES      0x1
#define CPUID_1_ECX_VMX          BIT(5)
#define CPUID_1_ECX_X2APIC       BIT(21)
#define CPUID_1_ECX_XSAVE        BIT(26)
#define CPUID_1_ECX_AVX          BIT(28)
#define CPUID_1_ECX_HYPERVISOR   BIT(31)
#define CPUID_1_EDX_MCE          BIT(7)
#define CPUID_1_EDX_MCA          BIT(14)
#define CPUID_LEAF_XSAVE         0xd

/* Control registers (SDM Vol. 3A, 2.5). */
#define CR0_PE  BIT(0)
#define CR0_MP  BIT(1)
#define CR0_TS  BIT(3)
#define CR0_ET  BIT(4)
#define CR0_NE  BIT(5)
#define CR0_WP  BIT(16)
#define CR0_NW  BIT(29)
#define CR0_CD  BIT(30)
#define CR0_PG  BIT(31)
#define CR4_PAE BIT(5)
#define CR4_MCE BIT(6)
#define CR4_PGE BIT(7)
#define CR4_VMXE BIT(13)
#define CR4_OSXSAVE BIT(18)

/* Model-specific registers (SDM Vol. 4). */
#define MSR_IA32_APIC_BASE          0x1b
#define MSR_IA32_FEATURE_CONTROL    0x3a
#define MSR_IA32_MCG_CAP            0x179
#define MSR_IA32_MCG_STATUS         0x17a
#define MSR_IA32_MCG_CTL            0x17b
#define MSR_IA32_MCG_EXT_CTL        0x4d0
#define MSR_IA32_SYSENTER_CS        0x174
#define MSR_IA32_SYSENTER_ESP       0x175
#define MSR_IA32_SYSENTER_EIP       0x176
#define MSR_IA32_DEBUGCTL           0x1d9
#define MSR_IA32_PAT                0x277
/* Machine-check bank i: CTL, STATUS, ADDR, MISC at 0x400 + 4i. */
#define MSR_IA32_MC_CTL(i)          (0x400 + 4 * (i))
#define MSR_IA32_MC_STATUS(i)       (0x401 + 4 * (i))
#define MSR_IA32_MC_ADDR(i)         (0x402 + 4 * (i))
#define MSR_IA32_MC_MISC(i)         (0x403 + 4 * (i))
#define MCG_CAP_COUNT_MASK          0xff
#define MCG_CTL_P                   BIT(8)      /* IA32_MCG_CTL exists */
#define MCG_SER_P                   BIT(24)     /* software error recovery */
#define MCG_LMCE_P                  BIT(27)     /* local machine checks */
#define MCG_STATUS_RIPV             BIT(0)      /* restart at the saved RIP */
#define MCG_STATUS_EIPV             BIT(1)      /* the saved RIP faulted */
#define MCG_STATUS_MCIP             BIT(2)      /* a #MC is in progress */
#define MCG_STATUS_LMCES            BIT(3)      /* signalled to this CPU only */
#define MCG_EXT_CTL_LMCE_EN         BIT(0)
#define MCI_STATUS_VAL              BIT(63)
#define MCI_STATUS_OVER             BIT(62)
#define MCI_STATUS_UC               BIT(61)
#define MCI_STATUS_EN               BIT(60)
#define MCI_STATUS_MISCV            BIT(59)
#define MCI_STATUS_ADDRV            BIT(58)
#define MCI_STATUS_PCC              BIT(57)
#define MCI_STATUS_S                BIT(56)
#define MCI_STATUS_AR               BIT(55)
#define MSR_IA32_VMX_BASIC          0x480
#define MSR_IA32_VMX_PINBASED_CTLS  0x481
#define MSR_IA32_VMX_PROCBASED_CTLS 0x482
#define MSR_IA32_VMX_EXIT_CTLS      0x483
#define MSR_IA32_VMX_ENTRY_CTLS     0x484
#define MSR_IA32_VMX_MISC           0x485
#define MSR_IA32_VMX_CR0_FIXED0     0x486
#define MSR_IA32_VMX_CR0_FIXED1     0x487
#define MSR_IA32_VMX_CR4_FIXED0     0x488
#define MSR_IA32_VMX_CR4_FIXED1     0x489
#define MSR_IA32_VMX_PROCBASED_CTLS2 0x48b
#define MSR_IA32_VMX_EPT_VPID_CAP   0x48c
#define MSR_IA32_VMX_TRUE_PINBASED_CTLS  0x48d
#define MSR_IA32_VMX_TRUE_PROCBASED_CTLS 0x48e
#define MSR_IA32_VMX_TRUE_EXIT_CTLS      0x48f
#define MSR_IA32_VMX_TRUE_ENTRY_CTLS     0x490
#define MSR_IA32_EFER               0xc0000080
#define MSR_IA32_FS_BASE            0xc0000100
#define MSR_IA32_GS_BASE            0xc0000101

#define APIC_BASE_BSP     BIT(8)
#define APIC_BASE_X2APIC  BIT(10)
#define APIC_BASE_ENABLE  BIT(11)

#define FEATURE_CONTROL_LOCKED          BIT(0)
#define FEATURE_CONTROL_VMX_OUTSIDE_SMX BIT(2)
#define FEATURE_CONTROL_LMCE            BIT(20)

#define EFER_SCE BIT(0)
#define EFER_LME BIT(8)
#define EFER_LMA BIT(10)
#define EFER_NXE BIT(11)

#define RFLAGS_CF BIT(0)
#define RFLAGS_RESERVED_1 BIT(1)
#define RFLAGS_ZF BIT(6)
#define RFLAGS_TF BIT(8)
#define RFLAGS_IF BIT(9)
#define RFLAGS_RF BIT(16)
#define RFLAGS_AC BIT(18)

/* DR6 (SDM Vol. 3B, 17.2.3): bits that read as 1 when no event set them. */
#define DR6_FIXED_ONES   0xffff0ff0ull
#define DR6_TRAP_BITS    0xfull         /* B0-B3: which breakpoint hit */
#define DR6_BD           BIT(13)
#define DR6_BS           BIT(14)
#define DR6_RTM          BIT(16)        /* 0 in DR6 when inside RTM */

/* DR7 (SDM Vol. 3B, 17.2.4): general detect, cleared on entry to #DB. */
#define DR7_GD           BIT(13)

#endif
