// SPDX-License-Identifier: BSD-2-Clause
/*
 * The screen sink. lib/console.c calls every sink under its one lock, so
 * lines from several CPUs reach the text screen one at a time and nothing
 * here locks again.
 */
#include "boot/screen_console.h"
#include "arch/x86/tsc.h"
#include "lib/console.h"
#include "lib/string.h"

/* Enough for 3840x2160 with an 8x16 font (480 x 135 cells). */
#define SCREEN_MAX_CELLS (480 * 135)
/* The lines before the screen is taken: a banner, a few config lines. */
#define EARLY_TEXT_MAX 4096

static struct text_screen screen;
static char screen_cells[SCREEN_MAX_CELLS];
static bool screen_on;
static char early_text[EARLY_TEXT_MAX];
static size_t early_len;

static void record_early(const char *s, size_t len)
{
	size_t n = MIN(len, sizeof(early_text) - early_len);

	memcpy(early_text + early_len, s, n);
	early_len += n;
}

void screen_console_record_early(void)
{
	early_len = 0;
	console_add_sink(record_early);
}

static void screen_write(const char *s, size_t len)
{
	text_screen_write(&screen, s, len);
}

bool screen_console_start(const struct framebuffer *fb)
{
	console_remove_sink(record_early);
	if (!text_screen_init(&screen, fb, &console_font, screen_cells,
			      sizeof(screen_cells)))
		return false;
	text_screen_clear(&screen);
	text_screen_write(&screen, early_text, early_len);
	console_add_sink(screen_write);
	screen_on = true;
	return true;
}

void screen_console_stop(void)
{
	console_remove_sink(record_early);
	console_remove_sink(screen_write);
	screen_on = false;
}

bool screen_console_active(void)
{
	return screen_on;
}

void screen_console_final_hold(void)
{
	if (!screen_console_active())
		return;
	hv_info("screen: the last picture stays for %u s",
		SCREEN_FINAL_HOLD_S);
	for (unsigned s = 0; s < SCREEN_FINAL_HOLD_S * 10; s++)
		tsc_delay_us(100000);
}
