// SPDX-License-Identifier: BSD-2-Clause
/* Poisoned pages for reads without a byte count (swap/drivers/read_poison.h). */
#include "swap/drivers/read_poison.h"

/*
 * A 64-bit finalizer (xor-shifts and odd multipliers, as in splitmix64):
 * every input bit affects every output bit, so neighbouring pages and
 * seeds give unrelated words.
 */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

uint64_t read_poison_seed(uint64_t entropy)
{
	return mix(entropy ^ 0x9e3779b97f4a7c15ull);
}

uint64_t read_poison_word(uint64_t seed, uint64_t page_pa)
{
	return mix(seed + page_pa);
}

static volatile uint64_t *page_words(uint64_t page_pa)
{
	return (volatile uint64_t *)(uintptr_t)page_pa;
}

void read_poison_fill(uint64_t page_pa, uint64_t poison)
{
	volatile uint64_t *w = page_words(page_pa);

	for (unsigned i = 0; i < READ_POISON_WORDS; i++)
		w[i] = poison;
}

unsigned read_poison_left(uint64_t page_pa, uint64_t poison)
{
	const volatile uint64_t *w = page_words(page_pa);
	unsigned left = 0;

	for (unsigned i = 0; i < READ_POISON_WORDS; i++)
		left += w[i] == poison;
	return left;
}
