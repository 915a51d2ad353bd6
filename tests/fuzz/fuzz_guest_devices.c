/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: the virtual platform as a guest drives it. The input
 * is a program of guest accesses, each as the exit handlers make them
 * (vmx/exit_io.c, guest/msr.c, vmx/exit_mmio.c): port I/O of 1, 2 or 4
 * bytes to any port; x2APIC RDMSR/WRMSR of either vCPU, IPIs and EOIs
 * routed on as guest_lapic_written does; loads and stores of 2, 4 or 8
 * bytes in the xAPIC page or the I/O APIC page; and the vCPU loop's side:
 * time moving on, the PIT brought up to date, an interrupt poll and, when
 * one is pending, its acknowledgement. Beyond the sanitizers' checks:
 * a port read of a size gives no bits above it, a poll returns a vector
 * 0-255 (or none) and 16-255 from a local APIC, acknowledging a local
 * APIC's vector returns it, and the console gets lines as long as they
 * say.
 */
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "guest/interrupts.h"
#include "guest/io_ports.h"
#include "guest/devices/vlapic_mmio.h"
#include "guest/vm.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_script.h"

#define TSC_HZ 2000000000ull
#define VCPUS 2

static struct vm vm;
static uint8_t ram[8192];               /* fw_cfg DMA's guest RAM */

/* ---- what the platform calls in the rest of apfvisor ---- */

void vm_request(struct vm *g, unsigned n, enum vcpu_request req)
{
	CHECK(g == &vm && n < VCPUS && req < 64);
}

void vm_end(struct vm *g, bool clean, const char *fmt, ...)
{
	(void)clean;
	(void)fmt;
	CHECK(g == &vm);
}

void vm_end_as(struct vm *g, enum vm_end_kind kind, bool clean,
	       const char *fmt, ...)
{
	(void)kind;
	(void)clean;
	(void)fmt;
	CHECK(g == &vm);
}

/* pc-testdev's page flush: a page address, nothing more to check here. */
void vm_drop_translation(struct vm *g, uint64_t gpa)
{
	CHECK(g == &vm && (gpa & 0xfff) == 0 && gpa >> 32 == 0);
}

int vm_read_ram(struct vm *g, uint64_t gpa, void *dst, uint64_t len)
{
	CHECK(g == &vm);
	if (gpa > sizeof(ram) || len > sizeof(ram) - gpa)
		return -1;
	memcpy(dst, ram + gpa, len);
	return 0;
}

int vm_write_ram(struct vm *g, uint64_t gpa, const void *src, uint64_t len)
{
	CHECK(g == &vm);
	if (gpa > sizeof(ram) || len > sizeof(ram) - gpa)
		return -1;
	memcpy(ram + gpa, src, len);
	return 0;
}

static void print(const char *escaped, size_t len)
{
	CHECK(strlen(escaped) == len);
}

static void platform_reset(void)
{
	memset(&vm, 0, sizeof(vm));
	memset(ram, 0, sizeof(ram));
	vm.nvcpus = VCPUS;
	vm.config.testdev = true;           /* QEMU's pc-testdev ports too */
	guest_console_init(&vm.dev.console, print);
	uart_init(&vm.dev.uart, guest_console_push, &vm.dev.console);
	fw_cfg_init(&vm.dev.fw_cfg, &(struct fw_cfg_platform){
		.ram = { .low_size = 64 << 20 }, .cpus = VCPUS,
		.cmdline = "console=ttyS0",
	});
	pci_host_init(&vm.dev.pci_host);
	CHECK(guest_io_ports_register(&vm));
	guest_interrupts_init(&vm, TSC_HZ);
}

static const unsigned port_sizes[4] = { 1, 2, 4, 1 };
static const unsigned mmio_sizes[4] = { 2, 4, 8, 4 };

