/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RANDOM: any candidate, chosen by a seeded generator (xorshift64), its
 * accessed bit ignored. The reference point of the replacement literature:
 * it keeps no history, so no access pattern can defeat it, and it beats
 * the LRU family on a loop larger than memory, where they miss on every
 * access. The same seed gives the same victims on every run.
 */
#ifndef SWAP_POLICY_RANDOM_POLICY_H
#define SWAP_POLICY_RANDOM_POLICY_H

#include "swap/policy/eviction_policy.h"

struct random_policy {
	uint64_t state;         /* the generator's; never 0 */
};

extern const struct eviction_policy_ops random_policy_ops;

static inline struct eviction_policy random_policy(struct random_policy *r,
						   uint64_t seed)
{
	r->state = seed ? seed : 0x9e3779b97f4a7c15ull;
	return (struct eviction_policy){ .ops = &random_policy_ops, .self = r };
}

#endif
