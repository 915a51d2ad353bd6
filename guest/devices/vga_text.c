// SPDX-License-Identifier: BSD-2-Clause
#include "guest/devices/vga_text.h"
#include "guest/vm.h"
#include "lib/console.h"

size_t vga_text_row(const uint8_t *cells, char *out)
{
	size_t len = 0;

	for (unsigned col = 0; col < VGA_TEXT_COLS; col++) {
		uint8_t c = cells[col * 2];

		out[col] = c == 0 ? ' ' : (c >= 0x20 && c < 0x7f) ? (char)c : '.';
		if (out[col] != ' ')
			len = col + 1;
	}
	out[len] = 0;
	return len;
}

void vga_text_report(struct vm *vm)
{
	static uint8_t screen[VGA_TEXT_BYTES];
	char row[VGA_TEXT_COLS + 1];

	if (vm->memory.ram.ram.low_size < VGA_TEXT_GPA + VGA_TEXT_BYTES ||
	    vm_read_ram(vm, VGA_TEXT_GPA, screen, sizeof(screen)))
		return;
	for (unsigned r = 0; r < VGA_TEXT_ROWS; r++)
		if (vga_text_row(screen + r * VGA_TEXT_COLS * 2, row))
			hv_info("vga: %02u |%s|", r, row);
}
