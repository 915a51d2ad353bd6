// SPDX-License-Identifier: BSD-2-Clause
/*
 * The core's entry after ExitBootServices: take over the boot CPU (own heap,
 * GDT/TSS/IDT, page tables, stack), find the host CPUs, build the guest and
 * run it. With 2+ host CPUs the boot CPU stays in the service loop (where
 * the paging daemon will run) and an AP runs the vCPU; with one host CPU the
 * boot CPU runs the vCPU itself.
 */
#include "boot/boot_info.h"
#include "boot/guest_terminal.h"
#include "boot/host_discovery.h"
#include "boot/hv_trace.h"
#include "boot/screen_console.h"
#include "arch/x86/serial.h"
#include "boot/isolation_secret.h"
#include "lib/heap.h"
#include "arch/x86/cpu.h"
#include "arch/x86/host_paging.h"
#include "arch/x86/idle.h"
#include "arch/x86/lapic.h"
#include "arch/x86/percpu.h"
#include "arch/x86/trace_clock.h"
#include "arch/x86/platform.h"
#include "arch/x86/smp.h"
#include "arch/x86/tsc.h"
#include "arch/x86/xsave_probe.h"
#include "guest/loaders/flat_loader.h"
#include "guest/devices/vga_text.h"
#include "guest/loaders/guest_image.h"
#include "guest/vm.h"
#include "swap/drivers/ahci.h"
#include "swap/blockdev_selftest.h"
#include "swap/swap_device.h"
#include "swap/swap_daemon.h"
#include "vmx/vcpu.h"
#include "lib/console.h"
#include "lib/counters.h"
#include "lib/ratelimit.h"

static uint32_t cpu_apic_ids[MAX_HOST_CPUS];
static struct vm *the_vm;
static struct vcpu *the_vcpus;
static volatile unsigned vcpus_done;
static bool host_xsavec_wrong;

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

static void discover_cpus(const struct boot_info *bi, uint32_t bsp_apic_id)
{
	unsigned n = host_discover_cpus(bi, bsp_apic_id, cpu_apic_ids,
					MAX_HOST_CPUS);

	host_cpu_count = MIN(n, MAX_HOST_CPUS);
}

static void print_stat(void *ctx, const char *name, uint64_t value)
{
	(void)ctx;
	hv_stat(name, value);
}

/* The guest's VGA text screen, when its RAM holds one. */
static void show_vga_text(struct vm *vm)
{
	static uint8_t screen[VGA_TEXT_BYTES];

	if (vm->memory.ram.ram.low_size >= VGA_TEXT_GPA + VGA_TEXT_BYTES &&
	    !vm_read_ram(vm, VGA_TEXT_GPA, screen, sizeof(screen)))
		vga_text_report(screen);
}

static NORETURN void finish(struct vm *vm, const struct boot_info *bi)
{
	vm_devices_lock(vm);
	uart_flush(&vm->dev.uart);
	vm_devices_unlock(vm, false);
	guest_console_flush(&vm->dev.console);
	vm_report_end(vm);
	ratelimit_report_all();
	if (vm->config.show_vga_text)
		show_vga_text(vm);
	counters_each(print_stat, NULL);
	hv_trace_finish(bi, vm->nvcpus);
	if (bi->cfg.bench_swap)
		swap_daemon_report_bench(vm->memory.swap);
	platform_stop();
}

/* Each AP that runs a vCPU: percpu->index - vcpu_cpu_base = vCPU id. */
static unsigned vcpu_cpu_base;

static void ap_run_vcpu(struct percpu *cpu)
{
	vcpu_run(&the_vcpus[cpu->index - vcpu_cpu_base]);
	__atomic_fetch_add(&vcpus_done, 1, __ATOMIC_RELEASE);
	cpu_halt_forever();
}

/*
 * The boot CPU's loop while APs run every vCPU: the daemon, the console.
 * A round that found nothing to do rests (HLT) for SERVICE_REST_US, so
 * that an emulator gives the time to the vCPUs and real CPUs save power.
 */
#define SERVICE_REST_US 20

static NORETURN void service_loop(struct vm *vm, const struct boot_info *bi)
{
	uint64_t next_poll = 0;

	while (__atomic_load_n(&vcpus_done, __ATOMIC_ACQUIRE) < vm->nvcpus) {
		uint64_t now = rdtsc();
		bool busy = swap_daemon_work_as(vm->memory.swap,
						SWAP_WORKER_SERVICE_CPU);

		hv_trace_poll(bi, vm->nvcpus);
		if (serial_output_held())
			con_poll();

		if (now >= next_poll) {
			vm_poll_console(vm);
			next_poll = now + tsc_hz / VM_CONSOLE_POLLS_SERVICE_CPU;
		}
		if (!busy)
			cpu_idle_us(SERVICE_REST_US);
	}
	finish(vm, bi);
}

