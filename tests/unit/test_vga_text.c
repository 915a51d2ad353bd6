/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/devices/vga_text.c: a row of VGA text cells becomes printable text (NUL
 * as a blank, other non-ASCII as '.', attributes ignored, trailing blanks
 * dropped), and a blank row is empty.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "guest/devices/vga_text.h"
#include "guest/vm.h"
#include "lib/console.h"

/* vga_text_report's edges (it reads guest RAM and prints): not used here. */
int vm_read_ram(struct vm *vm, uint64_t gpa, void *dst, uint64_t len)
{
	(void)vm, (void)gpa, (void)dst, (void)len;
	return -1;
}

void hv_info(const char *fmt, ...)
{
	(void)fmt;
}

static void put(uint8_t *cells, unsigned col, const char *s)
{
	for (; *s; s++, col++) {
		cells[col * 2] = (uint8_t)*s;
		cells[col * 2 + 1] = 0x07;
	}
}

static void rows_become_text(void **state)
{
	uint8_t cells[VGA_TEXT_COLS * 2];
	char out[VGA_TEXT_COLS + 1];

	(void)state;
	memset(cells, 0, sizeof(cells));
	assert_int_equal(vga_text_row(cells, out), 0);
	assert_string_equal(out, "");
	put(cells, 0, "flags = 0x24f");
	put(cells, 20, "  ");
	assert_int_equal(vga_text_row(cells, out), 13);
	assert_string_equal(out, "flags = 0x24f");
	cells[2 * 2] = 0xdb;            /* a block glyph */
	cells[6 * 2] = 0;               /* NUL inside: a blank */
	vga_text_row(cells, out);
	assert_string_equal(out, "fl.gs   0x24f");
	memset(cells, 'x', sizeof(cells));
	assert_int_equal(vga_text_row(cells, out), VGA_TEXT_COLS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rows_become_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
