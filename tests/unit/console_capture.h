/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hv_info() and hv_error() for unit tests of code that prints: each line,
 * with its "apfvisor: " or "apfvisor: error: " prefix, lands in
 * console_lines[] for the test to inspect. More than CONSOLE_MAX_LINES
 * lines between two console_forget() calls fail the test.
 */
#ifndef TESTS_UNIT_CONSOLE_CAPTURE_H
#define TESTS_UNIT_CONSOLE_CAPTURE_H

#define CONSOLE_MAX_LINES 32
#define CONSOLE_LINE_SIZE 256

extern char console_lines[CONSOLE_MAX_LINES][CONSOLE_LINE_SIZE];
extern unsigned console_nlines;

static inline void console_forget(void)
{
	console_nlines = 0;
}

#endif
