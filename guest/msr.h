/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guest's model-specific registers that are platform state rather than
 * VMCS state (vmx/exit_msr.c handles those): MTRRs, MISC_ENABLE, the
 * microcode and platform IDs, the TSC and IA32_TSC_ADJUST (guest/vcpu_tsc.h),
 * kvmclock, the machine-check banks. An MSR nobody claims raises #GP in the
 * guest, as on KVM (APF-PROTOCOL.md §2).
 */
#ifndef GUEST_MSR_H
#define GUEST_MSR_H

#include "lib/types.h"
#include "guest/mce.h"
#include "guest/vcpu_tsc.h"

#define MSR_IA32_TSC 0x10
#define MSR_IA32_PLATFORM_ID 0x17
#define MSR_IA32_BIOS_SIGN_ID 0x8b
#define MSR_IA32_MTRRCAP 0xfe
#define MSR_IA32_MISC_ENABLE 0x1a0
#define MSR_IA32_MTRR_FIX64K 0x250
#define MSR_IA32_MTRR_FIX16K_80000 0x258
#define MSR_IA32_MTRR_FIX16K_A0000 0x259
#define MSR_IA32_MTRR_FIX4K_FIRST 0x268
#define MSR_IA32_MTRR_FIX4K_LAST 0x26f
#define MSR_IA32_MTRR_DEF_TYPE 0x2ff
#define GUEST_MTRR_FIXED_COUNT 11

enum msr_result {
	MSR_HANDLED,
	MSR_RAISE_GP,
};

struct vm;

/* Per-vCPU MSR state that lives outside the VMCS. */
struct vcpu_msrs {
	uint64_t mtrr_def_type;
	uint64_t mtrr_fixed[GUEST_MTRR_FIXED_COUNT];
	uint64_t misc_enable;
	uint64_t kvmclock_system_time;  /* last SYSTEM_TIME_NEW value */
	uint64_t kvmclock_host_tsc;     /* the host TSC its record is for */
	uint32_t kvmclock_version;
	struct vcpu_tsc tsc;            /* the guest's TSC: offset, ADJUST */
	struct guest_mce mce;           /* machine-check banks (guest/mce.h) */
};

void vcpu_msrs_init(struct vcpu_msrs *m);

/*
 * A WRMSR of these that guest_wrmsr() handled may have changed the vCPU's
 * TSC offset (m->tsc.offset), which vmx/ then writes into the VMCS.
 */
static inline bool guest_msr_moves_tsc(uint32_t msr)
{
	return msr == MSR_IA32_TSC || msr == MSR_IA32_TSC_ADJUST;
}

/* Local APIC MSRs go to vcpu's guest/devices/vlapic.c (under g->lock). */
enum msr_result guest_rdmsr(struct vm *g, unsigned vcpu, uint32_t msr,
			    uint64_t *value);
enum msr_result guest_wrmsr(struct vm *g, unsigned vcpu, uint32_t msr,
			    uint64_t value);

#endif
