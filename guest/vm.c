// SPDX-License-Identifier: BSD-2-Clause
#include "guest/vm.h"
#include "guest/balloon.h"
#include "guest/async_pf.h"
#include "lib/trace/trace.h"
#include "guest/cpuid.h"
#include "guest/interrupts.h"
#include "guest/io_mmio.h"
#include "guest/io_ports.h"
#include "arch/x86/idle.h"
#include "arch/x86/serial.h"
#include "arch/x86/tsc.h"
#include "lib/heap.h"
#include "lib/console.h"
#include "lib/format.h"
#include "lib/string.h"

#define PROMPT_FLUSH_PER_SECOND 10

static uint64_t alloc_ept_table(void *ctx)
{
	(void)ctx;
	return hv_alloc_pages_low(1);
}

/* The hypervisor maps all physical memory 1:1. */
static void *identity(void *ctx, uint64_t pa)
{
	(void)ctx;
	return (void *)(uintptr_t)pa;
}

/*
 * Sequentially consistent, against the vCPU's entry: it says it is in
 * guest mode and then looks at its requests; we set the bit and then look
 * whether it is in guest mode (the kick).
 */
void vm_request_no_kick(struct vm *vm, unsigned n, enum vcpu_request req)
{
	if (n < vm->nvcpus)
		__atomic_fetch_or(&vm->plat[n].requests, BIT(req),
				  __ATOMIC_SEQ_CST);
}

void vm_request(struct vm *vm, unsigned n, enum vcpu_request req)
{
	if (n >= vm->nvcpus)
		return;
	vm_request_no_kick(vm, n, req);
	if (vm->kick)
		vm->kick(vm->kick_ctx, n);
}

/* ept/'s shootdown kicks through the request word. */
static void kick_for_flush(void *ctx, unsigned n)
{
	vm_request(ctx, n, VCPU_REQ_TLB_FLUSH);
}

/* swap/'s callbacks. */
static void flush_translations(void *ctx)
{
	struct vm *vm = ctx;

	ept_shootdown_wait(&vm->memory.tlb,
			   ept_shootdown_begin(&vm->memory.tlb));
}

void vm_drop_translation(struct vm *vm, uint64_t gpa)
{
	int r;

	spin_lock(&vm->memory.lock);
	r = guest_memory_drop_translation(&vm->memory.ram, gpa);
	spin_unlock(&vm->memory.lock);
	if (r == 0)
		flush_translations(vm);
}

static void swap_fatal(void *ctx, const char *reason)
{
	vm_end(ctx, false, "%s", reason);
}

/*
 * A swap-in (or write-back a fault cancelled) ended for good: each vCPU
 * that waited hears of it at once, its token (if it holds one) on its
 * done list (guest/async_pf.h). Runs under mem_lock, on the CPU that
 * harvested the completion.
 */
static void page_resident(void *ctx, uint64_t gpa, uint64_t waiters,
			  bool resident)
{
	struct vm *vm = ctx;

	(void)resident;
	for (unsigned n = 0; n < vm->nvcpus && waiters; n++, waiters >>= 1)
		if (waiters & 1)
			vm_apf_page_settled(vm, n, gpa);
}

/* A vCPU waiting for the service CPU's swap work rests this long. */
#define SWAP_WAIT_REST_US 10

static void rest(void *ctx)
{
	(void)ctx;
	cpu_idle_us(SWAP_WAIT_REST_US);
}

static bool setup_memory(struct vm *vm, const struct vm_spec *spec)
{
	const struct ept_memory mem = { alloc_ept_table, identity, NULL };
	uint64_t frames = 0;

	for (unsigned i = 0; i < spec->nframe_ranges; i++)
		frames += spec->frames[i].frames;
	frame_pool_init(&vm->memory.pool,
			hv_alloc(frame_pool_storage_words(frames) *
				 sizeof(uint64_t)), frames);
	for (unsigned i = 0; i < spec->nframe_ranges; i++)
		if (frame_pool_add_range(&vm->memory.pool, spec->frames[i].base,
					 spec->frames[i].frames))
			return false;
	if (ept_init(&vm->memory.ept, &mem))
		return false;
	if (spec->ram.high_size)
		hv_info("guest RAM: %llu MiB from 0, %llu MiB from 4 GiB "
			"(above the PCI hole, as on QEMU's PC)",
			(unsigned long long)(spec->ram.low_size >> 20),
			(unsigned long long)(spec->ram.high_size >> 20));
	guest_memory_init(&vm->memory.ram, &spec->ram,
			  hv_alloc(guest_ram_pages(&spec->ram)),
			  &vm->memory.ept, &vm->memory.pool);
	return true;
}

