/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kvmclock: the paravirtual clock a KVM guest reads instead of calibrating
 * its TSC against a PIT or HPET it does not have (APF-PROTOCOL.md §8;
 * layout from Linux arch/x86/include/asm/pvclock-abi.h, MSRs from
 * Documentation/virt/kvm/x86/msr.rst). Pure C.
 */
#ifndef GUEST_KVMCLOCK_H
#define GUEST_KVMCLOCK_H

#include "lib/types.h"

#define MSR_KVM_WALL_CLOCK_NEW 0x4b564d00u
#define MSR_KVM_SYSTEM_TIME_NEW 0x4b564d01u
#define KVM_SYSTEM_TIME_ENABLE BIT(0)
#define PVCLOCK_TSC_STABLE_BIT 0x01
#define PVCLOCK_GUEST_STOPPED 0x02

struct pvclock_vcpu_time_info {
	uint32_t version;
	uint32_t pad0;
	uint64_t tsc_timestamp;
	uint64_t system_time;
	uint32_t tsc_to_system_mul;
	int8_t tsc_shift;
	uint8_t flags;
	uint8_t pad[2];
} PACKED;

struct pvclock_wall_clock {
	uint32_t version;
	uint32_t sec;
	uint32_t nsec;
} PACKED;

struct pvclock_scale {
	uint32_t mul;
	int8_t shift;
};

/*
 * The (mul, shift) pair with which the guest turns TSC ticks into ns:
 * ns = ((ticks << shift, or >> -shift) * mul) >> 32, with the shifted rate
 * in (1 GHz, 2 GHz] so that mul keeps the most precision.
 */
struct pvclock_scale pvclock_scale_for(uint64_t tsc_hz);

/* The guest's own formula, for the host's side of the clock. */
uint64_t pvclock_ticks_to_ns(uint64_t ticks, struct pvclock_scale s);

/* The record for tsc_now = ns_now; version must be even (complete). */
void pvclock_fill(struct pvclock_vcpu_time_info *ti, uint32_t version,
		  uint64_t tsc_now, uint64_t ns_now, struct pvclock_scale s,
		  uint8_t flags);

#endif
