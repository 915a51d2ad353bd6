/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Not a test: draws its standard input with lib/text_screen.c and the
 * generated font into a 32-bit framebuffer in memory and writes it as a
 * PPM, for tests/unit/test_screen_reference.py to hold against the Python
 * renderer the QEMU screen test uses (tests/harness/screen.py).
 *
 * usage: text_screen_render WIDTH HEIGHT bgr|rgb PAD OUT.ppm < TEXT
 * (PAD: bytes after each line's pixels)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/text_screen.h"

#define CELLS_MAX 65536

static const struct pixel_format bgr32 = { 0xff0000, 0xff00, 0xff, 4 };
static const struct pixel_format rgb32 = { 0xff, 0xff00, 0xff0000, 4 };

static uint8_t channel(uint32_t pixel, uint32_t mask)
{
	while (!(mask & 1)) {
		mask >>= 1;
		pixel >>= 1;
	}
	return (uint8_t)(pixel & mask);
}

static void write_ppm(FILE *out, const struct framebuffer *fb)
{
	fprintf(out, "P6\n%u %u\n255\n", fb->width, fb->height);
	for (unsigned y = 0; y < fb->height; y++) {
		for (unsigned x = 0; x < fb->width; x++) {
			uint32_t v;

			memcpy(&v, fb->base + y * fb->pitch + x * 4, 4);
			fputc(channel(v, fb->format.red_mask), out);
			fputc(channel(v, fb->format.green_mask), out);
			fputc(channel(v, fb->format.blue_mask), out);
		}
	}
}

int main(int argc, char **argv)
{
	static char cells[CELLS_MAX];
	static char text[1 << 20];
	struct framebuffer fb;
	struct text_screen ts;
	size_t len;
	FILE *out;

	if (argc != 6) {
		fprintf(stderr, "usage: text_screen_render WIDTH HEIGHT bgr|rgb "
			"PAD OUT.ppm < TEXT\n");
		return 2;
	}
	fb.width = (unsigned)atoi(argv[1]);
	fb.height = (unsigned)atoi(argv[2]);
	fb.format = strcmp(argv[3], "rgb") ? bgr32 : rgb32;
	fb.pitch = fb.width * 4 + (unsigned)atoi(argv[4]);
	fb.base = malloc((size_t)fb.pitch * fb.height);
	if (!fb.base ||
	    !text_screen_init(&ts, &fb, &console_font, cells, sizeof(cells)))
		return 1;
	text_screen_clear(&ts);
	len = fread(text, 1, sizeof(text), stdin);
	text_screen_write(&ts, text, len);
	out = fopen(argv[5], "wb");
	if (!out)
		return 1;
	write_ppm(out, &fb);
	fclose(out);
	free(fb.base);
	return 0;
}
