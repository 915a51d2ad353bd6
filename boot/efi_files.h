/* SPDX-License-Identifier: BSD-2-Clause */
/* Reading files from the volume apfvisor.efi was loaded from; UEFI console. */
#ifndef BOOT_EFI_FILES_H
#define BOOT_EFI_FILES_H

#include <efi.h>
#include "lib/console.h"

struct efi_file {
	void *data;     /* page-aligned, EfiLoaderData: survives ExitBootServices */
	uint64_t size;
};

/* path is relative to the volume root; '/' and '\' both separate. */
EFI_STATUS efi_read_file(EFI_HANDLE image, const char *path,
			 struct efi_file *out);

uint64_t efi_find_acpi_rsdp(EFI_SYSTEM_TABLE *systab);

/*
 * Mirrors the hypervisor console to the UEFI text console until detached;
 * while attached, serial_sink is left out if UEFI already writes its text
 * console to a serial port. Detaching puts serial_sink back (once: a
 * second detach changes nothing).
 */
void efi_console_attach(EFI_SYSTEM_TABLE *systab, console_sink_fn serial_sink);
void efi_console_detach(console_sink_fn serial_sink);

#endif
