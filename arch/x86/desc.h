/* SPDX-License-Identifier: BSD-2-Clause */
/* Host GDT, TSS and IDT (SDM Vol. 3A, 3.4.5, 7.2.3, 6.14.1). */
#ifndef ARCH_X86_DESC_H
#define ARCH_X86_DESC_H

#include "lib/types.h"

#define HOST_CS_SELECTOR 0x08
#define HOST_DS_SELECTOR 0x10
#define HOST_TR_SELECTOR 0x18

#define IST_NMI 1
#define IST_DOUBLE_FAULT 2
#define IST_MACHINE_CHECK 3
#define IST_COUNT 3

struct host_tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} PACKED;

/* null, code64, data, TSS (two slots) */
struct host_gdt {
	uint64_t entry[5];
} __attribute__((aligned(16)));

struct descriptor_pointer {
	uint16_t limit;
	uint64_t base;
} PACKED;

void gdt_build(struct host_gdt *gdt, const struct host_tss *tss);
void gdt_load(const struct host_gdt *gdt);     /* also reloads CS/DS/SS, TR */
void idt_init(void);                             /* once, on the boot CPU */
void idt_load(void);

static inline void read_gdtr(struct descriptor_pointer *p)
{
	__asm__ volatile("sgdt %0" : "=m"(*p));
}

static inline void read_idtr(struct descriptor_pointer *p)
{
	__asm__ volatile("sidt %0" : "=m"(*p));
}

#endif
