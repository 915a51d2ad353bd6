/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host TSC frequency: from CPUID 0x15/0x16, else measured against the
 * ACPI PM timer, else against the PIT (arch/x86/tsc_choice.h has the order
 * and the log lines). Never from the CPU's brand string: Bochs claims
 * 3.5 GHz while its TSC runs at `ips` Hz (DESIGN.md, Bochs notes).
 */
#ifndef ARCH_X86_TSC_H
#define ARCH_X86_TSC_H

#include "arch/x86/acpi_fadt.h"
#include "arch/x86/tsc_freq.h"

/*
 * Sets tsc_hz from the source want names (auto: the first that works).
 * pm is the FADT's PM timer, or NULL with pm_absent saying why there is
 * none. Returns false, after an error line, when no source gave a rate.
 */
bool tsc_calibrate(enum tsc_source want, const struct acpi_pm_timer *pm,
		   const char *pm_absent);

/*
 * Busy-waits us microseconds on the TSC once it is calibrated (a machine
 * may have no PIT), on the PIT before.
 */
void tsc_delay_us(uint32_t us);

extern uint64_t tsc_hz;

#endif
