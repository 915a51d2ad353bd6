/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The swap-slot bitmap. The bits past the last slot in the final word are
 * kept set, as if in use, so that the search never has to check a found bit
 * against nslots. A search looks at whole words (64 slots at a time) from the
 * hint on and wraps around once: constant time while the area is not nearly
 * full, nslots / 64 word reads when it is.
 */
#include "swap/swap_slots.h"

#define WORD_BITS 64

static uint32_t map_words(uint32_t nslots)
{
	return (uint32_t)(((uint64_t)nslots + WORD_BITS - 1) / WORD_BITS);
}

uint64_t swap_slots_storage_words(uint32_t nslots)
{
	return 2 * (uint64_t)map_words(nslots);
}

void swap_slots_init(struct swap_slots *s, uint64_t *storage, uint32_t nslots)
{
	uint32_t tail = nslots % WORD_BITS;

	*s = (struct swap_slots){
		.used = storage,
		.nslots = nslots,
		.nwords = map_words(nslots),
	};
	s->retired_map = storage + s->nwords;
	for (uint32_t i = 0; i < 2 * s->nwords; i++)
		storage[i] = 0;
	if (tail)
		storage[s->nwords - 1] = ~(BIT(tail) - 1);
}

bool swap_slots_alloc(struct swap_slots *s, uint32_t *slot)
{
	for (uint32_t n = 0; n < s->nwords; n++) {
		uint32_t w = s->hint + n;
		uint64_t bits;

		if (w >= s->nwords)
			w -= s->nwords;
		bits = s->used[w];
		if (bits == UINT64_MAX)
			continue;
		bits = ~bits;
		*slot = w * WORD_BITS + (uint32_t)__builtin_ctzll(bits);
		s->used[w] |= bits & -bits;
		s->hint = w;
		s->allocs++;
		if (++s->in_use > s->peak)
			s->peak = s->in_use;
		return true;
	}
	s->full++;
	return false;
}

static bool bit_set(const uint64_t *map, uint32_t slot)
{
	return map[slot / WORD_BITS] & BIT(slot % WORD_BITS);
}

bool swap_slots_is_used(const struct swap_slots *s, uint32_t slot)
{
	return slot < s->nslots && bit_set(s->used, slot) &&
	       !bit_set(s->retired_map, slot);
}

/*
 * A retired slot keeps its bit in used, so the search skips it at no cost;
 * the second map only tells it from a slot in use, for free and is_used.
 */
enum hv_err swap_slots_retire(struct swap_slots *s, uint32_t slot)
{
	if (!swap_slots_is_used(s, slot)) {
		s->bad_frees++;
		return HV_ERR_NOT_FOUND;
	}
	s->retired_map[slot / WORD_BITS] |= BIT(slot % WORD_BITS);
	s->in_use--;
	s->retired++;
	return HV_OK;
}

enum hv_err swap_slots_free(struct swap_slots *s, uint32_t slot)
{
	if (!swap_slots_is_used(s, slot)) {
		s->bad_frees++;
		return HV_ERR_NOT_FOUND;
	}
	s->used[slot / WORD_BITS] &= ~BIT(slot % WORD_BITS);
	s->in_use--;
	s->frees++;
	return HV_OK;
}
