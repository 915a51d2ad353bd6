# SPDX-License-Identifier: BSD-2-Clause
"""The screen console in Python, for the emulator tests: what
lib/text_screen.c draws for a text, from the same generated font
(build/gen/console_font.c), and the screenshots QEMU saves (PPM).

The C renderer only ever draws a cell with the character it now holds, so
its framebuffer is always the picture of its cell grid: here the grid is
worked out first (wrap, tabs, scrolling, as in text_screen.c) and drawn
once.
"""

import re
from pathlib import Path

FONT_C = Path(__file__).resolve().parent.parent.parent / "build" / "gen" / \
    "console_font.c"
FG = (0xaa, 0xaa, 0xaa)     # TEXT_FG_LEVEL in lib/text_screen.c
BG = (0x00, 0x00, 0x00)
TAB = 8                     # TEXT_SCREEN_TAB
REPLACEMENT = "?"


class Font:
    def __init__(self, path=FONT_C):
        text = Path(path).read_text()
        field = {k: int(v, 0) for k, v in
                 re.findall(r"\.(width|height|first|count) = (\w+),", text)}
        self.width, self.height = field["width"], field["height"]
        self.first, self.count = field["first"], field["count"]
        table = text[text.index("glyphs[] = {"):text.index("};")]
        data = bytes(int(b, 16) for b in re.findall(r"0x([0-9a-f]{2}),",
                                                    table))
        self.row_bytes = (self.width + 7) // 8
        size = self.row_bytes * self.height
        if len(data) != size * self.count:
            raise ValueError(f"{path}: {len(data)} glyph bytes, expected "
                             f"{size * self.count}")
        self.glyphs = [data[i * size:(i + 1) * size]
                       for i in range(self.count)]

    def glyph(self, ch):
        """The rows of ch's glyph, or None for a blank cell."""
        code = ord(ch)
        if not self.first <= code < self.first + self.count:
            if ch == " ":
                return None
            code = ord(REPLACEMENT)
        return self.glyphs[code - self.first]


def text_grid(text, cols, rows):
    """The characters on a cols x rows screen after text is written."""
    grid = [[" "] * cols for _ in range(rows)]
    col = row = 0

    def new_line():
        nonlocal col, row
        col = 0
        if row + 1 < rows:
            row += 1
        else:
            grid.pop(0)
            grid.append([" "] * cols)

    def put(ch):
        nonlocal col
        if col >= cols:
            new_line()
        grid[row][col] = ch
        col += 1

    for ch in text:
        if ch == "\n":
            new_line()
        elif ch == "\r":
            col = 0
        elif ch == "\t":
            if col >= cols:
                new_line()
            put(" ")
            while col % TAB and col < cols:
                put(" ")
        elif ch == "\b":
            col = min(col, cols) - 1 if col else 0
        elif ord(ch) >= 0x20 and ch != "\x7f":
            put(ch)
    return grid


def render(text, width, height, font):
    """The RGB bytes (row by row) of a width x height screen showing text."""
    cols, rows = width // font.width, height // font.height
    pixels = bytearray(bytes(BG) * (width * height))
    fg = bytes(FG)
    for r, line in enumerate(text_grid(text, cols, rows)):
        for c, ch in enumerate(line):
            glyph = font.glyph(ch)
            if glyph is None:
                continue
            for y in range(font.height):
                bits = glyph[y * font.row_bytes:(y + 1) * font.row_bytes]
                base = ((r * font.height + y) * width + c * font.width) * 3
                for x in range(font.width):
                    if bits[x // 8] & (0x80 >> (x % 8)):
                        pixels[base + 3 * x:base + 3 * x + 3] = fg
    return bytes(pixels)


def read_ppm(path):
    """(width, height, RGB bytes) of a binary PPM (P6, maxval 255)."""
    data = Path(path).read_bytes()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos)
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    if fields[0] != b"P6" or fields[3] != b"255":
        raise ValueError(f"{path}: not an 8-bit binary PPM")
    width, height = int(fields[1]), int(fields[2])
    pixels = data[pos + 1:pos + 1 + width * height * 3]
    if len(pixels) != width * height * 3:
        raise ValueError(f"{path}: truncated")
    return width, height, pixels


def first_difference(want, got, width, font):
    """None when equal, else 'text row R, column C' of the first pixel
    that differs."""
    for i, (a, b) in enumerate(zip(want, got)):
        if a != b:
            pixel = i // 3
            return (f"text row {pixel // width // font.height}, column "
                    f"{pixel % width // font.width}")
    return None if len(want) == len(got) else "size"
