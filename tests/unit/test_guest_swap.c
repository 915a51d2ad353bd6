/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swap/guest_swap.c and the swap half of swap/guest_memory.c, one rule at
 * a time: CLOCK, zero pages, writes and swap-ins, clean drops, slots freed
 * on re-dirty, cancellation, watermarks. I/O errors and a full swap area
 * are in test_guest_swap_io.c. A 16-page guest over 4 frames; the hand
 * starts at page 0, so victims are predictable.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/swap_fake.h"
#include "tests/unit/swap_test.h"
#include "tests/unit/counters_seen.h"

static void test_enable_checks(void **state)
{
	struct swap_fake *sf = swap_fake_new(16, 4, 8, 0, 0);
	struct guest_swap_config cfg = {
		.meta = sf->meta,
		.slots = &sf->slots,
		.io = sf->gm.io,
	};
	struct guest_page_info info;
	struct ept_mapping m;

	*state = sf;
	/* Defaults: 1/32 of the frames kept free, at least 2; low half. */
	assert_int_equal(sf->gm.high_free, 2);
	assert_int_equal(sf->gm.low_free, 1);

	/* Already resident before swap is on: keeps its frame. */
	sf->gm.meta = NULL;
	put(sf, 5, 0x55);
	cfg.low_free = 2;
	cfg.high_free = 1;
	assert_int_equal(guest_memory_enable_swap(&sf->gm, &cfg), -1);
	cfg.low_free = 0;
	assert_int_equal(guest_memory_enable_swap(&sf->gm, &cfg), -1);
	cfg.low_free = 1;
	cfg.high_free = 4;      /* the whole pool: never reachable */
	assert_int_equal(guest_memory_enable_swap(&sf->gm, &cfg), -1);
	cfg.high_free = 3;
	cfg.io.submit = NULL;
	assert_int_equal(guest_memory_enable_swap(&sf->gm, &cfg), -1);
	cfg.io = sf->gm.io;
	memset(sf->meta, 0xee, 16 * sizeof(*sf->meta));
	assert_int_equal(guest_memory_enable_swap(&sf->gm, &cfg), 0);
	assert_true(guest_memory_page_info(&sf->gm, 5, &info));
	assert_true(ept_lookup(&sf->ef->ept, 5 * PAGE_SIZE, &m));
	assert_int_equal(info.frame_pa, m.hpa);
	assert_int_equal(info.flags, 0);
	assert_int_equal(sf->gm.low_free, 1);
	assert_int_equal(sf->gm.high_free, 3);
	assert_false(guest_memory_page_info(&sf->gm, 16, &info));

	/* A page that cannot be in that state without swap. */
	sf->gm.meta = NULL;
	sf->state[7] = PAGE_SWAPPED;
	assert_int_equal(guest_memory_enable_swap(&sf->gm, &cfg), -1);
	assert_null(sf->gm.meta);
}

/* Second chance: referenced pages lose their bit and are passed over. */
static void test_clock_order(void **state)
{
	struct swap_fake *sf = new_guest(state);
	struct guest_evict_result res;

	for (unsigned p = 0; p < 4; p++)
		put(sf, p, (uint8_t)(p + 1));
	/* All referenced: a full turn clears them, then page 0 goes. */
	assert_int_equal(guest_memory_evict_step(&sf->gm, 8, &res), 1);
	assert_int_equal(res.victims, 1);
	assert_int_equal(res.writes, 1);
	assert_state(sf, 0, PAGE_WRITEBACK);
	assert_int_equal(sf->gm.stats.clock_referenced, 4);
	assert_int_equal(sf->gm.stats.clock_scanned, 5);
	assert_int_equal(sf->flushes, 1);
	assert_int_equal(sf->gm.stats.flushes, 1);
	swap_fake_complete_all(sf);

	/* Page 1 used again, page 2 not: page 2 is next. */
	put(sf, 4, 5);
	assert_int_equal(get(sf, 1), 2);
	assert_int_equal(guest_memory_evict_step(&sf->gm, 8, NULL), 1);
	assert_state(sf, 1, PAGE_RESIDENT);
	assert_state(sf, 2, PAGE_WRITEBACK);
	assert_state(sf, 3, PAGE_RESIDENT);
	assert_int_equal(sf->gm.stats.clock_referenced, 5);
	swap_fake_complete_all(sf);
	assert_state(sf, 0, PAGE_SWAPPED);
	assert_state(sf, 2, PAGE_SWAPPED);
}

