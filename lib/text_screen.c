// SPDX-License-Identifier: BSD-2-Clause
/*
 * The text grid of a framebuffer console (see text_screen.h). Wrap is
 * deferred as on a VT100: a character in the last column leaves the cursor
 * past the end, and only the next printable character starts a new line,
 * so a line exactly as wide as the screen followed by '\n' takes one row.
 */
#include "lib/text_screen.h"
#include "lib/string.h"

#define TEXT_FG_LEVEL 0xaa      /* VGA's light grey */
#define TEXT_BG_LEVEL 0x00
#define TEXT_REPLACEMENT '?'

/* An 8-bit channel value scaled to the width of mask, shifted into it. */
static uint32_t channel_bits(uint32_t mask, uint8_t level)
{
	unsigned shift = 0, width = 0;
	uint32_t value;

	if (!mask)
		return 0;
	while (!(mask & (1u << shift)))
		shift++;
	while (shift + width < 32 && (mask & (1u << (shift + width))))
		width++;
	if (width >= 8)
		value = (uint32_t)level << (width - 8);
	else
		value = level >> (8 - width);
	return (value << shift) & mask;
}

uint32_t pixel_from_rgb(const struct pixel_format *f, uint8_t red,
			uint8_t green, uint8_t blue)
{
	return channel_bits(f->red_mask, red) |
	       channel_bits(f->green_mask, green) |
	       channel_bits(f->blue_mask, blue);
}

bool text_screen_init(struct text_screen *ts, const struct framebuffer *fb,
		      const struct bitmap_font *font, char *cells,
		      size_t ncells)
{
	unsigned cols = font->width ? fb->width / font->width : 0;
	unsigned rows = font->height ? fb->height / font->height : 0;

	if (cols && rows > ncells / cols)
		rows = (unsigned)(ncells / cols);
	if (!cols || !rows || fb->format.bytes_per_pixel < 1 ||
	    fb->format.bytes_per_pixel > 4)
		return false;
	*ts = (struct text_screen){
		.fb = *fb,
		.font = font,
		.cells = cells,
		.cols = cols,
		.rows = rows,
	};
	ts->fg = pixel_from_rgb(&fb->format, TEXT_FG_LEVEL, TEXT_FG_LEVEL,
				TEXT_FG_LEVEL);
	ts->bg = pixel_from_rgb(&fb->format, TEXT_BG_LEVEL, TEXT_BG_LEVEL,
				TEXT_BG_LEVEL);
	return true;
}

static void put_pixel(uint8_t *p, unsigned bytes, uint32_t value)
{
	if (bytes == 4) {
		memcpy(p, &value, 4);
		return;
	}
	for (unsigned i = 0; i < bytes; i++)
		p[i] = (uint8_t)(value >> (8 * i));
}

static void fill_line(const struct text_screen *ts, unsigned y)
{
	unsigned bytes = ts->fb.format.bytes_per_pixel;
	uint8_t *p = ts->fb.base + (size_t)y * ts->fb.pitch;

	for (unsigned x = 0; x < ts->fb.width; x++, p += bytes)
		put_pixel(p, bytes, ts->bg);
}

void text_screen_clear(struct text_screen *ts)
{
	for (unsigned y = 0; y < ts->fb.height; y++)
		fill_line(ts, y);
	memset(ts->cells, ' ', (size_t)ts->cols * ts->rows);
	ts->col = 0;
	ts->row = 0;
}

static const uint8_t *glyph_of(const struct bitmap_font *font, char c)
{
	unsigned code = (unsigned char)c;
	size_t size = (size_t)bitmap_font_row_bytes(font) * font->height;

	if (code < font->first || code - font->first >= font->count)
		code = c == ' ' ? 0 : TEXT_REPLACEMENT;
	if (code < font->first || code - font->first >= font->count)
		return NULL;    /* drawn blank */
	return font->glyphs + (code - font->first) * size;
}

static void draw_cell(const struct text_screen *ts, unsigned col,
		      unsigned row, char c)
{
	const struct bitmap_font *font = ts->font;
	const uint8_t *glyph = glyph_of(font, c);
	unsigned row_bytes = bitmap_font_row_bytes(font);
	unsigned bytes = ts->fb.format.bytes_per_pixel;
	uint8_t *line = ts->fb.base + (size_t)row * font->height * ts->fb.pitch +
			(size_t)col * font->width * bytes;

	for (unsigned y = 0; y < font->height; y++, line += ts->fb.pitch) {
		const uint8_t *bits = glyph ? glyph + y * row_bytes : NULL;
		uint8_t *p = line;

		for (unsigned x = 0; x < font->width; x++, p += bytes) {
			bool on = bits && (bits[x / 8] & (0x80 >> (x % 8)));

			put_pixel(p, bytes, on ? ts->fg : ts->bg);
		}
	}
}

/* Shows c in a cell unless it shows it already. */
static void set_cell(struct text_screen *ts, unsigned col, unsigned row,
		     char c)
{
	char *cell = &ts->cells[(size_t)row * ts->cols + col];

	if (*cell == c)
		return;
	*cell = c;
	draw_cell(ts, col, row, c);
}

/* Every row moves up one; the last one is blank. */
static void scroll_up(struct text_screen *ts)
{
	for (unsigned row = 0; row + 1 < ts->rows; row++) {
		const char *below = &ts->cells[(size_t)(row + 1) * ts->cols];

		for (unsigned col = 0; col < ts->cols; col++)
			set_cell(ts, col, row, below[col]);
	}
	for (unsigned col = 0; col < ts->cols; col++)
		set_cell(ts, col, ts->rows - 1, ' ');
}

static void new_line(struct text_screen *ts)
{
	ts->col = 0;
	if (ts->row + 1 < ts->rows)
		ts->row++;
	else
		scroll_up(ts);
}

static void put_char(struct text_screen *ts, char c)
{
	if (ts->col >= ts->cols)
		new_line(ts);
	set_cell(ts, ts->col, ts->row, c);
	ts->col++;
}

static void tab(struct text_screen *ts)
{
	if (ts->col >= ts->cols)
		new_line(ts);
	do
		put_char(ts, ' ');
	while (ts->col % TEXT_SCREEN_TAB && ts->col < ts->cols);
}

void text_screen_write(struct text_screen *ts, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '\n')
			new_line(ts);
		else if (c == '\r')
			ts->col = 0;
		else if (c == '\t')
			tab(ts);
		else if (c == '\b')
			ts->col = ts->col ? MIN(ts->col, ts->cols) - 1 : 0;
		else if ((unsigned char)c >= 0x20 && c != 0x7f)
			put_char(ts, c);
	}
}
