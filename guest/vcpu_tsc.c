// SPDX-License-Identifier: BSD-2-Clause
#include "guest/vcpu_tsc.h"

uint64_t vcpu_tsc_write(struct vcpu_tsc *t, uint64_t value, uint64_t host_now)
{
	uint64_t delta = value - vcpu_tsc_guest(t, host_now);

	t->offset += delta;
	t->adjust += delta;
	return delta;
}

uint64_t vcpu_tsc_write_adjust(struct vcpu_tsc *t, uint64_t value)
{
	uint64_t delta = value - t->adjust;

	t->offset += delta;
	t->adjust = value;
	return delta;
}

/*
 * In the guest's terms first: how far ahead of its TSC guest_tsc is. The
 * guest's TSC only grows (no WRMSR in between), so a value at or below it
 * is reached; one above it, that far ahead of the host's TSC.
 */
uint64_t vcpu_tsc_to_host(const struct vcpu_tsc *t, uint64_t guest_tsc,
			  uint64_t host_now)
{
	uint64_t guest_now = vcpu_tsc_guest(t, host_now);
	uint64_t ahead;

	if (guest_tsc <= guest_now)
		return host_now;
	ahead = guest_tsc - guest_now;
	return ahead > UINT64_MAX - host_now ? UINT64_MAX : host_now + ahead;
}
