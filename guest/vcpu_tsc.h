/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A vCPU's time-stamp counter: the host's TSC plus a per-vCPU offset,
 * which VT-x adds to what RDTSC and RDTSCP return in the guest without an
 * exit (the "use TSC offsetting" control and the TSC-offset field, SDM
 * Vol. 3C 25.6.5 and 26.3). The guest moves it with WRMSR IA32_TSC or
 * IA32_TSC_ADJUST (SDM Vol. 3B 17.17.3), as on KVM (arch/x86/kvm/x86.c:
 * kvm_set_msr_common, adjust_tsc_offset_guest). A guest that never writes
 * either (Linux) keeps offset 0: its TSC is the host's.
 *
 * Every guest TSC value apfvisor turns into host time or back (the
 * IA32_TSC_DEADLINE timer, the kvmclock records, RDMSR IA32_TSC) goes
 * through these functions. Pure C over plain data.
 */
#ifndef GUEST_VCPU_TSC_H
#define GUEST_VCPU_TSC_H

#include "lib/types.h"

#define MSR_IA32_TSC_ADJUST 0x3b

struct vcpu_tsc {
	uint64_t offset;        /* guest TSC - host TSC, modulo 2^64 */
	uint64_t adjust;        /* IA32_TSC_ADJUST, as the guest reads it */
};

/* The guest's TSC when the host's reads host_tsc (wraps as RDTSC does). */
static inline uint64_t vcpu_tsc_guest(const struct vcpu_tsc *t,
				      uint64_t host_tsc)
{
	return host_tsc + t->offset;
}

/*
 * WRMSR IA32_TSC at host_now: the guest's TSC reads value from then on,
 * and IA32_TSC_ADJUST moves by what the TSC moved. Returns that amount
 * (the change of the offset, modulo 2^64).
 */
uint64_t vcpu_tsc_write(struct vcpu_tsc *t, uint64_t value,
			uint64_t host_now);

/* WRMSR IA32_TSC_ADJUST: the TSC moves by value - the old adjust. */
uint64_t vcpu_tsc_write_adjust(struct vcpu_tsc *t, uint64_t value);

/*
 * The host TSC at which the guest's reaches guest_tsc, seen at host_now:
 * host_now if it has already (guest_tsc at or before the guest's TSC
 * now), UINT64_MAX if the host's TSC would wrap first.
 */
uint64_t vcpu_tsc_to_host(const struct vcpu_tsc *t, uint64_t guest_tsc,
			  uint64_t host_now);

#endif
