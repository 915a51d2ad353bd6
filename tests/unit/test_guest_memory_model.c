/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The page state machine, CLOCK and the swap I/O paths against a reference
 * model (guest_model.h), driven by a seeded random sequence of at least a
 * million steps: guest reads and writes from three vCPUs with TLBs, daemon
 * steps whose flush windows let the guest and the device run, I/O
 * completions in random order with injected errors and a bad slot, writes
 * by the hypervisor and stale completions. Every step is followed by
 * model_check. The model predicts every state change except the daemon's
 * choice of victims, which it checks against the rules instead.
 *
 * GUEST_MODEL_SEED and GUEST_MODEL_STEPS override the seed (default: from
 * the clock) and the step count; the seed is printed first, so that a
 * failure can be replayed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "tests/unit/guest_model.h"

#define DEFAULT_STEPS 1000000ull
#define FULL_CHECK_EVERY 4096
#define BAD_SLOT_PERIOD 65536
#define HOT_PAGES 8
/* Now and then the guest fills all its memory: the swap area runs full. */
#define HOG_PERIOD 100000
#define HOG_STEPS 15000
#define GIVE_UP_NO_FRAME 50
#define WEAK_SLOTS 8
static uint64_t rnd(struct sim *s)
{
	/* splitmix64 */
	uint64_t z = (s->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static unsigned below(struct sim *s, unsigned n)
{
	return (unsigned)(rnd(s) % n);
}

static uint64_t gpa_of(uint64_t gfn)
{
	return gfn << PAGE_SHIFT;
}

static bool model_zero(const struct model_page *mp)
{
	for (unsigned k = 0; k < MODEL_WORDS; k++)
		if (mp->w[k])
			return false;
	return true;
}

/* ---- the guest: vCPUs with TLBs ---- */

static void new_access(struct sim *s, struct vcpu *v, uint64_t gfn)
{
	unsigned op = below(s, 100);

	v->pending = true;
	v->gfn = gfn;
	if (s->hog)
		v->op = op < 20 ? OP_READ : OP_WRITE;
	else
		v->op = op < 45 ? OP_READ : op < 85 ? OP_WRITE : OP_CLEAR;
	v->word = below(s, MODEL_WORDS);
	v->value = below(s, 10) < 3 && !s->hog ? 0 : rnd(s) | 1;
	v->no_frame = 0;
}

static uint64_t pick_page(struct sim *s)
{
	if (below(s, 4) && !s->hog)
		return (s->hot_base + below(s, HOT_PAGES)) % MODEL_PAGES;
	return below(s, MODEL_PAGES);
}

static void perform(struct sim *s, struct vcpu *v, uint64_t pa)
{
	struct model_page *mp = &s->page[v->gfn];
	uint8_t *frame = swap_fake_frame(s->sf, pa);

	switch (v->op) {
	case OP_READ:
		if (*frame_word(frame, v->word) != mp->w[v->word])
			FAIL(s, "page %llu word %u read %#llx, model %#llx",
			     (unsigned long long)v->gfn, v->word,
			     (unsigned long long)*frame_word(frame, v->word),
			     (unsigned long long)mp->w[v->word]);
		break;
	case OP_WRITE:
		*frame_word(frame, v->word) = v->value;
		mp->w[v->word] = v->value;
		mp->slot_valid = false;
		break;
	case OP_CLEAR:
		for (unsigned k = 0; k < MODEL_WORDS; k++)
			*frame_word(frame, k) = mp->w[k] = 0;
		mp->slot_valid = false;
		break;
	}
	v->pending = false;
	s->n.accesses++;
}

/*
 * A hit needs no walk, so it sets no accessed bit; a write through an
 * entry cached clean goes to the EPT entry to set the dirty bit (SDM Vol.
 * 3C, "Accessed and Dirty Flags for EPT"), so it is modelled as a walk. A
 * stale entry may only be used before the flush, and on the same frame.
 */
static bool tlb_access(struct sim *s, struct vcpu *v)
{
	struct guest_page_info in;

	for (unsigned i = 0; i < MODEL_TLB; i++) {
		struct tlb_entry *e = &v->tlb[i];

		if (!e->valid || e->gfn != v->gfn ||
		    (v->op != OP_READ && !e->dirty))
			continue;
		guest_memory_page_info(&s->sf->gm, v->gfn, &in);
		if (in.frame_pa != e->pa ||
		    (in.state != PAGE_RESIDENT && !s->in_flush))
			FAIL(s, "page %llu used through a stale TLB entry",
			     (unsigned long long)v->gfn);
		s->n.tlb_hits++;
		perform(s, v, e->pa);
		return true;
	}
	return false;
}

static bool walk_access(struct sim *s, struct vcpu *v)
{
	int level;
	uint64_t *leaf = cpu_walk(s->sf->ef, gpa_of(v->gfn), &level);
	uint64_t pa;
	struct tlb_entry *e;

	if (!leaf)
		return false;
	*leaf |= EPT_ACCESSED | (v->op != OP_READ ? EPT_DIRTY : 0);
	pa = *leaf & EPT_ADDR_MASK;
	e = &v->tlb[below(s, MODEL_TLB)];
	for (unsigned i = 0; i < MODEL_TLB; i++)
		if (v->tlb[i].valid && v->tlb[i].gfn == v->gfn)
			e = &v->tlb[i];
	*e = (struct tlb_entry){ true, (*leaf & EPT_DIRTY) != 0, v->gfn, pa };
	perform(s, v, pa);
	return true;
}

static bool queued_for(struct sim *s, uint64_t gfn, enum swap_io_op op)
{
	int i = swap_fake_find(s->sf, gfn);

	return i >= 0 && s->sf->queue[i].op == op;
}

/* What the model allows for a fault on page g, and what follows. */
static void fault_result(struct sim *s, struct vcpu *v,
			 enum guest_fault_result r)
{
	struct model_page *mp = &s->page[v->gfn];

	s->n.results[r]++;
	if (r == GUEST_FAULT_RESOLVED && mp->state == PAGE_UNTOUCHED) {
		mp->state = PAGE_RESIDENT;
	} else if (r == GUEST_FAULT_RESOLVED && mp->victim &&
		   !queued_for(s, v->gfn, SWAP_IO_WRITE)) {
		mp->state = PAGE_RESIDENT;
		mp->victim = false;
		s->n.window_cancels++;
	} else if (r == GUEST_FAULT_SWAPIN_STARTED &&
		   mp->state == PAGE_SWAPPED && !mp->lost &&
		   queued_for(s, v->gfn, SWAP_IO_READ)) {
		mp->state = PAGE_SWAPIN;
	} else if (r == GUEST_FAULT_RESOLVED && mp->state == PAGE_WRITEBACK &&
		   queued_for(s, v->gfn, SWAP_IO_WRITE)) {
		/* Taken back while its write is on: mapped at once. */
		mp->state = PAGE_RESIDENT;
		mp->cancel = true;
		s->n.write_cancels++;
	} else if (r == GUEST_FAULT_WAIT_IO && mp->state == PAGE_SWAPIN) {
	} else if (r == GUEST_FAULT_NO_FRAME && s->sf->pool.nfree == 0 &&
		   (mp->state == PAGE_UNTOUCHED || mp->state == PAGE_SWAPPED)) {
		if (++v->no_frame == GIVE_UP_NO_FRAME) {
			v->pending = false;
			s->n.retries_abandoned++;
		}
	} else if (r == GUEST_FAULT_IO_ERROR && mp->lost) {
		v->pending = false;
	} else {
		FAIL(s, "page %llu (%s%s): fault %s",
		     (unsigned long long)v->gfn,
		     guest_page_state_name(mp->state), mp->lost ? ", lost" : "",
		     guest_fault_result_name(r));
	}
	if (r == GUEST_FAULT_RESOLVED && !walk_access(s, v))
		FAIL(s, "page %llu resolved but not mapped",
		     (unsigned long long)v->gfn);
}

static void vcpu_run(struct sim *s, struct vcpu *v)
{
	if (!v->pending)
		new_access(s, v, pick_page(s));
	if (tlb_access(s, v) || walk_access(s, v))
		return;
	s->n.faults++;
	fault_result(s, v, guest_memory_fault(&s->sf->gm, gpa_of(v->gfn)));
}

static void tlb_flush(struct vcpu *v)
{
	memset(v->tlb, 0, sizeof(v->tlb));
}

/* ---- the device ---- */

static void remember_id(struct sim *s, uint64_t id)
{
	s->old_ids[s->nold++ % ARRAY_SIZE(s->old_ids)] = id;
}

/* The model's side of a completion that ended the I/O. */
static void io_ended(struct sim *s, const struct swap_io *io, bool ok)
{
	struct model_page *mp = &s->page[io->gfn];

	mp->tries = 0;
	mp->victim = false;
	if (io->op == SWAP_IO_WRITE && mp->state == PAGE_RESIDENT) {
		/*
		 * The guest took the page back during the write: the copy is
		 * kept (the fake device copied the frame as it is now) unless
		 * the hypervisor wrote the page meanwhile; a guest write since
		 * (the dirty bit) makes the daemon free it later.
		 */
		int level;
		uint64_t *leaf = cpu_walk(s->sf->ef, gpa_of(io->gfn), &level);

		mp->slot_valid = ok && mp->cancel && leaf &&
				 !(*leaf & EPT_DIRTY);
		mp->cancel = false;
	} else if (io->op == SWAP_IO_WRITE) {
		if (mp->state != PAGE_WRITEBACK)
			FAIL(s, "write of a page not in writeback");
		mp->slot_valid = ok;
		mp->state = ok ? PAGE_SWAPPED : PAGE_RESIDENT;
	} else {
		if (mp->state != PAGE_SWAPIN)
			FAIL(s, "read of a page not in swapin");
		mp->state = ok ? PAGE_RESIDENT : PAGE_SWAPPED;
		mp->lost = !ok;
	}
}

/*
 * Every retired slot is gone for good, so writes fail at random only on the
 * top WEAK_SLOTS slots (and on the bad slot): the slot allocator hands them
 * out when the area is nearly full, where a failed write may find no slot
 * for its retry and is given up. Reads fail anywhere.
 */
static bool io_ok(struct sim *s, const struct swap_io *io)
{
	if ((int)io->slot == s->bad_slot)
		return false;
	if (io->op == SWAP_IO_READ)
		return below(s, 48) != 0;
	return io->slot < MODEL_SLOTS - WEAK_SLOTS || below(s, 4) != 0;
}

static void complete_one(struct sim *s, unsigned i)
{
	struct swap_io io = s->sf->queue[i];
	struct model_page *mp = &s->page[io.gfn];
	bool ok = io_ok(s, &io);
	uint32_t free_slots = swap_slots_free_count(&s->sf->slots);
	unsigned settled = s->sf->settled;
	/* Only a swap-in keeps vCPUs waiting. */
	bool waited = io.op == SWAP_IO_READ;
	/* A write of a page the guest took back: never retried. */
	bool taken_back = io.op == SWAP_IO_WRITE &&
			  mp->state == PAGE_RESIDENT;

	if (swap_fake_complete(s->sf, i, ok) != 0)
		FAIL(s, "completion of page %llu refused",
		     (unsigned long long)io.gfn);
	remember_id(s, io.id);
	s->n.completions++;
	if (!ok) {
		s->n.failed_completions++;
		if (taken_back)
			model_check_retired(s, &io);
		else if (model_retry_expected(s, &io, free_slots)) {
			model_check_settled(s, &io, settled, false);
			return;
		}
	}
	if (swap_fake_find(s->sf, io.gfn) >= 0)
		FAIL(s, "I/O of page %llu submitted again",
		     (unsigned long long)io.gfn);
	io_ended(s, &io, ok);
	model_check_settled(s, &io, settled, waited);
	if (mp->state == PAGE_RESIDENT && !taken_back)
		model_check_fresh_mapping(s, io.gfn);
}

static void complete_random(struct sim *s)
{
	if (s->sf->queued)
		complete_one(s, below(s, s->sf->queued));
}

static void stale_completion(struct sim *s)
{
	uint64_t id;

	if (!s->nold)
		return;
	id = s->old_ids[below(s, MIN(s->nold, ARRAY_SIZE(s->old_ids)))];
	for (unsigned i = 0; i < s->sf->queued; i++)
		if (s->sf->queue[i].id == id)
			return;
	if (guest_memory_io_done(&s->sf->gm, id, below(s, 2)) !=
	    HV_ERR_NOT_FOUND)
		FAIL(s, "stale completion accepted");
	s->n.stale++;
}

/* ---- the daemon ---- */

/*
 * The fate of the victims of earlier batches, now decided: dropped clean
 * (only with a valid copy), gone as zero (only if zero), being written
 * (only if neither), or put back for want of a slot.
 */
static void settle_victims(struct sim *s, bool swap_full)
{
	for (unsigned g = 0; g < MODEL_PAGES; g++) {
		struct model_page *mp = &s->page[g];
		enum guest_page_state st;

		if (!mp->victim)
			continue;
		st = guest_memory_page_state(&s->sf->gm, gpa_of(g));
		mp->victim = false;
		if (st == PAGE_SWAPPED && mp->slot_valid) {
			mp->state = st;
		} else if (st == PAGE_UNTOUCHED && !mp->slot_valid &&
			   model_zero(mp)) {
			mp->state = st;
		} else if (st == PAGE_WRITEBACK && !mp->slot_valid &&
			   !model_zero(mp) && queued_for(s, g, SWAP_IO_WRITE)) {
			mp->state = st;
		} else if (st == PAGE_RESIDENT && swap_full &&
			   !mp->slot_valid && !model_zero(mp)) {
			mp->state = st;
			s->n.put_back++;
		} else {
			FAIL(s, "victim %u (%s%s) became %s", g,
			     mp->slot_valid ? "clean" : "dirty",
			     model_zero(mp) ? ", zero" : "",
			     guest_page_state_name(st));
		}
	}
}

/* The model's side of pages the running discard made UNTOUCHED. */
static void sync_discarded(struct sim *s)
{
	uint64_t end = MIN(s->discard_first + s->discard_n, MODEL_PAGES);

	for (uint64_t g = s->discard_first; g < end; g++) {
		struct model_page *mp = &s->page[g];

		if (mp->victim ||
		    guest_memory_page_state(&s->sf->gm, gpa_of(g)) !=
			    PAGE_UNTOUCHED)
			continue;
		if (mp->state != PAGE_UNTOUCHED)
			s->n.discarded++;
		memset(mp->w, 0, sizeof(mp->w));
		mp->state = PAGE_UNTOUCHED;
		mp->slot_valid = false;
		mp->cancel = false;
		mp->lost = false;
	}
}

/* A page the daemon unmapped: its frame still holds exactly the page. */
static void mark_victims(struct sim *s)
{
	for (unsigned g = 0; g < MODEL_PAGES; g++) {
		struct model_page *mp = &s->page[g];

		if (mp->state != PAGE_RESIDENT ||
		    guest_memory_page_state(&s->sf->gm, gpa_of(g)) !=
			    PAGE_WRITEBACK)
			continue;
		mp->state = PAGE_WRITEBACK;
		mp->victim = true;
		s->n.victims++;
	}
}

/* Other vCPUs and the device, while the daemon has dropped the lock. */
static void meanwhile(struct sim *s)
{
	for (unsigned n = below(s, 3); n; n--) {
		struct vcpu *v = &s->vcpu[below(s, MODEL_VCPUS)];

		s->n.window_activity++;
		if (below(s, 3) == 0) {
			complete_random(s);
			continue;
		}
		if (!v->pending && below(s, 2))
			new_access(s, v, below(s, MODEL_PAGES));
		vcpu_run(s, v);
	}
}

/*
 * The flush: the guest lock is dropped; until every TLB is flushed the
 * vCPUs may still use their entries of the victims; after it they keep
 * running, and only fresh walks (which find the victims unmapped) refill
 * their TLBs.
 */
static void on_flush(struct swap_fake *sf)
{
	struct sim *s = sf->test;

	if (s->discarding)
		sync_discarded(s);
	else
		settle_victims(s, false);
	mark_victims(s);
	s->in_flush = true;
	model_check(s, false);
	meanwhile(s);
	s->in_flush = false;
	for (unsigned i = 0; i < MODEL_VCPUS; i++)
		tlb_flush(&s->vcpu[i]);
	meanwhile(s);
	if (guest_memory_evict_step(&sf->gm, 8, NULL) != 0)
		FAIL(s, "evict step inside an evict step");
}

static void daemon_step(struct sim *s)
{
	struct guest_evict_result res;
	unsigned done;

	if (!guest_memory_needs_eviction(&s->sf->gm) && below(s, 4))
		return;
	s->n.daemon_steps++;
	done = guest_memory_evict_step(&s->sf->gm, 1 + below(s, 16), &res);
	settle_victims(s, res.swap_full);
	if (done != res.writes + res.clean_drops + res.zero_pages)
		FAIL(s, "evict step returned %u", done);
	/* A failed write's retry may find the area full first (io_done). */
	if (res.report_swap_full && (s->n.swap_full_reports++ ||
				     !s->sf->gm.stats.swap_full_events))
		FAIL(s, "swap full reported twice, or before it was");
}

/* ---- the hypervisor ---- */

static void host_write(struct sim *s)
{
	uint64_t g = pick_page(s), v = below(s, 4) ? rnd(s) : 0;
	unsigned k = below(s, MODEL_WORDS);
	struct model_page *mp = &s->page[g];
	int want = mp->state == PAGE_RESIDENT ||
			   (mp->state == PAGE_UNTOUCHED && s->sf->pool.nfree) ?
		   0 : -1;

	s->n.host_writes++;
	if (guest_memory_write(&s->sf->gm, gpa_of(g) + word_offset(k),
			       &v, sizeof(v)) != want)
		FAIL(s, "host write to page %llu (%s): not %d",
		     (unsigned long long)g, guest_page_state_name(mp->state),
		     want);
	if (want)
		return;
	mp->w[k] = v;
	mp->slot_valid = false;
	mp->cancel = false;     /* a write in flight keeps no copy */
	mp->state = PAGE_RESIDENT;
}

/*
 * A vCPU's store that clears a whole page faults on it
 * (guest_memory_overwrite, swap.whole_page_stores): a page on the swap
 * device that is not lost gets a zeroed frame without a read and loses
 * its slot; NO_FRAME with the pool empty; any other page is left alone.
 */
static void whole_page_store(struct sim *s)
{
	uint64_t g = pick_page(s);
	struct model_page *mp = &s->page[g];
	bool in_swap = mp->state == PAGE_SWAPPED && !mp->lost;
	enum guest_fault_result want =
		!in_swap ? GUEST_FAULT_WAIT_IO :
		s->sf->pool.nfree ? GUEST_FAULT_RESOLVED : GUEST_FAULT_NO_FRAME;
	enum guest_fault_result r;

	s->n.overwrites++;
	r = guest_memory_overwrite(&s->sf->gm, gpa_of(g), 0);
	if (r != want)
		FAIL(s, "whole-page store on page %llu (%s%s): %s, not %s",
		     (unsigned long long)g, guest_page_state_name(mp->state),
		     mp->lost ? ", lost" : "", guest_fault_result_name(r),
		     guest_fault_result_name(want));
	if (r != GUEST_FAULT_RESOLVED)
		return;
	memset(mp->w, 0, sizeof(mp->w));
	mp->slot_valid = false;
	mp->state = PAGE_RESIDENT;
}

/* ---- the guest's balloon driver: free page reporting ---- */

/*
 * The guest reports a run of pages free (guest_memory_discard): every page
 * that was not busy is UNTOUCHED after it and reads as zero; a page taken
 * back by a vCPU during the flush, or with I/O in flight, is as it was.
 */
static void report_free(struct sim *s)
{
	struct guest_discard_result r = { 0 };
	uint64_t n = 1 + below(s, 40);

	s->n.discards++;
	s->discard_first = below(s, MODEL_PAGES);
	s->discard_n = n;
	s->discarding = true;
	guest_memory_discard(&s->sf->gm, gpa_of(s->discard_first), n, &r);
	s->discarding = false;
	if (r.dropped + r.already_free + r.kept + r.outside_ram != n)
		FAIL(s, "discard of %llu pages accounted for %llu",
		     (unsigned long long)n,
		     (unsigned long long)(r.dropped + r.already_free + r.kept +
					  r.outside_ram));
	/* The flush's victims: dropped, or taken back by a vCPU. */
	for (uint64_t g = 0; g < MODEL_PAGES; g++) {
		struct model_page *mp = &s->page[g];

		if (!mp->victim)
			continue;
		if (guest_memory_page_state(&s->sf->gm, gpa_of(g)) !=
		    PAGE_UNTOUCHED)
			FAIL(s, "page %llu left unmapped by a discard",
			     (unsigned long long)g);
		mp->victim = false;
	}
	sync_discarded(s);
}

/* ---- the run ---- */

/*
 * A slot on which every I/O fails: the slot of a swapped-out page (its
 * swap-in will fail for good: the page is lost), or a free slot (writes
 * to it will fail for good: those pages stay resident). -1: none found.
 */
static int pick_bad_slot(struct sim *s, bool of_a_page)
{
	struct guest_page_info in;

	for (unsigned tries = 0; tries < MODEL_PAGES; tries++) {
		uint32_t slot = below(s, MODEL_SLOTS);
		uint64_t g = below(s, MODEL_PAGES);

		if (!of_a_page && !swap_slots_is_used(&s->sf->slots, slot))
			return (int)slot;
		guest_memory_page_info(&s->sf->gm, g, &in);
		if (of_a_page && in.state == PAGE_SWAPPED &&
		    !(in.flags & GPM_LOST))
			return (int)in.slot;
	}
	return -1;
}

static void one_step(struct sim *s)
{
	unsigned op = below(s, 1000);

	if (s->step % BAD_SLOT_PERIOD == 0)
		s->bad_slot = pick_bad_slot(s, s->step / BAD_SLOT_PERIOD % 2);
	if (s->step % 20000 == 0)
		s->hot_base = below(s, MODEL_PAGES);
	s->hog = s->step % HOG_PERIOD >= HOG_PERIOD - HOG_STEPS;
	if (op < 560)
		vcpu_run(s, &s->vcpu[below(s, MODEL_VCPUS)]);
	else if (op < 700)
		daemon_step(s);
	else if (op < 900)
		complete_random(s);
	else if (op < 910)
		while (s->sf->queued)
			complete_random(s);
	else if (op < 945)
		host_write(s);
	else if (op < 950)
		whole_page_store(s);
	else if (op < 960)
		stale_completion(s);
	else if (op < 975)
		tlb_flush(&s->vcpu[below(s, MODEL_VCPUS)]);
	else if (op < 980)
		report_free(s);
	else if (s->sf->queued)
		/* Someone wants a page that is busy. */
		new_access(s, &s->vcpu[below(s, MODEL_VCPUS)],
			   s->sf->queue[below(s, s->sf->queued)].gfn);
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : dflt;
}

static void test_random_run(void **state)
{
	uint64_t seed = env_u64("GUEST_MODEL_SEED",
				(uint64_t)time(NULL) ^ ((uint64_t)clock() << 32));
	uint64_t steps = env_u64("GUEST_MODEL_STEPS", DEFAULT_STEPS);
	struct sim *s = calloc(1, sizeof(*s));
	struct timespec t0, t1;

	assert_non_null(s);
	*state = s;
	printf("guest model: seed %llu (GUEST_MODEL_SEED), %llu steps\n",
	       (unsigned long long)seed, (unsigned long long)steps);
	fflush(stdout);
	s->rng = seed;
	s->sf = swap_fake_new(MODEL_PAGES, MODEL_FRAMES, MODEL_SLOTS, 2, 6);
	s->sf->on_flush = on_flush;
	s->sf->test = s;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (s->step = 0; s->step < steps; s->step++) {
		one_step(s);
		model_check(s, s->step % FULL_CHECK_EVERY == 0);
	}
	model_check(s, true);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	model_report(s, (double)(t1.tv_sec - t0.tv_sec) +
				(double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (steps >= DEFAULT_STEPS)
		model_check_coverage(s);
}

static int teardown(void **state)
{
	struct sim *s = *state;

	if (s) {
		swap_fake_free(s->sf);
		free(s);
	}
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_random_run, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
