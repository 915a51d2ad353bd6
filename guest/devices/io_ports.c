// SPDX-License-Identifier: BSD-2-Clause
#include "guest/devices/io_ports.h"
#include "guest/devices/acpi_tables.h"
#include "guest/interrupts.h"
#include "arch/x86/cpu.h"

#define KBC_COMMAND 0x64
#define KBC_PULSE_RESET 0xfe
#define POST_CODE_PORT 0x80
#define NO_FLUSH (~0ull)

static bool is_com1(uint16_t port)
{
	return port >= GUEST_COM1_BASE &&
	       port < GUEST_COM1_BASE + GUEST_COM1_PORTS;
}

/*
 * The UART reaches the interrupt poll only through its IRQ line: an access
 * that leaves the line as it was (an LSR poll, most THR writes with the
 * THR-empty interrupt off) changes nothing a poll would find. True if the
 * line moved.
 */
static bool com1_io(struct vm *g, uint16_t port, bool in, uint32_t *value)
{
	bool line = uart_irq_line(&g->uart);

	if (in) {
		*value = uart_read(&g->uart, port - GUEST_COM1_BASE);
	} else {
		uart_write(&g->uart, port - GUEST_COM1_BASE, (uint8_t)*value);
		g->uart.last_out_tsc = rdtsc();
	}
	guest_update_irq_lines(g);
	return uart_irq_line(&g->uart) != line;
}

/* Any 8259 access may change its state (a read in poll mode is an INTA). */
static bool pic_io(struct vm *g, uint16_t port, bool in, uint32_t *value)
{
	if (in)
		*value = pic_read(&g->pic, port);
	else
		pic_write(&g->pic, port, (uint8_t)*value);
	return true;
}

/*
 * The PIT and port 0x61: a write may change counter 0's next IRQ 0 edge
 * (the vCPUs' deadlines), a read may find that an edge happened.
 */
static bool pit_io(struct vm *g, uint16_t port, bool in, uint32_t *value)
{
	uint64_t now = rdtsc();

	if (port == PORT61 && in)
		*value = port61_read(&g->port61, &g->pit, now);
	else if (port == PORT61)
		port61_write(&g->port61, &g->pit, (uint8_t)*value, now);
	else if (in)
		*value = pit_read(&g->pit, port, now);
	else
		pit_write(&g->pit, port, (uint8_t)*value, now);
	return guest_pit_update(g, now) || !in;
}

/*
 * ACPI fixed hardware (guest/devices/acpi_tables.c): PM1a status/enable are kept,
 * PM1a control takes SCI_EN and the S5 sleep request (power-off).
 */
static bool acpi_pm_io(struct vm *g, uint16_t port, bool in,
		       uint32_t *value)
{
	if (port == ACPI_PM1A_STS_PORT) {
		if (in)
			*value = g->pm1_status;
		else
			g->pm1_status &= (uint16_t)~*value;  /* write 1 to clear */
	} else if (port == ACPI_PM1A_EN_PORT) {
		if (in)
			*value = g->pm1_enable;
		else
			g->pm1_enable = (uint16_t)*value;
	} else if (port == ACPI_PM1A_CNT_PORT) {
		if (in) {
			/* Always in ACPI mode: the FADT has no SMI_CMD port. */
			*value = g->pm1_control | ACPI_PM1_CNT_SCI_EN;
		} else {
			g->pm1_control = (uint16_t)*value &
					 (uint16_t)~ACPI_PM1_CNT_SLP_EN;
			if (acpi_pm1_cnt_is_poweroff((uint16_t)*value))
				vm_end_as(g, VM_END_POWER_OFF, true,
					     "ACPI S5");
		}
	} else {
		return false;
	}
	return true;
}

static bool reset_request(struct vm *g, uint16_t port, bool in,
			  uint32_t value)
{
	if (in)
		return false;
	if ((port == ACPI_RESET_PORT && (value & 0x04)) ||
	    (port == KBC_COMMAND && value == KBC_PULSE_RESET)) {
		vm_end_as(g, VM_END_RESET, true, "reset through port 0x%x",
			     port);
		return true;
	}
	return false;
}

/*
 * True if a device claimed the port; *irq_changed says whether the access
 * may have changed what an interrupt poll finds (the ACPI PM registers
 * raise no interrupt here).
 */
static int fw_cfg_ram_read(void *ctx, uint64_t gpa, void *dst, uint64_t len)
{
	return vm_read_ram(ctx, gpa, dst, len);
}

static int fw_cfg_ram_write(void *ctx, uint64_t gpa, const void *src,
			    uint64_t len)
{
	return vm_write_ram(ctx, gpa, src, len);
}

static bool is_fw_cfg(uint16_t port)
{
	return port == FW_CFG_SELECTOR_PORT || port == FW_CFG_DATA_PORT ||
	       port == FW_CFG_DMA_HIGH_PORT || port == FW_CFG_DMA_LOW_PORT;
}