static void test_zero_page_not_written(void **state)
{
	struct swap_fake *sf = new_guest(state);
	uint8_t *frame;

	/* Page 0 only read: a zero-fill; page 1 written, then zeroed. */
	assert_int_equal(get(sf, 0), 0);
	put(sf, 1, 0x11);
	put(sf, 1, 0);
	/* Page 2 has one non-zero byte, its last. */
	frame = touch_page(sf, 2, true);
	frame[PAGE_SIZE - 1] = 1;
	put(sf, 3, 0x33);
	clear_accessed(sf);

	sf->gm.high_free = 3;
	assert_int_equal(guest_memory_evict_step(&sf->gm, 8, NULL), 3);
	assert_state(sf, 0, PAGE_UNTOUCHED);
	assert_state(sf, 1, PAGE_UNTOUCHED);
	assert_state(sf, 2, PAGE_WRITEBACK);
	assert_int_equal(sf->queued, 1);
	assert_int_equal(sf->queue[0].gfn, 2);
	assert_int_equal(sf->gm.stats.zero_pages_skipped, 2);
	assert_int_equal(sf->gm.stats.transitions[PAGE_WRITEBACK]
			 [PAGE_UNTOUCHED], 2);
	/* Their frames are free at once; the slot count did not move. */
	assert_int_equal(sf->pool.nfree, 2);
	assert_int_equal(sf->slots.in_use, 1);
	/* Back as zero-fill. */
	assert_int_equal(get(sf, 1), 0);
	assert_int_equal(sf->gm.stats.zero_fills, 5);
}

/* RESIDENT -> WRITEBACK -> SWAPPED -> SWAPIN -> RESIDENT, data intact. */
static void test_write_and_swap_in(void **state)
{
	struct swap_fake *sf = new_guest(state);
	struct guest_page_info info;
	enum guest_fault_result r;
	uint64_t frame;
	uint32_t slot;

	fill4(sf);
	frame = page_frame(sf, 0);
	assert_int_equal(guest_memory_evict_step(&sf->gm, 8, NULL), 1);
	/* Unmapped, frame kept, a write of exactly that frame queued. */
	assert_null(swap_fake_touch(sf, 0, false));
	assert_int_equal(page_frame(sf, 0), frame);
	assert_int_equal(frame_pool_in_use(&sf->pool), 4);
	assert_int_equal(sf->queued, 1);
	assert_int_equal(sf->queue[0].op, SWAP_IO_WRITE);
	assert_int_equal(sf->queue[0].frame_pa, frame);
	slot = sf->queue[0].slot;
	assert_true(swap_slots_is_used(&sf->slots, slot));
	assert_true(guest_memory_io_busy(&sf->gm, 0));
	assert_int_equal(sf->gm.io_in_flight, 1);

	swap_fake_complete_all(sf);
	assert_state(sf, 0, PAGE_SWAPPED);
	assert_false(guest_memory_io_busy(&sf->gm, 0));
	assert_int_equal(frame_pool_in_use(&sf->pool), 3);
	assert_int_equal(swap_fake_slot(sf, slot)[0], 0xa0);
	assert_true(guest_memory_page_info(&sf->gm, 0, &info));
	assert_int_equal(info.flags, GPM_SLOT | GPM_SWAP_VALID);
	assert_int_equal(info.frame_pa, 0);
	assert_int_equal(sf->gm.stats.swap_outs, 1);

	/* The fault starts a read into a free frame; a second one waits. */
	assert_null(swap_fake_access(sf, 0, false, &r));
	assert_int_equal(r, GUEST_FAULT_SWAPIN_STARTED);
	assert_state(sf, 0, PAGE_SWAPIN);
	assert_int_equal(sf->queue[0].op, SWAP_IO_READ);
	assert_int_equal(sf->queue[0].slot, slot);
	assert_null(swap_fake_access(sf, 0, true, &r));
	assert_int_equal(r, GUEST_FAULT_WAIT_IO);
	assert_int_equal(sf->queued, 1);
	swap_fake_complete_all(sf);
	assert_state(sf, 0, PAGE_RESIDENT);
	assert_int_equal(get(sf, 0), 0xa0);
	/* Clean, so the copy stays valid. */
	assert_true(guest_memory_page_info(&sf->gm, 0, &info));
	assert_int_equal(info.flags, GPM_SLOT | GPM_SWAP_VALID);
	assert_int_equal(info.slot, slot);
	assert_int_equal(sf->gm.stats.swap_ins, 1);
	assert_int_equal(sf->gm.stats.reads_started, 1);
	assert_int_equal(sf->gm.stats.wait_io, 1);
	assert_int_equal(sf->gm.count[PAGE_RESIDENT], 4);
	assert_int_equal(sf->gm.count[PAGE_SWAPPED], 0);
	assert_int_equal(sf->gm.count[PAGE_UNTOUCHED], 12);
}

