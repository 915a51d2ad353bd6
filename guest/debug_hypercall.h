/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * debug.hypercall: one VMCALL for test programs in the guest, answered
 * only when the configuration turns it on (tests), from any CPL, so that
 * an ordinary process of the test image can use it. Off, the number is
 * unknown like any other (vmx/exit_vmx_insn.c: KVM's -KVM_ENOSYS, or
 * -KVM_EPERM from user mode).
 *
 * KVM's hypercall convention (Documentation/virt/kvm/x86/hypercalls.rst):
 * RAX = APFVISOR_HC_DEBUG, RBX = the operation, RCX = its argument; the
 * answer in RAX, a negative KVM error code when refused.
 *
 *   DEBUG_HC_FAIL_SWAPIN  RCX = a guest-physical address: from now on
 *       every read of its page from swap fails as if the disk had failed
 *       it, so the page's next swap-in loses it and the guest gets a
 *       machine check when it touches it (vmx/exit_lost_page.c). 0, or
 *       -KVM_EINVAL (no swap, outside RAM, too many pages named).
 *   DEBUG_HC_PAGE_STATE   RCX = a guest-physical address: the state of
 *       its page (enum guest_page_state: 0 untouched, 1 resident, 2
 *       writeback, 3 swapped, 4 swap-in), or -KVM_EINVAL outside RAM. A
 *       test waits for 3 before it touches a page whose swap-in is to
 *       fail.
 *   DEBUG_HC_EVICT_PAGE   RCX = a guest-physical address: its page goes
 *       out now, as the paging daemon's victim would (written to swap,
 *       dropped when clean or zero, or into the compressed tier), whatever
 *       the policy would pick. 0, or -KVM_EINVAL (no swap, outside RAM,
 *       not resident, pinned). The write completes later: a test waits
 *       for state 3.
 *   DEBUG_HC_MARK         RCX = a number the guest chooses: one line,
 *       "apfvisor: mark N: swap.ins A swap.outs B ...", with the counters
 *       that say what a phase of a run moved (MARK_COUNTERS in
 *       debug_hypercall.c), so that a benchmark can split a run into its
 *       phases (tools/bench-real: each sqlite3 run apart). 0.
 */
#ifndef GUEST_DEBUG_HYPERCALL_H
#define GUEST_DEBUG_HYPERCALL_H

#include "lib/types.h"

/* "APF" and 1: far from KVM's own numbers (1..12). */
#define APFVISOR_HC_DEBUG 0x41504601u

enum debug_hc_op {
	DEBUG_HC_FAIL_SWAPIN = 1,
	DEBUG_HC_PAGE_STATE = 2,
	DEBUG_HC_EVICT_PAGE = 3,
	DEBUG_HC_MARK = 4,
};

/* include/uapi/linux/kvm_para.h */
#define KVM_ENOSYS 1000
#define KVM_EPERM 1
#define KVM_EINVAL 22

struct vm;

/* The answer for RAX (the VM has debug.hypercall on). */
int64_t vm_debug_hypercall(struct vm *vm, uint64_t op, uint64_t arg);

#endif
