// SPDX-License-Identifier: BSD-2-Clause
/* The guest's terminal on the host's COM2 (boot/guest_terminal.h). */
#include "boot/guest_terminal.h"
#include "arch/x86/serial.h"
#include "lib/console.h"

static bool active;

bool guest_terminal_open(enum console_passthrough where)
{
	if (where == CONSOLE_PASSTHROUGH_OFF)
		return true;
	if (!serial_port_present(COM2_PORT)) {
		hv_error("console.passthrough = com2: no UART answers at "
			 "0x%x; connect one, or set console.passthrough = off "
			 "to keep the guest's console in this record only",
			 COM2_PORT);
		return false;
	}
	serial_port_init(COM2_PORT);
	active = true;
	hv_info("console: the guest's terminal is on COM2 (0x%x), raw both "
		"ways; COM1 keeps this record, the guest's lines escaped",
		COM2_PORT);
	return true;
}

bool guest_terminal_active(void)
{
	return active;
}

size_t guest_terminal_write(const char *bytes, size_t len, bool wait)
{
	if (!wait)
		return serial_port_write_ready(COM2_PORT, bytes, len);
	serial_port_write(COM2_PORT, bytes, len);
	return len;
}

int guest_terminal_read(void)
{
	return serial_port_read_byte(COM2_PORT);
}
