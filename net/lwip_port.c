// SPDX-License-Identifier: BSD-2-Clause
/*
 * What lwIP asks of its platform when it runs without an operating system
 * (NO_SYS, net/lwip_port/lwipopts.h): a millisecond clock (sys_now), random
 * numbers for its local ports and initial sequence numbers, and what an
 * assertion that fails does (stop: the stack's state is no longer known).
 */
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"
#include "lib/console.h"
#include "lwip/arch.h"
#include "lwip/sys.h"

/* Before tsc_calibrate() (never in practice: the network starts later). */
#define UNCALIBRATED_TSC_HZ 1000000000ull

u32_t sys_now(void)
{
	uint64_t hz = tsc_hz ? tsc_hz : UNCALIBRATED_TSC_HZ;

	return (u32_t)(rdtsc() / (hz / 1000));
}

/*
 * Not for secrets (no TCP sequence number is one here: the network is the
 * emulator's own or a private link): xorshift64*, seeded from the TSC at
 * the first call and stirred with it at every call.
 */
uint32_t lwip_port_rand(void)
{
	static uint64_t state;

	state ^= rdtsc() | 1;
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return (uint32_t)((state * 0x2545f4914f6cdd1dull) >> 32);
}

void lwip_port_assert(const char *what, const char *file, int line)
{
	hv_fatal("net: lwIP assertion failed at %s:%d: %s", file, line, what);
}

/* netif.c's netif_find() parses a number with it; apfvisor never calls it. */
int atoi(const char *s)
{
	int n = 0, sign = 1;

	if (*s == '-') {
		sign = -1;
		s++;
	}
	while (*s >= '0' && *s <= '9')
		n = n * 10 + (*s++ - '0');
	return sign * n;
}
