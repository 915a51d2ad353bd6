/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Multiboot (v1) kernels, the pure part: the header (where the image goes,
 * from its ELF program headers or the "a.out kludge" address fields) and
 * the multiboot information structure the kernel finds through EBX. Both
 * read or build untrusted-input-facing bytes without touching a guest:
 * tests/unit/test_multiboot.c and tests/fuzz/fuzz_multiboot.c drive them.
 * guest/loaders/multiboot_loader.c puts the result into guest memory.
 *
 * Source: the Multiboot Specification version 0.6.96, 3.1 (the OS image
 * header), 3.2 (machine state) and 3.3 (boot information format). Where
 * the specification leaves a choice, apfvisor does what QEMU's -kernel
 * does (hw/i386/multiboot.c): the information structure at 0x9500,
 * mem_lower 640, mem_upper from the RAM below 4 GiB, boot_device
 * 0x8000ffff, a command line "KERNEL-NAME ARGS", modules page-aligned after
 * the kernel, and a video-mode request (header flag 2) that is not
 * honoured, only reported.
 */
#ifndef GUEST_MULTIBOOT_H
#define GUEST_MULTIBOOT_H

#include "guest/loaders/elf_kernel.h"
#include "guest/loaders/linux_boot.h"

/* EAX at entry (3.2). */
#define MULTIBOOT_BOOTLOADER_MAGIC 0x2BADB002u

/* Header flags (3.1.2): bits 0-15 are requirements, 16-31 optional. */
#define MB_HEADER_PAGE_ALIGN       BIT(0)  /* modules page-aligned */
#define MB_HEADER_MEMORY_INFO      BIT(1)  /* mem_* and mmap_* required */
#define MB_HEADER_VIDEO_MODE       BIT(2)  /* a video mode table wanted */
#define MB_HEADER_AOUT_KLUDGE      BIT(16) /* the address fields are valid */
#define MB_HEADER_KNOWN_REQUIRED   (MB_HEADER_PAGE_ALIGN | \
				    MB_HEADER_MEMORY_INFO | \
				    MB_HEADER_VIDEO_MODE)

/* Information flags (3.3). */
#define MB_INFO_MEMORY             BIT(0)
#define MB_INFO_BOOT_DEVICE        BIT(1)
#define MB_INFO_CMDLINE            BIT(2)
#define MB_INFO_MODULES            BIT(3)
#define MB_INFO_MEMORY_MAP         BIT(6)
#define MB_INFO_LOADER_NAME        BIT(9)

/* Where apfvisor puts the information, as QEMU does (below 640 KiB). */
#define MB_INFO_AREA_GPA           0x9000ull    /* the memory map first */
#define MB_INFO_GPA                0x9500ull    /* then the structure */
#define MB_INFO_AREA_END           0x10000ull   /* strings, modules list */
#define MB_INFO_SIZE               88           /* up to boot_loader_name */
#define MB_MODULE_SIZE             16
#define MB_MMAP_ENTRY_SIZE         24           /* the size field + 20 */
#define MB_MAX_MODULES             8

/* A multiboot kernel, checked: what to copy where, and where to enter. */
struct multiboot_kernel {
	uint32_t header_offset;         /* of the magic in the file */
	uint32_t header_flags;
	bool aout_kludge;               /* loaded by the header's addresses */
	/*
	 * The segments (one for the a.out kludge: the file from load_addr's
	 * offset, then zeroes to bss_end_addr), the entry (physical, below
	 * 4 GiB) and the end of the highest segment.
	 */
	struct elf_kernel image;
};

/*
 * Finds and checks the header in the first 8 KiB (magic, checksum, no
 * requirement flag apfvisor does not know), then lists what to load: by
 * the address fields when flag 16 is set, else by the ELF program headers
 * (ELF32 i386 or ELF64 x86-64). Every segment must lie in
 * [1 MiB, ram_size) and stay below 4 GiB. Returns 0, or -1 with one line
 * in err (no prefix, no newline).
 */
int multiboot_parse(const void *img, uint64_t len, uint64_t ram_size,
		    struct multiboot_kernel *out, char *err, size_t err_len);

/* One module as the loader placed it. */
struct multiboot_module {
	uint64_t start, end;            /* guest-physical, end exclusive */
	const char *string;             /* its command line */
};

/* What the information structure describes. */
struct multiboot_info_input {
	const struct e820_entry *map;   /* the memory map, sorted */
	unsigned map_count;
	const char *cmdline;            /* "KERNEL-NAME ARGS" */
	const char *loader_name;
	const struct multiboot_module *mods;
	unsigned mod_count;
};

/*
 * Builds the information area for guest-physical MB_INFO_AREA_GPA into
 * buf (MB_INFO_AREA_END - MB_INFO_AREA_GPA bytes): the memory map at its
 * start, the structure at MB_INFO_GPA, then the module list and the
 * strings. Returns the bytes used, or 0 with one line in err when it does
 * not fit (a very long command line, too many modules or map entries).
 */
size_t multiboot_build_info(const struct multiboot_info_input *in,
			    uint8_t *buf, size_t buf_len, char *err,
			    size_t err_len);

#endif
