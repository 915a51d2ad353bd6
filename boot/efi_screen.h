/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The screen console's UEFI side: find the firmware's framebuffer (GOP)
 * while boot services last, choose the console (console = serial | screen
 * | both) and, when apfvisor hands the machine back to the firmware, keep
 * the picture long enough to be read.
 */
#ifndef BOOT_EFI_SCREEN_H
#define BOOT_EFI_SCREEN_H

#include "boot/boot_info.h"
#include "lib/console.h"

/* Seconds the screen keeps apfvisor's last lines before the firmware's. */
#define EFI_SCREEN_HOLD_SECONDS 10

/*
 * Sets the console up for output (the screen console records from the
 * start, see screen_console_record_early): for serial, as before; for
 * screen or both, finds the framebuffer into bi->screen and, when there
 * is one, draws there instead of through the firmware's text console
 * (and, for screen, leaves serial_sink out).
 */
void efi_screen_setup(enum console_output output, struct boot_info *bi,
		      console_sink_fn serial_sink);

/*
 * With the screen console on: one line, then waits EFI_SCREEN_HOLD_SECONDS
 * (or a key) and stops drawing, before apfvisor returns to the firmware.
 */
void efi_screen_hold_before_return(void);

#endif
