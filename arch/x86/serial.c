// SPDX-License-Identifier: BSD-2-Clause
/*
 * Polled 16550 driver for the host console. 115200 baud matters under Bochs,
 * which emulates line timing: at 9600 baud it only lets ~250 bytes/s through
 * (see DESIGN.md, Bochs notes).
 */
#include "arch/x86/serial.h"
#include "arch/x86/io.h"

#define UART_THR 0      /* transmit holding (DLAB=0) */
#define UART_DLL 0      /* divisor low (DLAB=1) */
#define UART_IER 1
#define UART_DLM 1      /* divisor high (DLAB=1) */
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define UART_LCR_8N1  0x03
#define UART_LCR_DLAB 0x80
#define UART_LSR_THRE 0x20
#define UART_LSR_DATA_READY 0x01
#define UART_RBR 0
#define UART_LSR_TX_IDLE 0x40
#define UART_FCR_ENABLE_CLEAR 0x07
#define UART_MCR_DTR_RTS 0x03
#define UART_CLOCK_DIVISOR_115200 1

/* Bounded wait so that a missing UART never hangs the hypervisor. */
#define UART_TX_SPIN_LIMIT 100000

/*
 * Waits until the transmitter is idle: before reprogramming the UART (the
 * firmware may still be sending) and before ending the emulator, so that
 * Bochs, which emulates line timing, does not drop the last bytes.
 */
void serial_drain(void)
{
	for (int i = 0; i < UART_TX_SPIN_LIMIT * 16; i++)
		if (inb(COM1_PORT + UART_LSR) & UART_LSR_TX_IDLE)
			return;
}

void serial_init(void)
{
	serial_drain();
	outb(COM1_PORT + UART_IER, 0);
	outb(COM1_PORT + UART_LCR, UART_LCR_DLAB);
	outb(COM1_PORT + UART_DLL, UART_CLOCK_DIVISOR_115200);
	outb(COM1_PORT + UART_DLM, 0);
	outb(COM1_PORT + UART_LCR, UART_LCR_8N1);
	outb(COM1_PORT + UART_FCR, UART_FCR_ENABLE_CLEAR);
	outb(COM1_PORT + UART_MCR, UART_MCR_DTR_RTS);
}

static void serial_putc(char c)
{
	for (int i = 0; i < UART_TX_SPIN_LIMIT; i++)
		if (inb(COM1_PORT + UART_LSR) & UART_LSR_THRE)
			break;
	outb(COM1_PORT + UART_THR, (uint8_t)c);
}

void serial_write(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			serial_putc('\r');
		serial_putc(s[i]);
	}
}

int serial_read_byte(void)
{
	if (!(inb(COM1_PORT + UART_LSR) & UART_LSR_DATA_READY))
		return -1;
	return inb(COM1_PORT + UART_RBR);
}
