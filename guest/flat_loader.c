// SPDX-License-Identifier: BSD-2-Clause
#include "guest/flat_loader.h"
#include "arch/x86/cpu.h"
#include "lib/console.h"
#include "lib/string.h"

/* Guest-physical layout below the image (all inside the first 2 MiB). */
#define GUEST_PML4 0x1000ull
#define GUEST_PDPT 0x2000ull
#define GUEST_PD0 0x3000ull             /* four PDs: 0x3000..0x6fff */
#define GUEST_GDT 0x7000ull
#define GUEST_CMDLINE 0x8000ull
#define GUEST_MAPPED_GIB 4
#define PTE_P_W 0x3ull
#define PTE_LARGE BIT(7)
#define PT_ENTRIES 512
#define LINUX_HEADER_MAGIC_OFFSET 0x202
#define LINUX_HEADER_MAGIC 0x53726448u  /* "HdrS" */

/* null, 64-bit code (0x08), data (0x10), 64-bit TSS (0x18, two slots) */
static const uint64_t guest_gdt[5] = {
	0, 0x00af9b000000ffffull, 0x00cf93000000ffffull,
	0x00008b0000000067ull, 0,
};

static uint64_t table[PT_ENTRIES];

bool image_is_linux_bzimage(const void *image, uint64_t size)
{
	uint32_t magic;

	if (size < LINUX_HEADER_MAGIC_OFFSET + 4)
		return false;
	memcpy(&magic, (const uint8_t *)image + LINUX_HEADER_MAGIC_OFFSET, 4);
	return magic == LINUX_HEADER_MAGIC;
}

static bool write_table(struct guest *g, uint64_t gpa)
{
	return guest_memory_write(&g->mem, gpa, table, sizeof(table)) == 0;
}

/* Identity map of guest-physical 0..4 GiB with 2 MiB pages. */
static bool build_page_tables(struct guest *g)
{
	memset(table, 0, sizeof(table));
	table[0] = GUEST_PDPT | PTE_P_W;
	if (!write_table(g, GUEST_PML4))
		return false;
	memset(table, 0, sizeof(table));
	for (unsigned i = 0; i < GUEST_MAPPED_GIB; i++)
		table[i] = (GUEST_PD0 + i * PAGE_SIZE) | PTE_P_W;
	if (!write_table(g, GUEST_PDPT))
		return false;
	for (unsigned pd = 0; pd < GUEST_MAPPED_GIB; pd++) {
		for (unsigned i = 0; i < PT_ENTRIES; i++)
			table[i] = (GiB(pd) + i * LARGE_PAGE_SIZE) | PTE_P_W |
				   PTE_LARGE;
		if (!write_table(g, GUEST_PD0 + pd * PAGE_SIZE))
			return false;
	}
	return true;
}

bool flat_loader_load(struct guest *g, const void *image, uint64_t size,
		      const char *cmdline)
{
	uint64_t ram = g->mem.ram_size;
	struct vcpu_entry_state *e = &g->entry;

	if (ram < FLAT_LOAD_ADDRESS + MiB(2) ||
	    size > ram - FLAT_LOAD_ADDRESS) {
		hv_error("test guest of %llu bytes does not fit in guest.memory "
			 "= %llu MiB (it is loaded at 2 MiB)",
			 (unsigned long long)size,
			 (unsigned long long)(ram >> 20));
		return false;
	}
	if (!build_page_tables(g) ||
	    guest_memory_write(&g->mem, GUEST_GDT, guest_gdt,
			       sizeof(guest_gdt)) ||
	    guest_memory_write(&g->mem, GUEST_CMDLINE, cmdline,
			       strlen(cmdline) + 1) ||
	    guest_memory_write(&g->mem, FLAT_LOAD_ADDRESS, image, size)) {
		hv_error("not enough host frames to load the test guest");
		return false;
	}
	*e = (struct vcpu_entry_state){
		.rip = FLAT_LOAD_ADDRESS,
		.rsp = FLAT_LOAD_ADDRESS,
		.rflags = RFLAGS_RESERVED_1,
		.cr0 = CR0_PE | CR0_MP | CR0_ET | CR0_NE | CR0_WP | CR0_PG,
		.cr3 = GUEST_PML4,
		.cr4 = CR4_PAE,
		.efer = EFER_LME | EFER_LMA,
		.gdtr_base = GUEST_GDT,
		.gdtr_limit = sizeof(guest_gdt) - 1,
		.long_mode = true,
		.rdi = ram,
		.rsi = GUEST_CMDLINE,
	};
	return true;
}