/* The guest sees the host's MAXPHYADDR (CPUID 0x80000008 passes). */
static void host_maxphyaddr_to_lapics(struct vm *vm)
{
	struct cpuid_regs r;

	cpuid_count(0x80000000, 0, &r);
	if (r.eax < 0x80000008)
		return;
	cpuid_count(0x80000008, 0, &r);
	for (unsigned i = 0; i < MAX_VCPUS; i++)
		vlapic_set_maxphyaddr(&vm->plat[i].lapic, r.eax & 0xff);
}

/* guest.testdev: pc-testdev's scratch memory (guest/devices/pc_testdev.h). */
static bool map_testdev_iomem(struct vm *vm)
{
	uint64_t pa = hv_alloc_pages_low(PC_TESTDEV_IOMEM_PAGES);

	vm->dev.testdev_iomem_pa = pa;
	for (unsigned i = 0; i < PC_TESTDEV_IOMEM_PAGES; i++)
		if (ept_map(&vm->memory.ept,
			    PC_TESTDEV_IOMEM_GPA + i * PAGE_SIZE,
			    pa + i * PAGE_SIZE, EPT_PAGE_4K, EPT_RWX)) {
			hv_error("guest.testdev: cannot map pc-testdev's "
				 "memory at 0x%llx",
				 (unsigned long long)PC_TESTDEV_IOMEM_GPA);
			return false;
		}
	return true;
}

static bool start_swap(struct vm *vm, const struct vm_spec *spec)
{
	struct swap_daemon_config sc = {
		.mem = &vm->memory.ram,
		.lock = &vm->memory.lock,
		.params = spec->swap,
		.ops = { flush_translations, swap_fatal, page_resident, rest,
			 vm },
		.service_cpu = spec->service_cpu,
		.host_frames = vm->memory.pool.total * PAGE_SIZE,
	};

	vm->memory.swap = swap_daemon_create(&sc);
	return vm->memory.swap != NULL;
}

/* EOIs the guests made through their PV EOI words, all vCPUs. */
static uint64_t pv_eois(const struct vm *vm)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < vm->nvcpus; i++)
		n += vm->plat[i].pv_eoi.deferred_eois;
	return n;
}

