/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guest's port I/O space: COM1, the 8259 pair and its ELCR, the 8254
 * PIT and port 0x61, the ACPI PM1a registers (power-off), the reset
 * register 0xCF9 and the keyboard
 * controller's reset command, and the test-exit port 0xf4 (a 32-bit OUT
 * of code C ends the guest: "test-exit code C", clean when C = 0; for a
 * multiboot kernel an OUT of any size ends it as QEMU's isa-debug-exit
 * does, see isa_debug_exit_status), and with guest.testdev = on QEMU's
 * pc-testdev. Each registers its ranges in the VM's I/O registry
 * (guest/devices/io_registry.h); an access is a lookup there. Every other
 * port reads as all ones and ignores writes, like an empty ISA bus, and
 * is counted in io.unhandled.
 */
#ifndef GUEST_IO_PORTS_H
#define GUEST_IO_PORTS_H

#include "guest/vm.h"

#define GUEST_TEST_EXIT_PORT 0xf4

/*
 * A multiboot kernel's write of value to port 0xf4 ends the run as QEMU's
 * isa-debug-exit ends QEMU (hw/misc/debugexit.c): exit status
 * (value << 1) | 1, truncated to the 8 bits a process exit status has.
 */
static inline unsigned isa_debug_exit_status(uint32_t value)
{
	return ((value << 1) | 1) & 0xff;
}

/*
 * size is 1, 2 or 4 bytes; *value is read (OUT) or written (IN). What an
 * IN writes has no bits above size bytes (a device register wider than
 * the access gives its low bytes), so callers may merge it into RAX.
 */
bool guest_port_io(struct vm *g, uint16_t port, unsigned size, bool in,
		   uint32_t *value);

/*
 * Registers the PC's port devices (pc-testdev too when the VM has it on)
 * in g's I/O registry. False if one did not fit: a bug, not a guest's
 * doing.
 */
bool guest_io_ports_register(struct vm *g);

#endif
