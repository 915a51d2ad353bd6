// SPDX-License-Identifier: BSD-2-Clause
#include "guest/loaders/loader_common.h"
#include "guest/devices/acpi_tables.h"
#include "lib/console.h"

static uint8_t acpi_buf[ACPI_TABLES_MAX_SIZE];

bool loader_write(struct vm *g, uint64_t gpa, const void *src, uint64_t len,
		  const char *what)
{
	if (vm_write_ram(g, gpa, src, len) == 0)
		return true;
	hv_error("cannot write the %s (%llu bytes at gpa 0x%llx) into guest "
		 "memory: not enough host frames", what,
		 (unsigned long long)len, (unsigned long long)gpa);
	return false;
}

bool loader_write_segments(struct vm *g, const uint8_t *img,
			   const struct elf_kernel *k)
{
	for (unsigned i = 0; i < k->count; i++)
		if (k->seg[i].filesz &&
		    !loader_write(g, k->seg[i].paddr, img + k->seg[i].offset,
				  k->seg[i].filesz, "kernel segment"))
			return false;
	return true;
}

bool loader_write_acpi_tables(struct vm *g, uint64_t *rsdp_gpa)
{
	struct acpi_build_result r;

	if (acpi_build_tables(acpi_buf, LOADER_ACPI_TABLES_GPA,
			      sizeof(acpi_buf), g->nvcpus, &r)) {
		hv_error("cannot build the ACPI tables for %u vcpus", g->nvcpus);
		return false;
	}
	*rsdp_gpa = r.rsdp_gpa;
	return loader_write(g, LOADER_ACPI_TABLES_GPA, acpi_buf, r.length,
			    "ACPI tables");
}
