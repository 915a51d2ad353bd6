/* SPDX-License-Identifier: BSD-2-Clause */
/* The host console: a 16550 UART (COM1 at 0x3F8), 115200 8N1, polled. */
#ifndef ARCH_X86_SERIAL_H
#define ARCH_X86_SERIAL_H

#include "lib/types.h"

#define COM1_PORT 0x3f8

void serial_init(void);
void serial_write(const char *s, size_t len);
/* Returns once every byte written has left the UART (bounded wait). */
void serial_drain(void);
/* One received byte, or -1 when none is waiting. */
int serial_read_byte(void);

#endif
