/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FIFO: the page resident longest goes first, whatever its accessed bit
 * says (Belady's baseline; no second chance). Pages are kept on a list in
 * the order they became resident (their first touch, a swap-in, an
 * eviction undone); an eviction takes the page off. A page that is not a
 * candidate when the scan meets it (pinned, or a write the full swap area
 * cannot take) goes to the back of the list, so that the next pick does
 * not look at it again first.
 *
 * The list is two arrays of page indexes, next and prev, of npages each
 * (FIFO_NONE: no neighbour, not on the list): 8 bytes per guest page.
 */
#ifndef SWAP_POLICY_FIFO_POLICY_H
#define SWAP_POLICY_FIFO_POLICY_H

#include "swap/policy/eviction_policy.h"

#define FIFO_NONE UINT32_MAX

struct fifo_policy {
	uint32_t *next, *prev;  /* npages each, all FIFO_NONE at the start */
	uint32_t head, tail;    /* FIFO_NONE when the list is empty */
	uint64_t npages;        /* below FIFO_NONE */
	uint64_t queued;        /* pages on the list */
};

extern const struct eviction_policy_ops fifo_policy_ops;

/* Bytes of storage fifo_policy_init needs for npages pages. */
static inline uint64_t fifo_policy_storage(uint64_t npages)
{
	return 2 * npages * sizeof(uint32_t);
}

/* An empty list over storage (fifo_policy_storage bytes); false: too big. */
bool fifo_policy_init(struct fifo_policy *f, void *storage, uint64_t npages);

static inline struct eviction_policy fifo_policy(struct fifo_policy *f)
{
	return (struct eviction_policy){ .ops = &fifo_policy_ops, .self = f };
}

#endif