static void each_vm_counter(const void *obj, counter_fn fn, void *ctx)
{
	const struct vm *vm = obj;

	fn(ctx, "ept.violations", vm->memory.ram.stats.faults);
	fn(ctx, "ept.zero_fills", vm->memory.ram.stats.zero_fills);
	fn(ctx, "ept.tables", vm->memory.ept.tables);
	fn(ctx, "ept.shootdowns", vm->memory.tlb.shootdowns);
	fn(ctx, "ept.shootdown_kicks", vm->memory.tlb.kicks);
	fn(ctx, "frames.in_use", frame_pool_in_use(&vm->memory.pool));
	fn(ctx, "frames.peak", vm->memory.pool.peak_in_use);
	fn(ctx, "frames.total", vm->memory.pool.total);
	fn(ctx, "uart.bytes_out", vm->dev.uart.bytes_out);
	fn(ctx, "uart.bytes_in", vm->dev.uart.bytes_in);
	fn(ctx, "pit.irq0_edges", vm->dev.pit.irq0_edges);
	fn(ctx, "pit.irq0_edges_merged", vm->dev.pit.ch[0].edges_merged);
	fn(ctx, "pit.irq0_edges_held", vm->dev.pit.irq0_edges_held);
	fn(ctx, "ioapic.messages", vm->dev.ioapic.messages);
	fn(ctx, "lapic.pv_eois", pv_eois(vm));
	fn(ctx, "console.guest_lines", vm->dev.console.lines);
	fn(ctx, "console.printed_in_place", vm->dev.console.printed_in_place);
	fn(ctx, "console.terminal_bytes", vm->dev.console.terminal_bytes);
	fn(ctx, "console.terminal_in_place", vm->dev.console.terminal_in_place);
	/*
	 * Under Bochs one TSC tick is one emulated instruction and the TSC
	 * starts at 0 at reset: tsc.hv_start is then the instructions from
	 * firmware start to the hand-off, and tsc.kvmclock_zero + a guest
	 * time (kvmclock ns, which the kernel's "sched offset" line adds to
	 * its log timestamps) * tsc.hz / 1e9 the count at that guest time.
	 */
	fn(ctx, "tsc.hz", tsc_hz);
	fn(ctx, "tsc.hv_start", vm->stats.tsc.hv_start);
	fn(ctx, "tsc.kvmclock_zero", vm->clock.start_tsc);
	fn(ctx, "tsc.start_to_first_entry",
	   vm->stats.tsc.first_entry - vm->stats.tsc.hv_start);
	fn(ctx, "tsc.first_entry_to_end",
	   vm->stats.tsc.end - vm->stats.tsc.first_entry);
	/* Interrupt wiring at the end, to tell a lost IRQ from a masked one. */
	fn(ctx, "uart.ier", vm->dev.uart.ier);
	fn(ctx, "uart.mcr", vm->dev.uart.mcr);
	fn(ctx, "pic.master_imr", vm->dev.pic.chip[0].imr);
	fn(ctx, "pic.master_irr", vm->dev.pic.chip[0].irr);
	fn(ctx, "pic.master_isr", vm->dev.pic.chip[0].isr);
	fn(ctx, "pic.master_base", vm->dev.pic.chip[0].base);
	fn(ctx, "lapic0.lint0", vm->plat[0].lapic.lvt[VLAPIC_LVT_LINT0]);
	fn(ctx, "lapic0.svr", vm->plat[0].lapic.svr);
}

static void init_platform(struct vm *vm, const struct vm_spec *spec)
{
	vm->config.hide_xsavec = spec->hide_xsavec;
	vm->config.debug_hypercall = spec->debug_hypercall;
	vm->config.kvm_features = KVM_FEATURE_CLOCKSOURCE2 |
			   KVM_FEATURE_CLOCKSOURCE_STABLE_BIT |
			   KVM_FEATURE_PV_EOI;
	/* Page-ready by interrupt only: Linux 5.10+ asks for nothing else. */
	if (spec->apf)
		vm->config.kvm_features |= KVM_FEATURE_ASYNC_PF |
				    KVM_FEATURE_ASYNC_PF_INT;
	vm->apf.env = (struct apf_msr_env){
		.kvm_features = vm->config.kvm_features,
		.guest_ram = spec->ram,
	};
	vm->clock.start_tsc = rdtsc();
	vm->clock.start_epoch_sec = spec->epoch_sec +
				    (vm->clock.start_tsc - spec->epoch_tsc) / tsc_hz;
	vm->clock.scale = pvclock_scale_for(tsc_hz);
	vm->stats.tsc.hv_start = spec->hv_start_tsc;
	for (unsigned i = 0; i < MAX_VCPUS; i++) {
		vcpu_msrs_init(&vm->plat[i].msrs);
		vm->plat[i].run_state = i ? VCPU_WAIT_FOR_SIPI : VCPU_RUNNABLE;
		apf_vcpu_init(&vm->plat[i].apf, i);
	}
	guest_interrupts_init(vm, tsc_hz);
	host_maxphyaddr_to_lapics(vm);
	guest_console_init(&vm->dev.console, guest_console_print_host);
	uart_init(&vm->dev.uart, guest_console_push, &vm->dev.console);
	if (spec->terminal_write) {
		guest_console_attach_terminal(&vm->dev.console,
					      spec->terminal_write);
		uart_set_byte_sink(&vm->dev.uart, guest_console_push_byte,
				   &vm->dev.console);
	}
	vm->dev.terminal_read = spec->terminal_read;
}

struct vm *vm_create(const struct vm_spec *spec, bool is_linux)
{
	struct vm *vm = hv_alloc(sizeof(*vm));

