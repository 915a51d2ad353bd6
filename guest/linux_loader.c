// SPDX-License-Identifier: BSD-2-Clause
#include "guest/linux_loader.h"
#include "guest/acpi_tables.h"
#include "guest/boot_state.h"
#include "guest/linux_boot.h"
#include "lib/console.h"
#include "lib/string.h"

#define ERR_MAX 192

static uint8_t zero_page[PAGE_SIZE];
static uint8_t acpi_buf[ACPI_TABLES_MAX_SIZE];
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

static bool write(struct vm *g, uint64_t gpa, const void *src,
		  uint64_t len, const char *what)
{
	if (vm_write_ram(g, gpa, src, len) == 0)
		return true;
	hv_error("cannot write the %s (%llu bytes at gpa 0x%llx) into guest "
		 "memory: not enough host frames", what,
		 (unsigned long long)len, (unsigned long long)gpa);
	return false;
}

static bool write_acpi_tables(struct vm *g, uint64_t *rsdp)
{
	struct acpi_build_result r;

	if (acpi_build_tables(acpi_buf, LINUX_ACPI_TABLES_GPA, sizeof(acpi_buf),
			      g->nvcpus, &r)) {
		hv_error("cannot build the ACPI tables for %u vcpus", g->nvcpus);
		return false;
	}
	*rsdp = r.rsdp_gpa;
	return write(g, LINUX_ACPI_TABLES_GPA, acpi_buf, r.length,
		     "ACPI tables");
}

static void print_plan(const struct bzimage_info *k,
		       const struct linux_layout *l)
{
	hv_info("linux: boot protocol %u.%u, %s", k->protocol >> 8,
		k->protocol & 0xff, k->version[0] ? k->version : "(no version)");
	hv_info("linux: kernel at 0x%llx (init_size %u KiB), initrd at 0x%llx "
		"(%llu KiB), command line at 0x%llx",
		(unsigned long long)l->kernel_addr, k->init_size >> 10,
		(unsigned long long)l->initrd_addr,
		(unsigned long long)(l->initrd_size >> 10),
		(unsigned long long)l->cmdline_addr);
}

static bool plan(const struct vm_spec *spec, const struct linux_reserved *r,
		 struct bzimage_info *k, struct linux_layout *l)
{
	char err[ERR_MAX];

	if (linux_parse_bzimage(spec->kernel, spec->kernel_size, k, err,
				sizeof(err)) ||
	    linux_plan_layout(k, spec->memory, spec->initrd_size,
			      strlen(spec->cmdline), r, l, err,
			      sizeof(err))) {
		hv_error("guest.kernel '%s': %s", spec->kernel_name, err);
		return false;
	}
	return true;
}

bool linux_loader_load(struct vm *g, const struct vm_spec *spec)
{
	const uint8_t *img = spec->kernel;
	struct linux_reserved reserved;
	struct bzimage_info k;
	struct linux_layout l;
	uint64_t rsdp;
	unsigned n;

	reserved_areas(&reserved);
	if (!plan(spec, &reserved, &k, &l))
		return false;
	print_plan(&k, &l);
	n = linux_build_e820(spec->memory, &reserved, e820,
			     ARRAY_SIZE(e820));
	if (!boot_state_write(g) || !write_acpi_tables(g, &rsdp) ||
	    !write(g, l.kernel_addr, img + k.kernel_offset, k.kernel_size,
		   "kernel") ||
	    (spec->initrd_size && !write(g, l.initrd_addr, spec->initrd,
				       spec->initrd_size, "initrd")) ||
	    !write(g, l.cmdline_addr, spec->cmdline,
		   l.cmdline_len + 1, "command line"))
		return false;
	linux_build_boot_params(img, spec->kernel_size, &k, &l, e820, n, rsdp,
				zero_page);
	if (!write(g, l.boot_params_addr, zero_page, sizeof(zero_page),
		   "zero page"))
		return false;
	boot_state_long_mode_entry(&g->entry, linux_entry_point(&l), 0);
	g->entry.rsi = l.boot_params_addr;
	return true;
}
