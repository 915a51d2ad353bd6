/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The VGA text screen a guest wrote (80x25 cells of character and
 * attribute at guest-physical 0xB8000), shown on apfvisor's console at the
 * guest's end. apfvisor has no display: a multiboot kernel written for a
 * PC that prints to the screen (the Multiboot Specification's own example
 * kernel does) would otherwise print nothing anyone sees. The memory is
 * ordinary guest RAM; nothing is emulated while the guest runs.
 */
#ifndef GUEST_VGA_TEXT_H
#define GUEST_VGA_TEXT_H

#include "lib/types.h"

#define VGA_TEXT_GPA   0xb8000ull
#define VGA_TEXT_COLS  80
#define VGA_TEXT_ROWS  25
#define VGA_TEXT_BYTES (VGA_TEXT_COLS * VGA_TEXT_ROWS * 2)

/*
 * One row of cells (character, attribute pairs) as text in out (at least
 * VGA_TEXT_COLS + 1 bytes): printable ASCII as it is, anything else but
 * NUL as '.', NUL as a blank; trailing blanks dropped. Returns its length.
 */
size_t vga_text_row(const uint8_t *cells, char *out);

/*
 * Prints each non-blank row of a text screen (VGA_TEXT_BYTES read from
 * the guest's VGA_TEXT_GPA) as "apfvisor: vga: NN |text|"; nothing when
 * the screen is blank.
 */
void vga_text_report(const uint8_t *screen);

#endif
