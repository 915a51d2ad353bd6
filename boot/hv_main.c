// SPDX-License-Identifier: BSD-2-Clause
/*
 * The core's entry after ExitBootServices: take over the boot CPU (own heap,
 * GDT/TSS/IDT, page tables, stack), find the host CPUs, build the guest and
 * run it. With 2+ host CPUs the boot CPU stays in the service loop (where
 * the paging daemon will run) and an AP runs the vCPU; with one host CPU the
 * boot CPU runs the vCPU itself.
 */
#include "boot/boot_info.h"
#include "boot/hv_heap.h"
#include "arch/x86/acpi.h"
#include "arch/x86/cpu.h"
#include "arch/x86/host_paging.h"
#include "arch/x86/lapic.h"
#include "arch/x86/percpu.h"
#include "arch/x86/platform.h"
#include "arch/x86/smp.h"
#include "arch/x86/tsc.h"
#include "guest/guest.h"
#include "lib/console.h"

static uint32_t cpu_apic_ids[MAX_HOST_CPUS];
static struct guest *the_guest;
static volatile bool vcpu_thread_done;

static NORETURN void call_on_stack(uint64_t top, void (*fn)(void *), void *arg)
{
	__asm__ volatile("mov %0, %%rsp\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "call *%1\n\t"
			 "ud2"
			 :
			 : "r"(top), "r"(fn), "D"(arg)
			 : "memory");
	__builtin_unreachable();
}

static unsigned cpus_from_madt(const struct boot_info *bi)
{
	const struct acpi_sdt_header *madt = acpi_find_table(bi->acpi_rsdp,
							     "APIC");

	return madt ? acpi_madt_cpus(madt, cpu_apic_ids, MAX_HOST_CPUS) : 0;
}

/*
 * The firmware's MP Services list (already printed by boot/) first, else
 * the ACPI MADT.
 */
static void discover_cpus(const struct boot_info *bi, uint32_t bsp_apic_id)
{
	unsigned n = bi->n_cpus;

	for (unsigned i = 0; i < n && i < MAX_HOST_CPUS; i++)
		cpu_apic_ids[i] = bi->cpu_apic_ids[i];
	if (!n) {
		n = cpus_from_madt(bi);
		if (n)
			hv_info("host cpus: %u (ACPI MADT)", n);
	}
	if (!n) {
		hv_info("host cpus: 1 (no CPU list found: boot cpu only)");
		cpu_apic_ids[0] = bsp_apic_id;
		n = 1;
	}
	host_cpu_count = MIN(n, MAX_HOST_CPUS);
}

static uint32_t first_ap_apic_id(uint32_t bsp_apic_id)
{
	for (unsigned i = 0; i < host_cpu_count; i++)
		if (cpu_apic_ids[i] != bsp_apic_id)
			return cpu_apic_ids[i];
	return bsp_apic_id;
}

static NORETURN void finish(struct guest *g)
{
	spin_lock(&g->lock);
	uart_flush(&g->uart);
	spin_unlock(&g->lock);
	guest_report(g);
	platform_stop();
}

static void ap_run_vcpu(struct percpu *cpu)
{
	(void)cpu;
	vcpu_run(the_guest->vcpus[0]);
	__atomic_store_n(&vcpu_thread_done, true, __ATOMIC_RELEASE);
	cpu_halt_forever();
}

/* The boot CPU's loop while an AP runs the vCPU. */
static NORETURN void service_loop(struct guest *g)
{
	while (!__atomic_load_n(&vcpu_thread_done, __ATOMIC_ACQUIRE))
		cpu_relax();
	finish(g);
}

static bool start_vcpu_cpu(const struct boot_info *bi, uint64_t cr3)
{
	uint32_t bsp_id = this_cpu()->apic_id;
	uint32_t ap_id = first_ap_apic_id(bsp_id);
	struct percpu *ap;

	if (host_cpu_count < 2 || ap_id == bsp_id)
		return false;
	smp_init(bi->trampoline_pa, cr3);
	ap = percpu_create(1, ap_id);
	if (smp_start_cpu(ap, ap_run_vcpu))
		return true;
	hv_error("host cpu 1 (APIC id %u) did not start: running the vcpu on "
		 "the boot cpu", ap_id);
	return false;
}

static NORETURN void run_guest(void *arg)
{
	const struct boot_info *bi = arg;
	struct guest *g = guest_create(bi);

	if (!g) {
		hv_error("the guest could not be built; stopping");
		platform_stop();
	}
	the_guest = g;
	if (start_vcpu_cpu(bi, read_cr3()))
		service_loop(g);
	vcpu_run(g->vcpus[0]);
	finish(g);
}

NORETURN void hv_main(struct boot_info *bi)
{
	struct percpu *bsp;

	hv_heap_init(bi->heap_base, bi->heap_size);
	idt_init();
	bsp = percpu_create(0, 0);
	percpu_activate(bsp);
	write_cr3(host_paging_build(bi));
	lapic_init();
	bsp->apic_id = lapic_id();
	bsp->online = true;
	hv_info("hypervisor heap %llu MiB, guest frames %llu MiB in %u "
		"range(s)", (unsigned long long)(bi->heap_size >> 20),
		(unsigned long long)(bi->cfg.host_guest_frames >> 20),
		bi->n_guest_frame_ranges);
	discover_cpus(bi, bsp->apic_id);
	hv_info("host TSC %llu kHz (measured against the PIT)",
		(unsigned long long)(tsc_calibrate_hz() / 1000));
	if (bi->cfg.debug_host_exception) {
		/* Proves that a hypervisor bug ends in a dump, not a reset. */
		hv_info("debug.host_exception: executing UD2 in the hypervisor");
		__asm__ volatile("ud2");
	}
	call_on_stack(bsp->stack_top, (void (*)(void *))run_guest, bi);
}
