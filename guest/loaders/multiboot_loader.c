// SPDX-License-Identifier: BSD-2-Clause
#include "guest/loaders/multiboot_loader.h"
#include "guest/loaders/boot_state.h"
#include "guest/loaders/loader_common.h"
#include "guest/loaders/multiboot.h"
#include "lib/console.h"
#include "lib/format.h"
#include "lib/string.h"

#define ERR_MAX 224
#define MB_CMDLINE_MAX 4096
/* The stack at entry: undefined by the specification; below the info. */
#define MB_ENTRY_STACK MB_INFO_AREA_GPA
/* Where a PC's conventional memory ends (the EBDA and the BIOS above). */
#define MB_LOW_RAM_END 0x9fc00ull

static uint8_t info_area[MB_INFO_AREA_END - MB_INFO_AREA_GPA];
static struct e820_entry map[16];
static char cmdline[MB_CMDLINE_MAX];

/*
 * A PC's map as QEMU's firmware reports it: no RAM from 639 KiB to 1 MiB,
 * nor in the PCI hole below 4 GiB (RAM above it from 4 GiB on).
 */
static unsigned build_map(const struct guest_ram_layout *ram)
{
	struct linux_reserved r = {
		.count = 1,
		.area = {
			{ MB_LOW_RAM_END, MiB(1) - MB_LOW_RAM_END,
			  E820_TYPE_RESERVED },
		},
	};

	return linux_build_e820(ram, &r, map, ARRAY_SIZE(map));
}

/*
 * guest.initrd as module 0, page-aligned after the kernel; after 1 MiB for
 * a kernel in conventional memory (clear of the information area and the
 * EBDA).
 */
static bool place_module(struct vm *g, const struct vm_spec *spec,
			 const struct multiboot_kernel *k,
			 struct multiboot_module *mod)
{
	uint64_t start = ALIGN_UP(MAX(k->image.end, MiB(1)), PAGE_SIZE);
	/* Module addresses are 32 bits: below the PCI hole. */
	uint64_t top = spec->ram.low_size;

	if (start > top || spec->initrd_size > top - start) {
		hv_error("guest.initrd '%s' (%llu KiB) does not fit after the "
			 "multiboot kernel (ends at 0x%llx) in guest.memory = "
			 "%llu MiB (%llu MiB of it below 4 GiB)",
			 spec->initrd_name,
			 (unsigned long long)(spec->initrd_size >> 10),
			 (unsigned long long)k->image.end,
			 (unsigned long long)(guest_ram_total(&spec->ram) >> 20),
			 (unsigned long long)(top >> 20));
		return false;
	}
	*mod = (struct multiboot_module){
		.start = start,
		.end = start + spec->initrd_size,
		.string = spec->initrd_name,
	};
	return loader_write(g, start, spec->initrd, spec->initrd_size,
			    "multiboot module (guest.initrd)");
}

static bool write_info(struct vm *g, const struct vm_spec *spec,
		       const struct multiboot_module *mods, unsigned nmods)
{
	struct multiboot_info_input in = {
		.map = map,
		.map_count = build_map(&spec->ram),
		.cmdline = cmdline,
		.loader_name = "apfvisor",
		.mods = mods,
		.mod_count = nmods,
	};
	char err[ERR_MAX];

	/* As QEMU: the kernel's name, a space, then the arguments. */
	fmt_snprintf(cmdline, sizeof(cmdline), "%s %s", spec->kernel_name,
		     spec->cmdline);
	if (!multiboot_build_info(&in, info_area, sizeof(info_area), err,
				  sizeof(err))) {
		hv_error("guest.kernel '%s': %s", spec->kernel_name, err);
		return false;
	}
	return loader_write(g, MB_INFO_AREA_GPA, info_area, sizeof(info_area),
			    "multiboot information");
}

bool multiboot_loader_load(struct vm *g, const struct vm_spec *spec)
{
	static struct multiboot_kernel k; /* ~1.5 KiB: not on the stack */
	struct multiboot_module mod;
	char err[ERR_MAX];
	uint64_t rsdp;

	if (multiboot_parse(spec->kernel, spec->kernel_size, spec->ram.low_size,
			    &k, err, sizeof(err))) {
		hv_error("guest.kernel '%s': %s", spec->kernel_name, err);
		return false;
	}
	hv_info("multiboot: %s kernel, header flags 0x%x, %u segment%s at "
		"0x%llx-0x%llx, entry 0x%llx",
		k.aout_kludge ? "a.out-kludge" :
		k.image.is32 ? "ELF32" : "ELF64", k.header_flags,
		k.image.count, k.image.count == 1 ? "" : "s",
		(unsigned long long)k.image.lowest,
		(unsigned long long)k.image.end,
		(unsigned long long)k.image.entry);
	if (k.header_flags & MB_HEADER_VIDEO_MODE)
		hv_info("multiboot: the kernel asks for a video mode; there is "
			"no display, so it gets none (as under QEMU)");
	/*
	 * The information goes in before the kernel: a kernel loaded low
	 * over it (kvm-unit-tests' realmode test at 0x8000) keeps its bytes.
	 */
	if (k.image.lowest < MB_INFO_AREA_END)
		hv_info("multiboot: the kernel overlaps the information area "
			"at 0x%llx-0x%llx; its own bytes win there",
			(unsigned long long)MB_INFO_AREA_GPA,
			(unsigned long long)MB_INFO_AREA_END);
	if (!boot_state_write(g) || !loader_write_acpi_tables(g, &rsdp) ||
	    (spec->initrd_size && !place_module(g, spec, &k, &mod)) ||
	    !write_info(g, spec, &mod, spec->initrd_size ? 1 : 0) ||
	    !loader_write_segments(g, spec->kernel, &k.image))
		return false;
	if (spec->initrd_size) {
		g->dev.loaded.initrd_addr = (uint32_t)mod.start;
		g->dev.loaded.initrd_size = (uint32_t)(mod.end - mod.start);
		hv_info("multiboot: module 0 '%s' at 0x%llx-0x%llx",
			spec->initrd_name, (unsigned long long)mod.start,
			(unsigned long long)mod.end);
	}
	boot_state_protected_mode_entry(&g->entry, k.image.entry,
					MB_ENTRY_STACK);
	g->entry.rax = MULTIBOOT_BOOTLOADER_MAGIC;
	g->entry.rbx = MB_INFO_GPA;
	g->config.isa_debug_exit = true;
	g->config.show_vga_text = true;
	return true;
}