static void port_access(struct fuzz_script *in)
{
	uint16_t port = (uint16_t)fuzz_take(in, 2);
	unsigned how = (unsigned)fuzz_take(in, 1);
	unsigned size = port_sizes[how & 3];
	bool is_in = how & 4;
	uint32_t value = (uint32_t)fuzz_take(in, 4);

	if (is_in) {
		value = 0;
		guest_port_io(&vm, port, size, true, &value);
		CHECK(size == 4 || value >> (8 * size) == 0);
	} else {
		if (size < 4)
			value &= (1u << (8 * size)) - 1;
		guest_port_io(&vm, port, size, false, &value);
	}
}

static void lapic_msr(struct fuzz_script *in, uint64_t now)
{
	unsigned vcpu = (unsigned)fuzz_take(in, 1) % VCPUS;
	unsigned which = (unsigned)fuzz_take(in, 1);
	uint32_t msr = which == 0xff ? VLAPIC_MSR_APIC_BASE : 0x800 + which;
	bool write = fuzz_take(in, 1) & 1;
	struct vlapic *a = &vm.plat[vcpu].lapic;
	uint64_t value = fuzz_take(in, 8);

	if (write) {
		struct vlapic_ipi ipi;
		int rc = vlapic_wrmsr(a, msr, value, now, &ipi);

		guest_lapic_written(&vm, a, rc, &ipi);
	} else {
		vlapic_rdmsr(a, msr, now, &value);
	}
}

static void mmio_access(struct fuzz_script *in, uint64_t now)
{
	unsigned how = (unsigned)fuzz_take(in, 1);
	unsigned vcpu = how & 1;
	bool ioapic = how & 2, write = how & 4;
	unsigned size = mmio_sizes[(how >> 3) & 3];
	uint32_t offset = (uint32_t)fuzz_take(in, 2) & 0xfff;
	uint32_t value = (uint32_t)fuzz_take(in, 4);
	struct vlapic *a = &vm.plat[vcpu].lapic;

	if (ioapic) {
		if (write)
			ioapic_write(&vm.dev.ioapic, offset, size, value);
		else
			ioapic_read(&vm.dev.ioapic, offset, size);
		return;
	}
	/* vmx/exit_mmio.c reaches the page only while it is mapped. */
	if (!vlapic_xapic_mode(a))
		return;
	if (write) {
		struct vlapic_ipi ipi;
		int rc = vlapic_mmio_write(a, offset, size, value, now, &ipi);

		guest_lapic_written(&vm, a, rc, &ipi);
	} else {
		vlapic_mmio_read(a, offset, size, now);
	}
}

/* The vCPU loop before an entry: the PIT, a poll and maybe an ack. */
static void poll(struct fuzz_script *in, uint64_t now)
{
	unsigned vcpu = (unsigned)fuzz_take(in, 1) % VCPUS;
	struct pending_interrupt p;

	guest_pit_update(&vm, now);
	p = guest_poll_interrupts(&vm, vcpu, now);
	/*
	 * The 8259 gives whatever base its ICW2 named (a guest may choose
	 * 0-15); a local APIC never holds a vector below 16 (SDM Vol. 3A,
	 * 11.5.2: an illegal vector, refused with an error).
	 */
	CHECK(p.vector >= -1 && p.vector <= 255);
	CHECK(p.vector == -1 || p.source == INTERRUPT_FROM_PIC ||
	      p.vector >= 16);
	if (p.vector < 0) {
		guest_timer_deadline(&vm, vcpu, now);
		return;
	}
	if (fuzz_take(in, 1) & 1)
		CHECK(guest_ack_interrupt(&vm, vcpu, p) == (uint8_t)p.vector ||
		      p.source == INTERRUPT_FROM_PIC);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_script in = { data, size };
	uint64_t now = 0;

	platform_reset();
	while (in.left) {
		switch (fuzz_take(&in, 1) % 5) {
		case 0:
			port_access(&in);
			break;
		case 1:
			lapic_msr(&in, now);
			break;
		case 2:
			mmio_access(&in, now);
			break;
		case 3:
			poll(&in, now);
			break;
		case 4:
			now += fuzz_take(&in, 3);    /* up to ~8 ms at 2 GHz */
			break;
		}
	}
	return 0;
}
