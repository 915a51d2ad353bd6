// SPDX-License-Identifier: BSD-2-Clause
/* The compressed tier's pool of slots (swap/compressed_tier.h). */
#include "swap/compressed_tier.h"
#include "lib/string.h"
#include "swap/swap_format.h"

size_t compressed_tier_storage(uint32_t nslots, bool verify)
{
	size_t bytes = PAGE_COMPRESS_STATE_SIZE + TIER_SLOT_BYTES;

	bytes += (size_t)nslots * TIER_SLOT_BYTES;
	/* free_slots, owner, prev, next */
	bytes += (size_t)nslots * 4 * sizeof(uint32_t);
	bytes += ALIGN_UP((size_t)nslots * sizeof(uint16_t), 8);
	if (verify)
		bytes += (size_t)nslots * sizeof(uint32_t);
	return bytes;
}

static uint32_t *take_u32(uint8_t **p, uint32_t n)
{
	uint32_t *a = (uint32_t *)*p;

	*p += (size_t)n * sizeof(uint32_t);
	return a;
}

void compressed_tier_init(struct compressed_tier *t, void *storage,
			  uint32_t nslots, bool verify)
{
	uint8_t *p = storage;

	*t = (struct compressed_tier){ .nslots = nslots,
				       .oldest = TIER_NO_SLOT,
				       .newest = TIER_NO_SLOT };
	t->state = p;
	p += PAGE_COMPRESS_STATE_SIZE;
	t->scratch = p;
	p += TIER_SLOT_BYTES;
	t->arena = p;
	p += (size_t)nslots * TIER_SLOT_BYTES;
	t->free_slots = take_u32(&p, nslots);
	t->owner = take_u32(&p, nslots);
	t->prev = take_u32(&p, nslots);
	t->next = take_u32(&p, nslots);
	t->len = (uint16_t *)p;
	p += ALIGN_UP((size_t)nslots * sizeof(uint16_t), 8);
	t->sum = verify ? (uint32_t *)p : NULL;
	/* Slot 0 on top: the pool fills from its start. */
	for (uint32_t i = 0; i < nslots; i++)
		t->free_slots[i] = nslots - 1 - i;
	t->nfree = nslots;
}

static void *slot_at(const struct compressed_tier *t, uint32_t slot)
{
	return t->arena + (size_t)slot * TIER_SLOT_BYTES;
}

/* Slot joins the list as its newest. */
static void link_newest(struct compressed_tier *t, uint32_t slot)
{
	t->prev[slot] = t->newest;
	t->next[slot] = TIER_NO_SLOT;
	if (t->newest != TIER_NO_SLOT)
		t->next[t->newest] = slot;
	else
		t->oldest = slot;
	t->newest = slot;
}

static void unlink_slot(struct compressed_tier *t, uint32_t slot)
{
	uint32_t p = t->prev[slot], n = t->next[slot];

	if (p != TIER_NO_SLOT)
		t->next[p] = n;
	else
		t->oldest = n;
	if (n != TIER_NO_SLOT)
		t->prev[n] = p;
	else
		t->newest = p;
}

static void free_slot(struct compressed_tier *t, uint32_t slot)
{
	unlink_slot(t, slot);
	t->stats.bytes_in_use -= t->len[slot];
	t->len[slot] = 0;
	t->free_slots[t->nfree++] = slot;
}

/*
 * page_compress into dst, or 0: it did not shrink to a slot or, after
 * misses in a row, was not tried (compressed_tier.h).
 */
static unsigned compress_or_skip(struct compressed_tier *t, const void *page,
				 void *dst)
{
	unsigned n;

	if (t->skip_left) {
		t->skip_left--;
		t->stats.skipped++;
		return 0;
	}
	n = page_compress(page, dst, TIER_SLOT_BYTES, t->state);
	if (n) {
		t->misses = 0;
		return n;
	}
	t->stats.too_big++;
	if (++t->misses >= TIER_MISSES_BEFORE_SKIP)
		t->skip_left = TIER_SKIP_PERIOD - 1;
	return 0;
}

/* The checksum a slot keeps of page (0 without debug.swap_verify). */
static uint32_t page_sum(const struct compressed_tier *t, const void *page)
{
	return t->sum ? swap_crc32(0, page, PAGE_SIZE) : 0;
}

/* Slot now holds n compressed bytes of a page, named owner: the newest. */
static void fill_slot(struct compressed_tier *t, uint32_t slot, unsigned n,
		      uint32_t sum, uint32_t owner)
{
	t->len[slot] = (uint16_t)n;
	if (t->sum)
		t->sum[slot] = sum;
	t->owner[slot] = owner;
	t->stats.bytes_in_use += n;
	t->stats.stores++;
	link_newest(t, slot);
}

enum tier_store_result compressed_tier_store(struct compressed_tier *t,
					     const void *page, uint32_t owner,
					     uint32_t *slot)
{
	uint32_t s;
	unsigned n;

	if (!t->nfree) {
		t->stats.full++;
		return TIER_FULL;
	}
	s = t->free_slots[t->nfree - 1];
	n = compress_or_skip(t, page, slot_at(t, s));
	if (!n)
		return TIER_TOO_BIG;
	t->nfree--;
	fill_slot(t, s, n, page_sum(t, page), owner);
	*slot = s;
	return TIER_STORED;
}

/* The slot's page expanded and checked into page; the slot is kept. */
static bool expand_slot(struct compressed_tier *t, uint32_t slot, void *page)
{
	if (!page_decompress(slot_at(t, slot), t->len[slot], page))
		return false;
	if (t->sum && swap_crc32(0, page, PAGE_SIZE) != t->sum[slot]) {
		t->stats.verify_mismatches++;
		return false;
	}
	return true;
}

enum tier_store_result
compressed_tier_store_moving_out(struct compressed_tier *t, void *page,
				 uint32_t owner, uint32_t *slot,
				 uint32_t *moved)
{
	uint32_t s = t->oldest, sum;
	unsigned n;
	bool ok;

	if (s == TIER_NO_SLOT)
		return TIER_FULL;
	n = compress_or_skip(t, page, t->scratch);
	if (!n)
		return TIER_TOO_BIG;
	sum = page_sum(t, page);
	/* The new page is safe in scratch: page may take the old one. */
	ok = expand_slot(t, s, page);
	*moved = t->owner[s];
	unlink_slot(t, s);
	t->stats.bytes_in_use -= t->len[s];
	t->stats.moved_out++;
	memcpy(slot_at(t, s), t->scratch, n);
	fill_slot(t, s, n, sum, owner);
	*slot = s;
	return ok ? TIER_MOVED_OUT : TIER_MOVED_OUT_LOST;
}

bool compressed_tier_load(struct compressed_tier *t, uint32_t slot,
			  void *page)
{
	bool ok;

	if (slot >= t->nslots || !t->len[slot])
		return false;
	ok = expand_slot(t, slot, page);
	free_slot(t, slot);
	t->stats.loads++;
	return ok;
}

void compressed_tier_drop(struct compressed_tier *t, uint32_t slot)
{
	if (slot >= t->nslots || !t->len[slot])
		return;
	free_slot(t, slot);
	t->stats.dropped++;
}
