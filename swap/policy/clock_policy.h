/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CLOCK (second chance), the default eviction policy: a hand passes the
 * pages in index order. A candidate whose accessed bit is set loses it and
 * is spared this time round; one whose bit is clear is the victim. The
 * hand keeps its place from one pick to the next.
 */
#ifndef SWAP_POLICY_CLOCK_POLICY_H
#define SWAP_POLICY_CLOCK_POLICY_H

#include "swap/policy/eviction_policy.h"

struct clock_policy {
	uint64_t hand;          /* the next page to look at */
};

extern const struct eviction_policy_ops clock_policy_ops;

/* CLOCK over the state in *c (zeroed: the hand starts at page 0). */
static inline struct eviction_policy clock_policy(struct clock_policy *c)
{
	return (struct eviction_policy){ .ops = &clock_policy_ops, .self = c };
}

#endif
