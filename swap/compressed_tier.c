// SPDX-License-Identifier: BSD-2-Clause
/* The compressed tier's pool of slots (swap/compressed_tier.h). */
#include "swap/compressed_tier.h"
#include "swap/swap_format.h"

size_t compressed_tier_storage(uint32_t nslots, bool verify)
{
	size_t bytes = PAGE_COMPRESS_STATE_SIZE;

	bytes += (size_t)nslots * TIER_SLOT_BYTES;
	bytes += (size_t)nslots * sizeof(uint32_t);
	bytes += ALIGN_UP((size_t)nslots * sizeof(uint16_t), 8);
	if (verify)
		bytes += (size_t)nslots * sizeof(uint32_t);
	return bytes;
}

void compressed_tier_init(struct compressed_tier *t, void *storage,
			  uint32_t nslots, bool verify)
{
	uint8_t *p = storage;

	*t = (struct compressed_tier){ .nslots = nslots };
	t->state = p;
	p += PAGE_COMPRESS_STATE_SIZE;
	t->arena = p;
	p += (size_t)nslots * TIER_SLOT_BYTES;
	t->free_slots = (uint32_t *)p;
	p += (size_t)nslots * sizeof(uint32_t);
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

static void free_slot(struct compressed_tier *t, uint32_t slot)
{
	t->stats.bytes_in_use -= t->len[slot];
	t->len[slot] = 0;
	t->free_slots[t->nfree++] = slot;
}

enum tier_store_result compressed_tier_store(struct compressed_tier *t,
					     const void *page, uint32_t *slot)
{
	uint32_t s;
	unsigned n;

	if (!t->nfree) {
		t->stats.full++;
		return TIER_FULL;
	}
	s = t->free_slots[t->nfree - 1];
	n = page_compress(page, slot_at(t, s), TIER_SLOT_BYTES, t->state);
	if (!n) {
		t->stats.too_big++;
		return TIER_TOO_BIG;
	}
	t->nfree--;
	t->len[s] = (uint16_t)n;
	if (t->sum)
		t->sum[s] = swap_crc32(0, page, PAGE_SIZE);
	t->stats.bytes_in_use += n;
	t->stats.stores++;
	*slot = s;
	return TIER_STORED;
}

bool compressed_tier_load(struct compressed_tier *t, uint32_t slot,
			  void *page)
{
	bool ok;

	if (slot >= t->nslots || !t->len[slot])
		return false;
	ok = page_decompress(slot_at(t, slot), t->len[slot], page);
	if (ok && t->sum && swap_crc32(0, page, PAGE_SIZE) != t->sum[slot]) {
		t->stats.verify_mismatches++;
		ok = false;
	}
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
