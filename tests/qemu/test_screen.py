# SPDX-License-Identifier: BSD-2-Clause
"""The console on the screen (console = both, the default, with a display):
QEMU's VGA under OVMF gives a GOP framebuffer; apfvisor draws its lines
there and holds the picture before returning to the firmware, and
qemu-run --screen saves it. The picture must be, pixel for pixel, what the
Python renderer (tests/harness/screen.py, the same font data) draws for
the apfvisor lines of the serial console."""

import re

from lib import expect
from screen import Font, first_difference, read_ppm, render

VTX_ABSENT = ("apfvisor: error: VT-x is not supported by this CPU "
              "(CPUID.1:ECX.VMX[bit 5] = 0)")
BANNER = r"^apfvisor: apfvisor \S+ starting$"
SCREEN_INFO = (r"^apfvisor: screen: (\d+)x(\d+), (RGB|BGR) 32-bit, \d+ "
               r"pixels per line, framebuffer at 0x[0-9a-f]+ \(\d+ KiB\)$")
HOLD = "apfvisor: screen: back to the firmware in 10 s (or at a key press)"


def screen_text(run):
    """What went to the screen console: apfvisor's lines, until it let the
    screen go."""
    lines = [l for l in run.lines if l.startswith("apfvisor: ")]
    return "".join(l + "\n" for l in lines[:lines.index(HOLD) + 1])


def test_screen_shows_console(ctx):
    shot = ctx.workdir / "screen.ppm"
    run = ctx.boot_guest("hello", timeout=120,
                         extra=["--screen", str(shot)])
    run.expect_regex(BANNER)
    run.expect_line(VTX_ABSENT)
    m = run.expect_regex(SCREEN_INFO)
    run.expect_order(BANNER, re.escape(VTX_ABSENT),
                     "^apfvisor: exiting to firmware ", re.escape(HOLD))
    expect(shot.is_file(), f"qemu-run saved no screenshot ({run.stderr})")
    width, height, pixels = read_ppm(shot)
    expect((width, height) == (int(m[1]), int(m[2])),
           f"screenshot is {width}x{height}, apfvisor said {m[0]}")

    font = Font()
    text = screen_text(run)
    ctx.log(f"### the screen must show:\n{text}")
    want = render(text, width, height, font)
    where = first_difference(want, pixels, width, font)
    expect(where is None, f"the screen differs from the reference at {where}"
           f" (screenshot {shot})")

    # The comparison can fail: a wrong line is told apart.
    wrong = text.replace("VT-x is not supported", "VT-x is not supp0rted")
    expect(wrong != text and
           first_difference(render(wrong, width, height, font), pixels,
                            width, font) is not None,
           "a wrong VT-x line was not told apart from the screenshot")
    lit = sum(1 for i in range(0, width * font.height * 3, 3) if pixels[i])
    expect(lit > 100, "the banner's row shows nothing")


def test_screen_off_with_console_serial(ctx):
    # console = serial: the firmware's text console as before, no screen
    # line, no hold.
    run = ctx.boot_cfg("guest.kernel = hello.bin\nguest.format = flat\n"
                       "guest.memory = 32M\n"
                       "console = serial\n", timeout=120,
                       extra=["--screen", str(ctx.workdir / "screen.ppm")])
    run.expect_line(VTX_ABSENT)
    run.expect_absent(r"^apfvisor: screen: ")
    run.expect_status(1)


def test_screen_without_display_falls_back_to_serial(ctx):
    # No display (no --screen): no GOP. console = screen says so in one
    # error line and the console stays on COM1.
    run = ctx.boot_cfg("guest.kernel = hello.bin\nguest.format = flat\n"
                       "guest.memory = 32M\n"
                       "console = screen\n", timeout=120)
    run.expect_line("apfvisor: error: apfvisor.cfg: console = screen, but "
                    "there is no framebuffer: using the serial console")
    run.expect_line(VTX_ABSENT)
    run.expect_absent(r"^apfvisor: screen: ")
    run.expect_status(1)


def test_screen_after_exit_boot_services(ctx):
    """The screen console after ExitBootServices (apfvisor's own mapping
    of the framebuffer): the block self-test runs without VT-x, after the
    firmware has gone, and its lines must be on the screen, pixel for
    pixel, while it holds the last picture after "done"."""
    from test_blockdev import config, format_image
    image = ctx.workdir / "swap.img"
    format_image(image, "16M")
    shot = ctx.workdir / "screen.ppm"
    run = ctx.boot_cfg(config("virtio-blk"), swap=image, timeout=180,
                       extra=["--screen", str(shot)])
    run.expect_line("apfvisor: blockdev selftest: PASS")
    m = run.expect_regex(SCREEN_INFO)
    run.expect_status(0)
    expect(shot.is_file(), f"qemu-run saved no screenshot ({run.stderr})")
    width, height, pixels = read_ppm(shot)
    expect((width, height) == (int(m[1]), int(m[2])),
           f"screenshot is {width}x{height}, apfvisor said {m[0]}")
    lines = [l for l in run.lines if l.startswith("apfvisor: ")]
    hold = "apfvisor: screen: the last picture stays for 3 s"
    run.expect_order(r"^apfvisor: done$", "^" + hold + "$")
    text = "".join(l + "\n" for l in lines[:lines.index(hold) + 1])
    ctx.log(f"### the screen must show:\n{text}")
    font = Font()
    where = first_difference(render(text, width, height, font), pixels,
                             width, font)
    expect(where is None, f"the screen differs from the reference at {where}"
           f" (screenshot {shot})")
