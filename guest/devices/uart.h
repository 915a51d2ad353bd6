/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guest's COM1: a 16550A at 0x3F8-0x3FF with its interrupt. Output is
 * collected per line and printed on the host console as "guest: <line>", so
 * guest and hypervisor lines can be told apart; input comes from the host
 * console. Pure C: the caller moves bytes in and routes the IRQ line.
 */
#ifndef GUEST_UART_H
#define GUEST_UART_H

#include "lib/types.h"

#define GUEST_COM1_BASE 0x3f8
#define GUEST_COM1_PORTS 8
#define GUEST_COM1_IRQ 4
#define UART_LINE_MAX 256
#define UART_RX_FIFO 64

typedef void (*uart_line_sink)(void *ctx, const char *line, size_t len);
/* Every byte the guest transmits, as it comes (CR included). */
typedef void (*uart_byte_sink)(void *ctx, uint8_t byte);

struct uart {
	uint8_t ier, lcr, mcr, scr, dll, dlm, fcr;
	bool thre_pending;              /* THR-empty interrupt not yet seen */
	uint8_t rx[UART_RX_FIFO];
	unsigned rx_head, rx_count;
	char line[UART_LINE_MAX];
	size_t line_len;
	uart_line_sink sink;
	void *sink_ctx;
	uart_byte_sink byte_sink;       /* NULL: lines only */
	void *byte_sink_ctx;
	uint64_t bytes_out;
	uint64_t bytes_in;
	uint64_t last_out_tsc;          /* when the last byte was written */
};

void uart_init(struct uart *u, uart_line_sink sink, void *sink_ctx);
/* Also hands every transmitted byte to sink (a terminal's raw copy). */
void uart_set_byte_sink(struct uart *u, uart_byte_sink sink, void *ctx);
uint8_t uart_read(struct uart *u, unsigned offset);
void uart_write(struct uart *u, unsigned offset, uint8_t value);
/* Emits a partial last line, if any. */
void uart_flush(struct uart *u);
/*
 * Emits a partial line that has waited idle_ticks since its last byte:
 * a shell prompt has no newline but must still be seen.
 */
void uart_flush_idle(struct uart *u, uint64_t now, uint64_t idle_ticks);

/* Queues a received byte; false when the FIFO is full (caller retries). */
bool uart_receive(struct uart *u, uint8_t byte);
/* The level of the UART's interrupt output (gated by MCR.OUT2, as on PCs). */
bool uart_irq_line(const struct uart *u);

#endif
