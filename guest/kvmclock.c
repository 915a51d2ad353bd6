// SPDX-License-Identifier: BSD-2-Clause
#include "guest/kvmclock.h"

#define NSEC_PER_SEC 1000000000ull

struct pvclock_scale pvclock_scale_for(uint64_t tsc_hz)
{
	struct pvclock_scale s = { 0, 0 };
	uint64_t rate = tsc_hz;

	if (!tsc_hz)
		return s;
	while (rate <= NSEC_PER_SEC) {
		rate <<= 1;
		s.shift++;
	}
	while (rate > 2 * NSEC_PER_SEC) {
		rate >>= 1;
		s.shift--;
	}
	s.mul = (uint32_t)((NSEC_PER_SEC << 32) / rate);
	return s;
}

uint64_t pvclock_ticks_to_ns(uint64_t ticks, struct pvclock_scale s)
{
	if (s.shift < 0)
		ticks >>= -s.shift;
	else
		ticks <<= s.shift;
	return (uint64_t)(((unsigned __int128)ticks * s.mul) >> 32);
}

void pvclock_fill(struct pvclock_vcpu_time_info *ti, uint32_t version,
		  uint64_t tsc_now, uint64_t ns_now, struct pvclock_scale s,
		  uint8_t flags)
{
	*ti = (struct pvclock_vcpu_time_info){
		.version = version,
		.tsc_timestamp = tsc_now,
		.system_time = ns_now,
		.tsc_to_system_mul = s.mul,
		.tsc_shift = s.shift,
		.flags = flags,
	};
}
