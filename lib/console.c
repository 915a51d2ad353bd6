// SPDX-License-Identifier: BSD-2-Clause
#include "lib/console.h"
#include "lib/format.h"
#include "lib/spinlock.h"

#define CONSOLE_LINE_MAX 512

static console_sink_fn sinks[CONSOLE_MAX_SINKS];
/* One lock for all CPUs so that lines from different CPUs do not mix. */
static struct spinlock console_lock;

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

static void vprint_line(const char *prefix, const char *fmt, va_list ap)
{
	char line[CONSOLE_LINE_MAX];
	int n = fmt_snprintf(line, sizeof(line), "%s", prefix);
	int m = fmt_vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	size_t len = (size_t)n + (size_t)MIN(m, (int)sizeof(line) - n - 2);

	line[len++] = '\n';
	con_write(line, len);
}

void con_printf(const char *fmt, ...)
{
	char buf[CONSOLE_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	int n = fmt_vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	con_write(buf, (size_t)MIN(n, (int)sizeof(buf) - 1));
}

void hv_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint_line("apfvisor: ", fmt, ap);
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
	vprint_line("apfvisor: error: ", fmt, ap);
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
	vprint_line("apfvisor: error: ", fmt, ap);
	va_end(ap);
	if (fatal_stop)
		fatal_stop();
	for (;;)
		__asm__ volatile("cli; hlt");
}