/*
 * QEMU's fw_cfg: the selector (any width), the byte-wide data port and
 * the DMA address halves. Under fw_cfg_lock, not dev_lock: a DMA transfer
 * copies to and from guest RAM (mem_lock, perhaps a swap-in), a page at a
 * time, and gives up between pages once the VM has ended.
 */
static void fw_cfg_io(struct vm *g, uint16_t port, unsigned size, bool in,
		      uint32_t *value)
{
	const struct fw_cfg_guest_memory mem = {
		.read = fw_cfg_ram_read, .write = fw_cfg_ram_write, .ctx = g,
		.stop = &g->ended,
	};

	spin_lock(&g->fw_cfg_lock);
	if (port == FW_CFG_SELECTOR_PORT && !in)
		fw_cfg_select(&g->fw_cfg, (uint16_t)*value);
	else if (port == FW_CFG_DATA_PORT && in)
		*value = fw_cfg_read(&g->fw_cfg);
	else if (port != FW_CFG_DATA_PORT && size == 4 && in)
		*value = fw_cfg_dma_read(port);
	else if (port != FW_CFG_DATA_PORT && size == 4)
		fw_cfg_dma_write(&g->fw_cfg, port, *value, &mem);
	else if (in)
		*value = size == 4 ? 0xffffffffu : (1u << (size * 8)) - 1;
	spin_unlock(&g->fw_cfg_lock);
}

/*
 * guest.testdev = on: QEMU's pc-testdev. A line change goes to the 8259
 * pair and the I/O APIC here (under dev_lock); a page flush is returned
 * in *flush_gpa, for it takes mem_lock and waits for the other vCPUs.
 */
static bool testdev_io(struct vm *g, uint16_t port, unsigned size, bool in,
		       uint32_t *value, uint64_t *flush_gpa)
{
	struct pc_testdev_effect fx;

	pc_testdev_io(&g->testdev, port, size, in, value, &fx);
	if (fx.action == PC_TESTDEV_SET_LINE)
		guest_isa_irq_set(g, fx.line, fx.level);
	else if (fx.action == PC_TESTDEV_FLUSH_PAGE)
		*flush_gpa = fx.gpa;
	return fx.action == PC_TESTDEV_SET_LINE;
}

static bool platform_port(struct vm *g, uint16_t port, unsigned size,
			  bool in, uint32_t *value, bool *irq_changed,
			  uint64_t *flush_gpa)
{
	*irq_changed = false;
	if (g->testdev_on && pc_testdev_owns_port(port))
		*irq_changed = testdev_io(g, port, size, in, value, flush_gpa);
	else if (pci_host_owns_port(port, size))
		pci_host_io(&g->pci_host, port, size, in, value);
	else if (is_com1(port))
		*irq_changed = com1_io(g, port, in, value);
	else if (pic_owns_port(port))
		*irq_changed = pic_io(g, port, in, value);
	else if (pit_owns_port(port) || port == PORT61)
		*irq_changed = pit_io(g, port, in, value);
	else if (!acpi_pm_io(g, port, in, value) &&
		 !reset_request(g, port, in, *value))
		return port == POST_CODE_PORT && !in;  /* io_delay() writes */
	return true;
}

bool guest_port_io(struct vm *g, uint16_t port, unsigned size, bool in,
		   uint32_t *value)
{
	bool handled, irq_changed;
	uint64_t flush_gpa = NO_FLUSH;

	/* Test guests only: for Linux, 0xf4 is an unclaimed port, as on a PC. */
	if (port == GUEST_TEST_EXIT_PORT && !in && !g->is_linux) {
		vm_devices_lock(g);
		uart_flush(&g->uart);
		vm_devices_unlock(g, false);
		guest_console_drain(&g->console);
		if (g->isa_debug_exit)
			vm_end(g, true, "isa-debug-exit value 0x%x, exit "
			       "status %u", *value, isa_debug_exit_status(*value));
		else
			vm_end(g, *value == 0, "test-exit code %u", *value);
		return true;
	}
	if (is_fw_cfg(port)) {
		fw_cfg_io(g, port, size, in, value);
		handled = true;
	} else {
		vm_devices_lock(g);
		handled = platform_port(g, port, size, in, value,
					&irq_changed, &flush_gpa);
		vm_devices_unlock(g, irq_changed);
		if (flush_gpa != NO_FLUSH)
			vm_drop_translation(g, flush_gpa);
		guest_console_drain(&g->console);
		if (!handled && in)
			*value = 0xffffffffu;
	}
	/*
	 * A byte IN of a 16-bit register (the PM1a ones) must not hand the
	 * high byte on: the caller merges the value into the guest's RAX.
	 */
	if (in && size < 4)
		*value &= (1u << (size * 8)) - 1;
	return handled;
}
