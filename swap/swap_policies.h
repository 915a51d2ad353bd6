/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The policies swap.policy and swap.prefetch name, built for a guest of
 * npages pages: their state lives here, their per-page arrays come from
 * the caller's allocator (the hypervisor heap, or calloc in a test).
 */
#ifndef SWAP_SWAP_POLICIES_H
#define SWAP_SWAP_POLICIES_H

#include "swap/swap_params.h"
#include "swap/compressed_tier.h"
#include "lib/guest_ram.h"
#include "swap/policy/aging_policy.h"
#include "swap/policy/clock_policy.h"
#include "swap/policy/fifo_policy.h"
#include "swap/policy/prefetch_policy.h"
#include "swap/policy/random_policy.h"

/* Seed of swap.policy = random: the same victims on every run. */
#define SWAP_RANDOM_POLICY_SEED 0x5eed0fa9f00du

struct swap_policies {
	struct clock_policy clock;
	struct fifo_policy fifo;
	struct random_policy random;
	struct aging_policy aging;
	struct prefetch_sequential sequential;
	struct prefetch_stride stride;
	struct prefetch_replay replay;
	/* What swap_policies_build put in place. */
	struct eviction_policy evict;
	struct prefetch_policy prefetch;
	/* swap.tier = lz4 (swap_policies_setup): the tier, has_tier. */
	struct compressed_tier tier;
	bool has_tier;
};

/*
 * The policies p asks for over the guest RAM ram describes; alloc(bytes)
 * returns zeroed memory or NULL. False with the reason in err when the
 * memory could not be had, the guest is too big for the policy, or
 * replay's fault list is refused: the caller says so and stops. A replay
 * list's pages outside RAM are left out (counted in *replay_skipped).
 */
bool swap_policies_build(struct swap_policies *sp, const struct swap_params *p,
			 const struct guest_ram_layout *ram,
			 void *(*alloc)(size_t bytes), uint64_t *replay_skipped,
			 char *err, size_t err_len);

/*
 * For the paging daemon (swap/swap_policy_setup.c): swap_policies_build
 * over the hypervisor heap, the compressed tier of swap.tier, and what was
 * chosen said on the console. False after one error line.
 */
bool swap_policies_setup(struct swap_policies *sp, const struct swap_params *p,
			 const struct guest_ram_layout *ram, bool verify);

/* "clock", "fifo", ...: the names apfvisor.cfg uses. */
const char *swap_evict_kind_name(enum swap_evict_kind k);
const char *swap_prefetch_kind_name(enum swap_prefetch_kind k);

#endif
