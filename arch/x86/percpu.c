// SPDX-License-Identifier: BSD-2-Clause
#include "arch/x86/percpu.h"
#include "arch/x86/cpu.h"
#include "lib/counters.h"
#include "lib/format.h"
#include "lib/heap.h"

struct percpu *host_cpus[MAX_HOST_CPUS];
unsigned host_cpu_count;

static uint64_t alloc_stack(size_t bytes)
{
	return (uint64_t)(uintptr_t)hv_alloc(bytes) + bytes;
}

struct percpu *percpu_create(unsigned index, uint32_t apic_id)
{
	struct percpu *cpu = hv_alloc(sizeof(*cpu));

	cpu->self = cpu;
	cpu->index = index;
	cpu->apic_id = apic_id;
	cpu->stack_top = alloc_stack(HOST_STACK_SIZE);
	for (unsigned i = 1; i <= IST_COUNT; i++)
		cpu->tss.ist[i - 1] = alloc_stack(HOST_IST_STACK_SIZE);
	/* No I/O permission bitmap: the base points past the TSS limit. */
	cpu->tss.iomap_base = sizeof(cpu->tss);
	gdt_build(&cpu->gdt, &cpu->tss);
	host_cpus[index] = cpu;
	return cpu;
}

void percpu_activate(struct percpu *cpu)
{
	gdt_load(&cpu->gdt);
	wrmsr(MSR_IA32_GS_BASE, (uint64_t)(uintptr_t)cpu);
	idt_load();
}

static void each_percpu_counter(const void *obj, counter_fn fn, void *ctx)
{
	char name[40];

	(void)obj;
	for (unsigned i = 0; i < MAX_HOST_CPUS; i++) {
		if (!host_cpus[i])
			continue;
		fmt_snprintf(name, sizeof(name), "host_cpu.%u.vm_entries", i);
		fn(ctx, name, host_cpus[i]->vm_entries);
	}
}

void percpu_counters_register(void)
{
	static struct counter_source src = { .each = each_percpu_counter };

	counters_register(&src);
}
