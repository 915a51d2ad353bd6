// SPDX-License-Identifier: BSD-2-Clause
#include "arch/x86/idle.h"
#include "arch/x86/cpu.h"
#include "arch/x86/percpu.h"
#include "arch/x86/lapic.h"
#include "arch/x86/tsc.h"

#define CPUID_1_ECX_TSC_DEADLINE BIT(24)
#define MSR_IA32_TSC_DEADLINE 0x6e0
#define LVT_TIMER 0x320
#define LVT_LINT0 0x350
#define LVT_MASKED BIT(16)
#define LVT_TIMER_TSC_DEADLINE (2u << 17)
#define LAPIC_SPURIOUS_VECTOR 0xff

static bool tsc_deadline;
static volatile bool idle[MAX_HOST_CPUS];

void cpu_idle_init(void)
{
	struct cpuid_regs r;

	cpuid_count(CPUID_LEAF_FEATURES, 0, &r);
	tsc_deadline = r.ecx & CPUID_1_ECX_TSC_DEADLINE;
	/* Legacy 8259 interrupts have no business in the hypervisor. */
	lapic_write_reg(LVT_LINT0, lapic_read_reg(LVT_LINT0) | LVT_MASKED);
	if (tsc_deadline) {
		lapic_write_reg(LVT_TIMER,
				LVT_TIMER_TSC_DEADLINE | HV_WAKE_VECTOR);
		wrmsr(MSR_IA32_TSC_DEADLINE, 0);
	}
}

bool cpu_is_idle(unsigned index)
{
	return index < MAX_HOST_CPUS &&
	       __atomic_load_n(&idle[index], __ATOMIC_SEQ_CST);
}

void cpu_idle_until(uint64_t deadline, bool (*still_idle)(void *ctx),
		    void *ctx)
{
	unsigned me = this_cpu()->index;

	__atomic_store_n(&idle[me], true, __ATOMIC_SEQ_CST);
	if (still_idle && !still_idle(ctx)) {
		__atomic_store_n(&idle[me], false, __ATOMIC_RELEASE);
		return;
	}
	if (tsc_deadline) {
		wrmsr(MSR_IA32_TSC_DEADLINE, deadline);
		/* STI's shadow covers HLT: an interrupt pending now ends it. */
		if (rdtsc() < deadline)
			__asm__ volatile("sti; hlt; cli" ::: "memory");
		wrmsr(MSR_IA32_TSC_DEADLINE, 0);
	} else {
		while (rdtsc() < deadline &&
		       (!still_idle || still_idle(ctx)))
			cpu_relax();
	}
	__atomic_store_n(&idle[me], false, __ATOMIC_RELEASE);
}

void cpu_idle_us(unsigned us)
{
	cpu_idle_until(rdtsc() + tsc_hz / 1000000 * us, NULL, NULL);
}

bool cpu_idle_interrupt(uint64_t vector)
{
	if (vector == LAPIC_SPURIOUS_VECTOR)
		return true;            /* no EOI for a spurious interrupt */
	if (vector == HV_WAKE_VECTOR || vector == HV_KICK_VECTOR) {
		lapic_eoi();
		return true;
	}
	return false;
}
