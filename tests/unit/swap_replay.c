/* SPDX-License-Identifier: BSD-2-Clause */
/* A fixed, seeded run of a guest under swap (see swap_replay.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/swap_replay.h"

struct replay {
	struct swap_fake *sf;
	uint64_t rng;
	uint64_t digest;
	uint8_t *shadow;                /* byte 0 of each page, as written */
	struct replay_result *out;
};

/* xorshift64: the same sequence on every host. */
static uint64_t next(struct replay *r)
{
	r->rng ^= r->rng << 13;
	r->rng ^= r->rng >> 7;
	r->rng ^= r->rng << 17;
	return r->rng;
}

static void mix(struct replay *r, uint64_t v)
{
	/* FNV-1a over the value's bytes. */
	for (unsigned i = 0; i < 8; i++) {
		r->digest ^= (v >> (8 * i)) & 0xff;
		r->digest *= 0x100000001b3ull;
	}
}

static void complete_oldest(struct replay *r, unsigned n)
{
	struct swap_fake *sf = r->sf;

	while (n-- && sf->queued) {
		const struct swap_io *io = &sf->queue[0];

		mix(r, (uint64_t)io->op << 62 ^ io->gfn << 32 ^ io->slot);
		assert_int_equal(swap_fake_complete(sf, 0, true), 0);
	}
}

static void daemon_step(struct replay *r)
{
	struct guest_evict_result res;
	unsigned freed;

	freed = guest_memory_evict_step(&r->sf->gm, 8, &res);
	mix(r, freed);
	mix(r, (uint64_t)res.scanned << 32 | res.victims);
	mix(r, (uint64_t)res.writes << 48 ^ (uint64_t)res.clean_drops << 32 ^
		       (uint64_t)res.zero_pages << 16 ^ res.cancelled);
	mix(r, (uint64_t)res.aborted << 1 | res.swap_full);
}

/* The page's frame, faulting and waiting as a vCPU would. */
static uint8_t *reach(struct replay *r, uint64_t gfn, bool write)
{
	for (unsigned tries = 0; tries < 32; tries++) {
		enum guest_fault_result res = GUEST_FAULT_RESOLVED;
		uint8_t *p = swap_fake_access(r->sf, gfn, write, &res);

		if (p)
			return p;
		mix(r, res);
		switch (res) {
		case GUEST_FAULT_NO_FRAME:
			daemon_step(r);
			complete_oldest(r, 2);
			break;
		case GUEST_FAULT_WAIT_IO:
		case GUEST_FAULT_SWAPIN_STARTED:
			complete_oldest(r, r->sf->queued);
			break;
		default:
			fail_msg("page %llu: %s", (unsigned long long)gfn,
				 guest_fault_result_name(res));
		}
	}
	fail_msg("page %llu never came", (unsigned long long)gfn);
	return NULL;
}

static void access_one(struct replay *r)
{
	unsigned npages = r->sf->npages, hot = npages / 6 + 1;
	uint64_t x = next(r);
	/* Three accesses in four go to the hot set at the bottom. */
	uint64_t gfn = (x & 3) ? (x >> 8) % hot : (x >> 8) % npages;
	bool write = (x >> 40) % 5 < 2;
	uint8_t *p = reach(r, gfn, write);

	r->out->accesses++;
	if (write) {
		/* One write in four leaves the page all zero again. */
		r->shadow[gfn] = (x >> 48) % 4 ? (uint8_t)(x >> 56) | 1 : 0;
		p[0] = r->shadow[gfn];
		return;
	}
	if (p[0] != r->shadow[gfn])
		fail_msg("page %llu reads 0x%x, was written 0x%x",
			 (unsigned long long)gfn, p[0], r->shadow[gfn]);
	r->out->reads_checked++;
}

static void mix_stat(void *ctx, const char *name, uint64_t value)
{
	struct replay *r = ctx;

	for (const char *c = name; *c; c++)
		mix(r, (uint8_t)*c);
	mix(r, value);
}

void swap_replay(struct swap_fake *sf, unsigned steps, uint64_t seed,
		 struct replay_result *out)
{
	struct replay r = {
		.sf = sf,
		.rng = seed | 1,
		.digest = 0xcbf29ce484222325ull,
		.out = out,
	};

	*out = (struct replay_result){ 0 };
	r.shadow = calloc(sf->npages, 1);
	assert_non_null(r.shadow);
	for (unsigned i = 0; i < steps; i++) {
		access_one(&r);
		if (i % 4 == 3 && guest_memory_needs_eviction(&sf->gm))
			daemon_step(&r);
		if (next(&r) % 3 == 0)
			complete_oldest(&r, 1 + next(&r) % 3);
	}
	complete_oldest(&r, sf->queued);
	guest_memory_each_stat(&sf->gm, mix_stat, &r);
	free(r.shadow);
	out->digest = r.digest;
}
