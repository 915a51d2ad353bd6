/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Idling a host CPU: HLT until an IPI or a deadline, instead of spinning.
 * The hypervisor runs with interrupts off; only here, around one HLT, are
 * they on. The deadline is the LAPIC timer in TSC-deadline mode (SDM Vol.
 * 3A, 11.5.4.1) on HV_WAKE_VECTOR; a kick from another CPU is an IPI on
 * HV_KICK_VECTOR. Both are acknowledged by the host's interrupt entry and
 * ignored otherwise. Without TSC-deadline support the CPU spins to the
 * deadline instead (the behaviour is the same, only the power differs).
 *
 * Under Bochs a halted CPU costs no emulation time, so the other CPUs (the
 * vCPUs) get it: with a service CPU and vCPUs that wait for pages this
 * makes multi-CPU runs several times faster.
 */
#ifndef ARCH_X86_IDLE_H
#define ARCH_X86_IDLE_H

#include "lib/types.h"

#define HV_WAKE_VECTOR 0xf1     /* this CPU's idle deadline */
#define HV_KICK_VECTOR 0xf2     /* another CPU wants this one's attention */

/* On each CPU after lapic_init: arms nothing, masks LINT0 (no ExtINT). */
void cpu_idle_init(void);

/*
 * Marks this CPU idle (cpu_is_idle sees it), then calls still_idle(ctx);
 * when that is true, halts until deadline (a TSC value) or an interrupt.
 * A kicker sets its request first and then looks at cpu_is_idle, and the
 * flag is set before still_idle looks at the requests: so either the
 * request is seen here or the kick arrives (and ends the HLT).
 */
void cpu_idle_until(uint64_t deadline, bool (*still_idle)(void *ctx),
		    void *ctx);

/* Halts this CPU for about us microseconds (or until an interrupt). */
void cpu_idle_us(unsigned us);

/* True while CPU index is in cpu_idle_until (seen by kickers). */
bool cpu_is_idle(unsigned index);

/* Called by the interrupt entry for vectors 32..255: true if handled. */
bool cpu_idle_interrupt(uint64_t vector);

#endif
