/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swap/guest_memory.c: first-touch zero fill, page states, faults outside
 * RAM, pool exhaustion, EPT table failure, writes across pages, counters;
 * and that without swap enabled the swap side stays out of the way.
 * (With swap: test_guest_swap*.c and test_guest_memory_model.c.)
 * EPT tables and guest frames are both fake physical memory (ept_fake.h),
 * with phys != virt; the frames start out as garbage.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "swap/guest_memory.h"
#include "tests/unit/ept_fake.h"

#define GARBAGE 0x5a
#define RAM_PAGES 64
#define RAM_SIZE (RAM_PAGES * PAGE_SIZE)

struct gm_fixture {
	struct fixture *ef;             /* EPT over fake memory */
	struct frame_pool pool;
	uint64_t *pool_storage;
	uint8_t *state;                 /* exactly one byte per RAM page */
	struct guest_memory gm;
};

/* The guest RAM ram backed by a pool of frames frames. */
static struct gm_fixture *gm_new_ram(void **state, unsigned frames,
				     const struct guest_ram_layout *ram)
{
	struct gm_fixture *g = calloc(1, sizeof(*g));
	void *ef;

	assert_non_null(g);
	*state = g;
	assert_int_equal(ept_fixture_setup(&ef), 0);
	g->ef = ef;
	assert_int_equal(fake_frames_init(&g->ef->fm, frames, GARBAGE), 0);
	g->pool_storage = malloc(frame_pool_storage_words(frames) *
				 sizeof(uint64_t));
	assert_non_null(g->pool_storage);
	frame_pool_init(&g->pool, g->pool_storage, frames);
	assert_int_equal(frame_pool_add_range(&g->pool, FAKE_FRAME_BASE,
					      frames), 0);
	g->state = malloc(guest_ram_pages(ram));
	assert_non_null(g->state);
	/* Garbage, so that relying on unset state storage shows. */
	memset(g->state, 0xee, guest_ram_pages(ram));
	guest_memory_init(&g->gm, ram, g->state, &g->ef->ept, &g->pool);
	return g;
}

/* RAM_PAGES of guest RAM from 0. */
static struct gm_fixture *gm_new(void **state, unsigned frames)
{
	return gm_new_ram(state, frames,
			  &(struct guest_ram_layout){ RAM_SIZE, 0 });
}

static int teardown(void **state)
{
	struct gm_fixture *g = *state;

	if (g) {
		if (g->ef) {
			void *ef = g->ef;

			ept_fixture_teardown(&ef);
		}
		free(g->pool_storage);
		free(g->state);
		free(g);
	}
	return 0;
}

/* The frame mapped at gpa, checked to be a 4 KiB RWX mapping of a frame. */
static uint8_t *mapped_frame(struct gm_fixture *g, uint64_t gpa, uint64_t *hpa)
{
	struct ept_mapping m;

	assert_true(ept_lookup(&g->ef->ept, gpa, &m));
	assert_int_equal(m.size, EPT_PAGE_4K);
	assert_int_equal(m.perms, EPT_RWX);
	if (hpa)
		*hpa = m.hpa;
	return fake_frame(&g->ef->fm, m.hpa);
}

static void assert_bytes(const uint8_t *p, uint8_t value, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != value)
			fail_msg("byte %zu is %#x, not %#x", i, p[i], value);
}

static void test_init(void **state)
{
	struct gm_fixture *g = gm_new(state, 4);

	assert_int_equal(g->gm.ram_size, RAM_SIZE);
	assert_int_equal(g->gm.npages, RAM_PAGES);
	assert_ptr_equal(g->gm.state, g->state);
	assert_bytes(g->state, PAGE_UNTOUCHED, RAM_PAGES);
	assert_int_equal(g->gm.stats.faults, 0);
	assert_int_equal(g->gm.stats.zero_fills, 0);
	assert_int_equal(guest_memory_page_state(&g->gm, 0), PAGE_UNTOUCHED);
	assert_int_equal(guest_memory_page_state(&g->gm, RAM_SIZE - 1),
			 PAGE_UNTOUCHED);
}