/* A page not written since its swap-in goes without I/O, slot kept. */
static void test_clean_drop(void **state)
{
	struct swap_fake *sf = new_guest(state);
	unsigned submitted;
	uint32_t slot;

	fill4(sf);
	slot = swap_out_page0(sf);
	swap_in(sf, 0);
	clear_accessed(sf);
	assert_int_equal(get(sf, 0), 0xa0);     /* reads set no dirty bit */
	clear_accessed(sf);
	submitted = sf->submitted;
	evict_one(sf, 0);
	assert_state(sf, 0, PAGE_SWAPPED);
	assert_int_equal(sf->submitted, submitted);
	assert_int_equal(sf->gm.stats.clean_drops, 1);
	assert_int_equal(frame_pool_in_use(&sf->pool), 3);
	assert_int_equal(page_slot(sf, 0), slot);
	assert_int_equal(sf->slots.in_use, 1);
	swap_in(sf, 0);
	assert_int_equal(get(sf, 0), 0xa0);
}

/* A write through EPT sets the dirty bit: the daemon frees the slot. */
static void test_slot_freed_on_redirty(void **state)
{
	struct swap_fake *sf = new_guest(state);
	uint32_t slot;

	fill4(sf);
	slot = swap_out_page0(sf);
	swap_in(sf, 0);
	put(sf, 0, 0xb0);
	/* Still counted until the daemon looks... */
	assert_int_equal(sf->slots.in_use, 1);
	/* ...when the hand passes it: referenced, so spared, but stale. */
	sf->gm.clock.hand = 0;
	assert_int_equal(guest_memory_evict_step(&sf->gm, 8, NULL), 1);
	assert_state(sf, 0, PAGE_RESIDENT);
	assert_state(sf, 1, PAGE_WRITEBACK);
	assert_int_equal(sf->gm.stats.slots_freed_dirty, 1);
	assert_int_equal(page_flags(sf, 0), 0);
	swap_fake_complete_all(sf);
	assert_int_equal(sf->slots.in_use, 1);  /* page 1's */
	/* The slot page 0 gave back went straight to page 1. */
	assert_int_equal(page_slot(sf, 1), slot);

	/* Evicted later: written again, to a slot of its own. */
	evict_one(sf, 0);
	assert_state(sf, 0, PAGE_WRITEBACK);
	swap_fake_complete_all(sf);
	assert_int_equal(swap_fake_slot(sf, page_slot(sf, 0))[0], 0xb0);
	swap_in(sf, 0);
	assert_int_equal(get(sf, 0), 0xb0);
}

/* guest_memory_write bypasses EPT: it must drop the copy itself. */
static void test_host_write_frees_slot(void **state)
{
	struct swap_fake *sf = new_guest(state);
	const uint8_t v = 0xd0;

	fill4(sf);
	swap_out_page0(sf);
	swap_in(sf, 0);
	assert_int_equal(guest_memory_write(&sf->gm, 0, &v, 1), 0);
	assert_int_equal(sf->slots.in_use, 0);
	assert_int_equal(page_flags(sf, 0), 0);
	assert_int_equal(sf->gm.stats.slots_freed_dirty, 1);
	evict_one(sf, 0);
	assert_state(sf, 0, PAGE_WRITEBACK);    /* not a clean drop */
	swap_fake_complete_all(sf);
	swap_in(sf, 0);
	assert_int_equal(get(sf, 0), 0xd0);
	/* Writes to a page that is not resident are refused. */
	swap_out_page0(sf);
	assert_int_equal(guest_memory_write(&sf->gm, 0, &v, 1), -1);
}

