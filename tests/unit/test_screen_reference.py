#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The Python screen renderer (tests/harness/screen.py), which the QEMU
screen test compares screenshots with, draws exactly what the C one
(lib/text_screen.c, run as build/unit/text_screen_render) draws: wrap,
scrolling, tabs, backspace, carriage return, control and non-ASCII bytes,
in BGR and RGB, with a pitch wider than the line.

Run from the repository root after make unit-binaries; exit status 0 iff
every test passes."""

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(REPO / "tests" / "harness"))
from screen import Font, first_difference, read_ppm, render  # noqa: E402

RENDER = REPO / "build" / "unit" / "text_screen_render"
# 20 columns x 4 rows of 8x16 cells, and a few pixels more.
WIDTH, HEIGHT = 20 * 8 + 5, 4 * 16 + 7

CASES = {
    "short": "apfvisor: hello\n",
    "wrap": "x" * 45 + "\nexactly twenty chars\nnext\n",
    "scroll": "".join(f"line {i}\n" for i in range(11)),
    "wrap_then_scroll": "".join(f"{i}: " + "abc " * i + "\n"
                                for i in range(9)),
    "tabs": "a\tb\tc\n\t\t\tend\n1234567\tX\n",
    "backspace_cr": "abc\b\bX\nhello\rJ\n\b\bstart\n",
    "control_bytes": "a\x01\x1b[1mb\x7fc\n",
    "non_ascii": "caf\xc3\xa9 \xff\x80!\n",
    "no_final_newline": "one\ntwo\nthree\nfour\nfive",
}


class SameAsC(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not RENDER.is_file():
            raise unittest.SkipTest(f"{RENDER} missing: make unit-binaries")
        cls.font = Font()

    def check(self, text, fmt, pad):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "c.ppm"
            subprocess.run([str(RENDER), str(WIDTH), str(HEIGHT), fmt,
                            str(pad), str(out)],
                           input=text.encode("latin-1"), check=True)
            width, height, pixels = read_ppm(out)
        self.assertEqual((width, height), (WIDTH, HEIGHT))
        want = render(text, WIDTH, HEIGHT, self.font)
        self.assertIsNone(first_difference(want, pixels, WIDTH, self.font),
                          f"{text!r} ({fmt}, pad {pad})")

    def test_cases(self):
        for name, text in CASES.items():
            for fmt, pad in (("bgr", 0), ("rgb", 12)):
                with self.subTest(name=name, fmt=fmt):
                    self.check(text, fmt, pad)

    def test_difference_is_found(self):
        # A wrong expectation fails: one character off on the last row.
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "c.ppm"
            subprocess.run([str(RENDER), str(WIDTH), str(HEIGHT), "bgr",
                            "0", str(out)], input=b"1\n2\n3\n4\n5",
                           check=True)
            _, _, pixels = read_ppm(out)
        wrong = render("1\n2\n3\n4\n6", WIDTH, HEIGHT, self.font)
        self.assertEqual(first_difference(wrong, pixels, WIDTH, self.font),
                         "text row 3, column 0")


if __name__ == "__main__":
    unittest.main(verbosity=1)
