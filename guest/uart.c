// SPDX-License-Identifier: BSD-2-Clause
/* Register semantics from the PC16550D data sheet (National Semiconductor). */
#include "guest/uart.h"
#include "lib/string.h"

#define REG_DATA 0      /* THR/RBR, or DLL when LCR.DLAB */
#define REG_IER 1       /* or DLM when LCR.DLAB */
#define REG_IIR_FCR 2
#define REG_LCR 3
#define REG_MCR 4
#define REG_LSR 5
#define REG_MSR 6
#define REG_SCR 7
#define LCR_DLAB 0x80
#define IIR_NO_INTERRUPT 0x01
#define LSR_THR_EMPTY 0x20
#define LSR_TX_IDLE 0x40
#define MSR_CTS_DSR_DCD 0xb0

void uart_init(struct uart *u, uart_line_sink sink)
{
	memset(u, 0, sizeof(*u));
	u->sink = sink;
}

void uart_flush(struct uart *u)
{
	if (u->line_len)
		u->sink(u->line, u->line_len);
	u->line_len = 0;
}

static void transmit(struct uart *u, uint8_t c)
{
	u->bytes_out++;
	if (c == '\r')
		return;
	if (c == '\n') {
		u->sink(u->line, u->line_len);
		u->line_len = 0;
		return;
	}
	/*
	 * A full buffer goes out as a line of its own only when more of the
	 * line follows, so that a line of exactly UART_LINE_MAX bytes and its
	 * newline make one line, not that line and an empty one.
	 */
	if (u->line_len == UART_LINE_MAX)
		uart_flush(u);
	u->line[u->line_len++] = (char)c;
}

uint8_t uart_read(struct uart *u, unsigned offset)
{
	bool dlab = u->lcr & LCR_DLAB;

	switch (offset) {
	case REG_DATA: return dlab ? u->dll : 0;
	case REG_IER: return dlab ? u->dlm : u->ier;
	case REG_IIR_FCR: return IIR_NO_INTERRUPT;
	case REG_LCR: return u->lcr;
	case REG_MCR: return u->mcr;
	case REG_LSR: return LSR_THR_EMPTY | LSR_TX_IDLE;
	case REG_MSR: return MSR_CTS_DSR_DCD;
	default: return u->scr;
	}
}

void uart_write(struct uart *u, unsigned offset, uint8_t value)
{
	bool dlab = u->lcr & LCR_DLAB;

	switch (offset) {
	case REG_DATA:
		if (dlab)
			u->dll = value;
		else
			transmit(u, value);
		break;
	case REG_IER:
		if (dlab)
			u->dlm = value;
		else
			u->ier = value & 0x0f;
		break;
	case REG_LCR: u->lcr = value; break;
	case REG_MCR: u->mcr = value; break;
	case REG_SCR: u->scr = value; break;
	default: break;         /* FCR, LSR, MSR: nothing to keep */
	}
}
