// SPDX-License-Identifier: BSD-2-Clause
/* The aging approximation of LRU (aging_policy.h). */
#include "swap/policy/aging_policy.h"

#define JUST_USED 0x80u

/*
 * How much a page is worth keeping: how many of its last eight looks
 * found it used (frequency), then how recently (the history as a
 * number). A page brought in and touched once is worth less than one
 * used on most looks, however recent that one touch.
 */
static unsigned keep_value(unsigned history)
{
	/* The bits set in a byte (no popcnt: the hypervisor has no libgcc). */
	unsigned used = history - ((history >> 1) & 0x55u);

	used = (used & 0x33u) + ((used >> 2) & 0x33u);
	used = (used + (used >> 4)) & 0x0fu;
	return used << 8 | history;
}

void aging_policy_init(struct aging_policy *a, void *storage, uint64_t npages)
{
	a->history = storage;
	for (uint64_t i = 0; i < npages; i++)
		a->history[i] = 0;
	a->npages = npages;
	a->hand = 0;
}

static bool aging_pick(void *self, const struct evict_history *h,
		       uint64_t *budget, uint64_t *victim)
{
	struct aging_policy *a = self;
	unsigned compared = 0;
	unsigned best_value = UINT32_MAX;
	uint64_t best = 0;

	while (*budget && a->npages && compared < AGING_WINDOW) {
		uint64_t page = a->hand;
		struct page_history seen;
		unsigned history;

		a->hand = a->hand + 1 >= a->npages ? 0 : a->hand + 1;
		(*budget)--;
		if (!h->inspect(h->ctx, page, &seen))
			continue;
		history = a->history[page] >> 1;
		if (seen.accessed && h->clear_accessed(h->ctx, page))
			history |= JUST_USED;
		a->history[page] = (uint8_t)history;
		if (!history) {
			*victim = page;
			return true;
		}
		if (keep_value(history) < best_value) {
			best_value = keep_value(history);
			best = page;
		}
		compared++;
	}
	if (!compared)
		return false;
	*victim = best;
	return true;
}

/* A page back in starts afresh: the EPT accessed bit it is mapped with
 * is its first use. */
static void aging_resident(void *self, uint64_t page)
{
	struct aging_policy *a = self;

	if (page < a->npages)
		a->history[page] = 0;
}

const struct eviction_policy_ops aging_policy_ops = {
	.name = "aging",
	.pick_victim = aging_pick,
	.on_map = aging_resident,
	.on_swap_in = aging_resident,
};