static bool enough_host_cpus(unsigned nvcpus)
{
	if (host_cpu_count >= nvcpus)
		return true;
	hv_error("guest.vcpus = %u needs %u host cpus; this machine has %u",
		 nvcpus, nvcpus, host_cpu_count);
	return false;
}

/*
 * With more host CPUs than vCPUs the boot CPU keeps the service loop and
 * APs 1..n run vCPUs 0..n-1; otherwise the boot CPU runs vCPU 0 itself.
 * Returns how many vCPUs the boot CPU must run (0 or 1), or -1.
 */
static int start_vcpu_cpus(const struct boot_info *bi, struct vm *vm)
{
	uint32_t bsp_id = this_cpu()->apic_id;
	unsigned next_ap = 0;

	/* The service CPU fill_spec asked for, if any, keeps the boot CPU. */
	vcpu_cpu_base = swap_daemon_has_service_cpu(vm->memory.swap) ? 1 : 0;
	smp_init(bi->trampoline_pa, read_cr3());
	for (unsigned id = vcpu_cpu_base; id < vm->nvcpus + vcpu_cpu_base;
	     id++) {
		struct percpu *ap;

		if (id == 0)
			continue;       /* vCPU 0 on the boot CPU */
		while (cpu_apic_ids[next_ap] == bsp_id)
			next_ap++;
		ap = percpu_create(id, cpu_apic_ids[next_ap++]);
		if (!smp_start_cpu(ap, ap_run_vcpu)) {
			hv_error("host cpu %u (APIC id %u) did not start", id,
				 ap->apic_id);
			return -1;
		}
	}
	return vcpu_cpu_base ? 0 : 1;
}

void boot_info_image_spec(const struct boot_info *bi, struct vm_spec *spec)
{
	spec->kernel = bi->kernel;
	spec->kernel_size = bi->kernel_size;
	spec->kernel_name = bi->cfg.guest_kernel;
	spec->format = bi->cfg.guest_format;
	spec->initrd = bi->initrd;
	spec->initrd_size = bi->initrd_size;
	spec->initrd_name = bi->cfg.guest_initrd;
	spec->cmdline = bi->cfg.guest_cmdline;
	guest_ram_layout_pc(&spec->ram, bi->cfg.guest_memory);
}

/* swap.device = nbd://...: the servers, and the network's settings. */
static void set_swap_remotes(const struct hv_config *cfg)
{
	struct net_config net = {
		.device = cfg->net_device,
		.dhcp = cfg->net_address.dhcp,
		.address = cfg->net_address.ip,
		.prefix_len = cfg->net_address.prefix_len,
		.gateway = cfg->net_gateway,
		.dhcp_timeout_ms = NET_DHCP_TIMEOUT_MS,
	};

	struct swap_remotes remotes = cfg->swap_remotes;

	remotes.replicas = cfg->swap_replicas;
	remotes.timeout_s = cfg->swap_timeout_s;
	remotes.spares = cfg->swap_spare;
	swap_device_set_remotes(&remotes, &net);
}

static void fill_spec(const struct boot_info *bi, struct vm_spec *spec)
{
	*spec = (struct vm_spec){
		.vcpus = bi->cfg.guest_vcpus,
		.frames = bi->guest_frames,
		.nframe_ranges = bi->n_guest_frame_ranges,
		.epoch_sec = bi->boot_epoch_sec,
		.epoch_tsc = bi->boot_tsc,
		.hv_start_tsc = bi->hv_start_tsc,
		.swap = { .device = bi->cfg.swap_device,
			  .fail_reads = bi->cfg.debug_swap_fail_reads,
			  .fail_writes = bi->cfg.debug_swap_fail_writes,
			  .verify = bi->cfg.debug_swap_verify,
			  .read_latency_ns = bi->cfg.swap_read_latency_ns,
			  .policy = bi->cfg.swap_policy,
			  .prefetch = bi->cfg.swap_prefetch,
			  .prefetch_depth = bi->cfg.swap_prefetch_depth,
			  .protect_kernel = bi->cfg.swap_protect_kernel,
			  .whole_page_stores = bi->cfg.swap_whole_page_stores,
			  .tier = bi->cfg.swap_tier,
			  .tier_size = bi->cfg.swap_tier_size,
			  .replay_list = bi->prefetch_list,
			  .replay_list_len = bi->prefetch_list_size },
		.service_cpu = host_cpu_count > bi->cfg.guest_vcpus,
		.apf = bi->cfg.apf,
		.terminal_write = guest_terminal_active() ?
				  guest_terminal_write : NULL,
		.terminal_read = guest_terminal_active() ?
				 guest_terminal_read : NULL,
		.hide_xsavec = host_xsavec_wrong,
		.debug_hypercall = bi->cfg.debug_hypercall,
		.testdev = bi->cfg.guest_testdev,
		.balloon = bi->cfg.balloon,
	};
	boot_info_image_spec(bi, spec);
}

