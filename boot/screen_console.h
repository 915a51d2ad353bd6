/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The console on the screen: a console sink that draws every line into the
 * framebuffer the firmware left (lib/text_screen.c), before and after
 * ExitBootServices. Lines printed before the screen is taken (the banner,
 * a config error) are kept and drawn first.
 */
#ifndef BOOT_SCREEN_CONSOLE_H
#define BOOT_SCREEN_CONSOLE_H

#include "lib/text_screen.h"

/* Keeps the console's text from now on, for screen_console_start. */
void screen_console_record_early(void);

/*
 * Clears fb, draws what was kept and adds the screen sink. False (and no
 * sink) when fb cannot hold one character.
 */
bool screen_console_start(const struct framebuffer *fb);

/* Removes the screen sink (and the recorder); the picture stays. */
void screen_console_stop(void);

bool screen_console_active(void);

/*
 * After "apfvisor: done", when the screen console is on: says so and keeps
 * the picture SCREEN_FINAL_HOLD_S seconds before an emulator would end
 * (on real hardware the machine then halts with it on the screen anyway).
 */
#define SCREEN_FINAL_HOLD_S 3
void screen_console_final_hold(void);

#endif
