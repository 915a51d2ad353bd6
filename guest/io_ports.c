// SPDX-License-Identifier: BSD-2-Clause
#include "guest/io_ports.h"
#include "guest/devices/acpi_tables.h"
#include "guest/interrupts.h"
#include "arch/x86/cpu.h"

#define KBC_COMMAND 0x64
#define KBC_PULSE_RESET 0xfe
#define POST_CODE_PORT 0x80

/*
 * The UART reaches the interrupt poll only through its IRQ line: an access
 * that leaves the line as it was (an LSR poll, most THR writes with the
 * THR-empty interrupt off) changes nothing a poll would find.
 * IO_CLAIMED_IRQ if the line moved.
 */
static enum io_claim com1_io(struct vm *g, void *opaque, uint16_t port,
			    unsigned size, bool in, uint32_t *value)
{
	struct uart *u = &g->dev.uart;
	bool line = uart_irq_line(u);

	(void)opaque;
	(void)size;
	if (in) {
		*value = uart_read(u, port - GUEST_COM1_BASE);
	} else {
		uart_write(u, port - GUEST_COM1_BASE, (uint8_t)*value);
		u->last_out_tsc = rdtsc();
	}
	guest_update_irq_lines(g);
	return uart_irq_line(u) != line ? IO_CLAIMED_IRQ : IO_CLAIMED;
}

/* Any 8259 access may change its state (a read in poll mode is an INTA). */
static enum io_claim pic_io(struct vm *g, void *opaque, uint16_t port,
			   unsigned size, bool in, uint32_t *value)
{
	(void)opaque;
	(void)size;
	if (in)
		*value = pic_read(&g->dev.pic, port);
	else
		pic_write(&g->dev.pic, port, (uint8_t)*value);
	return IO_CLAIMED_IRQ;
}

/*
 * The PIT and port 0x61: a write may change counter 0's next IRQ 0 edge
 * (the vCPUs' deadlines), a read may find that an edge happened.
 */
static enum io_claim pit_io(struct vm *g, void *opaque, uint16_t port,
			   unsigned size, bool in, uint32_t *value)
{
	uint64_t now = rdtsc();

	(void)opaque;
	(void)size;
	if (port == PORT61 && in)
		*value = port61_read(&g->dev.port61, &g->dev.pit, now);
	else if (port == PORT61)
		port61_write(&g->dev.port61, &g->dev.pit, (uint8_t)*value, now);
	else if (in)
		*value = pit_read(&g->dev.pit, port, now);
	else
		pit_write(&g->dev.pit, port, (uint8_t)*value, now);
	return guest_pit_update(g, now) || !in ? IO_CLAIMED_IRQ : IO_CLAIMED;
}

/*
 * ACPI fixed hardware (guest/devices/acpi_tables.c): PM1a status/enable are kept,
 * PM1a control takes SCI_EN and the S5 sleep request (power-off).
 */
static enum io_claim acpi_pm_io(struct vm *g, void *opaque, uint16_t port,
			       unsigned size, bool in, uint32_t *value)
{
	(void)opaque;
	(void)size;
	if (port == ACPI_PM1A_STS_PORT) {
		if (in)
			*value = g->dev.pm1.status;
		else
			g->dev.pm1.status &= (uint16_t)~*value; /* W1C */
	} else if (port == ACPI_PM1A_EN_PORT) {
		if (in)
			*value = g->dev.pm1.enable;
		else
			g->dev.pm1.enable = (uint16_t)*value;
	} else if (port == ACPI_PM1A_CNT_PORT) {
		if (in) {
			/* Always in ACPI mode: the FADT has no SMI_CMD port. */
			*value = g->dev.pm1.control | ACPI_PM1_CNT_SCI_EN;
		} else {
			g->dev.pm1.control = (uint16_t)*value &
					 (uint16_t)~ACPI_PM1_CNT_SLP_EN;
			if (acpi_pm1_cnt_is_poweroff((uint16_t)*value))
				vm_end_as(g, VM_END_POWER_OFF, true,
					     "ACPI S5");
		}
	}
	return IO_CLAIMED;
}

/*
 * The reset register 0xCF9 (bit 2) and the keyboard controller's pulse
 * reset command: writes only; any other access is not claimed.
 */
static enum io_claim reset_io(struct vm *g, void *opaque, uint16_t port,
			      unsigned size, bool in, uint32_t *value)
{
	(void)opaque;
	(void)size;
	if (in)
		return IO_UNCLAIMED;
	if ((port == ACPI_RESET_PORT && (*value & 0x04)) ||
	    (port == KBC_COMMAND && *value == KBC_PULSE_RESET)) {
		vm_end_as(g, VM_END_RESET, true, "reset through port 0x%x",
			     port);
		return IO_CLAIMED;
	}
	return IO_UNCLAIMED;
}

