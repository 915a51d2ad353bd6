/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The hypervisor's console: every line it prints starts with "apfvisor: ",
 * errors with "apfvisor: error: " (the tests and the run scripts match on these).
 * Output goes to the sinks registered by arch/ and boot/.
 */
#ifndef LIB_CONSOLE_H
#define LIB_CONSOLE_H

#include "lib/types.h"

typedef void (*console_sink_fn)(const char *s, size_t len);

#define CONSOLE_MAX_SINKS 4
/*
 * The longest line that con_printf, hv_info and hv_error print, newline
 * included; a longer one is cut and still ends with its newline.
 */
#define CONSOLE_LINE_MAX 512

void console_add_sink(console_sink_fn fn);
void console_remove_sink(console_sink_fn fn);

/*
 * A sink that holds its output back (the serial console once the
 * hypervisor owns the machine: arch/x86/serial.c) gives two hooks, both
 * run under the console's lock: poll sends what the device takes without
 * waiting, flush sends everything, waiting. Errors (hv_error, hv_fatal)
 * are flushed at once, with whatever was held before them.
 */
void console_set_buffered(void (*poll)(void), void (*flush)(void));
/* Runs the poll hook unless another CPU holds the console (no wait). */
void con_poll(void);
/*
 * The end of the run: runs flush under the console's lock, or without it
 * when the lock does not come (a CPU that stopped inside a sink).
 */
void con_flush_at_end(void (*flush)(void));

/* Raw text, no prefix. */
void con_write(const char *s, size_t len);
/*
 * Formatted raw text, at most CONSOLE_LINE_MAX - 1 characters: text cut
 * there ends with "\n" in place of its last character, so that whatever
 * is printed next starts at column 0.
 */
void con_printf(const char *fmt, ...) PRINTF_LIKE(1, 2);
/*
 * One line "<prefix><text>\n" of any length (text need not end in NUL),
 * written as one piece: no other CPU's line can come between its parts,
 * and nothing of it is cut.
 */
void con_write_line(const char *prefix, const char *text, size_t len);

/* One line "apfvisor: <text>\n" (text cut to fit CONSOLE_LINE_MAX). */
void hv_info(const char *fmt, ...) PRINTF_LIKE(1, 2);
/* One counter line "apfvisor: stat <name> <value>\n". */
void hv_stat(const char *name, uint64_t value);
/* One line "apfvisor: error: <text>\n". */
void hv_error(const char *fmt, ...) PRINTF_LIKE(1, 2);
/*
 * How many error lines have been printed: lets a caller tell whether a
 * function it called already explained a failure.
 */
unsigned hv_error_count(void);

/*
 * How the hypervisor stops after an error it cannot go on from; boot/
 * installs the platform's stop (all CPUs halt). Kept here so that every
 * layer can stop without including the layers above it.
 */
void console_set_fatal_stop(NORETURN void (*stop)(void));
/* One error line, then the installed stop (or a halt loop without one). */
NORETURN void hv_fatal(const char *fmt, ...) PRINTF_LIKE(1, 2);

#endif
