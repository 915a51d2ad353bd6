// SPDX-License-Identifier: BSD-2-Clause
/* The vmlinux fast boot path's pure part (see guest/loaders/linux_vmlinux.h). */
#include "guest/loaders/linux_vmlinux.h"
#include "guest/loaders/linux_setup_header.h"
#include "lib/bytes.h"
#include "lib/format.h"
#include "lib/string.h"

/* What arch/x86/boot/header.S of Linux 6.1 says for x86-64. */
#define VMLINUX_PROTOCOL 0x020f          /* 2.15 */
#define VMLINUX_HEADER_END 0x26c         /* 0x202 + 0x6a, protocol 2.15 */
#define VMLINUX_ALIGNMENT MiB(2)         /* CONFIG_PHYSICAL_ALIGN */
#define VMLINUX_CMDLINE_SIZE 2047        /* COMMAND_LINE_SIZE - 1 */
#define VMLINUX_INITRD_ADDR_MAX 0x7fffffffu

_Static_assert(VMLINUX_HEADER_END <= LINUX_VMLINUX_HEADER_SIZE &&
	       LINUX_VMLINUX_HEADER_SIZE == BP_HDR_HOLE_END,
	       "the made-up header fills the setup header's hole");

static void make_header(const struct bzimage_info *k, uint8_t *h)
{
	memset(h, 0, LINUX_VMLINUX_HEADER_SIZE);
	le_put(h, HDR_BOOT_FLAG, 2, BOOT_FLAG);
	h[HDR_JUMP] = JMP_SHORT;
	h[HDR_JUMP + 1] = (uint8_t)(VMLINUX_HEADER_END - HDR_MAGIC);
	le_put(h, HDR_MAGIC, 4, HDRS_MAGIC);
	le_put(h, HDR_VERSION, 2, k->protocol);
	h[HDR_LOADFLAGS] = k->loadflags;
	le_put(h, HDR_INITRD_ADDR_MAX, 4, k->initrd_addr_max);
	le_put(h, HDR_KERNEL_ALIGNMENT, 4, k->kernel_alignment);
	le_put(h, HDR_XLOADFLAGS, 2, k->xloadflags);
	le_put(h, HDR_CMDLINE_SIZE, 4, k->cmdline_size);
	le_put(h, HDR_PREF_ADDRESS, 8, k->pref_address);
	le_put(h, HDR_INIT_SIZE, 4, k->init_size);
}

int linux_describe_vmlinux(const struct elf_kernel *e, struct bzimage_info *k,
			   uint8_t header[LINUX_VMLINUX_HEADER_SIZE],
			   char *err, size_t err_len)
{
	uint64_t span = e->end - e->lowest;

	memset(k, 0, sizeof(*k));
	if (e->lowest < MiB(1)) {
		/* apfvisor's boot state and ACPI tables live down there. */
		fmt_snprintf(err, err_len, "ELF kernel segment at physical "
			     "0x%llx lies below 1 MiB",
			     (unsigned long long)e->lowest);
		return -1;
	}
	if (e->end < e->lowest || span > UINT32_MAX) {
		fmt_snprintf(err, err_len, "ELF kernel spans %llu bytes from "
			     "0x%llx: more than init_size can say (4 GiB)",
			     (unsigned long long)span,
			     (unsigned long long)e->lowest);
		return -1;
	}
	*k = (struct bzimage_info){
		.protocol = VMLINUX_PROTOCOL,
		.loadflags = LOADED_HIGH,
		.xloadflags = XLF_KERNEL_64,
		.relocatable = false,
		.header_end = VMLINUX_HEADER_END,
		.kernel_offset = 0,
		.kernel_size = span,
		.kernel_alignment = VMLINUX_ALIGNMENT,
		.pref_address = e->lowest,
		.init_size = (uint32_t)span,
		.cmdline_size = VMLINUX_CMDLINE_SIZE,
		.initrd_addr_max = VMLINUX_INITRD_ADDR_MAX,
	};
	make_header(k, header);
	return 0;
}
