/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the core learns about the machine once it owns it: the host CPUs
 * (ACPI MADT, cross-checked with UEFI MP Services), the RAM below and above
 * 4 GiB, how PCI configuration space is reached (ECAM from the ACPI MCFG,
 * else ports) and the TSC frequency (CPUID, ACPI PM timer from the FADT,
 * PIT). Each part prints its line; see docs/platform.md, "Host discovery
 * and the TSC".
 */
#ifndef BOOT_HOST_DISCOVERY_H
#define BOOT_HOST_DISCOVERY_H

#include "boot/boot_info.h"

/*
 * Fills ids (max entries) with the APIC IDs of the host CPUs and returns
 * their count (at least 1: the boot CPU).
 */
unsigned host_discover_cpus(const struct boot_info *bi, uint32_t bsp_apic_id,
			    uint32_t *ids, unsigned max);

/*
 * Memory, PCI and the TSC (tsc_hz). Needs the hypervisor's page tables.
 * Returns false, after an error line, when no source gave the TSC rate.
 */
bool host_discover_platform(const struct boot_info *bi);

#endif
