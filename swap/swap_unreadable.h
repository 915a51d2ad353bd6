/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * debug.hypercall's "fail the swap-ins of this page": the guest pages
 * whose reads from swap fail as if the disk had failed them, every time,
 * so the daemon's retries fail too and the page is lost (GPM_LOST) - the
 * way a test reaches the machine check for a lost page
 * (vmx/exit_lost_page.c) without a failing disk. The page keeps its
 * contents until it is evicted; only a read from its slot fails. A small
 * set: tests name a page or two.
 */
#ifndef SWAP_SWAP_UNREADABLE_H
#define SWAP_SWAP_UNREADABLE_H

#include "lib/types.h"

#define SWAP_UNREADABLE_MAX 16

struct swap_unreadable {
	uint64_t gfn[SWAP_UNREADABLE_MAX];
	unsigned count;
};

/* Adds gfn (once); false when the set is full. */
bool swap_unreadable_add(struct swap_unreadable *u, uint64_t gfn);

bool swap_unreadable_has(const struct swap_unreadable *u, uint64_t gfn);

#endif
