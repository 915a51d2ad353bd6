/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A fixed, seeded run of a guest under swap (over swap_fake.h) for tests
 * that compare whole runs: a hot set and cold pages, reads and writes
 * (some writing zero, for the zero-page path), daemon steps, I/O completed
 * late and in bursts. Every byte read is checked against what was written.
 * The digest covers every I/O submitted (op, page, slot, in order), every
 * step's result and every counter guest_memory_each_stat reports, so two
 * runs with the same digest chose the same victims in the same order.
 * Uses only the guest memory interface, no policy.
 */
#ifndef TESTS_UNIT_SWAP_REPLAY_H
#define TESTS_UNIT_SWAP_REPLAY_H

#include "tests/unit/swap_fake.h"

struct replay_result {
	uint64_t digest;
	uint64_t accesses;
	uint64_t reads_checked;
};

/* steps accesses on sf (any size; pages 0..npages-1), from seed. */
void swap_replay(struct swap_fake *sf, unsigned steps, uint64_t seed,
		 struct replay_result *out);

#endif
