/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guest's machine-check architecture, as KVM emulates it for a vCPU
 * (arch/x86/kvm/x86.c: kvm_vcpu_ioctl_x86_setup_mce, set_msr_mce,
 * get_msr_mce, kvm_vcpu_x86_set_mce), and the one machine check apfvisor
 * raises: a guest page that could not be read back from swap.
 *
 * What the guest sees: CPUID.1 MCE and MCA, IA32_MCG_CAP with
 * GUEST_MCE_BANKS banks (QEMU's default count), MCG_CTL_P, MCG_SER_P (so
 * Linux's handler knows the S/AR bits) and MCG_LMCE_P, with
 * IA32_FEATURE_CONTROL locked and LMCE allowed, as a firmware that
 * enables local machine checks leaves it. Every bank's CTL, STATUS, ADDR
 * and MISC exist. The guest may write a CTL only with 0 or all ones, a
 * STATUS only with 0 (only the hypervisor fills a bank), MCG_STATUS with
 * anything, MCG_CTL with 0 or all ones, MCG_EXT_CTL with LMCE_EN or 0.
 *
 * A lost page is reported as QEMU reports a poisoned page the guest
 * touched (target/i386/kvm/kvm.c, kvm_mce_inject with BUS_MCEERR_AR):
 * bank 9, STATUS = VAL|UC|EN|MISCV|ADDRV|S|AR with MCACOD 0x134 (a data
 * load: "software recoverable action required"), ADDR = the gpa, MISC =
 * physical address mode with the lowest valid bit 12 (the whole page),
 * MCG_STATUS = MCIP|RIPV|EIPV, plus LMCES when the guest enabled local
 * machine checks. Linux's mce_severity() classes that as "action
 * required: data load error in a user process" (or in a recoverable
 * kernel copy) and memory_failure() unmaps the page and sends SIGBUS to
 * the process that owned it (arch/x86/kernel/cpu/mce/core.c,
 * mm/memory-failure.c). Plain C over plain data: tests/unit drives it.
 */
#ifndef GUEST_MCE_H
#define GUEST_MCE_H

#include "lib/types.h"

#define GUEST_MCE_BANKS 10
/* The bank QEMU reports memory errors in. */
#define GUEST_MCE_POISON_BANK 9
/* MCACOD of a data load error (SDM Vol. 3B, 16.10.3, SRAR errors). */
#define MCE_MCACOD_DATA_LOAD 0x134
/* IA32_MCi_MISC: address mode (bits 8:6) and lowest valid bit (5:0). */
#define MCI_MISC_ADDR_MODE_PHYS 2
#define MCI_MISC_ADDR_MODE_SHIFT 6
#define MCI_MISC_ADDR_LSB_PAGE 12

enum mce_bank_reg { MCE_CTL, MCE_STATUS, MCE_ADDR, MCE_MISC, MCE_BANK_REGS };

struct guest_mce {
	uint64_t mcg_cap;
	uint64_t mcg_status;
	uint64_t mcg_ctl;
	uint64_t mcg_ext_ctl;
	uint64_t bank[GUEST_MCE_BANKS][MCE_BANK_REGS];
};

/* A vCPU's machine-check state at power-on (KVM's setup_mce). */
void guest_mce_init(struct guest_mce *m);

/*
 * The MSRs this file answers for: MCG_*, the banks, FEATURE_CONTROL. A
 * read or write returns false where the guest gets #GP.
 */
bool guest_mce_owns_msr(uint32_t msr);
bool guest_mce_rdmsr(const struct guest_mce *m, uint32_t msr,
		     uint64_t *value);
bool guest_mce_wrmsr(struct guest_mce *m, uint32_t msr, uint64_t value);

/* What the vCPU was doing when it touched the lost page. */
struct mce_context {
	bool cr4_mce;                   /* the guest's CR4.MCE */
	bool event_in_delivery;         /* the access delivered an event */
	unsigned nvcpus;
};

enum mce_verdict {
	MCE_INJECT,             /* the bank is filled: raise #MC (vector 18) */
	/* The VM ends, as the CPU would shut down or the guest could not go on: */
	MCE_END_CR4_MCE_CLEAR,  /* #MC with CR4.MCE clear: shutdown */
	MCE_END_MCIP_SET,       /* a #MC while one is in progress: shutdown */
	MCE_END_REPORTING_OFF,  /* MCG_CTL or the bank's CTL not all ones */
	MCE_END_EVENT_DELIVERY, /* the page held what an event delivery needed */
	MCE_END_BROADCAST,      /* no LMCE with several vCPUs: see mce.c */
};

/*
 * The guest touched gpa, whose page cannot be read back: decides whether
 * it gets an action-required machine check and, if so, fills the poison
 * bank and MCG_STATUS for it. Anything but MCE_INJECT changes nothing.
 */
enum mce_verdict guest_mce_poison(struct guest_mce *m, uint64_t gpa,
				  const struct mce_context *ctx);

/* Why the VM ends, for its error line ("" for MCE_INJECT). */
const char *guest_mce_verdict_text(enum mce_verdict v);

#endif