/*
 * A fault while the write is in flight maps the frame at once (as a swap
 * cache serves a page under writeback); the write goes on, and when it
 * ends its copy is kept: the page stayed clean, so the next eviction is a
 * clean drop. While the write is on, the page is no victim.
 */
static void test_cancel_during_write(void **state)
{
	struct swap_fake *sf = new_guest(state);
	struct seen s = { { 0 } };
	enum guest_fault_result r = GUEST_FAULT_RESOLVED;
	uint64_t frame;

	fill4(sf);
	frame = page_frame(sf, 0);
	assert_int_equal(guest_memory_evict_step(&sf->gm, 8, NULL), 1);
	assert_true(guest_memory_io_busy(&sf->gm, 0));
	assert_non_null(swap_fake_access(sf, 0, false, &r));
	assert_int_equal(r, GUEST_FAULT_RESOLVED);
	assert_state(sf, 0, PAGE_RESIDENT);
	assert_int_equal(page_frame(sf, 0), frame);
	assert_int_equal(get(sf, 0), 0xa0);
	assert_int_equal(sf->gm.stats.evictions_cancelled, 1);
	assert_int_equal(sf->gm.stats.writeback_mapped, 1);
	assert_int_equal(page_flags(sf, 0), GPM_SLOT | GPM_IO | GPM_CANCEL);
	/* The frame stays the guest's: nothing will free it. */
	assert_true(guest_memory_needs_eviction(&sf->gm));
	assert_int_equal(guest_memory_evict_page(&sf->gm, 0, NULL), -1);

	swap_fake_complete_all(sf);
	assert_state(sf, 0, PAGE_RESIDENT);
	assert_int_equal(page_frame(sf, 0), frame);
	assert_int_equal(page_flags(sf, 0), GPM_SLOT | GPM_SWAP_VALID);
	assert_int_equal(sf->gm.stats.swap_outs, 0);
	assert_int_equal(sf->gm.stats.transitions[PAGE_WRITEBACK]
			 [PAGE_RESIDENT], 1);
	/* Clean: the next eviction needs no write. */
	evict_one(sf, 0);
	assert_state(sf, 0, PAGE_SWAPPED);
	assert_int_equal(sf->gm.stats.clean_drops, 1);
	swap_in(sf, 0);
	assert_int_equal(get(sf, 0), 0xa0);
	guest_memory_each_stat(&sf->gm, record, &s);
	assert_non_null(strstr(s.text, "swap.writeback_mapped=1;"));
}

/*
 * The guest writes the page while its old contents are being written: the
 * copy, kept when the write ends, is freed by the dirty bit, and the next
 * eviction writes the new contents to a new slot.
 */
static void test_written_during_write(void **state)
{
	struct swap_fake *sf = new_guest(state);

	fill4(sf);
	assert_int_equal(guest_memory_evict_step(&sf->gm, 8, NULL), 1);
	put(sf, 0, 0xe0);
	assert_int_equal(sf->gm.stats.writeback_mapped, 1);
	swap_fake_complete_all(sf);
	evict_one(sf, 0);
	assert_int_equal(sf->gm.stats.clean_drops, 0);
	assert_int_equal(sf->gm.stats.slots_freed_dirty, 1);
	assert_state(sf, 0, PAGE_WRITEBACK);
	swap_fake_complete_all(sf);
	assert_state(sf, 0, PAGE_SWAPPED);
	swap_in(sf, 0);
	assert_int_equal(get(sf, 0), 0xe0);
}

/*
 * The hypervisor writes the page (no dirty bit) while the write is on: the
 * copy is not kept. A failed write of a page the guest took back is not
 * retried: its slot is retired, and the page needs a write next time.
 */
