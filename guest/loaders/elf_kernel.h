/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An uncompressed x86-64 Linux kernel as an ELF file (vmlinux): a pure
 * parser of its ELF header and program headers, which are untrusted input.
 * No hardware access; tests/unit/test_elf_kernel.c and the fuzz target
 * tests/fuzz/fuzz_elf_kernel.c drive it on the host.
 *
 * Source: the System V ABI's ELF-64 object file format (the ELF header,
 * "Program Header", PT_LOAD) and its x86-64 supplement (EM_X86_64). For a
 * vmlinux, p_paddr is where a segment goes in physical memory and e_entry
 * is the physical address of startup_64 (arch/x86/kernel/vmlinux.lds.S:
 * ENTRY(phys_startup_64)).
 */
#ifndef GUEST_ELF_KERNEL_H
#define GUEST_ELF_KERNEL_H

#include "lib/types.h"

#define ELF_MAGIC "\177ELF"
#define ELF_KERNEL_MAX_SEGMENTS 32

/* One PT_LOAD segment, checked: [offset, offset + filesz) is in the file. */
struct elf_segment {
	uint64_t paddr;  /* guest-physical address of its first byte */
	uint64_t vaddr;  /* the address it is linked at */
	uint64_t offset; /* its data in the file */
	uint64_t filesz; /* bytes copied from the file */
	uint64_t memsz;  /* bytes it occupies; the rest after filesz is zero */
	bool exec;       /* PF_X */
};

struct elf_kernel {
	uint64_t entry;     /* e_entry: physical, inside an executable segment */
	uint64_t lowest;    /* the first segment's paddr */
	uint64_t end;       /* one past the last byte of the highest segment */
	uint64_t file_bytes; /* sum of filesz: what the loader copies */
	unsigned count;     /* segments, sorted by paddr, never overlapping */
	bool is32;          /* an ELF32 file (i386) */
	struct elf_segment seg[ELF_KERNEL_MAX_SEGMENTS];
};

/* Whether the image starts with the ELF magic (then it is not a bzImage). */
bool image_is_elf(const void *img, uint64_t len);

/*
 * Checks an ELF kernel and lists its PT_LOAD segments: 64-bit,
 * little-endian, ET_EXEC, EM_X86_64, program headers inside the file,
 * 1..ELF_KERNEL_MAX_SEGMENTS PT_LOAD segments whose data lies in the file,
 * with filesz <= memsz, that neither wrap around nor overlap, below 4 GiB
 * (the entry identity map, guest/loaders/linux_boot.h), with the entry in an
 * executable one. Where they go in guest RAM is linux_plan_layout's check.
 * Returns 0, or -1 with one line (no prefix, no newline) in err.
 */
int elf_kernel_parse(const void *img, uint64_t len, struct elf_kernel *out,
		     char *err, size_t err_len);

/* Which ELF classes elf_image_parse accepts. */
#define ELF_CLASS_32 1u        /* ELF32, EM_386 */
#define ELF_CLASS_64 2u        /* ELF64, EM_X86_64 */

/*
 * elf_kernel_parse for the given classes: with ELF_CLASS_32 also an i386
 * ELF32 file (a multiboot kernel), whose entry may also be a virtual
 * address inside an executable segment (then translated to its physical
 * one, as multiboot loaders do).
 */
int elf_image_parse(const void *img, uint64_t len, unsigned classes,
		    struct elf_kernel *out, char *err, size_t err_len);

#endif
