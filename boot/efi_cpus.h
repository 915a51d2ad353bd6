/* SPDX-License-Identifier: BSD-2-Clause */
/* The host CPUs as the firmware's MP Services protocol lists them. */
#ifndef BOOT_EFI_CPUS_H
#define BOOT_EFI_CPUS_H

#include <efi.h>
#include "boot/boot_info.h"

/*
 * Fills bi->cpu_apic_ids / bi->n_cpus from EFI_MP_SERVICES_PROTOCOL (PI
 * specification, volume 2, 13.4). OVMF under Bochs has no ACPI tables, so
 * this is the one source that works everywhere; hv_main falls back to the
 * ACPI MADT when the protocol is absent (n_cpus stays 0).
 */
void efi_discover_cpus(struct boot_info *bi);

#endif
