# SPDX-License-Identifier: BSD-2-Clause
# The screen console's text renderer, with a test font and the generated one.
UNIT_TESTS += test_text_screen
unit_srcs_test_text_screen := lib/text_screen.c build/gen/console_font.c
