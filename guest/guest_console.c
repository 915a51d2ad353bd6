// SPDX-License-Identifier: BSD-2-Clause
/* The guest's console lines (guest/guest_console.h). */
#include "guest/guest_console.h"
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

void guest_console_init(struct guest_console *c,
			void (*print)(const char *escaped, size_t len))
{
	memset(c, 0, sizeof(*c));
	c->print = print;
}

/* console.raw: the bytes as they are, but NUL (which ends a C string). */
static size_t copy_raw(const char *in, size_t len, char *out, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n + 4 < cap; i++) {
		if (in[i]) {
			out[n++] = in[i];
			continue;
		}
		memcpy(out + n, "\\x00", 4);
		n += 4;
	}
	out[n] = 0;
	return n;
}

static void print_line(struct guest_console *c, const char *line,
		       size_t len)
{
	char shown[GUEST_CONSOLE_ESCAPED_MAX];

	c->print(shown, c->raw ? copy_raw(line, len, shown, sizeof(shown))
			       : guest_console_escape(line, len, shown,
						      sizeof(shown)));
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
	return !__atomic_load_n(&c->count, __ATOMIC_ACQUIRE);
}

void guest_console_drain(struct guest_console *c)
{
	char line[UART_LINE_MAX];
	size_t len;

	/*
	 * Whoever holds print_lock prints everything queued, in order; a
	 * line queued just as it let go is picked up by the re-check.
	 */
	while (!queue_empty(c) && spin_trylock(&c->print_lock)) {
		while (pop(c, line, &len))
			print_line(c, line, len);
		spin_unlock(&c->print_lock);
	}
}
