/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Per host CPU state. GS.base points at the CPU's struct percpu in root mode
 * (and the VMCS host GS base does too), so this_cpu() is one load.
 */
#ifndef ARCH_X86_PERCPU_H
#define ARCH_X86_PERCPU_H

#include "arch/x86/desc.h"
#include "lib/limits.h"

#define HOST_STACK_SIZE (32 * 1024)
#define HOST_IST_STACK_SIZE (8 * 1024)

struct vcpu;

struct percpu {
	struct percpu *self;            /* must stay first: this_cpu() */
	unsigned index;                 /* 0 = the boot CPU */
	uint32_t apic_id;
	uint64_t stack_top;
	struct host_gdt gdt;
	struct host_tss tss;
	uint64_t vmxon_pa;              /* VMXON region, 0 until VMX is on */
	struct vcpu *vcpu;              /* the vCPU this CPU runs, if any */
	uint64_t vm_entries;            /* VM entries made on this CPU */
	volatile bool online;
};

extern struct percpu *host_cpus[MAX_HOST_CPUS];
extern unsigned host_cpu_count;         /* CPUs listed by the MADT */

static inline struct percpu *this_cpu(void)
{
	struct percpu *p;

	__asm__ volatile("mov %%gs:0, %0" : "=r"(p));
	return p;
}

/* Allocates the percpu block, stacks and descriptor tables of CPU index. */
struct percpu *percpu_create(unsigned index, uint32_t apic_id);

/* Loads GDT, TSS, IDT and GS.base on the calling CPU. */
void percpu_activate(struct percpu *cpu);

/*
 * Registers the counters host_cpu.N.vm_entries of every host CPU created
 * so far: where the vCPUs really ran, beside the placement apfvisor
 * announces.
 */
void percpu_counters_register(void);

#endif
