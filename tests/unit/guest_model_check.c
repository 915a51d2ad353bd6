/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The invariants of test_guest_memory_model.c, checked after every step
 * (see guest_model.h). The per-step check looks at every page: its state
 * against the model, its contents where the guest would read them (frame,
 * or swap slot) against the model's words, its frame and slot against
 * every other page's and against the pool and the slot map, its I/O flag
 * against the fake device's queue, its EPT entry against its state. The
 * full check (every few thousand steps) adds every byte of every page.
 * At the end: the run's figures, and proof that it took every path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/guest_model.h"

struct tally {
	uint64_t states[GUEST_PAGE_STATES];
	bool frame_used[MODEL_FRAMES];
	bool slot_used[MODEL_SLOTS];
	int io_of[MODEL_PAGES];         /* queue index, or -1 */
	unsigned frames, slots, ios;
};

#define CHECK(s, g, cond)                                                    \
	do {                                                                 \
		if (!(cond))                                                 \
			fail_msg("step %llu page %u: %s",                    \
				 (unsigned long long)(s)->step, (unsigned)(g), \
				 #cond);                                     \
	} while (0)

static bool has_frame(enum guest_page_state st)
{
	return st == PAGE_RESIDENT || st == PAGE_WRITEBACK || st == PAGE_SWAPIN;
}

/* Where the guest's view of page g lives now; NULL: all zero or lost. */
static uint8_t *contents(struct sim *s, const struct guest_page_info *in)
{
	switch (in->state) {
	case PAGE_RESIDENT:
	case PAGE_WRITEBACK:
		return swap_fake_frame(s->sf, in->frame_pa);
	case PAGE_SWAPPED:
	case PAGE_SWAPIN:
		if (in->flags & GPM_LOST)
			return NULL;
		return swap_fake_slot(s->sf, in->slot);
	default:
		return NULL;
	}
}

static void check_words(struct sim *s, unsigned g, const uint8_t *p)
{
	const struct model_page *mp = &s->page[g];

	for (unsigned k = 0; k < MODEL_WORDS; k++) {
		uint64_t v = *frame_word((uint8_t *)p, k);

		if (v != mp->w[k])
			fail_msg("step %llu page %u (%s) word %u: %#llx, "
				 "model %#llx", (unsigned long long)s->step,
				 g, guest_page_state_name(mp->state), k,
				 (unsigned long long)v,
				 (unsigned long long)mp->w[k]);
	}
}

/* Every byte but the model's words is zero. */
static void check_bytes(struct sim *s, unsigned g, const uint8_t *p)
{
	unsigned k = 0;

	for (unsigned i = 0; i < PAGE_SIZE; i++) {
		if (k < MODEL_WORDS && i == word_offset(k)) {
			i += 7;
			k++;
			continue;
		}
		CHECK(s, g, p[i] == 0);
	}
}

static void check_frame(struct sim *s, struct tally *t, unsigned g,
			const struct guest_page_info *in)
{
	uint64_t idx = (in->frame_pa - FAKE_FRAME_BASE) / PAGE_SIZE;

	CHECK(s, g, has_frame(in->state) == (in->frame_pa != 0));
	if (!in->frame_pa)
		return;
	CHECK(s, g, in->frame_pa >= FAKE_FRAME_BASE && idx < MODEL_FRAMES);
	CHECK(s, g, !t->frame_used[idx]);
	t->frame_used[idx] = true;
	t->frames++;
}

static void check_slot(struct sim *s, struct tally *t, unsigned g,
		       const struct guest_page_info *in)
{
	const struct model_page *mp = &s->page[g];

	if (in->state == PAGE_SWAPPED || in->state == PAGE_SWAPIN)
		CHECK(s, g, (in->flags & (GPM_SLOT | GPM_SWAP_VALID)) ==
				    (GPM_SLOT | GPM_SWAP_VALID));
	if (in->state == PAGE_UNTOUCHED)
		CHECK(s, g, in->flags == 0);
	/*
	 * The module may see a re-dirtied page late, never early. (The slot
	 * of a page that is not resident is compared as its contents.)
	 */
	if (mp->slot_valid) {
		CHECK(s, g, in->flags & GPM_SWAP_VALID);
		if (has_frame(in->state) && in->state != PAGE_SWAPIN)
			check_words(s, g, swap_fake_slot(s->sf, in->slot));
	}
	if (in->flags & GPM_SWAP_VALID)
		CHECK(s, g, in->flags & GPM_SLOT);
	if (!(in->flags & GPM_SLOT))
		return;
	CHECK(s, g, in->slot < MODEL_SLOTS);
	CHECK(s, g, !t->slot_used[in->slot]);
	CHECK(s, g, swap_slots_is_used(&s->sf->slots, in->slot));
	t->slot_used[in->slot] = true;
	t->slots++;
}

static void check_flags(struct sim *s, struct tally *t, unsigned g,
			const struct guest_page_info *in)
{
	const struct model_page *mp = &s->page[g];
	bool io = in->flags & GPM_IO;

	CHECK(s, g, io == (t->io_of[g] >= 0));
	CHECK(s, g, !!(in->flags & GPM_LOST) == mp->lost);
	CHECK(s, g, !!(in->flags & GPM_CANCEL) == mp->cancel);
	CHECK(s, g, !mp->cancel || (in->state == PAGE_RESIDENT && io));
	CHECK(s, g, !mp->lost || in->state == PAGE_SWAPPED);
	if (in->state == PAGE_SWAPIN)
		CHECK(s, g, io);
	/* Unmapped without I/O: only a victim of the running step. */
	if (in->state == PAGE_WRITEBACK)
		CHECK(s, g, io || mp->victim);
	if (!io)
		return;
	/* RESIDENT: taken back by the guest while being written. */
	CHECK(s, g, in->state != PAGE_SWAPPED && in->state != PAGE_UNTOUCHED);
	CHECK(s, g, s->sf->queue[t->io_of[g]].frame_pa == in->frame_pa);
	CHECK(s, g, s->sf->queue[t->io_of[g]].slot == in->slot);
	CHECK(s, g, s->sf->queue[t->io_of[g]].op ==
			    (in->state == PAGE_SWAPIN ? SWAP_IO_READ :
							SWAP_IO_WRITE));
	t->ios++;
}

/*
 * The test's own walk to the page table that maps the whole guest (it is
 * smaller than 2 MiB), done once per check; NULL while nothing is mapped.
 * Non-leaf entries are only followed, the CPU's way (cpu_walk checks them).
 */
static const uint64_t *guest_page_table(struct sim *s)
{
	uint64_t pa = s->sf->ef->ept.pml4_pa;

	for (int level = 4; level > 1; level--) {
		const uint64_t *t = fake_phys_to_virt(&s->sf->ef->fm, pa);

		if (!(t[0] & EPT_RWX))
			return NULL;
		pa = t[0] & EPT_ADDR_MASK;
	}
	return fake_phys_to_virt(&s->sf->ef->fm, pa);
}

/* The EPT entry: present exactly for RESIDENT, on the page's frame. */
static void check_mapping(struct sim *s, const uint64_t *pt, unsigned g,
			  const struct guest_page_info *in)
{
	uint64_t e = pt ? pt[g] : 0;

	CHECK(s, g, !!(e & EPT_RWX) == (in->state == PAGE_RESIDENT));
	if (!(e & EPT_RWX))
		return;
	CHECK(s, g, (e & EPT_ADDR_MASK) == in->frame_pa);
	CHECK(s, g, (e & (EPT_RWX | EPT_LARGE_PAGE)) == EPT_RWX);
}

static void check_page(struct sim *s, struct tally *t, const uint64_t *pt,
		       unsigned g, bool full)
{
	const struct model_page *mp = &s->page[g];
	struct guest_page_info in;
	uint8_t *p;

	assert_true(guest_memory_page_info(&s->sf->gm, g, &in));
	if (in.state != mp->state)
		fail_msg("step %llu page %u: %s, model %s",
			 (unsigned long long)s->step, g,
			 guest_page_state_name(in.state),
			 guest_page_state_name(mp->state));
	t->states[in.state]++;
	check_flags(s, t, g, &in);
	check_frame(s, t, g, &in);
	check_slot(s, t, g, &in);
	p = contents(s, &in);
	if (p)
		check_words(s, g, p);
	else if (!mp->lost)
		for (unsigned k = 0; k < MODEL_WORDS; k++)
			CHECK(s, g, mp->w[k] == 0);
	check_mapping(s, pt, g, &in);
	if (full && p)
		check_bytes(s, g, p);
}

/* Frames held by pages are exactly the pool's frames in use. */
static void check_pool(struct sim *s, const struct tally *t)
{
	const struct frame_pool *pool = &s->sf->pool;

	CHECK(s, 0, t->frames == frame_pool_in_use(pool));
	for (uint64_t i = 0; i < pool->nfree; i++) {
		uint64_t idx = (pool->free_stack[i] - FAKE_FRAME_BASE) /
			       PAGE_SIZE;

		CHECK(s, 0, idx < MODEL_FRAMES && !t->frame_used[idx]);
	}
}

static void check_counters(struct sim *s, const struct tally *t)
{
	const struct guest_memory *gm = &s->sf->gm;

	for (unsigned st = 0; st < GUEST_PAGE_STATES; st++) {
		int64_t n = st == PAGE_UNTOUCHED ? MODEL_PAGES : 0;

		for (unsigned o = 0; o < GUEST_PAGE_STATES; o++)
			n += (int64_t)gm->stats.transitions[o][st] -
			     (int64_t)gm->stats.transitions[st][o];
		CHECK(s, st, gm->count[st] == t->states[st]);
		CHECK(s, st, (uint64_t)n == t->states[st]);
	}
	CHECK(s, 0, t->slots == s->sf->slots.in_use);
	CHECK(s, 0, s->sf->slots.peak <= MODEL_SLOTS);
	CHECK(s, 0, t->ios == s->sf->queued);
	CHECK(s, 0, t->ios == gm->io_in_flight);
	CHECK(s, 0, s->sf->slots.bad_frees == 0);
	CHECK(s, 0, s->sf->slots.retired == s->n.retired);
	CHECK(s, 0, gm->stats.slots_retired == s->n.retired);
	CHECK(s, 0, gm->stats.illegal_transitions == 0);
}

void model_check(struct sim *s, bool full)
{
	struct tally t = { 0 };
	const uint64_t *pt;

	for (unsigned g = 0; g < MODEL_PAGES; g++)
		t.io_of[g] = -1;
	for (unsigned i = 0; i < s->sf->queued; i++) {
		uint64_t g = s->sf->queue[i].gfn;

		CHECK(s, g, g < MODEL_PAGES && t.io_of[g] < 0);
		t.io_of[g] = (int)i;
	}
	pt = guest_page_table(s);
	for (unsigned g = 0; g < MODEL_PAGES; g++)
		check_page(s, &t, pt, g, full);
	check_pool(s, &t);
	check_counters(s, &t);
	if (full)
		s->n.full_checks++;
}

/*
 * A failed write retires its slot and goes to a fresh one, if any is left;
 * a failed read is retried from the same slot.
 */
void model_check_retired(struct sim *s, const struct swap_io *io)
{
	s->n.retired++;
	if (swap_slots_is_used(&s->sf->slots, io->slot))
		FAIL(s, "slot %u of a failed write not retired", io->slot);
}

bool model_retry_expected(struct sim *s, const struct swap_io *io,
			  uint32_t free_slots)
{
	struct model_page *mp = &s->page[io->gfn];
	int q = swap_fake_find(s->sf, io->gfn);

	if (io->op == SWAP_IO_WRITE)
		model_check_retired(s, io);
	if (++mp->tries >= GUEST_IO_TRIES ||
	    (io->op == SWAP_IO_WRITE && !free_slots))
		return false;
	if (q < 0)
		FAIL(s, "failed I/O not retried");
	if ((s->sf->queue[q].slot == io->slot) != (io->op == SWAP_IO_READ))
		FAIL(s, "%s retried on slot %u after slot %u",
		     io->op == SWAP_IO_READ ? "read" : "write",
		     s->sf->queue[q].slot, io->slot);
	return true;
}

/* The vCPUs waiting for the page hear of it: once, after the change. */
void model_check_settled(struct sim *s, const struct swap_io *io,
			  unsigned before, bool want)
{
	struct model_page *mp = &s->page[io->gfn];

	if (s->sf->settled != before + want)
		FAIL(s, "page %llu: %u settle events, want %u",
		     (unsigned long long)io->gfn, s->sf->settled - before,
		     want);
	if (want && (s->sf->settled_gfn != io->gfn ||
		     s->sf->settled_resident != (mp->state == PAGE_RESIDENT)))
		FAIL(s, "settle event for page %llu wrong",
		     (unsigned long long)io->gfn);
}

/* Just mapped by an I/O's end: accessed set (CLOCK spares it), clean. */
void model_check_fresh_mapping(struct sim *s, uint64_t gfn)
{
	int level;
	uint64_t *leaf = cpu_walk(s->sf->ef, gfn << PAGE_SHIFT, &level);

	if (!leaf || (*leaf & (EPT_ACCESSED | EPT_DIRTY)) != EPT_ACCESSED)
		FAIL(s, "page %llu mapped without A or with D",
		     (unsigned long long)gfn);
}

void model_report(const struct sim *s, double secs)
{
	const struct guest_memory_stats *st = &s->sf->gm.stats;
	const struct model_counts *n = &s->n;

	printf("guest model: %llu steps in %.2f s (%.0f steps/s)\n",
	       (unsigned long long)s->step, secs, (double)s->step / secs);
	printf("guest model: accesses %llu (tlb hits %llu), faults %llu, "
	       "daemon steps %llu, victims %llu, completions %llu "
	       "(failed %llu), host writes %llu, full checks %llu\n",
	       (unsigned long long)n->accesses,
	       (unsigned long long)n->tlb_hits, (unsigned long long)n->faults,
	       (unsigned long long)n->daemon_steps,
	       (unsigned long long)n->victims,
	       (unsigned long long)n->completions,
	       (unsigned long long)n->failed_completions,
	       (unsigned long long)n->host_writes,
	       (unsigned long long)n->full_checks);
	printf("guest model: swap_outs %llu swap_ins %llu zero_skipped %llu "
	       "clean_drops %llu cancelled %llu (in flush window %llu, "
	       "during the write %llu) "
	       "aborted %llu slots_freed_dirty %llu slots peak %u/%u "
	       "io_errors %llu retries %llu write_fail %llu read_fail %llu "
	       "swap_full %llu stale %llu no_frame %llu wait_io %llu "
	       "retired %llu stalled steps %llu settled %u\n",
	       (unsigned long long)st->swap_outs,
	       (unsigned long long)st->swap_ins,
	       (unsigned long long)st->zero_pages_skipped,
	       (unsigned long long)st->clean_drops,
	       (unsigned long long)st->evictions_cancelled,
	       (unsigned long long)n->window_cancels,
	       (unsigned long long)n->write_cancels,
	       (unsigned long long)st->evictions_aborted,
	       (unsigned long long)st->slots_freed_dirty,
	       s->sf->slots.peak, MODEL_SLOTS,
	       (unsigned long long)st->io_errors,
	       (unsigned long long)st->io_retries,
	       (unsigned long long)st->write_failures,
	       (unsigned long long)st->read_failures,
	       (unsigned long long)st->swap_full_events,
	       (unsigned long long)st->stale_completions,
	       (unsigned long long)st->no_frame,
	       (unsigned long long)st->wait_io,
	       (unsigned long long)st->slots_retired,
	       (unsigned long long)st->evict_steps_stalled, s->sf->settled);
}

/* Every path was taken: a run that missed one proves less than it says. */
void model_check_coverage(const struct sim *s)
{
	const struct guest_memory_stats *st = &s->sf->gm.stats;
	const uint64_t seen[] = {
		st->swap_outs, st->swap_ins, st->zero_pages_skipped,
		st->clean_drops, st->evictions_cancelled, s->n.window_cancels,
		st->evictions_aborted, st->slots_freed_dirty, st->io_retries,
		st->write_failures, st->read_failures, st->swap_full_events,
		st->stale_completions, st->no_frame, st->wait_io,
		s->n.results[GUEST_FAULT_IO_ERROR], s->n.put_back,
		s->n.retries_abandoned, s->n.tlb_hits, st->slots_retired,
		st->evict_steps_stalled, s->n.write_cancels,
		st->writeback_mapped, s->n.discarded, st->discard_refaults,
		st->overwrites,
	};

	for (unsigned i = 0; i < ARRAY_SIZE(seen); i++)
		if (!seen[i])
			fail_msg("path %u never taken", i);
	/*
	 * ... and so was every move swap/page_state.h allows, but the
	 * compressed tier's: this model runs without swap.tier (the tier's
	 * moves are tests/unit/test_compressed_tier.c's).
	 */
	for (unsigned from = 0; from < GUEST_PAGE_STATES; from++)
		for (unsigned to = 0; to < GUEST_PAGE_STATES; to++)
			if (guest_page_transition_ok(from, to) &&
			    from != PAGE_COMPRESSED && to != PAGE_COMPRESSED &&
			    !st->transitions[from][to])
				fail_msg("move %s -> %s never made",
					 guest_page_state_name(from),
					 guest_page_state_name(to));
}
