/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What every kernel loader does the same way: copying its pieces into
 * guest memory with one clear error when host frames run out, and putting
 * the platform's ACPI tables at LOADER_ACPI_TABLES_GPA (the old BIOS area,
 * where a guest scanning 0xE0000-0xFFFFF for the RSDP finds it).
 */
#ifndef GUEST_LOADER_COMMON_H
#define GUEST_LOADER_COMMON_H

#include "guest/loaders/elf_kernel.h"
#include "guest/vm.h"

#define LOADER_ACPI_TABLES_GPA 0xe0000ull

/* Copies len bytes to gpa; false after one error line naming what. */
bool loader_write(struct vm *g, uint64_t gpa, const void *src, uint64_t len,
		  const char *what);

/*
 * Each segment's file bytes at its physical address. The rest of each
 * (its BSS) is left alone: the VM is new, every page of its RAM reads as
 * zero until written (zero-filled on first touch), so writing zeros would
 * only take host frames the kernel may never use. The caller keeps
 * everything else it writes out of the segments.
 */
bool loader_write_segments(struct vm *g, const uint8_t *img,
			   const struct elf_kernel *k);

/* Builds and writes the ACPI tables; *rsdp_gpa is the RSDP's address. */
bool loader_write_acpi_tables(struct vm *g, uint64_t *rsdp_gpa);

#endif
