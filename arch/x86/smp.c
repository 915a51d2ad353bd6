// SPDX-License-Identifier: BSD-2-Clause
#include "arch/x86/smp.h"
#include "arch/x86/idle.h"
#include "arch/x86/lapic.h"
#include "arch/x86/tsc.h"
#include "lib/string.h"

/* SDM Vol. 3A, 9.4.4.1: INIT, wait 10 ms, SIPI, wait 200 us, SIPI. */
#define INIT_DELAY_US 10000
#define SIPI_DELAY_US 200
#define ONLINE_POLL_US 1000
#define ONLINE_TIMEOUT_POLLS 200

extern uint8_t ap_trampoline_start[], ap_trampoline_end[];
extern uint64_t ap_trampoline_cr3, ap_trampoline_stack, ap_trampoline_entry,
	ap_trampoline_arg;

static uint8_t *trampoline;
static ap_entry_fn pending_entry;

static uint64_t *param(uint64_t *field_in_image)
{
	size_t off = (size_t)((uint8_t *)field_in_image - ap_trampoline_start);

	return (uint64_t *)(trampoline + off);
}

void smp_init(uint64_t trampoline_pa, uint64_t cr3)
{
	trampoline = (uint8_t *)(uintptr_t)trampoline_pa;
	memcpy(trampoline, ap_trampoline_start,
	       (size_t)(ap_trampoline_end - ap_trampoline_start));
	*param(&ap_trampoline_cr3) = cr3;
}

/* First C code on an AP: install this CPU's tables, then run its work. */
static void ap_start(struct percpu *cpu)
{
	percpu_activate(cpu);
	lapic_init();
	cpu_idle_init();
	ap_entry_fn entry = pending_entry;

	__atomic_store_n(&cpu->online, true, __ATOMIC_RELEASE);
	entry(cpu);
}

bool smp_start_cpu(struct percpu *cpu, ap_entry_fn entry)
{
	uint8_t vector = (uint8_t)((uintptr_t)trampoline >> PAGE_SHIFT);

	pending_entry = entry;
	*param(&ap_trampoline_stack) = cpu->stack_top;
	*param(&ap_trampoline_entry) = (uint64_t)(uintptr_t)ap_start;
	*param(&ap_trampoline_arg) = (uint64_t)(uintptr_t)cpu;

	lapic_send_init(cpu->apic_id);
	tsc_delay_us(INIT_DELAY_US);
	for (int sipi = 0; sipi < 2 && !cpu->online; sipi++) {
		lapic_send_startup(cpu->apic_id, vector);
		tsc_delay_us(SIPI_DELAY_US);
	}
	for (int i = 0; i < ONLINE_TIMEOUT_POLLS; i++) {
		if (__atomic_load_n(&cpu->online, __ATOMIC_ACQUIRE))
			return true;
		tsc_delay_us(ONLINE_POLL_US);
	}
	return false;
}