	init_platform(vm, spec);
	vm->config.is_linux = is_linux;
	if (vm->config.is_linux && spec->testdev) {
		hv_error("guest.testdev = on is for test kernels (multiboot, "
			 "flat), not for Linux: QEMU's pc-testdev ports would "
			 "be ports a PC does not have");
		return NULL;
	}
	vm->config.testdev = spec->testdev;
	io_registry_init(&vm->dev.io);
	pci_host_init(&vm->dev.pci_host);
	if (!guest_io_ports_register(vm) || !guest_io_mmio_register(vm) ||
	    (vm->config.is_linux && spec->balloon && !vm_balloon_create(vm))) {
		hv_error("the devices' I/O ranges do not fit the registry");
		return NULL;
	}
	if (vm->config.is_linux)
		guest_lapics_enter_x2apic(vm);
	/* The APs wait for the guest's INIT and SIPI, Linux or not. */
	vm->nvcpus = spec->vcpus;
	ept_shootdown_init(&vm->memory.tlb, vm->nvcpus, kick_for_flush, vm);
	if (!setup_memory(vm, spec)) {
		hv_error("cannot set up guest memory");
		return NULL;
	}
	if (vm->config.testdev && !map_testdev_iomem(vm))
		return NULL;
	if (!start_swap(vm, spec))
		return NULL;
	return vm;
}

void vm_complete(struct vm *vm, const struct vm_spec *spec)
{
	vm->dev.loaded.ram = spec->ram;
	vm->dev.loaded.cpus = (uint16_t)vm->nvcpus;
	vm->dev.loaded.cmdline = spec->cmdline;
	fw_cfg_init(&vm->dev.fw_cfg, &vm->dev.loaded);
	vm->stats.counters = (struct counter_source){
		.each = each_vm_counter, .obj = vm,
	};
	counters_register(&vm->stats.counters);
	if (vm->config.kvm_features & KVM_FEATURE_ASYNC_PF)
		apf_counters_register(&vm->apf.counters, &vm->plat[0].apf,
				      vm->nvcpus, sizeof(vm->plat[0]));
}

/* The first end wins. Called from any CPU, with or without locks held. */
static void record_end(struct vm *vm, enum vm_end_kind kind, bool clean,
		       const char *fmt, va_list ap)
{
	if (__atomic_exchange_n(&vm->end.claimed, true, __ATOMIC_ACQ_REL))
		return;
	fmt_vsnprintf(vm->end.reason, sizeof(vm->end.reason), fmt, ap);
	vm->stats.tsc.end = rdtsc();
	vm->end.clean = clean;
	vm->end.kind = kind;
	trace_guest_end_at(vm->stats.tsc.end, TRACE_NO_VCPU, (uint8_t)kind,
			   clean);
	__atomic_store_n(&vm->end.ended, true, __ATOMIC_RELEASE);
	for (unsigned n = 0; n < vm->nvcpus; n++)
		vm_request(vm, n, VCPU_REQ_STOP);
}

void vm_end(struct vm *vm, bool clean, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record_end(vm, VM_END_HALTED, clean, fmt, ap);
	va_end(ap);
}

void vm_end_as(struct vm *vm, enum vm_end_kind kind, bool clean,
	       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record_end(vm, kind, clean, fmt, ap);
	va_end(ap);
}

/*
 * Hypervisor reads and writes bypass EPT: every page must be resident
 * first (a swapped-out page is brought back; a write then invalidates its
 * swap copy). An access never spans more than a few pages: each gets a
 * few tries, since the daemon may evict a page again between its fault
 * and the copy.
 */
/*
 * pc-testdev's scratch memory, for the hypervisor's own copies (string
 * I/O into it): 1 when [gpa, gpa + len) lies in it (copied), 0 when it
 * does not touch it, -1 when it straddles its edge.
 */
static int access_testdev_iomem(struct vm *vm, uint64_t gpa, void *buf,
				uint64_t len, bool write)
{
	const uint64_t size = PC_TESTDEV_IOMEM_PAGES * PAGE_SIZE;
	uint8_t *mem = (uint8_t *)(uintptr_t)vm->dev.testdev_iomem_pa;

	if (!mem || gpa + len <= PC_TESTDEV_IOMEM_GPA ||
	    gpa >= PC_TESTDEV_IOMEM_GPA + size)
		return 0;
	if (gpa < PC_TESTDEV_IOMEM_GPA || len > size ||
	    gpa - PC_TESTDEV_IOMEM_GPA > size - len)
		return -1;
	mem += gpa - PC_TESTDEV_IOMEM_GPA;
	if (write)
		memcpy(mem, buf, len);
	else
		memcpy(buf, mem, len);
	return 1;
}

