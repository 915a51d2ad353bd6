/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guest's console lines on their way to the host console. The UART
 * (guest/devices/uart.c) hands over whole lines while the caller holds the VM's
 * device lock; printing on a serial port takes about 87 us a byte at
 * 115200 baud, far too long to hold the lock that every VM entry and the
 * paging daemon need. So a line is only copied into a small queue there,
 * and printed by guest_console_drain() once the device lock is released.
 *
 * A guest's bytes are data, never control: each line is printed as
 * "guest: " and its bytes with every byte outside printable ASCII and TAB
 * (and the backslash) written as \xNN (\\ for the backslash), so no byte the
 * guest sends can start a new host line (CR, LF, VT, FF, NEL, U+2028,
 * U+2029 ...), move the cursor, or make a line look like apfvisor's.
 *
 * A terminal (console.passthrough): besides the lines, every byte the guest
 * transmits is queued as it comes and handed to terminal_write() as it is,
 * by the same drain, so an interactive shell's line editing, Tab
 * completion and full-screen programs work there. The lines stay escaped:
 * the record of a run does not change when a terminal is attached.
 */
#ifndef GUEST_GUEST_CONSOLE_H
#define GUEST_GUEST_CONSOLE_H

#include "lib/types.h"
#include "lib/spinlock.h"
#include "guest/devices/uart.h"

#define GUEST_CONSOLE_QUEUE 8                   /* lines */
/* Terminal bytes queued: a Linux boot's console burst, ~20 KiB. */
#define GUEST_CONSOLE_TERMINAL_BYTES (32 * 1024)
/* The longest escaped line: four characters per byte at most. */
#define GUEST_CONSOLE_ESCAPED_MAX (4 * UART_LINE_MAX + 1)

/*
 * A terminal's writer: takes bytes, all of them waiting for the device
 * when wait is set, else as many as it takes now; returns how many.
 */
typedef size_t (*guest_terminal_write_fn)(const char *bytes, size_t len,
					  bool wait);

struct guest_console {
	struct spinlock queue_lock;     /* the queue; held for a copy only */
	struct spinlock print_lock;     /* one printer at a time, in order */
	char line[GUEST_CONSOLE_QUEUE][UART_LINE_MAX];
	uint16_t len[GUEST_CONSOLE_QUEUE];
	unsigned head, count;
	/* Writes "guest: <escaped line>\n"; the host console in apfvisor. */
	void (*print)(const char *escaped, size_t len);
	/* The terminal's bytes (a ring, under queue_lock) and its writer. */
	guest_terminal_write_fn terminal_write;
	char terminal[GUEST_CONSOLE_TERMINAL_BYTES];
	unsigned terminal_head, terminal_count;
	/* counters */
	uint64_t lines;
	uint64_t printed_in_place;      /* the queue was full: printed at once */
	uint64_t terminal_bytes;
	uint64_t terminal_in_place;     /* the ring was full: written at once */
};

void guest_console_init(struct guest_console *c,
			void (*print)(const char *escaped, size_t len));

/* The print of apfvisor's VMs: "guest: <escaped>\n" on the host console. */
void guest_console_print_host(const char *escaped, size_t len);

/* A uart_line_sink (ctx: the console): queues one line. */
void guest_console_push(void *ctx, const char *line, size_t len);

/*
 * Attaches a terminal: write gets every byte the guest transmits, as it
 * is. Call before the guest runs.
 */
void guest_console_attach_terminal(struct guest_console *c,
				   guest_terminal_write_fn write);
/* A uart_byte_sink (ctx: the console): queues one byte for the terminal. */
void guest_console_push_byte(void *ctx, uint8_t byte);

/*
 * Prints the queued lines and writes the queued terminal bytes as far as
 * the terminal takes them without waiting (the rest stays queued for the
 * next drain). Call without the device lock held.
 */
void guest_console_drain(struct guest_console *c);
/* The same, waiting until the terminal has taken every byte: the end. */
void guest_console_flush(struct guest_console *c);

/*
 * Escapes len bytes of in into out (cap bytes, at least 5), NUL-terminated;
 * returns the length. What does not fit is cut at a whole escape.
 */
size_t guest_console_escape(const char *in, size_t len, char *out,
			    size_t cap);

#endif
