// SPDX-License-Identifier: BSD-2-Clause
#include "lib/console.h"
#include "lib/format.h"
#include "lib/spinlock.h"
#include "lib/string.h"

static console_sink_fn sinks[CONSOLE_MAX_SINKS];
/* One lock for all CPUs so that lines from different CPUs do not mix. */
static struct spinlock console_lock;
/* A sink that holds output back (console_set_buffered): its two hooks. */
static void (*buffered_poll)(void);
static void (*buffered_flush)(void);

void console_set_buffered(void (*poll)(void), void (*flush)(void))
{
	spin_lock(&console_lock);
	buffered_poll = poll;
	buffered_flush = flush;
	spin_unlock(&console_lock);
}

void con_poll(void)
{
	if (!buffered_poll || !spin_trylock(&console_lock))
		return;
	if (buffered_poll)
		buffered_poll();
	spin_unlock(&console_lock);
}

/*
 * Tries for the lock a bounded number of times: a CPU that stops the
 * machine from inside a sink (an exception there) must still get its
 * last lines out.
 */
#define END_LOCK_TRIES 1000000

void con_flush_at_end(void (*flush)(void))
{
	bool locked = false;

	for (unsigned i = 0; i < END_LOCK_TRIES; i++) {
		locked = spin_trylock(&console_lock);
		if (locked)
			break;
		spin_pause();
	}
	flush();
	if (locked)
		spin_unlock(&console_lock);
}

void console_add_sink(console_sink_fn fn)
{
	for (unsigned i = 0; i < CONSOLE_MAX_SINKS; i++) {
		if (!sinks[i]) {
			sinks[i] = fn;
			return;
		}
	}
}

void console_remove_sink(console_sink_fn fn)
{
	for (unsigned i = 0; i < CONSOLE_MAX_SINKS; i++)
		if (sinks[i] == fn)
			sinks[i] = NULL;
}

static void write_locked(const char *s, size_t len)
{
	for (unsigned i = 0; i < CONSOLE_MAX_SINKS; i++)
		if (sinks[i])
			sinks[i](s, len);
}

void con_write(const char *s, size_t len)
{
	spin_lock(&console_lock);
	write_locked(s, len);
	spin_unlock(&console_lock);
}

/* An error goes out at once, with everything held back before it. */
static void con_write_through(const char *s, size_t len)
{
	spin_lock(&console_lock);
	write_locked(s, len);
	if (buffered_flush)
		buffered_flush();
	spin_unlock(&console_lock);
}

void con_write_line(const char *prefix, const char *text, size_t len)
{
	spin_lock(&console_lock);
	write_locked(prefix, strlen(prefix));
	write_locked(text, len);
	write_locked("\n", 1);
	spin_unlock(&console_lock);
}

/*
 * How much of a formatted text of `wanted` characters (fmt_vsnprintf's
 * count) went into a buffer of cap bytes: all of it, or cap - 1.
 */
static size_t kept_length(int wanted, size_t cap)
{
	return wanted < 0 ? 0 : MIN((size_t)wanted, cap - 1);
}

/*
 * The line is formatted in front of its newline, which always has its
 * place: a text too long loses its end, never the "\n" (the next line
 * would be glued onto it).
 */
static void vprint_line(const char *prefix, bool through, const char *fmt,
			va_list ap)
{
	char line[CONSOLE_LINE_MAX];
	size_t len = kept_length(fmt_snprintf(line, sizeof(line) - 1, "%s",
					      prefix), sizeof(line) - 1);

	len += kept_length(fmt_vsnprintf(line + len, sizeof(line) - 1 - len,
					 fmt, ap), sizeof(line) - 1 - len);
	line[len++] = '\n';
	if (through)
		con_write_through(line, len);
	else
		con_write(line, len);
}

void con_printf(const char *fmt, ...)
{
	char buf[CONSOLE_LINE_MAX];
	va_list ap;
	int wanted;
	size_t len;

	va_start(ap, fmt);
	wanted = fmt_vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	len = kept_length(wanted, sizeof(buf));
	/* Cut: its end, newline and all, is lost; a newline ends it here. */
	if (len < (size_t)MAX(wanted, 0))
		buf[len - 1] = '\n';
	con_write(buf, len);
}

void hv_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint_line("apfvisor: ", false, fmt, ap);
	va_end(ap);
}

static unsigned errors_printed;

unsigned hv_error_count(void)
{
	return __atomic_load_n(&errors_printed, __ATOMIC_RELAXED);
}

void hv_error(const char *fmt, ...)
{
	va_list ap;

	__atomic_fetch_add(&errors_printed, 1, __ATOMIC_RELAXED);
	va_start(ap, fmt);
	vprint_line("apfvisor: error: ", true, fmt, ap);
	va_end(ap);
}

void hv_stat(const char *name, uint64_t value)
{
	hv_info("stat %s %llu", name, (unsigned long long)value);
}

static NORETURN void (*fatal_stop)(void);

void console_set_fatal_stop(NORETURN void (*stop)(void))
{
	fatal_stop = stop;
}

NORETURN void hv_fatal(const char *fmt, ...)
{
	va_list ap;

	__atomic_fetch_add(&errors_printed, 1, __ATOMIC_RELAXED);
	va_start(ap, fmt);
	vprint_line("apfvisor: error: ", true, fmt, ap);
	va_end(ap);
	if (fatal_stop)
		fatal_stop();
	for (;;)
		__asm__ volatile("cli; hlt");
}
