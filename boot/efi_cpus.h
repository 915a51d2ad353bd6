/* SPDX-License-Identifier: BSD-2-Clause */
/* The host CPUs as the firmware's MP Services protocol lists them. */
#ifndef BOOT_EFI_CPUS_H
#define BOOT_EFI_CPUS_H

#include <efi.h>
#include "boot/boot_info.h"

/*
 * Fills bi->cpu_apic_ids / bi->n_cpus from EFI_MP_SERVICES_PROTOCOL (PI
 * specification, volume 2, 13.4): the CPUs the firmware really started.
 * The core takes the ACPI MADT as the source and this list as its
 * cross-check (boot/host_cpus.h); OVMF under Bochs has no ACPI tables, so
 * there this list is used alone. n_cpus stays 0 without the protocol.
 */
void efi_discover_cpus(struct boot_info *bi);

#endif
