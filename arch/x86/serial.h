/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host's 16550 UARTs, 115200 8N1, polled. COM1 (0x3F8) is apfvisor's
 * console, the record of a run; COM2 (0x2F8), when console.passthrough
 * names it, carries the guest's terminal raw (boot/guest_terminal.c).
 */
#ifndef ARCH_X86_SERIAL_H
#define ARCH_X86_SERIAL_H

#include "lib/types.h"

#define COM1_PORT 0x3f8
#define COM2_PORT 0x2f8

/* COM1: the console. serial_write turns "\n" into "\r\n". */
void serial_init(void);
void serial_write(const char *s, size_t len);
/*
 * Returns once every byte written has left the UART (bounded wait); held
 * output (below) goes first, and is not held any more: for the end.
 */
void serial_drain(void);

/*
 * From now on (the hypervisor owns the machine) COM1's output is held in
 * a ring and sent as the UART takes it, so that no CPU waits 87 us a byte
 * for its lines (at 115200 baud a Linux boot's 20 KiB of console took a
 * vCPU 1.8 s). The console's poll hook serial_send_ready_locked sends
 * what the UART takes without waiting, its flush hook
 * serial_send_held_locked everything (lib/console.h,
 * console_set_buffered); serial_output_held says whether anything waits.
 */
void serial_hold_output(void);
void serial_send_ready_locked(void);
void serial_send_held_locked(void);
bool serial_output_held(void);
/* One received byte, or -1 when none is waiting. */
int serial_read_byte(void);

/*
 * Any UART by its base port. serial_port_present: a UART answers there
 * (its scratch register keeps what is written; an empty ISA port reads
 * 0xFF). serial_port_write sends the bytes as they are.
 */
bool serial_port_present(uint16_t base);
void serial_port_init(uint16_t base);
void serial_port_write(uint16_t base, const char *s, size_t len);
/* As many of the bytes as the UART takes without a wait; returns how many. */
size_t serial_port_write_ready(uint16_t base, const char *s, size_t len);
void serial_port_drain(uint16_t base);
int serial_port_read_byte(uint16_t base);

#endif