static void test_host_write_or_failure_during_write(void **state)
{
	struct swap_fake *sf = new_guest(state);
	uint8_t v = 0xf1;

	fill4(sf);
	assert_int_equal(guest_memory_evict_step(&sf->gm, 8, NULL), 1);
	assert_int_equal(get(sf, 0), 0xa0);
	assert_int_equal(guest_memory_write(&sf->gm, 0, &v, 1), 0);
	assert_int_equal(page_flags(sf, 0), GPM_SLOT | GPM_IO);
	swap_fake_complete_all(sf);
	assert_int_equal(page_flags(sf, 0), 0);
	assert_int_equal(get(sf, 0), 0xf1);

	evict_one(sf, 1);
	assert_int_equal(get(sf, 1), 0xa1);
	assert_int_equal(swap_fake_complete(sf, 0, false), 0);
	assert_int_equal(sf->submitted, 2);
	assert_int_equal(sf->queued, 0);
	assert_int_equal(page_flags(sf, 1), 0);
	assert_int_equal(sf->gm.stats.slots_retired, 1);
	assert_int_equal(sf->gm.stats.write_failures, 1);
	assert_int_equal(sf->gm.stats.io_retries, 0);
	assert_state(sf, 1, PAGE_RESIDENT);
	evict_one(sf, 1);
	assert_state(sf, 1, PAGE_WRITEBACK);
	swap_fake_complete_all(sf);
	swap_in(sf, 1);
	assert_int_equal(get(sf, 1), 0xa1);
}

static void fault_on_victims(struct swap_fake *sf)
{
	enum guest_fault_result r;

	/* The lock is dropped during the flush: the guest takes page 0. */
	assert_state(sf, 0, PAGE_WRITEBACK);
	assert_false(guest_memory_io_busy(&sf->gm, 0));
	assert_non_null(swap_fake_access(sf, 0, true, &r));
	/* The daemon cannot run twice at once. */
	assert_int_equal(guest_memory_evict_step(&sf->gm, 8, NULL), 0);
}

/* A fault between the unmap and the flush just maps the frame again. */
static void test_cancel_during_flush(void **state)
{
	struct swap_fake *sf = new_guest(state);
	struct guest_evict_result res;

	fill4(sf);
	sf->on_flush = fault_on_victims;
	assert_int_equal(guest_memory_evict_step(&sf->gm, 1, &res), 0);
	assert_int_equal(res.victims, 1);
	assert_int_equal(res.cancelled, 1);
	assert_int_equal(sf->submitted, 0);
	assert_state(sf, 0, PAGE_RESIDENT);
	assert_int_equal(get(sf, 0), 0xa0);
	assert_int_equal(sf->gm.stats.evictions_cancelled, 1);
	assert_int_equal(frame_pool_in_use(&sf->pool), 4);
	assert_false(sf->gm.evicting);
}

static void test_watermarks(void **state)
{
	struct swap_fake *sf = swap_fake_new(16, 8, 16, 2, 5);
	struct guest_evict_result res;

	*state = sf;
	for (unsigned p = 0; p < 6; p++)
		put(sf, p, (uint8_t)(0x10 + p));
	assert_false(guest_memory_needs_eviction(&sf->gm));     /* 2 free */
	put(sf, 6, 0x16);
	assert_true(guest_memory_needs_eviction(&sf->gm));      /* 1 free */
	clear_accessed(sf);
	/* Budget first: two pages only. */
	assert_int_equal(guest_memory_evict_step(&sf->gm, 2, &res), 2);
	/* Then up to the high watermark: 1 free + 2 writing + 2 more. */
	assert_int_equal(guest_memory_evict_step(&sf->gm, 100, &res), 2);
	assert_int_equal(sf->queued, 4);
	assert_false(guest_memory_needs_eviction(&sf->gm));
	/* Writes in flight count as free: nothing more to do. */
	assert_int_equal(guest_memory_evict_step(&sf->gm, 100, &res), 0);
	assert_int_equal(res.victims, 0);
	swap_fake_complete_all(sf);
	assert_int_equal(sf->pool.nfree, 5);
	assert_int_equal(guest_memory_evict_step(&sf->gm, 100, NULL), 0);
}

