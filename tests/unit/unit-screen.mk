# SPDX-License-Identifier: BSD-2-Clause
# The screen console's text renderer, with a test font and the generated one.
UNIT_TESTS += test_text_screen
unit_srcs_test_text_screen := lib/text_screen.c build/gen/console_font.c

# text_screen_render is not a test: it draws a text with the C renderer
# for tests/unit/test_screen_reference.py, which holds the Python one of
# tests/harness/screen.py against it.
$(UNIT_OUT)/text_screen_render: \
		$(patsubst %.c,$(UNIT_OUT)/obj/%.o,tests/unit/text_screen_render.c \
		lib/text_screen.c build/gen/console_font.c)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $^

unit-binaries: $(UNIT_OUT)/text_screen_render
