/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The Linux x86 boot protocol, 64-bit entry: pure functions over buffers
 * that read a bzImage's setup header, decide where everything goes in guest
 * RAM, and build the zero page (struct boot_params) and the e820 map.
 * Copying into guest memory and setting the vCPU state is the caller's job.
 *
 * Sources: Linux Documentation/arch/x86/boot.rst (the setup header and the
 * "64-bit Boot Protocol"), Documentation/arch/x86/zero-page.rst and
 * arch/x86/include/uapi/asm/bootparam.h (offsets in struct boot_params).
 *
 * How the caller boots a kernel:
 *
 *	linux_parse_bzimage(img, len, &k, ...);
 *	linux_build_e820(ram, &reserved, e820, E820_MAX_ENTRIES_ZEROPAGE);
 *	linux_plan_layout(&k, ram, initrd_len, cmdline_len, &reserved, &l, ...);
 *	linux_build_boot_params(img, len, &k, &l, e820, n, rsdp, zero_page);
 *	copy img + k.kernel_offset (k.kernel_size bytes) to l.kernel_addr,
 *	zero_page to l.boot_params_addr, the command line and its NUL to
 *	l.cmdline_addr, the initrd to l.initrd_addr; leave the rest of
 *	[l.kernel_addr, l.kernel_end) as it is (the kernel clears its own bss).
 *
 * Entry state (boot.rst, "64-bit Boot Protocol"; the decompressor's
 * startup_64 in arch/x86/boot/compressed/head_64.S is what runs there):
 *  - RIP = linux_entry_point(&l), RSI = l.boot_params_addr; the other
 *    general registers may be zero. RSP is not used before startup_64
 *    loads its own stack, but point it at a reserved page all the same.
 *  - 64-bit mode with 4-level paging: CR0.PE|PG (and NE, ET, WP), CR4.PAE
 *    (LA57 clear), EFER.LME|LMA. CR3 is an identity map that covers at
 *    least [l.kernel_addr, l.kernel_end), the zero page, the command line
 *    and the initrd; every layout here lies below l.ident_map_end <= 4 GiB,
 *    so an identity map of 0..4 GiB with 2 MiB pages is enough.
 *  - A GDT holding __BOOT_CS (LINUX_BOOT_CS, flat 64-bit execute/read code)
 *    and __BOOT_DS (LINUX_BOOT_DS, flat read/write data); CS = __BOOT_CS,
 *    DS = ES = SS = __BOOT_DS (FS and GS too, for good measure).
 *  - Interrupts disabled: RFLAGS = 0x2 (IF = 0).
 */
#ifndef GUEST_LINUX_BOOT_H
#define GUEST_LINUX_BOOT_H

#include "lib/guest_ram.h"
#include "lib/types.h"

/* Selectors of the 64-bit entry (boot.rst) and descriptors that fit them. */
#define LINUX_BOOT_CS 0x10
#define LINUX_BOOT_DS 0x18
#define LINUX_BOOT_GDT_CODE64 0x00af9b000000ffffull /* L=1, P, DPL 0, X/R */
#define LINUX_BOOT_GDT_DATA 0x00cf93000000ffffull   /* 4 GiB flat, R/W */

/* e820 types (arch/x86/include/asm/e820/types.h). */
#define E820_TYPE_RAM 1
#define E820_TYPE_RESERVED 2
#define E820_TYPE_ACPI 3 /* ACPI tables: the kernel may reclaim them */
#define E820_TYPE_NVS 4

/* boot_params.e820_table holds this many entries (bootparam.h). */
#define E820_MAX_ENTRIES_ZEROPAGE 128

/* One entry of boot_params.e820_table (struct boot_e820_entry). */
struct e820_entry {
	uint64_t addr;
	uint64_t size;
	uint32_t type;
} PACKED;

/* xloadflags bits (bootparam.h). */
#define XLF_KERNEL_64 BIT(0)
#define XLF_CAN_BE_LOADED_ABOVE_4G BIT(1)

#define LINUX_VERSION_MAX 128