static int access_ram(struct vm *vm, uint64_t gpa, void *buf, uint64_t len,
		      bool write)
{
	int iomem = access_testdev_iomem(vm, gpa, buf, len, write);

	if (iomem)
		return iomem > 0 ? 0 : -1;
	for (int attempt = 0; attempt < 4; attempt++) {
		int rc;

		spin_lock(&vm->memory.lock);
		rc = write ? guest_memory_write(&vm->memory.ram, gpa, buf, len)
			   : guest_memory_read(&vm->memory.ram, gpa, buf, len);
		spin_unlock(&vm->memory.lock);
		if (rc == 0)
			return 0;
		for (uint64_t p = ALIGN_DOWN(gpa, PAGE_SIZE); p < gpa + len;
		     p += PAGE_SIZE)
			if (swap_fault_wait(vm->memory.swap, p, SWAP_NO_VCPU,
					    &vm->end.ended) !=
			    GUEST_FAULT_RESOLVED)
				return -1;
	}
	return -1;
}

void *vm_pinned_page(struct vm *vm, uint64_t gpa)
{
	void *page;

	spin_lock(&vm->memory.lock);
	page = guest_memory_pinned_page(&vm->memory.ram, gpa);
	spin_unlock(&vm->memory.lock);
	return page;
}

int vm_pin_ram(struct vm *vm, uint64_t gpa)
{
	for (int attempt = 0; attempt < 4; attempt++) {
		int rc;

		spin_lock(&vm->memory.lock);
		rc = guest_memory_pin(&vm->memory.ram, gpa);
		spin_unlock(&vm->memory.lock);
		if (rc == 0)
			return 0;
		if (swap_fault_wait(vm->memory.swap, ALIGN_DOWN(gpa, PAGE_SIZE),
				    SWAP_NO_VCPU, &vm->end.ended) !=
		    GUEST_FAULT_RESOLVED)
			return -1;
	}
	return -1;
}

void vm_unpin_ram(struct vm *vm, uint64_t gpa)
{
	spin_lock(&vm->memory.lock);
	guest_memory_unpin(&vm->memory.ram, gpa);
	spin_unlock(&vm->memory.lock);
}

int vm_write_ram(struct vm *vm, uint64_t gpa, const void *src, uint64_t len)
{
	return access_ram(vm, gpa, (void *)(uintptr_t)src, len, true);
}

int vm_read_ram(struct vm *vm, uint64_t gpa, void *dst, uint64_t len)
{
	return access_ram(vm, gpa, dst, len, false);
}

void vm_poll_console(struct vm *vm)
{
	unsigned received = 0;
	int c;

	vm_devices_lock(vm);
	uart_flush_idle(&vm->dev.uart, rdtsc(),
			tsc_hz / PROMPT_FLUSH_PER_SECOND);
	while (vm->dev.uart.rx_count < UART_RX_FIFO &&
	       (c = serial_read_byte()) >= 0) {
		uart_receive(&vm->dev.uart, (uint8_t)c);
		received++;
	}
	while (vm->dev.terminal_read && vm->dev.uart.rx_count < UART_RX_FIFO &&
	       (c = vm->dev.terminal_read()) >= 0) {
		uart_receive(&vm->dev.uart, (uint8_t)c);
		received++;
	}
	/* Output alone (uart_flush_idle) moves no interrupt line. */
	vm_devices_unlock(vm, received != 0);
	guest_console_drain(&vm->dev.console);
	con_poll();
	if (received)
		vm_request(vm, 0, VCPU_REQ_EVENT);
}

void vm_report_end(const struct vm *vm)
{
	if (vm->end.kind == VM_END_POWER_OFF)
		hv_info("guest powered off");
	else if (vm->end.kind == VM_END_RESET)
		hv_info("guest reset");
	else
		hv_info("guest halted: %s", vm->end.reason);
	if (vm->end.kind != VM_END_HALTED)
		hv_info("how: %s", vm->end.reason);
}
