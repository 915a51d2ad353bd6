# SPDX-License-Identifier: BSD-2-Clause
"""Free page reporting in Bochs: the Linux guest overcommitted (256 MiB on
FRAMES_MIB of host frames) runs churn, which maps and writes 100 MiB, reads
it back to check it and unmaps it, ROUNDS times, 3 s apart; the kernel
reports the freed pages to the virtio balloon, which drops them.

100 MiB does not fit in 64 MiB of frames, so each round's own pages go to
swap and come back (its check reads them: about a round's pages of
swap-ins, reporting or not). The rest: a round's writes land on pages the
last round freed, which the paging daemon swapped out with their stale
contents. With reporting those pages were dropped and come back as zero
fills (swap.discard_refaults); without it the kernel clears each before
handing it out, a store over the whole page, and the paging daemon gives
it a fresh frame instead of reading the stale page back
(swap.whole_page_stores, swap.overwrites). Either way no stale page is
read. debug.swap_verify stays clean both ways, and churn finds every word
it wrote."""
import re

import pytest

from tests.bochs.test_swap import (expect_swap_checks_clean, formatted_swap,
                                   LINUX_CFG)

FRAMES_MIB = 64
ROUNDS = 2
CHURN = f"churn -m 100 -r {ROUNDS} -s 3"
CHURN_PAGES = 100 * 256         # one round's pages
# Swap-ins: each round's check reads back about a round's pages; reading
# the stale pages as well would add about 70% of a round for every round
# after the first (2 rounds in Bochs: 70,178 swap-ins without reporting
# before whole-page stores, 55,181 with reporting; 57,471 without
# reporting and 54,684 with it since). The line: the check's reads and 35%
# of a round for each round after the first.
INS_LINE = ROUNDS * CHURN_PAGES + (ROUNDS - 1) * CHURN_PAGES * 35 // 100


def churn_cfg(balloon):
    text = re.sub(r'apfvisor\.run="[^"]*"',
                  f'apfvisor.run="{CHURN}; lspci"', LINUX_CFG.read_text())
    return text + (f"\nhost.guest_frames = {FRAMES_MIB}M\n"
                   "swap.device = ata\n"
                   "debug.swap_verify = on\n"
                   f"balloon = {balloon}\n")


@pytest.mark.parametrize("balloon", ["on", "off"])
def test_churn_free_page_reporting(ctx, balloon):
    run = ctx.boot_cfg(churn_cfg(balloon), cpus=1, timeout=1500,
                       swap=formatted_swap(ctx, "swap.img"))
    run.expect_status(0)
    run.expect_regex(rf"churn: total: {ROUNDS} rounds, \d+ pages, "
                     r"0 mismatches")
    run.expect_absent(r"apfvisor: error:|churn: error:")
    expect_swap_checks_clean(run)
    ins, outs = run.stat("swap.ins"), run.stat("swap.outs")
    print(f"balloon {balloon}: swap.ins {ins}, swap.outs {outs}")
    if balloon == "on":
        run.expect_regex(r"apfvisor-guest: modules:.*virtio_balloon")
        run.expect_regex(r"00:03\.0 00ff: 1af4:1045 .*driver virtio-pci")
        run.expect_stat("balloon.broken_queues", 0)
        # Linux primes the statistics queue before DRIVER_OK.
        run.expect_stat_at_least("balloon.stats_updates", 1)
        # Each round after the first finds most of the last one dropped.
        run.expect_stat_at_least("balloon.reported_pages",
                                 (ROUNDS - 1) * CHURN_PAGES)
        # ... and takes some of them back as zero fills (2 rounds in
        # Bochs: 9,058).
        run.expect_stat_at_least("swap.discard_refaults",
                                 (ROUNDS - 1) * CHURN_PAGES // 4)
    else:
        assert "balloon.reports" not in run.stats
        run.expect_stat("swap.discarded", 0)
        # The kernel clears the stale pages it hands out again: whole-page
        # stores, not read (2 rounds in Bochs: 13,220).
        run.expect_stat_at_least("swap.overwrites",
                                 (ROUNDS - 1) * CHURN_PAGES * 35 // 100)
    # The check's reads, and little more: no stale page read back.
    assert ins < INS_LINE, (
        f"{ins} swap-ins (line {INS_LINE}): stale pages were read back")
