// SPDX-License-Identifier: BSD-2-Clause
#include "guest/io_ports.h"
#include "guest/acpi_tables.h"
#include "guest/interrupts.h"
#include "arch/x86/cpu.h"

#define KBC_COMMAND 0x64
#define KBC_PULSE_RESET 0xfe
#define POST_CODE_PORT 0x80

static bool is_com1(uint16_t port)
{
	return port >= GUEST_COM1_BASE &&
	       port < GUEST_COM1_BASE + GUEST_COM1_PORTS;
}

static void com1_io(struct vm *g, uint16_t port, bool in, uint32_t *value)
{
	if (in) {
		*value = uart_read(&g->uart, port - GUEST_COM1_BASE);
	} else {
		uart_write(&g->uart, port - GUEST_COM1_BASE, (uint8_t)*value);
		g->uart.last_out_tsc = rdtsc();
	}
	guest_update_irq_lines(g);
}

static void pic_io(struct vm *g, uint16_t port, bool in, uint32_t *value)
{
	if (in)
		*value = pic_read(&g->pic, port);
	else
		pic_write(&g->pic, port, (uint8_t)*value);
}

/*
 * ACPI fixed hardware (guest/acpi_tables.c): PM1a status/enable are kept,
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

static bool platform_port(struct vm *g, uint16_t port, bool in,
			  uint32_t *value)
{
	if (is_com1(port))
		com1_io(g, port, in, value);
	else if (pic_owns_port(port))
		pic_io(g, port, in, value);
	else if (!acpi_pm_io(g, port, in, value) &&
		 !reset_request(g, port, in, *value))
		return port == POST_CODE_PORT && !in;  /* io_delay() writes */
	return true;
}

bool guest_port_io(struct vm *g, uint16_t port, unsigned size, bool in,
		   uint32_t *value)
{
	bool handled;

	if (port == GUEST_TEST_EXIT_PORT && !in) {
		spin_lock(&g->dev_lock);
		uart_flush(&g->uart);
		spin_unlock(&g->dev_lock);
		guest_console_drain(&g->console);
		vm_end(g, *value == 0, "test-exit code %u", *value);
		return true;
	}
	spin_lock(&g->dev_lock);
	handled = platform_port(g, port, in, value);
	spin_unlock(&g->dev_lock);
	guest_console_drain(&g->console);
	if (!handled && in)
		*value = size == 4 ? 0xffffffffu : (1u << (size * 8)) - 1;
	return handled;
}