static void test_first_fault_zero_fills(void **state)
{
	struct gm_fixture *g = gm_new(state, 4);
	struct ept_mapping m;
	uint64_t hpa;
	uint8_t *frame;

	/* The garbage is really there before the fault. */
	assert_bytes(fake_frame(&g->ef->fm, FAKE_FRAME_BASE), GARBAGE,
		     PAGE_SIZE);
	assert_int_equal(guest_memory_fault(&g->gm, 0x3123),
			 GUEST_FAULT_RESOLVED);
	assert_int_equal(guest_memory_page_state(&g->gm, 0x3000),
			 PAGE_RESIDENT);
	assert_int_equal(guest_memory_page_state(&g->gm, 0x3fff),
			 PAGE_RESIDENT);
	assert_int_equal(guest_memory_page_state(&g->gm, 0x2fff),
			 PAGE_UNTOUCHED);
	assert_int_equal(guest_memory_page_state(&g->gm, 0x4000),
			 PAGE_UNTOUCHED);

	/* The pool hands out its lowest frame first. */
	frame = mapped_frame(g, 0x3000, &hpa);
	assert_int_equal(hpa, FAKE_FRAME_BASE);
	assert_bytes(frame, 0, PAGE_SIZE);
	/* Only that frame was touched. */
	assert_bytes(fake_frame(&g->ef->fm, FAKE_FRAME_BASE + PAGE_SIZE),
		     GARBAGE, PAGE_SIZE);
	assert_false(ept_lookup(&g->ef->ept, 0x2000, &m));
	assert_false(ept_lookup(&g->ef->ept, 0x4000, &m));

	assert_int_equal(frame_pool_in_use(&g->pool), 1);
	assert_int_equal(g->gm.stats.faults, 1);
	assert_int_equal(g->gm.stats.zero_fills, 1);
}

static void test_second_fault_already_mapped(void **state)
{
	struct gm_fixture *g = gm_new(state, 4);
	uint64_t hpa, tables;

	assert_int_equal(guest_memory_fault(&g->gm, 0x5000),
			 GUEST_FAULT_RESOLVED);
	tables = g->ef->ept.tables;
	fake_frame(&g->ef->fm, FAKE_FRAME_BASE)[7] = 0x77;

	assert_int_equal(guest_memory_fault(&g->gm, 0x5ff8),
			 GUEST_FAULT_ALREADY_MAPPED);
	assert_int_equal(guest_memory_page_state(&g->gm, 0x5000),
			 PAGE_RESIDENT);
	/* Same frame, not zeroed again, nothing more allocated. */
	assert_int_equal(mapped_frame(g, 0x5000, &hpa)[7], 0x77);
	assert_int_equal(hpa, FAKE_FRAME_BASE);
	assert_int_equal(frame_pool_in_use(&g->pool), 1);
	assert_int_equal(g->ef->ept.tables, tables);
	assert_int_equal(g->gm.stats.faults, 2);
	assert_int_equal(g->gm.stats.zero_fills, 1);
}

/*
 * pc-testdev's page flush: the translation goes, the frame and its
 * contents stay; hypervisor copies still reach the page, and the next
 * fault maps the same frame again.
 */
