/* SPDX-License-Identifier: BSD-2-Clause */
/* The console of the unit tests (tests/unit/console_capture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "lib/console.h"
#include "tests/unit/console_capture.h"

char console_lines[CONSOLE_MAX_LINES][CONSOLE_LINE_SIZE];
unsigned console_nlines;

static void capture(const char *prefix, const char *fmt, va_list ap)
{
	char *line = console_lines[console_nlines];

	if (console_nlines == CONSOLE_MAX_LINES)
		fail_msg("more than %d console lines", CONSOLE_MAX_LINES);
	snprintf(line, CONSOLE_LINE_SIZE, "%s", prefix);
	vsnprintf(line + strlen(prefix), CONSOLE_LINE_SIZE - strlen(prefix),
		  fmt, ap);
	console_nlines++;
}

void hv_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	capture("apfvisor: ", fmt, ap);
	va_end(ap);
}

void hv_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	capture("apfvisor: error: ", fmt, ap);
	va_end(ap);
}