static NORETURN void run_guest(void *arg)
{
	const struct boot_info *bi = arg;
	struct vm_spec spec;
	struct vm *vm = NULL;
	int on_boot_cpu;

	if (!guest_terminal_open(bi->cfg.console_passthrough))
		platform_stop();
	fill_spec(bi, &spec);
	if (enough_host_cpus(bi->cfg.guest_vcpus))
		vm = guest_image_create_vm(&spec);
	if (!vm) {
		hv_error("the guest could not be built; stopping");
		platform_stop();
	}
	if (bi->cfg.debug_isolation_secret)
		isolation_secret_plant(vm, bi->cfg.debug_isolation_secret);
	the_vm = vm;
	hv_trace_start(bi, vm->nvcpus, swap_daemon_device(vm->memory.swap));
	the_vcpus = vcpus_create(vm);
	on_boot_cpu = start_vcpu_cpus(bi, vm);
	if (on_boot_cpu < 0) {
		vm_end(vm, false, "a host cpu for a vcpu did not start");
		platform_stop();
	}
	percpu_counters_register();
	if (!on_boot_cpu)
		service_loop(vm, bi);
	vcpu_run(&the_vcpus[0]);
	/* The APs' vCPUs got VCPU_REQ_STOP and stop on their next exit. */
	while (__atomic_load_n(&vcpus_done, __ATOMIC_ACQUIRE) < vm->nvcpus - 1)
		spin_pause();
	finish(vm, bi);
}

NORETURN void hv_main(struct boot_info *bi)
{
	struct percpu *bsp;

	bi->hv_start_tsc = rdtsc();
	console_set_fatal_stop(platform_stop);
	platform_set_final_hold(screen_console_final_hold);
	hv_heap_init(bi->heap_base, bi->heap_size);
	idt_init();
	bsp = percpu_create(0, 0);
	percpu_activate(bsp);
	trace_set_platform(&x86_trace_platform);
	write_cr3(host_paging_build(bi->ram, bi->n_ram, bi->phys_top));
	/* The screen console draws on: its framebuffer may be above RAM. */
	if (bi->screen.base &&
	    !host_paging_map_mmio((uintptr_t)bi->screen.base,
				  (uint64_t)bi->screen.pitch *
					  bi->screen.height))
		bi->screen.base = NULL;         /* the serial console only */
	lapic_init();
	cpu_idle_init();
	serial_hold_output();
	console_set_buffered(serial_send_ready_locked, serial_send_held_locked);
	bsp->apic_id = lapic_id();
	bsp->online = true;
	hv_info("hypervisor heap %llu MiB, guest frames %llu MiB in %u "
		"range(s)", (unsigned long long)(bi->heap_size >> 20),
		(unsigned long long)(bi->cfg.host_guest_frames >> 20),
		bi->n_guest_frame_ranges);
	discover_cpus(bi, bsp->apic_id);
	if (!host_discover_platform(bi))
		platform_stop();
	if (bi->boot_sata.known)
		ahci_skip_boot_port(bi->boot_sata.pci_dev,
				    bi->boot_sata.pci_fn, bi->boot_sata.port);
	if (bi->cfg.swap_device == SWAP_DEVICE_NBD)
		set_swap_remotes(&bi->cfg);
	if (bi->cfg.debug_blockdev_selftest) {
		/* No guest: the swap driver alone (runs without VT-x). */
		hv_trace_start(bi, 0, NULL);
		blockdev_selftest_run(bi->cfg.swap_device);
		hv_trace_finish(bi, 0);
		platform_stop();
	}
	if (bi->cfg.bench_swap)
		blockdev_selftest_run(bi->cfg.swap_device);  /* the device's own rate */
	switch (xsavec_probe()) {
	case XSAVEC_LAYOUT_WRONG:
		host_xsavec_wrong = true;
		hv_info("cpu: XSAVEC stores extended state at the wrong "
			"offsets (Bochs 2.7 does); the guest is not offered "
			"XSAVEC and saves in the standard format");
		break;
	case XSAVEC_LAYOUT_RIGHT:
		hv_info("cpu: XSAVEC stores extended state at the right "
			"offsets; the guest is offered XSAVEC");
		break;
	default:
		hv_info("cpu: XSAVEC not tested (the CPU has no XSAVEC or no "
			"AVX); the guest is offered what the CPU has");
		break;
	}
	if (bi->cfg.debug_host_exception) {
		/* Proves that a hypervisor bug ends in a dump, not a reset. */
		hv_info("debug.host_exception: executing UD2 in the hypervisor");
		__asm__ volatile("ud2");
	}
	call_on_stack(bsp->stack_top, (void (*)(void *))run_guest, bi);
}
