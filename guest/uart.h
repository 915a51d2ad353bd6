/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guest's COM1: a 16550 register file at 0x3F8-0x3FF. Output is collected
 * per line and printed on the host console as "guest: <line>", so guest and
 * hypervisor lines can be told apart. Pure C.
 */
#ifndef GUEST_UART_H
#define GUEST_UART_H

#include "lib/types.h"

#define GUEST_COM1_BASE 0x3f8
#define GUEST_COM1_PORTS 8
#define UART_LINE_MAX 256

typedef void (*uart_line_sink)(const char *line, size_t len);

struct uart {
	uint8_t ier, lcr, mcr, scr, dll, dlm;
	char line[UART_LINE_MAX];
	size_t line_len;
	uart_line_sink sink;
	uint64_t bytes_out;
};

void uart_init(struct uart *u, uart_line_sink sink);
uint8_t uart_read(struct uart *u, unsigned offset);
void uart_write(struct uart *u, unsigned offset, uint8_t value);
/* Emits a partial last line, if any. */
void uart_flush(struct uart *u);

#endif
