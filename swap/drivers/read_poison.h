/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Telling a read the device carried out from one it only said it did,
 * where the device reports no byte count: NVMe (a completion carries none)
 * and AHCI with NCQ (an HBA need not update PRDBC for queued commands;
 * QEMU's does not). Before such a read the driver fills the page with a
 * poison word; when the read is reported done it looks at every word,
 * and one still holding the poison was never written by the device: the
 * read fails, as if the device had reported an error.
 *
 * Why poison and not a cleared page: a cleared page the device never
 * wrote is indistinguishable from a page of zeros, so the guest would
 * silently get wrong (if not stale) data. The poison makes the lie
 * visible; the read fails and the swap daemon retries it, then gives the
 * page up, as for any failed read. Filling costs one 4 KiB write per
 * read, the check one 4 KiB read.
 *
 * The poison must be a word an honest read never brings back. It is
 * mixed from a seed taken from the clock when the device is set up and
 * from the page's address, so it changes with the page and the boot; the
 * guest never sees it (the page is unmapped during the read, and a read
 * that leaves any of it behind fails), so it cannot store it on purpose.
 * By chance, an honest page holds it in one of its 512 words with a
 * probability of about 2^-55.
 */
#ifndef SWAP_READ_POISON_H
#define SWAP_READ_POISON_H

#include "lib/types.h"

#define READ_POISON_WORDS (PAGE_SIZE / sizeof(uint64_t))

/* A device's seed from any varying value (the TSC at its set-up). */
uint64_t read_poison_seed(uint64_t entropy);

/* The poison word for reads into the page at page_pa. */
uint64_t read_poison_word(uint64_t seed, uint64_t page_pa);

/*
 * Fills the 4 KiB page at host-physical page_pa (identity-mapped, as all
 * host memory: arch/x86/host_paging.h) with poison.
 */
void read_poison_fill(uint64_t page_pa, uint64_t poison);

/* How many words of the page still hold poison: 0 for a whole read. */
unsigned read_poison_left(uint64_t page_pa, uint64_t poison);

#endif