/* What linux_parse_bzimage found in the setup header. */
struct bzimage_info {
	uint16_t protocol;          /* boot protocol, 0x020f for 2.15 */
	uint8_t setup_sects;        /* 0 in the file already turned into 4 */
	uint8_t loadflags;
	uint16_t xloadflags;
	bool relocatable;           /* relocatable_kernel != 0 */
	uint64_t header_end;        /* 0x202 + byte at 0x201 */
	uint64_t kernel_offset;     /* protected-mode kernel, in the file */
	uint64_t kernel_size;       /* its length: syssize * 16, or the rest */
	uint32_t kernel_alignment;
	uint64_t pref_address;
	uint32_t init_size;         /* memory it needs from its runtime start */
	uint32_t cmdline_size;      /* longest command line, NUL not counted */
	uint32_t initrd_addr_max;   /* highest byte an initrd may occupy */
	char version[LINUX_VERSION_MAX]; /* kernel_version string, or "" */
};

/*
 * Reads and checks a bzImage's setup header. Returns 0, or -1 with one line
 * (no "apfvisor: error: " prefix, no newline) in err.
 */
int linux_parse_bzimage(const void *img, uint64_t len, struct bzimage_info *out,
			char *err, size_t err_len);

#define LINUX_MAX_RESERVED 8

/* Guest memory the caller keeps for itself (page tables, GDT, ACPI). */
struct linux_reserved_area {
	uint64_t base;
	uint64_t size;
	uint32_t e820_type; /* E820_TYPE_RESERVED or E820_TYPE_ACPI; 0 = 2 */
};

struct linux_reserved {
	unsigned count;
	struct linux_reserved_area area[LINUX_MAX_RESERVED];
};

/* Guest-physical addresses chosen by linux_plan_layout. */
struct linux_layout {
	uint64_t ram_size;
	uint64_t kernel_addr;      /* protected-mode kernel copied here */
	uint64_t kernel_size;      /* = bzimage_info.kernel_size */
	uint64_t kernel_end;       /* end of the memory it uses (init_size) */
	bool relocated;            /* kernel_addr != pref_address */
	uint64_t boot_params_addr; /* the zero page, one page */
	uint64_t cmdline_addr;     /* command line and its NUL */
	uint64_t cmdline_len;      /* without the NUL */
	uint64_t initrd_addr;      /* 0 when there is no initrd */
	uint64_t initrd_size;
	uint64_t min_ram;          /* smallest RAM this plan would fit in */
	uint64_t ident_map_end;    /* everything above lies below this */
};

/*
 * Places the kernel, the zero page, the command line (cmdline_len bytes
 * without its NUL) and the initrd (initrd_size bytes, 0 for none) in
 * [0, ram_size) (the RAM below the PCI hole, lib/guest_ram.h: all of
 * it is below 4 GiB), away from the reserved areas (reserved may be NULL).
 * Returns 0, or -1 with one line in err (initrd too large, command line
 * too long, RAM too small with the minimum, kernel not relocatable).
 */
int linux_plan_layout(const struct bzimage_info *k, uint64_t ram_size,
		      uint64_t initrd_size, uint64_t cmdline_len,
		      const struct linux_reserved *reserved,
		      struct linux_layout *out, char *err, size_t err_len);

/*
 * Fills the zero page: the image's setup header, then the loader's fields
 * (boot.rst, zero-page.rst). Uses at most E820_MAX_ENTRIES_ZEROPAGE of
 * e820; acpi_rsdp = 0 leaves acpi_rsdp_addr alone (the kernel then scans
 * the BIOS areas for the RSDP itself).
 */
void linux_build_boot_params(const void *img, uint64_t len,
			     const struct bzimage_info *k,
			     const struct linux_layout *l,
			     const struct e820_entry *e820, unsigned n_e820,
			     uint64_t acpi_rsdp, uint8_t zero_page[4096]);

/*
 * The guest's e820 map: RAM over [0, ram->low_size) except the reserved
 * areas, which carry their own type (reserved wins where areas overlap),
 * clipped to low_size, adjacent entries of one type merged; then the RAM
 * from 4 GiB when there is some. Sorted. Returns the number of entries,
 * or 0 when there is no RAM below 4 GiB or max entries are too few.
 */
unsigned linux_build_e820(const struct guest_ram_layout *ram,
			  const struct linux_reserved *reserved,
			  struct e820_entry *out, unsigned max);

/* The 64-bit entry: the loaded kernel + 0x200 (boot.rst). */
uint64_t linux_entry_point(const struct linux_layout *l);

#endif
