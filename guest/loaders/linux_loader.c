// SPDX-License-Identifier: BSD-2-Clause
#include "guest/loaders/linux_loader.h"
#include "guest/devices/acpi_tables.h"
#include "guest/loaders/boot_state.h"
#include "guest/loaders/loader_common.h"
#include "guest/loaders/linux_boot.h"
#include "guest/loaders/linux_vmlinux.h"
#include "lib/console.h"
#include "lib/string.h"

#define ERR_MAX 192

static uint8_t zero_page[PAGE_SIZE];
static struct e820_entry e820[E820_MAX_ENTRIES_ZEROPAGE];

/* The hypervisor's own structures in low guest memory. */
static void reserved_areas(struct linux_reserved *r)
{
	*r = (struct linux_reserved){
		.count = 2,
		.area = {
			{ BOOT_STATE_BASE, BOOT_STATE_END - BOOT_STATE_BASE,
			  E820_TYPE_RESERVED },
			{ LINUX_ACPI_TABLES_GPA, MiB(1) - LINUX_ACPI_TABLES_GPA,
			  E820_TYPE_ACPI },
		},
	};
}

/* One kernel image, either format, as the shared path needs it. */
struct kernel_image {
	struct bzimage_info k;
	const uint8_t *header;  /* the setup header's source for the zero page */
	uint64_t header_len;
	bool elf;
	struct elf_kernel elf_info;
};

static uint8_t vmlinux_header[LINUX_VMLINUX_HEADER_SIZE];

static void print_plan(const struct kernel_image *ki,
		       const struct linux_layout *l)
{
	const struct bzimage_info *k = &ki->k;

	if (ki->elf)
		hv_info("linux: uncompressed ELF kernel (vmlinux): %u "
			"segments, %llu KiB from the file, loaded at "
			"0x%llx-0x%llx, entry 0x%llx",
			ki->elf_info.count,
			(unsigned long long)(ki->elf_info.file_bytes >> 10),
			(unsigned long long)ki->elf_info.lowest,
			(unsigned long long)ki->elf_info.end,
			(unsigned long long)ki->elf_info.entry);
	else
		hv_info("linux: bzImage, boot protocol %u.%u, %s",
			k->protocol >> 8, k->protocol & 0xff,
			k->version[0] ? k->version : "(no version)");
	hv_info("linux: kernel at 0x%llx (init_size %u KiB), initrd at 0x%llx "
		"(%llu KiB), command line at 0x%llx",
		(unsigned long long)l->kernel_addr, k->init_size >> 10,
		(unsigned long long)l->initrd_addr,
		(unsigned long long)(l->initrd_size >> 10),
		(unsigned long long)l->cmdline_addr);
}

/* Recognises the format by its magic and reads its headers. */
static int parse(const struct vm_spec *spec, struct kernel_image *ki,
		 char *err, size_t err_len)
{
	ki->elf = image_is_elf(spec->kernel, spec->kernel_size);
	if (!ki->elf) {
		ki->header = spec->kernel;
		ki->header_len = spec->kernel_size;
		return linux_parse_bzimage(spec->kernel, spec->kernel_size,
					   &ki->k, err, err_len);
	}
	ki->header = vmlinux_header;
	ki->header_len = sizeof(vmlinux_header);
	if (elf_kernel_parse(spec->kernel, spec->kernel_size, &ki->elf_info,
			     err, err_len))
		return -1;
	return linux_describe_vmlinux(&ki->elf_info, &ki->k, vmlinux_header,
				      err, err_len);
}

static bool plan(const struct vm_spec *spec, const struct linux_reserved *r,
		 struct kernel_image *ki, struct linux_layout *l)
{
	char err[ERR_MAX];

	if (parse(spec, ki, err, sizeof(err)) ||
	    linux_plan_layout(&ki->k, spec->ram.low_size, spec->initrd_size,
			      strlen(spec->cmdline), r, l, err,
			      sizeof(err))) {
		hv_error("guest.kernel '%s': %s", spec->kernel_name, err);
		return false;
	}
	return true;
}

static bool write_kernel(struct vm *g, const struct vm_spec *spec,
			 const struct kernel_image *ki,
			 const struct linux_layout *l)
{
	const uint8_t *img = spec->kernel;

	if (ki->elf)
		return loader_write_segments(g, img, &ki->elf_info);
	return loader_write(g, l->kernel_addr, img + ki->k.kernel_offset,
		     ki->k.kernel_size, "kernel");
}

bool linux_loader_check(const struct vm_spec *spec)
{
	static struct kernel_image ki; /* ~1.5 KiB: not on the stack */
	struct linux_reserved reserved;
	struct linux_layout l;

	reserved_areas(&reserved);
	return plan(spec, &reserved, &ki, &l);
}

bool linux_loader_load(struct vm *g, const struct vm_spec *spec)
{
	static struct kernel_image ki; /* ~1.5 KiB: not on the stack */
	struct linux_reserved reserved;
	struct linux_layout l;
	uint64_t rsdp;
	unsigned n;

	reserved_areas(&reserved);
	if (!plan(spec, &reserved, &ki, &l))
		return false;
	print_plan(&ki, &l);
	n = linux_build_e820(&spec->ram, &reserved, e820,
			     ARRAY_SIZE(e820));
	if (!boot_state_write(g) || !loader_write_acpi_tables(g, &rsdp) ||
	    !write_kernel(g, spec, &ki, &l) ||
	    (spec->initrd_size && !loader_write(g, l.initrd_addr, spec->initrd,
				       spec->initrd_size, "initrd")) ||
	    !loader_write(g, l.cmdline_addr, spec->cmdline,
		   l.cmdline_len + 1, "command line"))
		return false;
	linux_build_boot_params(ki.header, ki.header_len, &ki.k, &l, e820, n,
				rsdp, zero_page);
	if (!loader_write(g, l.boot_params_addr, zero_page, sizeof(zero_page),
		   "zero page"))
		return false;
	boot_state_long_mode_entry(&g->entry, ki.elf ? ki.elf_info.entry
						     : linux_entry_point(&l), 0);
	g->entry.rsi = l.boot_params_addr;
	g->dev.loaded.cmdline_addr = (uint32_t)l.cmdline_addr;
	g->dev.loaded.initrd_addr = (uint32_t)l.initrd_addr;
	g->dev.loaded.initrd_size = (uint32_t)l.initrd_size;
	return true;
}
