/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guest's terminal on a host UART of its own (console.passthrough =
 * com2): the bytes the guest writes to its COM1 go out on the host's COM2
 * as they are, as they come, and what is typed there goes into the guest's
 * COM1. The host's COM1 goes on carrying the record of the run (apfvisor's
 * lines and the guest's lines escaped, as without a terminal), so a run
 * script can show the terminal to the user and keep the record in a log.
 */
#ifndef BOOT_GUEST_TERMINAL_H
#define BOOT_GUEST_TERMINAL_H

#include "lib/types.h"
#include "boot/config.h"

/*
 * Sets the terminal up as configured. false (after an error line) when
 * the configured port is not there; true when it is ready or none is
 * configured.
 */
bool guest_terminal_open(enum console_passthrough where);
/* Whether guest_terminal_open() set a terminal up. */
bool guest_terminal_active(void);
/* vm_spec's terminal_write and terminal_read. */
size_t guest_terminal_write(const char *bytes, size_t len, bool wait);
int guest_terminal_read(void);

#endif