/* io_delay()'s writes to the POST code port are taken (and dropped). */
static enum io_claim post_code_io(struct vm *g, void *opaque, uint16_t port,
				  unsigned size, bool in, uint32_t *value)
{
	(void)g;
	(void)opaque;
	(void)port;
	(void)size;
	(void)value;
	return in ? IO_UNCLAIMED : IO_CLAIMED;
}

/* CONFIG_ADDRESS answers 32-bit accesses only; CONFIG_DATA any. */
static enum io_claim pci_io(struct vm *g, void *opaque, uint16_t port,
			    unsigned size, bool in, uint32_t *value)
{
	(void)opaque;
	if (!pci_host_owns_port(port, size))
		return IO_UNCLAIMED;
	if (!pci_host_io(&g->dev.pci_host, port, size, in, value))
		return IO_CLAIMED;
	guest_update_irq_lines(g);
	return IO_CLAIMED_IRQ;
}

static int fw_cfg_ram_read(void *ctx, uint64_t gpa, void *dst, uint64_t len)
{
	return vm_read_ram(ctx, gpa, dst, len);
}

static int fw_cfg_ram_write(void *ctx, uint64_t gpa, const void *src,
			    uint64_t len)
{
	return vm_write_ram(ctx, gpa, src, len);
}

/*
 * QEMU's fw_cfg: the selector (any width), the byte-wide data port and
 * the DMA address halves. Under fw_cfg_lock, not dev.lock: a DMA transfer
 * copies to and from guest RAM (memory.lock, perhaps a swap-in), a page at a
 * time, and gives up between pages once the VM has ended.
 */
static enum io_claim fw_cfg_io(struct vm *g, void *opaque, uint16_t port,
			      unsigned size, bool in, uint32_t *value)
{
	const struct fw_cfg_guest_memory mem = {
		.read = fw_cfg_ram_read, .write = fw_cfg_ram_write, .ctx = g,
		.stop = &g->end.ended,
	};

	spin_lock(&g->dev.fw_cfg_lock);
	if (port == FW_CFG_SELECTOR_PORT && !in)
		fw_cfg_select(&g->dev.fw_cfg, (uint16_t)*value);
	else if (port == FW_CFG_DATA_PORT && in)
		*value = fw_cfg_read(&g->dev.fw_cfg);
	else if (port != FW_CFG_DATA_PORT && size == 4 && in)
		*value = fw_cfg_dma_read(port);
	else if (port != FW_CFG_DATA_PORT && size == 4)
		fw_cfg_dma_write(&g->dev.fw_cfg, port, *value, &mem);
	else if (in)
		*value = size == 4 ? 0xffffffffu : (1u << (size * 8)) - 1;
	spin_unlock(&g->dev.fw_cfg_lock);
	(void)opaque;
	return IO_CLAIMED;
}

/*
 * guest.testdev = on: QEMU's pc-testdev. A line change goes to the 8259
 * pair and the I/O APIC under dev.lock; a page flush comes after it, for
 * it takes memory.lock and waits for the other vCPUs.
 */
static enum io_claim testdev_io(struct vm *g, void *opaque, uint16_t port,
				unsigned size, bool in, uint32_t *value)
{
	struct pc_testdev_effect fx;

	vm_devices_lock(g);
	pc_testdev_io(opaque, port, size, in, value, &fx);
	if (fx.action == PC_TESTDEV_SET_LINE)
		guest_isa_irq_set(g, fx.line, fx.level);
	vm_devices_unlock(g, fx.action == PC_TESTDEV_SET_LINE);
	if (fx.action == PC_TESTDEV_FLUSH_PAGE)
		vm_drop_translation(g, fx.gpa);
	return IO_CLAIMED;
}

/*
 * The test-exit port, for test guests only: for Linux 0xf4 is an
 * unclaimed port, as on a PC. The console is flushed first, so that the
 * guest's last line is printed before the verdict.
 */
static enum io_claim test_exit_io(struct vm *g, void *opaque, uint16_t port,
				  unsigned size, bool in, uint32_t *value)
{
	(void)opaque;
	(void)port;
	(void)size;
	if (in || g->config.is_linux)
		return IO_UNCLAIMED;
	vm_devices_lock(g);
	uart_flush(&g->dev.uart);
	vm_devices_unlock(g, false);
	guest_console_flush(&g->dev.console);
	if (g->config.isa_debug_exit)
		vm_end(g, true, "isa-debug-exit value 0x%x, exit status %u",
		       *value, isa_debug_exit_status(*value));
	else
		vm_end(g, *value == 0, "test-exit code %u", *value);
	return IO_CLAIMED;
}

