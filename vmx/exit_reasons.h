/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Basic VM-exit reasons (SDM Vol. 3D, Appendix C), listed once: the enum,
 * the names used in the stat lines ("exit.cpuid", ...) and the per-reason
 * counters all come from VMX_EXIT_REASONS.
 */
#ifndef VMX_EXIT_REASONS_H
#define VMX_EXIT_REASONS_H

/* X(constant suffix, number, stat name) */
#define VMX_EXIT_REASONS(X)                                                  \
	X(EXCEPTION_NMI, 0, "exception_nmi")                                 \
	X(EXTERNAL_INTERRUPT, 1, "external_interrupt")                       \
	X(TRIPLE_FAULT, 2, "triple_fault")                                   \
	X(INIT, 3, "init")                                                   \
	X(SIPI, 4, "sipi")                                                   \
	X(INTERRUPT_WINDOW, 7, "interrupt_window")                           \
	X(NMI_WINDOW, 8, "nmi_window")                                       \
	X(TASK_SWITCH, 9, "task_switch")                                     \
	X(CPUID, 10, "cpuid")                                                \
	X(GETSEC, 11, "getsec")                                              \
	X(HLT, 12, "hlt")                                                    \
	X(INVD, 13, "invd")                                                  \
	X(INVLPG, 14, "invlpg")                                              \
	X(RDPMC, 15, "rdpmc")                                                \
	X(RDTSC, 16, "rdtsc")                                                \
	X(VMCALL, 18, "vmcall")                                              \
	X(VMCLEAR, 19, "vmclear")                                            \
	X(VMLAUNCH, 20, "vmlaunch")                                          \
	X(VMPTRLD, 21, "vmptrld")                                            \
	X(VMPTRST, 22, "vmptrst")                                            \
	X(VMREAD, 23, "vmread")                                              \
	X(VMRESUME, 24, "vmresume")                                          \
	X(VMWRITE, 25, "vmwrite")                                            \
	X(VMXOFF, 26, "vmxoff")                                              \
	X(VMXON, 27, "vmxon")                                                \
	X(CR_ACCESS, 28, "cr_access")                                        \
	X(DR_ACCESS, 29, "dr_access")                                        \
	X(IO, 30, "io")                                                      \
	X(RDMSR, 31, "rdmsr")                                                \
	X(WRMSR, 32, "wrmsr")                                                \
	X(INVALID_GUEST_STATE, 33, "invalid_guest_state")                    \
	X(MSR_LOADING, 34, "msr_loading")                                    \
	X(MWAIT, 36, "mwait")                                                \
	X(MONITOR_TRAP, 37, "monitor_trap")                                  \
	X(MONITOR, 39, "monitor")                                            \
	X(PAUSE, 40, "pause")                                                \
	X(MACHINE_CHECK, 41, "machine_check")                                \
	X(TPR_BELOW_THRESHOLD, 43, "tpr_below_threshold")                    \
	X(APIC_ACCESS, 44, "apic_access")                                    \
	X(GDTR_IDTR, 46, "gdtr_idtr")                                        \
	X(LDTR_TR, 47, "ldtr_tr")                                            \
	X(EPT_VIOLATION, 48, "ept_violation")                                \
	X(EPT_MISCONFIG, 49, "ept_misconfig")                                \
	X(INVEPT, 50, "invept")                                              \
	X(RDTSCP, 51, "rdtscp")                                              \
	X(PREEMPTION_TIMER, 52, "preemption_timer")                          \
	X(INVVPID, 53, "invvpid")                                            \
	X(WBINVD, 54, "wbinvd")                                              \
	X(XSETBV, 55, "xsetbv")                                              \
	X(APIC_WRITE, 56, "apic_write")                                      \
	X(RDRAND, 57, "rdrand")                                              \
	X(INVPCID, 58, "invpcid")                                            \
	X(RDSEED, 61, "rdseed")                                              \
	X(XSAVES, 63, "xsaves")                                              \
	X(XRSTORS, 64, "xrstors")

#define VMX_EXIT_ENUM(suffix, number, name) VMX_EXIT_##suffix = number,

enum vmx_exit_reason {
	VMX_EXIT_REASONS(VMX_EXIT_ENUM)
	VMX_EXIT_REASON_MAX = 80,
};

/* "cpuid", "ept_violation", ... as used in the stat names. */
const char *vmx_exit_reason_name(unsigned reason);

#endif
