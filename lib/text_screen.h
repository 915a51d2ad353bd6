/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A text console drawn into a linear framebuffer: a grid of character cells
 * (the font's size each), a cursor, line wrap and scrolling. Plain C over
 * memory the caller gives, so tests/unit can draw into a buffer; boot/ hands
 * it the UEFI GOP framebuffer.
 *
 * The framebuffer is only written, never read (reads of uncached or
 * write-combining video memory are very slow): a copy of the characters on
 * the screen (the cells) tells what a scroll must redraw, and a cell that
 * already shows the right character is not drawn again.
 */
#ifndef LIB_TEXT_SCREEN_H
#define LIB_TEXT_SCREEN_H

#include "lib/bitmap_font.h"

/* Where red, green and blue sit in a pixel of 1 to 4 bytes (little-endian). */
struct pixel_format {
	uint32_t red_mask;
	uint32_t green_mask;
	uint32_t blue_mask;
	unsigned bytes_per_pixel;
};

struct framebuffer {
	uint8_t *base;
	unsigned width;                 /* visible pixels per line */
	unsigned height;                /* lines */
	unsigned pitch;                 /* bytes from one line to the next */
	struct pixel_format format;
};

/* Tab stops every this many columns. */
#define TEXT_SCREEN_TAB 8

struct text_screen {
	struct framebuffer fb;
	const struct bitmap_font *font;
	char *cells;                    /* cols * rows characters shown */
	unsigned cols, rows;
	unsigned col, row;              /* the cursor; col == cols: wrap due */
	uint32_t fg, bg;                /* pixel values */
};

/* The pixel value of an 8-bit-per-channel colour in format f. */
uint32_t pixel_from_rgb(const struct pixel_format *f, uint8_t red,
			uint8_t green, uint8_t blue);

/*
 * Sets ts up over fb with font, ncells bytes of cell memory (rows are
 * dropped when cols * rows would not fit), light grey on black; does not
 * draw. False when not even one cell fits.
 */
bool text_screen_init(struct text_screen *ts, const struct framebuffer *fb,
		      const struct bitmap_font *font, char *cells,
		      size_t ncells);

/* Paints the whole framebuffer background, cursor to the top left. */
void text_screen_clear(struct text_screen *ts);

/*
 * Draws len bytes: printable ASCII as glyphs ('?' for a byte the font has
 * no glyph for), '\n' (to the start of the next line), '\r', '\t',
 * '\b' (one column left, no erase); other control bytes are ignored. A
 * line longer than the screen wraps; below the last row the text scrolls
 * up one row.
 */
void text_screen_write(struct text_screen *ts, const char *s, size_t len);

#endif
