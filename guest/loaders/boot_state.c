// SPDX-License-Identifier: BSD-2-Clause
#include "guest/loaders/boot_state.h"
#include "arch/x86/cpu.h"
#include "lib/string.h"

#define MAPPED_GIB 4
#define PTE_P_W 0x3ull
#define PTE_LARGE BIT(7)
#define PT_ENTRIES 512

/*
 * null, 32-bit code (0x08, multiboot entry), 64-bit code (0x10), data
 * (0x18), 64-bit TSS (0x20, 2 slots)
 */
static const uint64_t boot_gdt[6] = {
	0, 0x00cf9b000000ffffull, 0x00af9b000000ffffull, 0x00cf93000000ffffull,
	0x00008b0000000067ull, 0,
};

static uint64_t table[PT_ENTRIES];

static bool write_table(struct vm *g, uint64_t gpa)
{
	return vm_write_ram(g, gpa, table, sizeof(table)) == 0;
}

bool boot_state_write(struct vm *g)
{
	memset(table, 0, sizeof(table));
	table[0] = BOOT_PDPT | PTE_P_W;
	if (!write_table(g, BOOT_PML4))
		return false;
	memset(table, 0, sizeof(table));
	for (unsigned i = 0; i < MAPPED_GIB; i++)
		table[i] = (BOOT_PD0 + i * PAGE_SIZE) | PTE_P_W;
	if (!write_table(g, BOOT_PDPT))
		return false;
	for (unsigned pd = 0; pd < MAPPED_GIB; pd++) {
		for (unsigned i = 0; i < PT_ENTRIES; i++)
			table[i] = (GiB(pd) + i * LARGE_PAGE_SIZE) | PTE_P_W |
				   PTE_LARGE;
		if (!write_table(g, BOOT_PD0 + pd * PAGE_SIZE))
			return false;
	}
	return vm_write_ram(g, BOOT_GDT, boot_gdt,
				  sizeof(boot_gdt)) == 0;
}

void boot_state_long_mode_entry(struct vcpu_entry_state *e, uint64_t rip,
				uint64_t rsp)
{
	*e = (struct vcpu_entry_state){
		.rip = rip,
		.rsp = rsp,
		.rflags = RFLAGS_RESERVED_1,
		.cr0 = CR0_PE | CR0_MP | CR0_ET | CR0_NE | CR0_WP | CR0_PG,
		.cr3 = BOOT_PML4,
		.cr4 = CR4_PAE,
		.efer = EFER_LME | EFER_LMA,
		.gdtr_base = BOOT_GDT,
		.gdtr_limit = sizeof(boot_gdt) - 1,
		.long_mode = true,
	};
}

void boot_state_protected_mode_entry(struct vcpu_entry_state *e, uint64_t eip,
				     uint64_t esp)
{
	*e = (struct vcpu_entry_state){
		.rip = eip,
		.rsp = esp,
		.rflags = RFLAGS_RESERVED_1,
		.cr0 = CR0_PE | CR0_ET,
		.gdtr_base = BOOT_GDT,
		.gdtr_limit = sizeof(boot_gdt) - 1,
		.protected_mode = true,
	};
}