#define RANGE(b, n, f) { .base = (b), .count = (n), .fn = (f) }
#define OWN_LOCKING_RANGE(b, n, f) \
	{ .base = (b), .count = (n), .own_locking = true, .fn = (f) }

/* The PC's port devices, a row per range. */
static const struct io_port_range pc_ports[] = {
	OWN_LOCKING_RANGE(GUEST_TEST_EXIT_PORT, 1, test_exit_io),
	OWN_LOCKING_RANGE(FW_CFG_SELECTOR_PORT, 2, fw_cfg_io),   /* + data */
	OWN_LOCKING_RANGE(FW_CFG_DMA_HIGH_PORT, 1, fw_cfg_io),
	OWN_LOCKING_RANGE(FW_CFG_DMA_LOW_PORT, 1, fw_cfg_io),
	RANGE(PCI_CONFIG_ADDRESS_PORT, 1, pci_io),
	RANGE(PCI_CONFIG_DATA_PORT, 4, pci_io),
	RANGE(GUEST_COM1_BASE, GUEST_COM1_PORTS, com1_io),
	RANGE(PIC_MASTER_CMD, 2, pic_io),
	RANGE(PIC_SLAVE_CMD, 2, pic_io),
	RANGE(PIC_ELCR_MASTER, 2, pic_io),
	RANGE(PIT_CHANNEL0_PORT, PIT_CONTROL_PORT - PIT_CHANNEL0_PORT + 1,
	      pit_io),
	RANGE(PORT61, 1, pit_io),
	RANGE(ACPI_PM1A_STS_PORT, 1, acpi_pm_io),
	RANGE(ACPI_PM1A_EN_PORT, 1, acpi_pm_io),
	RANGE(ACPI_PM1A_CNT_PORT, 1, acpi_pm_io),
	RANGE(ACPI_RESET_PORT, 1, reset_io),
	RANGE(KBC_COMMAND, 1, reset_io),
	RANGE(POST_CODE_PORT, 1, post_code_io),
};

/* pc-testdev (guest/devices/pc_testdev.h): scratch, flush, IRQ lines. */
static const struct io_port_range testdev_ports[] = {
	OWN_LOCKING_RANGE(PC_TESTDEV_SCRATCH,
			  PC_TESTDEV_SCRATCH_BYTES + 4 - PC_TESTDEV_SCRATCH,
			  testdev_io),
	OWN_LOCKING_RANGE(PC_TESTDEV_IRQ_BASE, PC_TESTDEV_IRQ_PORTS,
			  testdev_io),
};

static bool register_all(struct io_registry *r,
			 const struct io_port_range *ranges, unsigned n,
			 void *opaque)
{
	for (unsigned i = 0; i < n; i++) {
		struct io_port_range range = ranges[i];

		range.opaque = opaque;
		if (io_register_ports(r, &range) != IO_REGISTERED)
			return false;
	}
	return true;
}

bool guest_io_ports_register(struct vm *g)
{
	if (!register_all(&g->dev.io, pc_ports, ARRAY_SIZE(pc_ports), NULL))
		return false;
	return !g->config.testdev ||
	       register_all(&g->dev.io, testdev_ports,
			    ARRAY_SIZE(testdev_ports), &g->dev.testdev);
}

bool guest_port_io(struct vm *g, uint16_t port, unsigned size, bool in,
		   uint32_t *value)
{
	const struct io_port_range *r = io_find_port(&g->dev.io, port);
	enum io_claim claim = IO_UNCLAIMED;

	if (r && r->own_locking) {
		claim = r->fn(g, r->opaque, port, size, in, value);
	} else if (r) {
		vm_devices_lock(g);
		claim = r->fn(g, r->opaque, port, size, in, value);
		vm_devices_unlock(g, claim == IO_CLAIMED_IRQ);
		/* Only a write (COM1's THR) can have queued a line. */
		if (!in)
			guest_console_drain(&g->dev.console);
	}
	if (claim == IO_UNCLAIMED && in)
		*value = 0xffffffffu;
	/*
	 * A byte IN of a 16-bit register (the PM1a ones) must not hand the
	 * high byte on: the caller merges the value into the guest's RAX.
	 */
	if (in && size < 4)
		*value &= (1u << (size * 8)) - 1;
	return claim != IO_UNCLAIMED;
}
