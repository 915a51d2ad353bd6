/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Offsets and values of struct setup_header and struct boot_params
 * (arch/x86/include/uapi/asm/bootparam.h, as listed in boot.rst and
 * zero-page.rst in Documentation/arch/x86/), shared by the bzImage parser
 * (guest/loaders/linux_boot.c) and the vmlinux describer (guest/loaders/linux_vmlinux.c).
 * Private to guest/.
 */
#ifndef GUEST_LINUX_SETUP_HEADER_H
#define GUEST_LINUX_SETUP_HEADER_H

#include "lib/types.h"

/* struct setup_header, by file offset (= offset in the zero page). */
#define HDR_SETUP_SECTS 0x1f1
#define HDR_SYSSIZE 0x1f4
#define HDR_BOOT_FLAG 0x1fe
#define HDR_JUMP 0x200
#define HDR_MAGIC 0x202
#define HDR_VERSION 0x206
#define HDR_KERNEL_VERSION 0x20e
#define HDR_TYPE_OF_LOADER 0x210
#define HDR_LOADFLAGS 0x211
#define HDR_CODE32_START 0x214
#define HDR_RAMDISK_IMAGE 0x218
#define HDR_RAMDISK_SIZE 0x21c
#define HDR_CMD_LINE_PTR 0x228
#define HDR_INITRD_ADDR_MAX 0x22c
#define HDR_KERNEL_ALIGNMENT 0x230
#define HDR_RELOCATABLE 0x234
#define HDR_XLOADFLAGS 0x236
#define HDR_CMDLINE_SIZE 0x238
#define HDR_SETUP_DATA 0x250
#define HDR_PREF_ADDRESS 0x258
#define HDR_INIT_SIZE 0x260

/* struct boot_params, outside the setup header. */
#define BP_ACPI_RSDP_ADDR 0x070
#define BP_EXT_RAMDISK_IMAGE 0x0c0
#define BP_EXT_RAMDISK_SIZE 0x0c4
#define BP_EXT_CMD_LINE_PTR 0x0c8
#define BP_E820_ENTRIES 0x1e8
#define BP_HDR_HOLE_END 0x290 /* edd_mbr_sig_buffer follows the header */
#define BP_E820_TABLE 0x2d0
#define BP_E820_ENTRY_SIZE 20

#define BOOT_FLAG 0xaa55
#define HDRS_MAGIC 0x53726448u /* "HdrS" */
#define JMP_SHORT 0xeb
#define SECTOR 512
#define SETUP_SECTS_ZERO_MEANS 4
#define SYSSIZE_UNIT 16
#define PROTOCOL_64BIT 0x020c     /* 2.12: xloadflags, XLF_KERNEL_64 */
#define PROTOCOL_ACPI_RSDP 0x020e /* 2.14: acpi_rsdp_addr is read */
#define LOADED_HIGH BIT(0)
#define LOADER_UNDEFINED 0xff     /* type_of_loader: no assigned id */
#define ENTRY_64_OFFSET 0x200

#endif