static void test_drop_translation(void **state)
{
	struct gm_fixture *g = gm_new(state, 16);
	struct ept_mapping m;
	uint64_t hpa;
	uint8_t byte = 0x42, back = 0;

	assert_int_equal(guest_memory_fault(&g->gm, 0x5000),
			 GUEST_FAULT_RESOLVED);
	mapped_frame(g, 0x5000, &hpa);
	assert_int_equal(guest_memory_drop_translation(&g->gm, 0x5123), 0);
	assert_false(ept_lookup(&g->ef->ept, 0x5000, &m));
	assert_int_equal(guest_memory_page_state(&g->gm, 0x5000),
			 PAGE_RESIDENT);
	/* Twice, untouched pages, outside RAM: refused. */
	assert_int_equal(guest_memory_drop_translation(&g->gm, 0x5000), -1);
	assert_int_equal(guest_memory_drop_translation(&g->gm, 0x6000), -1);
	assert_int_equal(guest_memory_drop_translation(&g->gm, RAM_SIZE),
			 -1);
	assert_int_equal(guest_memory_write(&g->gm, 0x5010, &byte, 1), 0);
	assert_int_equal(guest_memory_read(&g->gm, 0x5010, &back, 1), 0);
	assert_int_equal(back, 0x42);
	assert_false(ept_lookup(&g->ef->ept, 0x5000, &m));

	assert_int_equal(guest_memory_fault(&g->gm, 0x5ff0),
			 GUEST_FAULT_RESOLVED);
	assert_true(ept_lookup(&g->ef->ept, 0x5000, &m));
	assert_int_equal(m.hpa, hpa);
	assert_int_equal(mapped_frame(g, 0x5000, &hpa)[0x10], 0x42);
	assert_int_equal(guest_memory_fault(&g->gm, 0x5000),
			 GUEST_FAULT_ALREADY_MAPPED);
	assert_int_equal(frame_pool_in_use(&g->pool), 1);
	assert_int_equal(g->gm.stats.translations_dropped, 1);
	assert_int_equal(g->gm.stats.dropped_refaults, 1);

	/* At most GUEST_MAX_DROPPED pages at once. */
	for (unsigned i = 0; i <= GUEST_MAX_DROPPED; i++)
		assert_int_equal(guest_memory_fault(&g->gm, i * PAGE_SIZE),
				 i == 5 ? GUEST_FAULT_ALREADY_MAPPED :
					  GUEST_FAULT_RESOLVED);
	for (unsigned i = 0; i < GUEST_MAX_DROPPED; i++)
		assert_int_equal(guest_memory_drop_translation(
					 &g->gm, i * PAGE_SIZE), 0);
	assert_int_equal(guest_memory_drop_translation(
				 &g->gm, GUEST_MAX_DROPPED * PAGE_SIZE), -1);
}

static void test_fault_outside_ram(void **state)
{
	struct gm_fixture *g = gm_new(state, 4);
	struct ept_mapping m;

	assert_int_equal(guest_memory_fault(&g->gm, RAM_SIZE),
			 GUEST_FAULT_OUTSIDE_RAM);
	assert_int_equal(guest_memory_fault(&g->gm, RAM_SIZE + 0x1234),
			 GUEST_FAULT_OUTSIDE_RAM);
	assert_int_equal(guest_memory_fault(&g->gm, 0xfee00000),
			 GUEST_FAULT_OUTSIDE_RAM);
	assert_int_equal(guest_memory_fault(&g->gm, UINT64_MAX),
			 GUEST_FAULT_OUTSIDE_RAM);
	assert_false(ept_lookup(&g->ef->ept, RAM_SIZE, &m));
	assert_int_equal(g->ef->ept.tables, 1);
	assert_int_equal(frame_pool_in_use(&g->pool), 0);
	assert_int_equal(g->gm.stats.faults, 4);
	assert_int_equal(g->gm.stats.zero_fills, 0);

	/* The last byte of RAM is RAM. */
	assert_int_equal(guest_memory_fault(&g->gm, RAM_SIZE - 1),
			 GUEST_FAULT_RESOLVED);
	assert_int_equal(guest_memory_page_state(&g->gm, RAM_SIZE - 1),
			 PAGE_RESIDENT);
	assert_int_equal(g->state[RAM_PAGES - 1], PAGE_RESIDENT);
	assert_int_equal(g->gm.stats.faults, 5);
	assert_int_equal(g->gm.stats.zero_fills, 1);
}

/*
 * RAM in two ranges, as above 3.5 GiB on a PC (lib/guest_ram.h), here 32
 * pages from 0 and 32 from 4 GiB: the state array has one byte per page
 * (ASan sees one past it), a page from 4 GiB is RAM with the entry after
 * the low pages', and the hole between is not RAM.
 */
