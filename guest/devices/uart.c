// SPDX-License-Identifier: BSD-2-Clause
/*
 * Register semantics from the PC16550D data sheet (National Semiconductor);
 * what Linux checks of them is in drivers/tty/serial/8250/8250_port.c
 * (autoconfig: scratch, FIFO and loopback tests; serial8250_do_startup: the
 * THRE interrupt test).
 */
#include "guest/devices/uart.h"
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
#define IER_RX_DATA 0x01
#define IER_THR_EMPTY 0x02
#define IER_MASK 0x0f
#define IIR_NO_INTERRUPT 0x01
#define IIR_THR_EMPTY 0x02
#define IIR_RX_DATA 0x04
#define IIR_FIFO_ENABLED 0xc0
#define FCR_FIFO_ENABLE 0x01
#define FCR_CLEAR_RX 0x02
#define LSR_DATA_READY 0x01
#define LSR_THR_EMPTY 0x20
#define LSR_TX_IDLE 0x40
#define MCR_DTR 0x01
#define MCR_RTS 0x02
#define MCR_OUT1 0x04
#define MCR_OUT2 0x08
#define MCR_LOOP 0x10
#define MSR_CTS 0x10
#define MSR_DSR 0x20
#define MSR_RI 0x40
#define MSR_DCD 0x80

void uart_init(struct uart *u, uart_line_sink sink, void *sink_ctx)
{
	memset(u, 0, sizeof(*u));
	u->sink = sink;
	u->sink_ctx = sink_ctx;
}

void uart_set_byte_sink(struct uart *u, uart_byte_sink sink, void *ctx)
{
	u->byte_sink = sink;
	u->byte_sink_ctx = ctx;
}

void uart_flush(struct uart *u)
{
	if (u->line_len)
		u->sink(u->sink_ctx, u->line, u->line_len);
	u->line_len = 0;
}

static void transmit(struct uart *u, uint8_t c)
{
	u->bytes_out++;
	if (u->byte_sink)
		u->byte_sink(u->byte_sink_ctx, c);
	if (c == '\r')
		return;
	if (c == '\n') {
		u->sink(u->sink_ctx, u->line, u->line_len);
		u->line_len = 0;
		return;
	}
	/* A full buffer goes out only when more of the line follows. */
	if (u->line_len == UART_LINE_MAX)
		uart_flush(u);
	u->line[u->line_len++] = (char)c;
}

bool uart_receive(struct uart *u, uint8_t byte)
{
	if (u->rx_count == UART_RX_FIFO)
		return false;
	u->rx[(u->rx_head + u->rx_count) % UART_RX_FIFO] = byte;
	u->rx_count++;
	u->bytes_in++;
	return true;
}

static uint8_t receive_pop(struct uart *u)
{
	uint8_t c;

	if (!u->rx_count)
		return 0;
	c = u->rx[u->rx_head];
	u->rx_head = (u->rx_head + 1) % UART_RX_FIFO;
	u->rx_count--;
	return c;
}

/* The highest-priority pending interrupt, as IIR reports it. */
static uint8_t pending_interrupt(const struct uart *u)
{
	if ((u->ier & IER_RX_DATA) && u->rx_count)
		return IIR_RX_DATA;
	if ((u->ier & IER_THR_EMPTY) && u->thre_pending)
		return IIR_THR_EMPTY;
	return IIR_NO_INTERRUPT;
}

bool uart_irq_line(const struct uart *u)
{
	return (u->mcr & MCR_OUT2) &&
	       pending_interrupt(u) != IIR_NO_INTERRUPT;
}

static uint8_t read_iir(struct uart *u)
{
	uint8_t iir = pending_interrupt(u);

	/* Reading IIR while it reports THR-empty clears that interrupt. */
	if (iir == IIR_THR_EMPTY)
		u->thre_pending = false;
	return iir | ((u->fcr & FCR_FIFO_ENABLE) ? IIR_FIFO_ENABLED : 0);
}

/* In loopback the modem outputs feed the modem inputs (data sheet 8.6). */
static uint8_t read_msr(const struct uart *u)
{
	if (!(u->mcr & MCR_LOOP))
		return MSR_CTS | MSR_DSR | MSR_DCD;
	return ((u->mcr & MCR_DTR) ? MSR_DSR : 0) |
	       ((u->mcr & MCR_RTS) ? MSR_CTS : 0) |
	       ((u->mcr & MCR_OUT1) ? MSR_RI : 0) |
	       ((u->mcr & MCR_OUT2) ? MSR_DCD : 0);
}

uint8_t uart_read(struct uart *u, unsigned offset)
{
	bool dlab = u->lcr & LCR_DLAB;

	switch (offset) {
	case REG_DATA: return dlab ? u->dll : receive_pop(u);
	case REG_IER: return dlab ? u->dlm : u->ier;
	case REG_IIR_FCR: return read_iir(u);
	case REG_LCR: return u->lcr;
	case REG_MCR: return u->mcr;
	case REG_LSR:
		return LSR_THR_EMPTY | LSR_TX_IDLE |
		       (u->rx_count ? LSR_DATA_READY : 0);
	case REG_MSR: return read_msr(u);
	default: return u->scr;
	}
}

void uart_flush_idle(struct uart *u, uint64_t now, uint64_t idle_ticks)
{
	if (u->line_len && now - u->last_out_tsc >= idle_ticks)
		uart_flush(u);
}

static void write_data(struct uart *u, uint8_t value)
{
	/* Transmission is instant: THR is empty again at once. */
	if (u->mcr & MCR_LOOP)
		uart_receive(u, value);
	else
		transmit(u, value);
	u->thre_pending = true;
}

void uart_write(struct uart *u, unsigned offset, uint8_t value)
{
	bool dlab = u->lcr & LCR_DLAB;

	switch (offset) {
	case REG_DATA:
		if (dlab)
			u->dll = value;
		else
			write_data(u, value);
		break;
	case REG_IER:
		if (dlab) {
			u->dlm = value;
			break;
		}
		/* Enabling THR-empty with THR empty raises it at once. */
		if ((value & IER_THR_EMPTY) && !(u->ier & IER_THR_EMPTY))
			u->thre_pending = true;
		u->ier = value & IER_MASK;
		break;
	case REG_IIR_FCR:
		u->fcr = value;
		if (value & FCR_CLEAR_RX)
			u->rx_count = 0;
		break;
	case REG_LCR: u->lcr = value; break;
	case REG_MCR: u->mcr = value & 0x1f; break;
	case REG_SCR: u->scr = value; break;
	default: break;         /* LSR, MSR: read-only */
	}
}
