/* SPDX-License-Identifier: BSD-2-Clause */
/* The UEFI memory map and the hypervisor's allocations from it. */
#ifndef BOOT_EFI_MEMORY_H
#define BOOT_EFI_MEMORY_H

#include <efi.h>
#include "boot/boot_info.h"

/* Prints "memory map: N entries, M MiB usable". */
void efi_print_memory_summary(void);

/* Heap, guest frame pool and AP trampoline page (all EfiLoaderData). */
EFI_STATUS efi_allocate_hypervisor_memory(struct boot_info *bi);

/* Records the RAM ranges in bi, then ExitBootServices. */
EFI_STATUS efi_take_memory_map_and_exit(EFI_HANDLE image,
					struct boot_info *bi);

#endif
