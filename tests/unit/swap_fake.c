/* SPDX-License-Identifier: BSD-2-Clause */
/* A guest with swap over fake hardware (see swap_fake.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/swap_fake.h"

static void fake_submit(void *ctx, const struct swap_io *io)
{
	struct swap_fake *sf = ctx;

	/* One I/O per page at most: the queue never needs more room. */
	assert_true(sf->queued < sf->npages);
	assert_int_equal(swap_fake_find(sf, io->gfn), -1);
	sf->queue[sf->queued++] = *io;
	sf->submitted++;
}

static void fake_flush(void *ctx)
{
	struct swap_fake *sf = ctx;

	sf->flushes++;
	if (sf->on_flush)
		sf->on_flush(sf);
}

/*
 * The state has changed when the event comes: resident, or lost. No I/O of
 * the page is left in flight.
 */
static void fake_settled(void *ctx, uint64_t gfn, bool resident)
{
	struct swap_fake *sf = ctx;
	struct guest_page_info in;

	assert_true(guest_memory_page_info(&sf->gm, gfn, &in));
	assert_false(in.flags & GPM_IO);
	if (resident)
		assert_int_equal(in.state, PAGE_RESIDENT);
	else
		assert_true(in.state == PAGE_SWAPPED && (in.flags & GPM_LOST));
	sf->settled++;
	sf->settled_gfn = gfn;
	sf->settled_resident = resident;
}

static void *zalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	assert_non_null(p);
	return p;
}

static void *garbage(size_t n)
{
	void *p = malloc(n ? n : 1);

	assert_non_null(p);
	memset(p, SWAP_FAKE_GARBAGE, n);
	return p;
}

static void setup_pool(struct swap_fake *sf)
{
	void *ef;

	assert_int_equal(ept_fixture_setup(&ef), 0);
	sf->ef = ef;
	assert_int_equal(fake_frames_init(&sf->ef->fm, sf->nframes,
					  SWAP_FAKE_GARBAGE), 0);
	sf->pool_storage = garbage(frame_pool_storage_words(sf->nframes) *
				   sizeof(uint64_t));
	frame_pool_init(&sf->pool, sf->pool_storage, sf->nframes);
	assert_int_equal(frame_pool_add_range(&sf->pool, FAKE_FRAME_BASE,
					      sf->nframes), 0);
}

struct swap_fake *swap_fake_new(unsigned npages, unsigned nframes,
				unsigned nslots, uint64_t low, uint64_t high)
{
	struct swap_fake *sf = zalloc(sizeof(*sf));
	struct guest_swap_config cfg = {
		.io = { fake_submit, fake_flush, sf, fake_settled },
		.low_free = low,
		.high_free = high,
	};

	sf->npages = npages;
	sf->nframes = nframes;
	sf->nslots = nslots;
	setup_pool(sf);
	/* Garbage everywhere the module must initialise itself. */
	sf->state = garbage(npages);
	sf->meta = garbage(npages * sizeof(*sf->meta));
	sf->slot_storage = garbage(swap_slots_storage_words(nslots) *
				   sizeof(uint64_t));
	swap_slots_init(&sf->slots, sf->slot_storage, nslots);
	sf->disk = garbage((size_t)nslots * PAGE_SIZE);
	sf->queue = zalloc(npages * sizeof(*sf->queue));
	guest_memory_init(&sf->gm, &(struct guest_ram_layout){
				  .low_size = (uint64_t)npages * PAGE_SIZE },
			  sf->state,
			  &sf->ef->ept, &sf->pool);
	cfg.meta = sf->meta;
	cfg.slots = &sf->slots;
	assert_int_equal(guest_memory_enable_swap(&sf->gm, &cfg), 0);
	return sf;
}

void swap_fake_free(struct swap_fake *sf)
{
	void *ef;

	if (!sf)
		return;
	ef = sf->ef;
	ept_fixture_teardown(&ef);
	free(sf->pool_storage);
	free(sf->state);
	free(sf->meta);
	free(sf->slot_storage);
	free(sf->disk);
	free(sf->queue);
	free(sf);
}

uint8_t *swap_fake_slot(struct swap_fake *sf, uint32_t slot)
{
	assert_true(slot < sf->nslots);
	return sf->disk + (size_t)slot * PAGE_SIZE;
}

uint8_t *swap_fake_frame(struct swap_fake *sf, uint64_t pa)
{
	return fake_frame(&sf->ef->fm, pa);
}

int swap_fake_find(const struct swap_fake *sf, uint64_t gfn)
{
	for (unsigned i = 0; i < sf->queued; i++)
		if (sf->queue[i].gfn == gfn)
			return (int)i;
	return -1;
}

enum hv_err swap_fake_complete(struct swap_fake *sf, unsigned i, bool ok)
{
	struct swap_io io;
	uint8_t *frame, *slot;

	assert_true(i < sf->queued);
	io = sf->queue[i];
	/* The queue stays in submission order; the test picks i. */
	memmove(&sf->queue[i], &sf->queue[i + 1],
		(sf->queued - i - 1) * sizeof(io));
	sf->queued--;
	frame = swap_fake_frame(sf, io.frame_pa);
	slot = swap_fake_slot(sf, io.slot);
	if (!ok)
		memset(io.op == SWAP_IO_WRITE ? slot : frame,
		       SWAP_FAKE_GARBAGE, PAGE_SIZE / 2);
	else if (io.op == SWAP_IO_WRITE)
		memcpy(slot, frame, PAGE_SIZE);
	else
		memcpy(frame, slot, PAGE_SIZE);
	return guest_memory_io_done(&sf->gm, io.id, ok);
}

unsigned swap_fake_complete_all(struct swap_fake *sf)
{
	unsigned n = 0;

	while (sf->queued) {
		assert_int_equal(swap_fake_complete(sf, 0, true), 0);
		n++;
	}
	return n;
}

uint8_t *swap_fake_touch(struct swap_fake *sf, uint64_t gfn, bool write)
{
	int level;
	uint64_t *leaf = cpu_walk(sf->ef, gfn << PAGE_SHIFT, &level);

	if (!leaf)
		return NULL;
	assert_int_equal(level, 1);
	*leaf |= EPT_ACCESSED | (write ? EPT_DIRTY : 0);
	return swap_fake_frame(sf, *leaf & EPT_ADDR_MASK);
}

uint8_t *swap_fake_access(struct swap_fake *sf, uint64_t gfn, bool write,
			  enum guest_fault_result *r)
{
	uint8_t *p = swap_fake_touch(sf, gfn, write);

	if (p)
		return p;
	*r = guest_memory_fault(&sf->gm, gfn << PAGE_SHIFT);
	if (*r != GUEST_FAULT_RESOLVED)
		return NULL;
	p = swap_fake_touch(sf, gfn, write);
	assert_non_null(p);
	return p;
}
