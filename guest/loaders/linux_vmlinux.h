/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fast boot path: an uncompressed kernel (vmlinux, an ELF file that
 * `make guest` extracts from the bzImage) entered at startup_64 of the
 * kernel proper, so the kernel skips its own decompression. Pure: turns
 * what guest/loaders/elf_kernel.c found into the inputs of the bzImage path's
 * planner and zero-page builder (guest/loaders/linux_boot.h), which then place the
 * initrd and command line and fill boot_params exactly as for a bzImage.
 *
 * What differs from a bzImage (Linux Documentation/arch/x86/boot.rst):
 *  - There is no setup header in a vmlinux. What the kernel proper needs
 *    from boot_params.hdr is what a loader fills in (cmd_line_ptr, the
 *    ramdisk fields, type_of_loader, loadflags; copy_bootdata and
 *    setup_arch in arch/x86/kernel/head64.c and setup.c), so the loader
 *    makes up the rest as a 2.15 bzImage carries it: boot flag, "HdrS",
 *    version, the 64-bit xloadflags, kernel_alignment, cmdline_size
 *    (COMMAND_LINE_SIZE - 1) and initrd_addr_max (arch/x86/boot/header.S);
 *    the fields only the real-mode setup or the decompressor use
 *    (root_flags, vid_mode, setup_sects, syssize, ...) stay zero.
 *    Firecracker boots vmlinux the same way (a zero page built from
 *    scratch, entered at e_entry with RSI pointing at it).
 *  - The kernel is not relocated: each PT_LOAD segment goes at its
 *    p_paddr (the link address; with nokaslr nothing would move it), so
 *    the plan treats it as a non-relocatable kernel occupying
 *    [lowest p_paddr, highest p_paddr + p_memsz).
 *  - The entry is e_entry (startup_64 in arch/x86/kernel/head_64.S, which
 *    expects the same 64-bit state as the decompressor's: identity map,
 *    __BOOT_CS, RSI = boot_params), not the load address + 0x200.
 */
#ifndef GUEST_LINUX_VMLINUX_H
#define GUEST_LINUX_VMLINUX_H

#include "guest/loaders/elf_kernel.h"
#include "guest/loaders/linux_boot.h"

/* The made-up setup header: bytes [0, LINUX_VMLINUX_HEADER_SIZE). */
#define LINUX_VMLINUX_HEADER_SIZE 0x290

/*
 * Fills k as linux_parse_bzimage would for a bzImage of this kernel, and
 * header with the setup header it would carry (for
 * linux_build_boot_params(header, LINUX_VMLINUX_HEADER_SIZE, k, ...)).
 * Returns 0, or -1 with one line in err (a segment below 1 MiB, a span
 * over 4 GiB).
 */
int linux_describe_vmlinux(const struct elf_kernel *e, struct bzimage_info *k,
			   uint8_t header[LINUX_VMLINUX_HEADER_SIZE],
			   char *err, size_t err_len);

#endif