static void test_ram_above_4g(void **state)
{
	const struct guest_ram_layout ram = { RAM_SIZE / 2, RAM_SIZE / 2 };
	struct gm_fixture *g = gm_new_ram(state, 4, &ram);
	uint64_t top = GiB(4) + RAM_SIZE / 2, hpa;
	uint8_t buf[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, back[8];

	assert_int_equal(g->gm.npages, RAM_PAGES);
	assert_bytes(g->state, PAGE_UNTOUCHED, RAM_PAGES);
	assert_int_equal(guest_memory_fault(&g->gm, RAM_SIZE / 2),
			 GUEST_FAULT_OUTSIDE_RAM);
	assert_int_equal(guest_memory_fault(&g->gm, GiB(3)),
			 GUEST_FAULT_OUTSIDE_RAM);
	assert_int_equal(guest_memory_fault(&g->gm, GiB(4) - 1),
			 GUEST_FAULT_OUTSIDE_RAM);
	assert_int_equal(guest_memory_fault(&g->gm, top),
			 GUEST_FAULT_OUTSIDE_RAM);
	assert_int_equal(frame_pool_in_use(&g->pool), 0);

	assert_int_equal(guest_memory_fault(&g->gm, GiB(4)),
			 GUEST_FAULT_RESOLVED);
	assert_int_equal(g->state[RAM_PAGES / 2], PAGE_RESIDENT);
	assert_int_equal(guest_memory_fault(&g->gm, top - 1),
			 GUEST_FAULT_RESOLVED);
	assert_int_equal(g->state[RAM_PAGES - 1], PAGE_RESIDENT);
	assert_int_equal(guest_memory_page_state(&g->gm, top - 1),
			 PAGE_RESIDENT);
	assert_int_equal(g->gm.count[PAGE_RESIDENT], 2);
	mapped_frame(g, top - PAGE_SIZE, &hpa);

	/* Host writes: into the high range, never across the hole. */
	assert_int_equal(guest_memory_write(&g->gm, top - 8, buf, 8), 0);
	assert_int_equal(guest_memory_read(&g->gm, top - 8, back, 8), 0);
	assert_memory_equal(back, buf, 8);
	assert_int_equal(guest_memory_write(&g->gm, top - 4, buf, 8), -1);
	assert_int_equal(guest_memory_write(&g->gm, RAM_SIZE / 2 - 4, buf, 8),
			 -1);
	assert_int_equal(guest_memory_read(&g->gm, GiB(4) - 4, back, 8), -1);
}

static void test_pool_exhausted(void **state)
{
	struct gm_fixture *g = gm_new(state, 2);
	struct ept_mapping m;
	uint64_t hpa0, hpa1;

	assert_int_equal(guest_memory_fault(&g->gm, 0x0000),
			 GUEST_FAULT_RESOLVED);
	assert_int_equal(guest_memory_fault(&g->gm, 0x1000),
			 GUEST_FAULT_RESOLVED);
	assert_int_equal(guest_memory_fault(&g->gm, 0x2000),
			 GUEST_FAULT_NO_FRAME);
	assert_int_equal(guest_memory_page_state(&g->gm, 0x2000),
			 PAGE_UNTOUCHED);
	assert_false(ept_lookup(&g->ef->ept, 0x2000, &m));
	/* Again: still no frame, still untouched. */
	assert_int_equal(guest_memory_fault(&g->gm, 0x2000),
			 GUEST_FAULT_NO_FRAME);
	assert_int_equal(guest_memory_page_state(&g->gm, 0x2000),
			 PAGE_UNTOUCHED);

	mapped_frame(g, 0x0000, &hpa0);
	mapped_frame(g, 0x1000, &hpa1);
	assert_int_equal(hpa0, FAKE_FRAME_BASE);
	assert_int_equal(hpa1, FAKE_FRAME_BASE + PAGE_SIZE);
	assert_int_equal(frame_pool_in_use(&g->pool), 2);
	assert_int_equal(g->gm.stats.faults, 4);
	assert_int_equal(g->gm.stats.zero_fills, 2);
}

static void test_ept_table_failure(void **state)
{
	struct gm_fixture *g = gm_new(state, 4);
	struct ept_mapping m;

	/* The next table page cannot be allocated. */
	g->ef->fm.fail_at = g->ef->fm.used;
	assert_int_equal(guest_memory_fault(&g->gm, 0x7000),
			 GUEST_FAULT_INTERNAL_ERROR);
	assert_int_equal(guest_memory_page_state(&g->gm, 0x7000),
			 PAGE_UNTOUCHED);
	assert_false(ept_lookup(&g->ef->ept, 0x7000, &m));
	/* The frame went back to the pool. */
	assert_int_equal(frame_pool_in_use(&g->pool), 0);
	assert_int_equal(g->pool.frees, 1);
	assert_int_equal(g->gm.stats.faults, 1);
	assert_int_equal(g->gm.stats.zero_fills, 0);

	/* With memory for tables again, the same fault succeeds. */
	g->ef->fm.fail_at = NO_FAIL;
	assert_int_equal(guest_memory_fault(&g->gm, 0x7000),
			 GUEST_FAULT_RESOLVED);
	assert_int_equal(guest_memory_page_state(&g->gm, 0x7000),
			 PAGE_RESIDENT);
	assert_bytes(mapped_frame(g, 0x7000, NULL), 0, PAGE_SIZE);
}

static void test_fault_in_other_states(void **state)
{
	struct gm_fixture *g = gm_new(state, 4);
	const enum guest_page_state others[] = {
		PAGE_WRITEBACK, PAGE_SWAPPED, PAGE_SWAPIN,
	};

	for (unsigned i = 0; i < ARRAY_SIZE(others); i++) {
		g->state[i] = (uint8_t)others[i];
		assert_int_equal(guest_memory_fault(&g->gm, i * PAGE_SIZE),
				 GUEST_FAULT_INTERNAL_ERROR);
		assert_int_equal(guest_memory_page_state(&g->gm,
							 i * PAGE_SIZE),
				 others[i]);
	}
	assert_int_equal(frame_pool_in_use(&g->pool), 0);
	assert_int_equal(g->gm.stats.zero_fills, 0);
}

static void test_write_across_pages(void **state)
{
	struct gm_fixture *g = gm_new(state, 8);
	/* 50 bytes of page 4, all of pages 5 and 6, 50 bytes of page 7. */
	const uint64_t gpa = 5 * PAGE_SIZE - 50, len = 2 * PAGE_SIZE + 100;
	uint8_t *src = malloc(len), *f4, *f5, *f6, *f7;
	uint64_t h4, h5, h6, h7;
	const uint8_t old = 0xc3;

	assert_non_null(src);
	for (uint64_t i = 0; i < len; i++)
		src[i] = (uint8_t)(i * 7 + 1);
	/* Page 7 already resident with data beyond the write: kept. */
	assert_int_equal(guest_memory_write(&g->gm, 7 * PAGE_SIZE + 100, &old,
					    1), 0);
	assert_int_equal(g->gm.stats.zero_fills, 1);

	assert_int_equal(guest_memory_write(&g->gm, gpa, src, len), 0);
	for (uint64_t p = 4; p <= 7; p++)
		assert_int_equal(guest_memory_page_state(&g->gm,
							 p * PAGE_SIZE),
				 PAGE_RESIDENT);
	assert_int_equal(guest_memory_page_state(&g->gm, 3 * PAGE_SIZE),
			 PAGE_UNTOUCHED);
	assert_int_equal(guest_memory_page_state(&g->gm, 8 * PAGE_SIZE),
			 PAGE_UNTOUCHED);

	f4 = mapped_frame(g, 4 * PAGE_SIZE, &h4);
	f5 = mapped_frame(g, 5 * PAGE_SIZE, &h5);
	f6 = mapped_frame(g, 6 * PAGE_SIZE, &h6);
	f7 = mapped_frame(g, 7 * PAGE_SIZE, &h7);
	/* Frames in the order the pages were first touched. */
	assert_int_equal(h7, FAKE_FRAME_BASE);
	assert_int_equal(h4, FAKE_FRAME_BASE + 1 * PAGE_SIZE);
	assert_int_equal(h5, FAKE_FRAME_BASE + 2 * PAGE_SIZE);
	assert_int_equal(h6, FAKE_FRAME_BASE + 3 * PAGE_SIZE);

	assert_bytes(f4, 0, PAGE_SIZE - 50);
	assert_memory_equal(f4 + PAGE_SIZE - 50, src, 50);
	assert_memory_equal(f5, src + 50, PAGE_SIZE);
	assert_memory_equal(f6, src + 50 + PAGE_SIZE, PAGE_SIZE);
	assert_memory_equal(f7, src + 50 + 2 * PAGE_SIZE, 50);
	assert_bytes(f7 + 50, 0, 50);
	assert_int_equal(f7[100], old);
	assert_bytes(f7 + 101, 0, PAGE_SIZE - 101);
	/* Frames the write did not need are untouched. */
	assert_bytes(fake_frame(&g->ef->fm, FAKE_FRAME_BASE + 4 * PAGE_SIZE),
		     GARBAGE, PAGE_SIZE);

	/* Writes do not count as faults; first touches count as fills. */
	assert_int_equal(g->gm.stats.faults, 0);
	assert_int_equal(g->gm.stats.zero_fills, 4);
	assert_int_equal(frame_pool_in_use(&g->pool), 4);
	free(src);
}

static void test_write_errors(void **state)
{
	struct gm_fixture *g = gm_new(state, 1);
	uint8_t buf[2 * PAGE_SIZE];
	struct ept_mapping m;

	memset(buf, 0x11, sizeof(buf));
	/* Nothing to write: nothing done. */
	assert_int_equal(guest_memory_write(&g->gm, 0x1000, buf, 0), 0);
	assert_int_equal(guest_memory_page_state(&g->gm, 0x1000),
			 PAGE_UNTOUCHED);
	/* Entirely outside RAM. */
	assert_int_equal(guest_memory_write(&g->gm, RAM_SIZE, buf, 1), -1);
	assert_false(ept_lookup(&g->ef->ept, RAM_SIZE, &m));
	assert_int_equal(frame_pool_in_use(&g->pool), 0);

	/* The only frame goes to page 0; then the pool is empty. */
	assert_int_equal(guest_memory_write(&g->gm, 0, buf, 1), 0);
	assert_int_equal(frame_pool_in_use(&g->pool), 1);
	assert_int_equal(guest_memory_write(&g->gm, 0x2000, buf, 1), -1);
	assert_int_equal(guest_memory_page_state(&g->gm, 0x2000),
			 PAGE_UNTOUCHED);
	assert_false(ept_lookup(&g->ef->ept, 0x2000, &m));
	/* Running past the end of RAM. */
	assert_int_equal(guest_memory_write(&g->gm, RAM_SIZE - 4, buf, 8), -1);
	/* Page 0 again needs no new frame; page 1 would. */
	assert_int_equal(guest_memory_write(&g->gm, 0x800, buf, 0x800), 0);
	assert_int_equal(guest_memory_write(&g->gm, 0x800, buf, 0x801), -1);
	/* A page in another state has no mapping to write through. */
	g->state[3] = PAGE_SWAPPED;
	assert_int_equal(guest_memory_write(&g->gm, 0x3000, buf, 1), -1);
	assert_int_equal(g->gm.stats.zero_fills, 1);
	assert_int_equal(g->gm.stats.faults, 0);
}

static void test_result_names(void **state)
{
	(void)state;
	assert_string_equal(guest_fault_result_name(GUEST_FAULT_RESOLVED),
			    "resolved");
	assert_string_equal(guest_fault_result_name(GUEST_FAULT_OUTSIDE_RAM),
			    "outside guest RAM");
	assert_string_equal(guest_fault_result_name(GUEST_FAULT_NO_FRAME),
			    "no free host frame");
	assert_string_equal(guest_fault_result_name(GUEST_FAULT_ALREADY_MAPPED),
			    "page already mapped");
	assert_string_equal(guest_fault_result_name(GUEST_FAULT_INTERNAL_ERROR),
			    "internal error");
	assert_string_equal(guest_fault_result_name(GUEST_FAULT_WAIT_IO),
			    "waiting for swap I/O");
	assert_string_equal(guest_fault_result_name(GUEST_FAULT_SWAPIN_STARTED),
			    "swap-in started");
	assert_string_equal(guest_fault_result_name(GUEST_FAULT_IO_ERROR),
			    "swap read failed");
	assert_string_equal(guest_fault_result_name(
				    (enum guest_fault_result)99),
			    "internal error");
	assert_string_equal(guest_page_state_name(PAGE_UNTOUCHED), "untouched");
	assert_string_equal(guest_page_state_name(PAGE_RESIDENT), "resident");
	assert_string_equal(guest_page_state_name(PAGE_WRITEBACK), "writeback");
	assert_string_equal(guest_page_state_name(PAGE_SWAPPED), "swapped");
	assert_string_equal(guest_page_state_name(PAGE_SWAPIN), "swapin");
	assert_string_equal(guest_page_state_name(
				    (enum guest_page_state)GUEST_PAGE_STATES),
			    "invalid");
}

/* Zero fills are transitions too: counted per state and per transition. */
static void test_state_counts(void **state)
{
	struct gm_fixture *g = gm_new(state, 4);
	const struct guest_memory_stats *st = &g->gm.stats;

	assert_int_equal(g->gm.count[PAGE_UNTOUCHED], RAM_PAGES);
	assert_int_equal(guest_memory_fault(&g->gm, 0x1000),
			 GUEST_FAULT_RESOLVED);
	assert_int_equal(guest_memory_write(&g->gm, 0x2000, "x", 1), 0);
	assert_int_equal(g->gm.count[PAGE_UNTOUCHED], RAM_PAGES - 2);
	assert_int_equal(g->gm.count[PAGE_RESIDENT], 2);
	assert_int_equal(st->transitions[PAGE_UNTOUCHED][PAGE_RESIDENT], 2);
	for (unsigned a = 0; a < GUEST_PAGE_STATES; a++)
		for (unsigned b = 0; b < GUEST_PAGE_STATES; b++)
			if (a != PAGE_UNTOUCHED || b != PAGE_RESIDENT)
				assert_int_equal(st->transitions[a][b], 0);
}

/* Without swap: no eviction, no I/O, page info from the EPT itself. */
static void test_no_swap(void **state)
{
	struct gm_fixture *g = gm_new(state, 2);
	struct guest_evict_result res;
	struct guest_page_info info;
	uint64_t hpa;

	assert_int_equal(guest_memory_fault(&g->gm, 0x0000),
			 GUEST_FAULT_RESOLVED);
	assert_int_equal(guest_memory_fault(&g->gm, 0x1000),
			 GUEST_FAULT_RESOLVED);
	assert_null(g->gm.meta);
	assert_false(guest_memory_needs_eviction(&g->gm));
	assert_int_equal(guest_memory_evict_step(&g->gm, 100, &res), 0);
	assert_int_equal(res.victims, 0);
	assert_int_equal(guest_memory_page_state(&g->gm, 0), PAGE_RESIDENT);
	assert_false(guest_memory_io_busy(&g->gm, 0));
	assert_int_equal(guest_memory_io_done(&g->gm, 0, true),
			 HV_ERR_NOT_FOUND);
	assert_int_equal(g->gm.stats.stale_completions, 1);

	mapped_frame(g, 0x1000, &hpa);
	assert_true(guest_memory_page_info(&g->gm, 1, &info));
	assert_int_equal(info.state, PAGE_RESIDENT);
	assert_int_equal(info.frame_pa, hpa);
	assert_int_equal(info.flags, 0);
	assert_true(guest_memory_page_info(&g->gm, 2, &info));
	assert_int_equal(info.state, PAGE_UNTOUCHED);
	assert_int_equal(info.frame_pa, 0);
	assert_false(guest_memory_page_info(&g->gm, RAM_PAGES, &info));
	/* The pool is empty and stays so: nothing is evicted. */
	assert_int_equal(guest_memory_fault(&g->gm, 0x2000),
			 GUEST_FAULT_NO_FRAME);
	assert_int_equal(g->gm.stats.no_frame, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_init, teardown),
		cmocka_unit_test_teardown(test_first_fault_zero_fills,
					  teardown),
		cmocka_unit_test_teardown(test_second_fault_already_mapped,
					  teardown),
		cmocka_unit_test_teardown(test_drop_translation, teardown),
		cmocka_unit_test_teardown(test_fault_outside_ram, teardown),
		cmocka_unit_test_teardown(test_ram_above_4g, teardown),
		cmocka_unit_test_teardown(test_pool_exhausted, teardown),
		cmocka_unit_test_teardown(test_ept_table_failure, teardown),
		cmocka_unit_test_teardown(test_fault_in_other_states,
					  teardown),
		cmocka_unit_test_teardown(test_write_across_pages, teardown),
		cmocka_unit_test_teardown(test_write_errors, teardown),
		cmocka_unit_test(test_result_names),
		cmocka_unit_test_teardown(test_state_counts, teardown),
		cmocka_unit_test_teardown(test_no_swap, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
