/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A fixed-width bitmap font: one glyph per code point first..first+count-1,
 * each height rows of (width + 7) / 8 bytes, the leftmost pixel in the
 * top bit of the first byte (the layout of a PSF font's glyphs).
 */
#ifndef LIB_BITMAP_FONT_H
#define LIB_BITMAP_FONT_H

#include "lib/types.h"

struct bitmap_font {
	unsigned width;         /* pixels */
	unsigned height;        /* pixels */
	unsigned first;         /* code point of glyph 0 */
	unsigned count;
	const uint8_t *glyphs;
};

static inline unsigned bitmap_font_row_bytes(const struct bitmap_font *font)
{
	return (font->width + 7) / 8;
}

/*
 * The screen console's font, generated at build time by tools/psf2c from
 * a Debian console font (see docs/console.md: "The console on the screen").
 */
extern const struct bitmap_font console_font;

#endif
