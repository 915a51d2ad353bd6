/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * AGING: a byte of access history per page, from the EPT accessed bits.
 * A hand passes the pages in index order as CLOCK's does; each candidate
 * it meets has its history shifted right, the accessed bit (then cleared)
 * coming in at the top. A page unused for all of its last eight looks
 * (history 0) goes at once; otherwise a pick looks at AGING_WINDOW
 * candidates and takes the one least worth keeping: used on the fewest of
 * its last eight looks, and of those the least recently. That is the
 * classic aging approximation of LRU with frequency first, as Linux's
 * multi-generational LRU sorts pages by generation (recency) and tier
 * (how often they were used) from the same accessed bits. A page that
 * becomes resident starts with an empty history; the accessed bit it is
 * mapped with is its first use.
 *
 * The history is one byte per guest page.
 */
#ifndef SWAP_POLICY_AGING_POLICY_H
#define SWAP_POLICY_AGING_POLICY_H

#include "swap/policy/eviction_policy.h"

/* Candidates a pick compares at most, when none is unused for 8 looks. */
#define AGING_WINDOW 16

struct aging_policy {
	uint8_t *history;       /* npages bytes */
	uint64_t npages;
	uint64_t hand;          /* the next page to look at */
};

extern const struct eviction_policy_ops aging_policy_ops;

static inline uint64_t aging_policy_storage(uint64_t npages)
{
	return npages;
}

/* Every page's history empty, the hand at page 0. */
void aging_policy_init(struct aging_policy *a, void *storage, uint64_t npages);

static inline struct eviction_policy aging_policy(struct aging_policy *a)
{
	return (struct eviction_policy){ .ops = &aging_policy_ops, .self = a };
}

#endif
