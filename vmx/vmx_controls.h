/* SPDX-License-Identifier: BSD-2-Clause */
/* VM-execution, VM-exit and VM-entry control bits (SDM Vol. 3C, 25.6-25.8). */
#ifndef VMX_VMX_CONTROLS_H
#define VMX_VMX_CONTROLS_H

#include "lib/types.h"

/* IA32_VMX_BASIC (SDM Vol. 3D, A.1). */
#define VMX_BASIC_REVISION_MASK     0x7fffffffull
#define VMX_BASIC_TRUE_CTLS         BIT(55)

/* IA32_VMX_MISC[4:0]: the preemption timer ticks at TSC >> this. */
#define VMX_MISC_PREEMPTION_RATE_MASK 0x1full

/* Pin-based VM-execution controls (25.6.1). */
#define PIN_EXTERNAL_INTERRUPT_EXITING BIT(0)
#define PIN_NMI_EXITING                BIT(3)
#define PIN_VIRTUAL_NMIS               BIT(5)
#define PIN_PREEMPTION_TIMER           BIT(6)
#define PIN_POSTED_INTERRUPTS          BIT(7)

/* Primary processor-based VM-execution controls (25.6.2). */
#define PROC_INTERRUPT_WINDOW_EXITING  BIT(2)
#define PROC_USE_TSC_OFFSETTING        BIT(3)
#define PROC_HLT_EXITING               BIT(7)
#define PROC_MWAIT_EXITING             BIT(10)
#define PROC_RDPMC_EXITING             BIT(11)
#define PROC_CR8_LOAD_EXITING          BIT(19)
#define PROC_CR8_STORE_EXITING         BIT(20)
#define PROC_MONITOR_EXITING           BIT(29)
#define PROC_NMI_WINDOW_EXITING        BIT(22)
#define PROC_UNCONDITIONAL_IO_EXITING  BIT(24)
#define PROC_USE_IO_BITMAPS            BIT(25)
#define PROC_USE_MSR_BITMAPS           BIT(28)
#define PROC_ACTIVATE_SECONDARY        BIT(31)

/* Secondary processor-based VM-execution controls (25.6.2). */
#define PROC2_ENABLE_EPT               BIT(1)
#define PROC2_ENABLE_RDTSCP            BIT(3)
#define PROC2_ENABLE_VPID              BIT(5)
#define PROC2_UNRESTRICTED_GUEST       BIT(7)
#define PROC2_APIC_REGISTER_VIRT       BIT(8)
#define PROC2_VIRTUAL_INTR_DELIVERY    BIT(9)
#define PROC2_ENABLE_INVPCID           BIT(12)
#define PROC2_ENABLE_PML               BIT(17)
#define PROC2_ENABLE_XSAVES            BIT(20)

/* VM-exit controls (25.7.1). */
#define EXIT_SAVE_DEBUG_CONTROLS       BIT(2)
#define EXIT_HOST_ADDR_SPACE_SIZE      BIT(9)
#define EXIT_ACK_INTERRUPT_ON_EXIT     BIT(15)
#define EXIT_SAVE_PAT                  BIT(18)
#define EXIT_LOAD_PAT                  BIT(19)
#define EXIT_SAVE_EFER                 BIT(20)
#define EXIT_LOAD_EFER                 BIT(21)
#define EXIT_SAVE_PREEMPTION_TIMER     BIT(22)

/* VM-entry controls (25.8.1). */
#define ENTRY_LOAD_DEBUG_CONTROLS      BIT(2)
#define ENTRY_IA32E_MODE_GUEST         BIT(9)
#define ENTRY_LOAD_PAT                 BIT(14)
#define ENTRY_LOAD_EFER                BIT(15)

/*
 * The exit and entry controls every VMCS asks for (vmx/vmcs_setup.c; the
 * entry adds IA-32e mode guest for a 64-bit start). The debug controls
 * carry the guest's DR7 and IA32_DEBUGCTL across exits: a VM exit sets
 * DR7 to 400H and clears IA32_DEBUGCTL (SDM Vol. 3C, 28.5.1), and the
 * TRUE_EXIT_CTLS/TRUE_ENTRY_CTLS MSRs let both controls be 0 (Bochs' do),
 * which would lose the guest's breakpoints at its first exit. KVM sets
 * both always (arch/x86/kvm/vmx/vmx.c, setup_vmcs_config).
 */
#define VMX_EXIT_CONTROLS_WANTED                                            \
	(EXIT_SAVE_DEBUG_CONTROLS | EXIT_HOST_ADDR_SPACE_SIZE |             \
	 EXIT_ACK_INTERRUPT_ON_EXIT | EXIT_SAVE_PAT | EXIT_LOAD_PAT |       \
	 EXIT_SAVE_EFER | EXIT_LOAD_EFER)
#define VMX_ENTRY_CONTROLS_WANTED                                           \
	(ENTRY_LOAD_DEBUG_CONTROLS | ENTRY_LOAD_PAT | ENTRY_LOAD_EFER)

/* IA32_VMX_EPT_VPID_CAP (SDM Vol. 3D, A.10). */
#define EPT_CAP_WALK_LENGTH_4          BIT(6)
#define EPT_CAP_MEMTYPE_WB             BIT(14)
#define EPT_CAP_2M_PAGES               BIT(16)
#define EPT_CAP_INVEPT                 BIT(20)
#define EPT_CAP_ACCESSED_DIRTY         BIT(21)
#define EPT_CAP_INVEPT_SINGLE_CONTEXT  BIT(25)
#define EPT_CAP_INVEPT_ALL_CONTEXT     BIT(26)
#define VPID_CAP_INVVPID               BIT(32)
#define VPID_CAP_INVVPID_SINGLE_CONTEXT BIT(41)

#endif
