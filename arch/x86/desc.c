// SPDX-License-Identifier: BSD-2-Clause
/*
 * The hypervisor's own GDT/TSS/IDT. OVMF loads no TSS, and VM entry requires
 * a non-null host TR selector (SDM Vol. 3C, 27.2.3 "Checks on Host Segment
 * and Descriptor-Table Registers"), so every CPU gets a TSS of its own.
 */
#include "arch/x86/desc.h"
#include "arch/x86/exceptions.h"

#define GDT_CODE64 0x00af9a000000ffffull   /* P, DPL0, code, L=1, G */
#define GDT_DATA   0x00cf92000000ffffull   /* P, DPL0, data RW, G */
#define TSS_TYPE_AVAILABLE_64 0x9ull
#define DESC_PRESENT BIT(47)

#define IDT_VECTORS 256
#define IDT_INTERRUPT_GATE 0x8e

struct idt_gate {
	uint16_t offset_low;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_high;
	uint32_t reserved;
} PACKED;

static struct idt_gate idt[IDT_VECTORS] __attribute__((aligned(16)));

void gdt_build(struct host_gdt *gdt, const struct host_tss *tss)
{
	uint64_t base = (uint64_t)(uintptr_t)tss;
	uint64_t limit = sizeof(*tss) - 1;

	gdt->entry[0] = 0;
	gdt->entry[1] = GDT_CODE64;
	gdt->entry[2] = GDT_DATA;
	gdt->entry[3] = (limit & 0xffff) | ((base & 0xffffff) << 16) |
			(TSS_TYPE_AVAILABLE_64 << 40) | DESC_PRESENT |
			(((limit >> 16) & 0xf) << 48) |
			(((base >> 24) & 0xff) << 56);
	gdt->entry[4] = base >> 32;
}

void gdt_load(const struct host_gdt *gdt)
{
	struct descriptor_pointer p = {
		.limit = sizeof(*gdt) - 1,
		.base = (uint64_t)(uintptr_t)gdt,
	};

	__asm__ volatile("lgdt %0" : : "m"(p));
	/* Reload CS with a far return, then the data segments and TR. */
	__asm__ volatile("pushq %[cs]\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "pushq %%rax\n\t"
			 "lretq\n"
			 "1:\n\t"
			 "movw %[ds], %%ax\n\t"
			 "movw %%ax, %%ds\n\t"
			 "movw %%ax, %%es\n\t"
			 "movw %%ax, %%ss\n\t"
			 "xorl %%eax, %%eax\n\t"
			 "movw %%ax, %%fs\n\t"
			 "movw %%ax, %%gs\n\t"
			 "movw %[tr], %%ax\n\t"
			 "ltr %%ax"
			 :
			 : [cs] "i"(HOST_CS_SELECTOR), [ds] "i"(HOST_DS_SELECTOR),
			   [tr] "i"(HOST_TR_SELECTOR)
			 : "rax", "memory");
}

static uint8_t ist_for_vector(unsigned v)
{
	switch (v) {
	case EXC_NMI: return IST_NMI;
	case EXC_DOUBLE_FAULT: return IST_DOUBLE_FAULT;
	case EXC_MACHINE_CHECK: return IST_MACHINE_CHECK;
	default: return 0;
	}
}

void idt_init(void)
{
	for (unsigned v = 0; v < IDT_VECTORS; v++) {
		uint64_t handler = exception_stub_address(v);

		idt[v] = (struct idt_gate){
			.offset_low = (uint16_t)handler,
			.selector = HOST_CS_SELECTOR,
			.ist = ist_for_vector(v),
			.type_attr = IDT_INTERRUPT_GATE,
			.offset_mid = (uint16_t)(handler >> 16),
			.offset_high = (uint32_t)(handler >> 32),
		};
	}
}

void idt_load(void)
{
	struct descriptor_pointer p = {
		.limit = sizeof(idt) - 1,
		.base = (uint64_t)(uintptr_t)idt,
	};

	__asm__ volatile("lidt %0" : : "m"(p));
}
