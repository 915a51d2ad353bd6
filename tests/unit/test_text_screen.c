/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lib/text_screen.c over framebuffers in memory: where glyphs land in each
 * pixel format, a stride wider than the visible line, wrap, control
 * characters and scrolling.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <cmocka.h>

#include "lib/text_screen.h"

#define FONT_W 4
#define FONT_H 3
/* Bytes after each line's visible pixels, which must never be written. */
#define PAD_BYTE 0x5a
#define MAX_CELLS 4096

/* '?' is solid (it is the replacement glyph), '@' empty, 'A' and 'B' odd. */
static const uint8_t test_glyphs[] = {
	0xf0, 0xf0, 0xf0,       /* '?' */
	0x00, 0x00, 0x00,       /* '@' */
	0x80, 0x10, 0xf0,       /* 'A': top left, right of row 1, bottom row */
	0x60, 0x00, 0x90,       /* 'B' */
};

static const struct bitmap_font test_font = {
	.width = FONT_W, .height = FONT_H, .first = '?', .count = 4,
	.glyphs = test_glyphs,
};

static const struct pixel_format bgr32 = { 0xff0000, 0xff00, 0xff, 4 };
static const struct pixel_format rgb32 = { 0xff, 0xff00, 0xff0000, 4 };
static const struct pixel_format rgb24 = { 0xff, 0xff00, 0xff0000, 3 };
static const struct pixel_format rgb565 = { 0xf800, 0x7e0, 0x1f, 2 };

struct screen_fixture {
	struct framebuffer fb;
	struct text_screen ts;
	char cells[MAX_CELLS];
	size_t size;
};

static struct screen_fixture *make_screen(const struct pixel_format *f,
					  unsigned cols, unsigned rows,
					  unsigned pad,
					  const struct bitmap_font *font)
{
	struct screen_fixture *s = calloc(1, sizeof(*s));
	unsigned width = cols * font->width;

	s->fb.width = width;
	s->fb.height = rows * font->height;
	s->fb.pitch = width * f->bytes_per_pixel + pad;
	s->fb.format = *f;
	s->size = (size_t)s->fb.pitch * s->fb.height;
	s->fb.base = malloc(s->size);
	memset(s->fb.base, PAD_BYTE, s->size);
	assert_true(text_screen_init(&s->ts, &s->fb, font, s->cells,
				     sizeof(s->cells)));
	text_screen_clear(&s->ts);
	return s;
}

static void free_screen(struct screen_fixture *s)
{
	free(s->fb.base);
	free(s);
}

