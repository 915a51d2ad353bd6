// SPDX-License-Identifier: BSD-2-Clause
/*
 * Polled 16550 driver for the host's serial ports. 115200 baud matters
 * under Bochs, which emulates line timing: at 9600 baud it only lets ~250
 * bytes/s through (see DESIGN.md, Bochs notes).
 */
#include "arch/x86/serial.h"
#include "arch/x86/cpu.h"
#include "arch/x86/io.h"
#include "lib/byte_ring.h"
#include "lib/console.h"

#define UART_THR 0      /* transmit holding (DLAB=0) */
#define UART_DLL 0      /* divisor low (DLAB=1) */
#define UART_IER 1
#define UART_DLM 1      /* divisor high (DLAB=1) */
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define UART_IIR 2
#define UART_SCR 7
#define UART_IIR_FIFO_ON 0xc0   /* a 16550A with its FIFOs working */
#define UART_LCR_8N1  0x03
#define UART_LCR_DLAB 0x80
#define UART_LSR_THRE 0x20
#define UART_LSR_DATA_READY 0x01
#define UART_RBR 0
#define UART_LSR_TX_IDLE 0x40
#define UART_FCR_ENABLE_CLEAR 0x07
#define UART_MCR_DTR_RTS 0x03
#define UART_CLOCK_DIVISOR_115200 1

#define UART_TX_FIFO 16

/*
 * Waiting for the transmitter: a byte takes 87 us at 115200 baud, so the
 * status register is read only every POLL_PAUSES pause instructions (an
 * I/O read is the slowest thing an emulator does: Bochs spends more time
 * in one than in a hundred other instructions), and a bounded number of
 * times, so that a UART that never gets ready never hangs the hypervisor
 * (a missing one reads 0xFF: ready).
 */
#define POLL_PAUSES 64
#define TX_POLL_LIMIT 20000

/* Bytes the transmit FIFO takes without a wait: COM1, COM2, others. */
static unsigned tx_room[3];
static unsigned tx_fifo_size[3] = { 1, 1, 1 };

static unsigned port_index(uint16_t base)
{
	return base == COM1_PORT ? 0 : base == COM2_PORT ? 1 : 2;
}

static bool wait_status(uint16_t base, uint8_t bits, unsigned limit)
{
	for (unsigned i = 0; i < limit; i++) {
		if (inb(base + UART_LSR) & bits)
			return true;
		for (unsigned p = 0; p < POLL_PAUSES; p++)
			cpu_relax();
	}
	return false;
}

/*
 * Waits until the transmitter is idle: before reprogramming the UART (the
 * firmware may still be sending) and before ending the emulator, so that
 * Bochs, which emulates line timing, does not drop the last bytes.
 */
void serial_port_drain(uint16_t base)
{
	wait_status(base, UART_LSR_TX_IDLE, TX_POLL_LIMIT * UART_TX_FIFO);
}

bool serial_port_present(uint16_t base)
{
	static const uint8_t probes[] = { 0x5a, 0xa5 };
	uint8_t saved = inb(base + UART_SCR);
	bool answers = true;

	for (unsigned i = 0; i < ARRAY_SIZE(probes); i++) {
		outb(base + UART_SCR, probes[i]);
		if (inb(base + UART_SCR) != probes[i])
			answers = false;
	}
	outb(base + UART_SCR, saved);
	return answers;
}

void serial_port_init(uint16_t base)
{
	serial_port_drain(base);
	outb(base + UART_IER, 0);
	outb(base + UART_LCR, UART_LCR_DLAB);
	outb(base + UART_DLL, UART_CLOCK_DIVISOR_115200);
	outb(base + UART_DLM, 0);
	outb(base + UART_LCR, UART_LCR_8N1);
	outb(base + UART_FCR, UART_FCR_ENABLE_CLEAR);
	outb(base + UART_MCR, UART_MCR_DTR_RTS);
	/* An 8250 or 16450 has no FIFO: one byte at a time there. */
	tx_fifo_size[port_index(base)] =
		(inb(base + UART_IIR) & UART_IIR_FIFO_ON) == UART_IIR_FIFO_ON ?
		UART_TX_FIFO : 1;
	tx_room[port_index(base)] = 0;
}

/*
 * THRE means the transmit FIFO is empty: then it takes a FIFO's worth of
 * bytes before the next wait. The callers serialize per port (the console
 * lock for COM1, the guest console's print lock for COM2).
 */
static void put_byte(uint16_t base, char c)
{
	unsigned i = port_index(base);

	if (!tx_room[i]) {
		wait_status(base, UART_LSR_THRE, TX_POLL_LIMIT);
		tx_room[i] = tx_fifo_size[i];
	}
	tx_room[i]--;
	outb(base + UART_THR, (uint8_t)c);
}

void serial_port_write(uint16_t base, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		put_byte(base, s[i]);
}

int serial_port_read_byte(uint16_t base)
{
	if (!(inb(base + UART_LSR) & UART_LSR_DATA_READY))
		return -1;
	return inb(base + UART_RBR);
}

/*
 * COM1's output once held back (serial_hold_output): the console's lines
 * wait here, under the console's lock, and leave as the UART takes them.
 * 64 KiB is three Linux boots of console; a ring that fills makes the
 * writer wait for the UART, as every write did before: nothing is lost.
 */
#define HELD_BYTES (64 * 1024)

static char held_buf[HELD_BYTES];
static struct byte_ring held;
static bool holding;

/* The UART takes a byte now (the FIFO's room, else THRE read once). */
static bool tx_ready(uint16_t base)
{
	unsigned i = port_index(base);

	if (tx_room[i])
		return true;
	if (!(inb(base + UART_LSR) & UART_LSR_THRE))
		return false;
	tx_room[i] = tx_fifo_size[i];
	return true;
}

size_t serial_port_write_ready(uint16_t base, const char *s, size_t len)
{
	size_t n = 0;

	while (n < len && tx_ready(base))
		put_byte(base, s[n++]);
	return n;
}

static void send_ready(void)
{
	while (held.count && tx_ready(COM1_PORT))
		put_byte(COM1_PORT, (char)byte_ring_pop(&held));
}

void serial_send_held_locked(void)
{
	int c;

	while ((c = byte_ring_pop(&held)) >= 0)
		put_byte(COM1_PORT, (char)c);
}

static void out(char c)
{
	if (!holding) {
		put_byte(COM1_PORT, c);
		return;
	}
	/* Full: the oldest byte goes out first, waiting for the UART. */
	while (!byte_ring_push(&held, c))
		put_byte(COM1_PORT, (char)byte_ring_pop(&held));
}

void serial_hold_output(void)
{
	byte_ring_init(&held, held_buf, sizeof(held_buf));
	__atomic_store_n(&holding, true, __ATOMIC_RELEASE);
}

void serial_send_ready_locked(void)
{
	if (holding)
		send_ready();
}

bool serial_output_held(void)
{
	return __atomic_load_n(&held.count, __ATOMIC_RELAXED) != 0;
}

/* The end: everything held goes out, and from now on every byte at once. */
static void stop_holding_locked(void)
{
	serial_send_held_locked();
	holding = false;
}

void serial_drain(void)
{
	if (__atomic_load_n(&holding, __ATOMIC_ACQUIRE))
		con_flush_at_end(stop_holding_locked);
	serial_port_drain(COM1_PORT);
}

void serial_init(void)
{
	serial_port_init(COM1_PORT);
}

void serial_write(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			out('\r');
		out(s[i]);
	}
	if (holding)
		send_ready();
}

int serial_read_byte(void)
{
	return serial_port_read_byte(COM1_PORT);
}
