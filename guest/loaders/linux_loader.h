/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Loading a Linux kernel through the 64-bit boot protocol, from a bzImage
 * or from an uncompressed ELF vmlinux (the fast path, guest/loaders/linux_vmlinux.h;
 * told apart by their magic): the pure decisions are guest/loaders/linux_boot.c's,
 * guest/loaders/elf_kernel.c's and guest/loaders/linux_vmlinux.c's; this file writes the
 * result into guest memory (kernel, initrd, command line, zero page, ACPI tables, boot
 * page tables) and sets vCPU 0's entry state.
 */
#ifndef GUEST_LINUX_LOADER_H
#define GUEST_LINUX_LOADER_H

#include "guest/loaders/loader_common.h"

/* Guest-physical home of the ACPI tables (the old BIOS area). */
#define LINUX_ACPI_TABLES_GPA LOADER_ACPI_TABLES_GPA

/* Prints one "apfvisor: error:" line and returns false on failure. */
/*
 * The kernel's headers and its layout in spec->memory, without a VM:
 * false (after one error line) when the kernel cannot be loaded.
 */
bool linux_loader_check(const struct vm_spec *spec);
bool linux_loader_load(struct vm *g, const struct vm_spec *spec);

#endif
