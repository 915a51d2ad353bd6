/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Which host CPUs apfvisor may start: the ACPI MADT is the source, the
 * firmware's MP Services list (the CPUs it actually brought up) the
 * cross-check. Plain C; the line it prints says where the list came from.
 */
#ifndef BOOT_HOST_CPUS_H
#define BOOT_HOST_CPUS_H

#include "lib/types.h"

struct host_cpu_lists {
	const uint32_t *madt;   /* APIC IDs of enabled MADT entries */
	unsigned n_madt;        /* 0: no MADT */
	const uint32_t *mp;     /* APIC IDs from UEFI MP Services */
	unsigned n_mp;          /* 0: no MP Services */
};

/*
 * Fills ids (at most max) and returns their count, printing one line
 * "host cpus: N (...)":
 *  - both lists, the same IDs: the MADT's list;
 *  - both lists, different IDs: the IDs both list (a MADT entry the
 *    firmware did not start may be an empty socket), or, when they share
 *    none, the MP Services list (the MADT does not describe this machine);
 *  - one list: that one;
 *  - none: the boot CPU (bsp_apic_id) alone.
 */
unsigned host_cpus_choose(const struct host_cpu_lists *l, uint32_t bsp_apic_id,
			  uint32_t *ids, unsigned max);

#endif