static uint32_t pixel_at(const struct screen_fixture *s, unsigned x,
			 unsigned y)
{
	const uint8_t *p = s->fb.base + (size_t)y * s->fb.pitch +
			   (size_t)x * s->fb.format.bytes_per_pixel;
	uint32_t v = 0;

	for (unsigned i = 0; i < s->fb.format.bytes_per_pixel; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

static void write_str(struct screen_fixture *s, const char *text)
{
	text_screen_write(&s->ts, text, strlen(text));
}

/* The cell at (col, row) shows the test font's glyph of c, pixel by pixel. */
static void assert_cell(const struct screen_fixture *s, unsigned col,
			unsigned row, char c)
{
	const uint8_t *glyph = &test_glyphs[(c - '?') * FONT_H];

	for (unsigned y = 0; y < FONT_H; y++) {
		for (unsigned x = 0; x < FONT_W; x++) {
			bool on = glyph[y] & (0x80 >> x);
			uint32_t want = on ? s->ts.fg : s->ts.bg;

			assert_int_equal(pixel_at(s, col * FONT_W + x,
						  row * FONT_H + y), want);
		}
	}
	assert_int_equal(s->ts.cells[row * s->ts.cols + col], c);
}

static void assert_blank_cell(const struct screen_fixture *s, unsigned col,
			      unsigned row)
{
	for (unsigned y = 0; y < FONT_H; y++)
		for (unsigned x = 0; x < FONT_W; x++)
			assert_int_equal(pixel_at(s, col * FONT_W + x,
						  row * FONT_H + y), s->ts.bg);
}

static void test_colours_per_format(void **state)
{
	(void)state;
	assert_int_equal(pixel_from_rgb(&bgr32, 0x12, 0x34, 0x56), 0x123456);
	assert_int_equal(pixel_from_rgb(&rgb32, 0x12, 0x34, 0x56), 0x563412);
	/* 5-6-5: the top bits of each channel. */
	assert_int_equal(pixel_from_rgb(&rgb565, 0xff, 0x80, 0x08),
			 0xf800 | (0x20 << 5) | 0x01);
	/* A 10-bit channel keeps the 8 bits at its top. */
	struct pixel_format ten = { 0x3ff00000, 0xffc00, 0x3ff, 4 };

	assert_int_equal(pixel_from_rgb(&ten, 0xff, 0, 1), 0x3fc00000 | 4);
}

static void check_glyph_placement(const struct pixel_format *f)
{
	struct screen_fixture *s = make_screen(f, 4, 2, 0, &test_font);

	s->ts.fg = pixel_from_rgb(f, 0xff, 0x80, 0x01);
	write_str(s, "@A");
	assert_blank_cell(s, 0, 0);
	assert_cell(s, 1, 0, 'A');
	assert_blank_cell(s, 2, 0);
	assert_blank_cell(s, 1, 1);
	assert_int_equal(s->ts.col, 2);
	assert_int_equal(s->ts.row, 0);
	free_screen(s);
}

/* A glyph's pixels, then one red-orange pixel's bytes in memory. */
static void check_format(const struct pixel_format *f, const char *bytes)
{
	struct screen_fixture *s;

	check_glyph_placement(f);
	s = make_screen(f, 1, 1, 0, &test_font);
	s->ts.fg = pixel_from_rgb(f, 0xff, 0x80, 0x01);
	write_str(s, "?");
	assert_memory_equal(s->fb.base, bytes, 4);
	free_screen(s);
}

static void test_glyph_bgr32(void **state)
{
	(void)state;
	check_format(&bgr32, "\x01\x80\xff\x00");    /* blue first */
}

static void test_glyph_rgb32(void **state)
{
	(void)state;
	check_format(&rgb32, "\xff\x80\x01\x00");    /* red first */
}

static void test_glyph_other_depths(void **state)
{
	(void)state;
	check_glyph_placement(&rgb24);
	check_glyph_placement(&rgb565);
}

/* The bytes past each line's width belong to nobody: never written. */
static void test_stride_wider_than_line(void **state)
{
	struct screen_fixture *s = make_screen(&bgr32, 3, 2, 20, &test_font);
	unsigned visible = s->fb.width * 4;

	(void)state;
	write_str(s, "@@\n@A");
	assert_cell(s, 1, 1, 'A');
	write_str(s, "A?B\nBA?\nAAAA\n\tB");
	for (unsigned y = 0; y < s->fb.height; y++)
		for (unsigned i = visible; i < s->fb.pitch; i++)
			assert_int_equal(s->fb.base[y * s->fb.pitch + i],
					 PAD_BYTE);
	free_screen(s);
}

static void test_clear_paints_background(void **state)
{
	struct screen_fixture *s = make_screen(&bgr32, 3, 2, 0, &test_font);

	(void)state;
	for (size_t i = 0; i < s->size; i++)
		assert_int_equal(s->fb.base[i], 0);
	write_str(s, "AB");
	text_screen_clear(&s->ts);
	assert_blank_cell(s, 0, 0);
	assert_int_equal(s->ts.col, 0);
	free_screen(s);
}

static void test_long_line_wraps(void **state)
{
	struct screen_fixture *s = make_screen(&bgr32, 4, 3, 0, &test_font);

	(void)state;
	write_str(s, "ABABA");
	assert_cell(s, 3, 0, 'B');
	assert_cell(s, 0, 1, 'A');
	assert_int_equal(s->ts.row, 1);
	assert_int_equal(s->ts.col, 1);
	/* A line exactly as wide as the screen, then '\n': one row. */
	write_str(s, "\nBBBB\nA");
	assert_int_equal(s->ts.row, 2);
	assert_cell(s, 0, 0, 'A');          /* scrolled up one row */
	assert_cell(s, 3, 1, 'B');
	assert_cell(s, 0, 2, 'A');
	free_screen(s);
}

static void test_control_characters(void **state)
{
	struct screen_fixture *s = make_screen(&bgr32, 12, 4, 0, &test_font);

	(void)state;
	write_str(s, "AB\bA");              /* backspace: one left, no erase */
	assert_cell(s, 1, 0, 'A');
	write_str(s, "\rB");                /* carriage return */
	assert_cell(s, 0, 0, 'B');
	assert_cell(s, 1, 0, 'A');
	write_str(s, "\n\tA\t");            /* tab stops every 8 columns */
	assert_blank_cell(s, 7, 1);
	assert_cell(s, 8, 1, 'A');
	assert_int_equal(s->ts.col, 12);    /* no stop left: end of line */
	write_str(s, "B");
	assert_cell(s, 0, 2, 'B');
	write_str(s, "\n\x01\x1b\x7f" "A\xc3");  /* ignored; no glyph */
	assert_cell(s, 0, 3, 'A');
	assert_int_equal(s->ts.cells[3 * 12 + 1], '\xc3');
	for (unsigned y = 0; y < FONT_H; y++)       /* drawn as '?' */
		assert_int_equal(pixel_at(s, FONT_W + 1, 3 * FONT_H + y),
				 s->ts.fg);
	write_str(s, "\b\b\b\b");                   /* stops at column 0 */
	assert_int_equal(s->ts.col, 0);
	free_screen(s);
}

static void test_scroll_moves_rows_up(void **state)
{
	struct screen_fixture *s = make_screen(&bgr32, 4, 3, 8, &test_font);

	(void)state;
	write_str(s, "AAAA\nBB\nABAB");
	assert_int_equal(s->ts.row, 2);
	write_str(s, "\n");
	assert_cell(s, 0, 0, 'B');
	assert_cell(s, 1, 0, 'B');
	assert_blank_cell(s, 2, 0);
	assert_cell(s, 3, 1, 'B');
	for (unsigned col = 0; col < 4; col++)
		assert_blank_cell(s, col, 2);
	assert_int_equal(s->ts.row, 2);
	assert_int_equal(s->ts.col, 0);
	/* Wrapping past the last row scrolls too. */
	write_str(s, "BBBBA");
	assert_cell(s, 3, 1, 'B');
	assert_cell(s, 0, 2, 'A');
	free_screen(s);
}

/*
 * After many lines the screen shows exactly what the last lines drawn on
 * a fresh screen show: the same bytes, with the generated font.
 */
static void test_many_lines_equal_fresh_drawing(void **state)
{
	const struct bitmap_font *font = &console_font;
	struct screen_fixture *a = make_screen(&bgr32, 20, 6, 4, font);
	struct screen_fixture *b = make_screen(&bgr32, 20, 6, 4, font);
	char line[64];

	(void)state;
	for (int i = 0; i < 1000; i++) {
		snprintf(line, sizeof(line), "%sline %d: %.*s\n",
			 i ? "" : "\n", i, i % 37, "0123456789abcdefghijklmnopqrstuvwxyz~");
		write_str(a, line);
	}
	/* Lines 995..999 (the long ones wrap) and the empty last row. */
	for (int i = 995; i < 1000; i++) {
		snprintf(line, sizeof(line), "line %d: %.*s\n", i, i % 37,
			 "0123456789abcdefghijklmnopqrstuvwxyz~");
		write_str(b, line);
	}
	/* b is one row short of a full screen when its lines fill 5 rows. */
	assert_int_equal(a->ts.row, 5);
	assert_int_equal(b->ts.row, 5);
	assert_memory_equal(a->ts.cells, b->ts.cells, 20 * 6);
	assert_memory_equal(a->fb.base, b->fb.base, a->size);
	free_screen(a);
	free_screen(b);
}

static void test_generated_font(void **state)
{
	const struct bitmap_font *font = &console_font;
	size_t glyph = (size_t)bitmap_font_row_bytes(font) * font->height;
	unsigned lit = 0;

	(void)state;
	assert_int_equal(font->first, ' ');
	assert_int_equal(font->count, '~' - ' ' + 1);
	assert_in_range(font->width, 6, 16);
	assert_in_range(font->height, 8, 32);
	for (size_t i = 0; i < glyph; i++)
		assert_int_equal(font->glyphs[i], 0);   /* space is blank */
	for (size_t i = 0; i < glyph; i++)
		lit += font->glyphs[('A' - ' ') * glyph + i] != 0;
	assert_true(lit > 4);
}

static void test_init_limits(void **state)
{
	struct text_screen ts;
	char cells[10];
	struct framebuffer fb = { .width = 16, .height = 12, .pitch = 64,
				  .format = bgr32 };

	(void)state;
	fb.base = calloc(1, 64 * 12);
	/* 4 columns x 4 rows do not fit in 10 cells: 2 rows are kept. */
	assert_true(text_screen_init(&ts, &fb, &test_font, cells, 10));
	assert_int_equal(ts.cols, 4);
	assert_int_equal(ts.rows, 2);
	assert_false(text_screen_init(&ts, &fb, &test_font, cells, 3));
	fb.width = 3;                   /* narrower than one glyph */
	assert_false(text_screen_init(&ts, &fb, &test_font, cells, 10));
	free(fb.base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_colours_per_format),
		cmocka_unit_test(test_glyph_bgr32),
		cmocka_unit_test(test_glyph_rgb32),
		cmocka_unit_test(test_glyph_other_depths),
		cmocka_unit_test(test_stride_wider_than_line),
		cmocka_unit_test(test_clear_paints_background),
		cmocka_unit_test(test_long_line_wraps),
		cmocka_unit_test(test_control_characters),
		cmocka_unit_test(test_scroll_moves_rows_up),
		cmocka_unit_test(test_many_lines_equal_fresh_drawing),
		cmocka_unit_test(test_generated_font),
		cmocka_unit_test(test_init_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
