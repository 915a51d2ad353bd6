// SPDX-License-Identifier: BSD-2-Clause
/* The guest's console lines (guest/guest_console.h). */
#include "guest/guest_console.h"
#include "lib/console.h"
#include "lib/string.h"

static const char hex_digits[] = "0123456789abcdef";

size_t guest_console_escape(const char *in, size_t len, char *out,
			    size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		uint8_t c = (uint8_t)in[i];
		bool plain = (c >= 0x20 && c < 0x7f) || c == '\t';
		size_t need = c == '\\' ? 2 : plain ? 1 : 4;

		if (n + need >= cap)
			break;
		if (c == '\\') {
			out[n++] = '\\';
			out[n++] = '\\';
		} else if (need == 1) {
			out[n++] = (char)c;
		} else {
			out[n++] = '\\';
			out[n++] = 'x';
			out[n++] = hex_digits[c >> 4];
			out[n++] = hex_digits[c & 0xf];
		}
	}
	out[n] = 0;
	return n;
}

void guest_console_print_host(const char *escaped, size_t len)
{
	/*
	 * In parts, not through con_printf's line buffer: an escaped line
	 * can be longer than that, and must not lose its newline.
	 */
	con_write_line("guest: ", escaped, len);
}

void guest_console_init(struct guest_console *c,
			void (*print)(const char *escaped, size_t len))
{
	memset(c, 0, sizeof(*c));
	c->print = print;
}

static void print_line(struct guest_console *c, const char *line,
		       size_t len)
{
	char shown[GUEST_CONSOLE_ESCAPED_MAX];

	c->print(shown, guest_console_escape(line, len, shown,
					     sizeof(shown)));
}

void guest_console_attach_terminal(struct guest_console *c,
				   guest_terminal_write_fn write)
{
	c->terminal_write = write;
}

/*
 * Copies out up to cap of the oldest terminal bytes (the part of the ring
 * up to its end, so at most two calls see it all); returns how many. Only
 * the holder of print_lock moves the head (drop_terminal).
 */
static size_t peek_terminal(struct guest_console *c, char *out, size_t cap)
{
	size_t n;

	spin_lock(&c->queue_lock);
	n = MIN((size_t)c->terminal_count,
		(size_t)(GUEST_CONSOLE_TERMINAL_BYTES - c->terminal_head));
	n = MIN(n, cap);
	memcpy(out, c->terminal + c->terminal_head, n);
	spin_unlock(&c->queue_lock);
	return n;
}

static void drop_terminal(struct guest_console *c, size_t n)
{
	spin_lock(&c->queue_lock);
	c->terminal_head = (c->terminal_head + (unsigned)n) %
			   GUEST_CONSOLE_TERMINAL_BYTES;
	c->terminal_count -= (unsigned)n;
	spin_unlock(&c->queue_lock);
}

/*
 * Writes the queued terminal bytes, all of them (wait) or as far as the
 * terminal takes them now; the caller holds print_lock. True when none
 * is left.
 */
static bool write_terminal(struct guest_console *c, bool wait)
{
	char chunk[256];
	size_t n;

	while ((n = peek_terminal(c, chunk, sizeof(chunk))) != 0) {
		size_t took = c->terminal_write(chunk, n, wait);

		took = MIN(took, n);    /* MIN evaluates twice: not the call */
		drop_terminal(c, took);
		if (took < n)
			return false;
	}
	return true;
}

/*
 * Like a line, a byte finds the ring full only when the guest writes
 * faster than the terminal drains: the pusher then writes the queue out
 * itself, under whatever lock it holds. Slower, but nothing is lost.
 */
void guest_console_push_byte(void *ctx, uint8_t byte)
{
	struct guest_console *c = ctx;
	unsigned slot;

	if (!c->terminal_write)
		return;
	spin_lock(&c->queue_lock);
	while (c->terminal_count == GUEST_CONSOLE_TERMINAL_BYTES) {
		c->terminal_in_place++;
		spin_unlock(&c->queue_lock);
		spin_lock(&c->print_lock);
		write_terminal(c, true);
		spin_unlock(&c->print_lock);
		spin_lock(&c->queue_lock);
	}
	c->terminal_bytes++;
	slot = (c->terminal_head + c->terminal_count) %
	       GUEST_CONSOLE_TERMINAL_BYTES;
	c->terminal[slot] = (char)byte;
	c->terminal_count++;
	spin_unlock(&c->queue_lock);
}

/* The oldest line, copied out; false when there is none. */
static bool pop(struct guest_console *c, char *line, size_t *len)
{
	bool got = false;

	spin_lock(&c->queue_lock);
	if (c->count) {
		*len = c->len[c->head];
		memcpy(line, c->line[c->head], *len);
		c->head = (c->head + 1) % GUEST_CONSOLE_QUEUE;
		c->count--;
		got = true;
	}
	spin_unlock(&c->queue_lock);
	return got;
}

/*
 * With the queue full (a guest printing faster than the console drains),
 * the pusher prints the oldest line itself, in order, under whatever lock
 * it holds: slower, but no line is lost.
 */
void guest_console_push(void *ctx, const char *line, size_t len)
{
	struct guest_console *c = ctx;
	char oldest[UART_LINE_MAX];
	size_t oldest_len;
	unsigned slot;

	if (len > UART_LINE_MAX)
		len = UART_LINE_MAX;
	spin_lock(&c->queue_lock);
	while (c->count == GUEST_CONSOLE_QUEUE) {
		c->printed_in_place++;
		spin_unlock(&c->queue_lock);
		spin_lock(&c->print_lock);
		if (pop(c, oldest, &oldest_len))
			print_line(c, oldest, oldest_len);
		spin_unlock(&c->print_lock);
		spin_lock(&c->queue_lock);
	}
	c->lines++;
	slot = (c->head + c->count) % GUEST_CONSOLE_QUEUE;
	memcpy(c->line[slot], line, len);
	c->len[slot] = (uint16_t)len;
	c->count++;
	spin_unlock(&c->queue_lock);
}

static bool queue_empty(struct guest_console *c)
{
	return !__atomic_load_n(&c->count, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&c->terminal_count, __ATOMIC_ACQUIRE);
}

static void drain(struct guest_console *c, bool wait)
{
	char line[UART_LINE_MAX];
	size_t len;

	/*
	 * Whoever holds print_lock prints everything queued, in order; a
	 * line queued just as it let go is picked up by the re-check. A
	 * terminal that takes no more now keeps the rest for the next drain
	 * (the console polls come 1000 times a second).
	 */
	while (!queue_empty(c)) {
		bool all = true;

		if (wait)
			spin_lock(&c->print_lock);
		else if (!spin_trylock(&c->print_lock))
			return;
		if (c->terminal_write)
			all = write_terminal(c, wait);
		while (pop(c, line, &len))
			print_line(c, line, len);
		spin_unlock(&c->print_lock);
		if (!all)
			return;
	}
}

void guest_console_drain(struct guest_console *c)
{
	drain(c, false);
}

void guest_console_flush(struct guest_console *c)
{
	drain(c, true);
}
