/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Loading a multiboot (v1) kernel as `qemu -kernel` does: its segments
 * (guest/loaders/multiboot.h decides where), guest.initrd as its first module
 * (page-aligned after the kernel), the multiboot information and the
 * memory map at 0x9000, the ACPI tables in the old BIOS area, and vCPU 0
 * entering in 32-bit protected mode with EAX = 0x2BADB002 and EBX = the
 * information's address. Port 0xf4 then acts as QEMU's isa-debug-exit.
 */
#ifndef GUEST_MULTIBOOT_LOADER_H
#define GUEST_MULTIBOOT_LOADER_H

#include "guest/vm.h"

/* Prints one "apfvisor: error:" line and returns false on failure. */
bool multiboot_loader_load(struct vm *g, const struct vm_spec *spec);

#endif