/* Without a free frame a swap-in waits for the daemon. */
static void test_swapin_needs_frame(void **state)
{
	struct swap_fake *sf = new_guest(state);
	enum guest_fault_result r;

	fill4(sf);
	swap_out_page0(sf);
	put(sf, 4, 0xe4);       /* takes the frame page 0 left */
	assert_null(swap_fake_access(sf, 0, false, &r));
	assert_int_equal(r, GUEST_FAULT_NO_FRAME);
	assert_state(sf, 0, PAGE_SWAPPED);
	assert_int_equal(sf->queued, 0);
	assert_int_equal(sf->gm.stats.no_frame, 1);
	clear_accessed(sf);
	assert_int_equal(guest_memory_evict_step(&sf->gm, 8, NULL), 1);
	swap_fake_complete_all(sf);
	swap_in(sf, 0);
	assert_int_equal(get(sf, 0), 0xa0);
}

/*
 * debug.hypercall's eviction: the page named goes, accessed or not, with
 * every frame free; a page that cannot go is refused and left as it was.
 */
static void test_evict_named_page(void **state)
{
	struct swap_fake *sf = new_guest(state);
	struct guest_evict_result res;

	fill4(sf);
	/* CLOCK's hand is at page 0: it would take page 0. */
	assert_int_equal(guest_memory_evict_page(&sf->gm, 2 * PAGE_SIZE + 5,
						 &res), 0);
	assert_int_equal(res.victims, 1);
	assert_int_equal(res.writes, 1);
	assert_state(sf, 2, PAGE_WRITEBACK);
	assert_state(sf, 0, PAGE_RESIDENT);
	assert_int_equal(sf->queued, 1);
	assert_int_equal(sf->queue[0].gfn, 2);
	assert_int_equal(sf->gm.stats.flushes, 1);
	/* In writeback, then swapped: refused, nothing queued. */
	assert_int_equal(guest_memory_evict_page(&sf->gm, 2 * PAGE_SIZE,
						 &res), -1);
	assert_int_equal(res.victims, 0);
	swap_fake_complete_all(sf);
	assert_state(sf, 2, PAGE_SWAPPED);
	assert_int_equal(guest_memory_evict_page(&sf->gm, 2 * PAGE_SIZE,
						 NULL), -1);
	/* Never touched, past the end of RAM, pinned: refused. */
	assert_int_equal(guest_memory_evict_page(&sf->gm, 9 * PAGE_SIZE,
						 NULL), -1);
	assert_int_equal(guest_memory_evict_page(&sf->gm, 16 * PAGE_SIZE,
						 NULL), -1);
	assert_int_equal(guest_memory_pin(&sf->gm, PAGE_SIZE), 0);
	assert_int_equal(guest_memory_evict_page(&sf->gm, PAGE_SIZE, NULL),
			 -1);
	assert_state(sf, 1, PAGE_RESIDENT);
	guest_memory_unpin(&sf->gm, PAGE_SIZE);
	/* A zeroed page goes without a write. */
	put(sf, 3, 0);
	assert_int_equal(guest_memory_evict_page(&sf->gm, 3 * PAGE_SIZE,
						 &res), 0);
	assert_int_equal(res.zero_pages, 1);
	assert_state(sf, 3, PAGE_UNTOUCHED);
	assert_int_equal(sf->queued, 0);
	/* The page comes back with its data. */
	swap_in(sf, 2);
	assert_int_equal(get(sf, 2), 0xa2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		swap_test(test_enable_checks),
		swap_test(test_clock_order),
		swap_test(test_zero_page_not_written),
		swap_test(test_write_and_swap_in),
		swap_test(test_clean_drop),
		swap_test(test_slot_freed_on_redirty),
		swap_test(test_host_write_frees_slot),
		swap_test(test_cancel_during_write),
		swap_test(test_written_during_write),
		swap_test(test_host_write_or_failure_during_write),
		swap_test(test_cancel_during_flush),
		swap_test(test_watermarks),
		swap_test(test_swapin_needs_frame),
		swap_test(test_evict_named_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
