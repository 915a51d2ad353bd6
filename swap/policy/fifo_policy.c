// SPDX-License-Identifier: BSD-2-Clause
/* FIFO replacement over a list in residency order (fifo_policy.h). */
#include "swap/policy/fifo_policy.h"

bool fifo_policy_init(struct fifo_policy *f, void *storage, uint64_t npages)
{
	if (npages >= FIFO_NONE)
		return false;
	f->next = storage;
	f->prev = f->next + npages;
	for (uint64_t i = 0; i < npages; i++)
		f->next[i] = f->prev[i] = FIFO_NONE;
	f->head = f->tail = FIFO_NONE;
	f->npages = npages;
	f->queued = 0;
	return true;
}

static bool queued(const struct fifo_policy *f, uint32_t page)
{
	return f->prev[page] != FIFO_NONE || f->head == page;
}

static void unlink_page(struct fifo_policy *f, uint32_t page)
{
	uint32_t n = f->next[page], p = f->prev[page];

	if (!queued(f, page))
		return;
	if (p == FIFO_NONE)
		f->head = n;
	else
		f->next[p] = n;
	if (n == FIFO_NONE)
		f->tail = p;
	else
		f->prev[n] = p;
	f->next[page] = f->prev[page] = FIFO_NONE;
	f->queued--;
}

static void append(struct fifo_policy *f, uint32_t page)
{
	f->prev[page] = f->tail;
	f->next[page] = FIFO_NONE;
	if (f->tail == FIFO_NONE)
		f->head = page;
	else
		f->next[f->tail] = page;
	f->tail = page;
	f->queued++;
}

/* Became resident: to the back of the list (again, if it was on it). */
static void fifo_resident(void *self, uint64_t page)
{
	struct fifo_policy *f = self;

	if (page >= f->npages)
		return;
	unlink_page(f, (uint32_t)page);
	append(f, (uint32_t)page);
}

static void fifo_evicted(void *self, uint64_t page)
{
	struct fifo_policy *f = self;

	if (page < f->npages)
		unlink_page(f, (uint32_t)page);
}

static bool fifo_pick(void *self, const struct evict_history *h,
		      uint64_t *budget, uint64_t *victim)
{
	struct fifo_policy *f = self;
	struct page_history seen;

	while (*budget && f->head != FIFO_NONE) {
		uint32_t page = f->head;

		(*budget)--;
		if (h->inspect(h->ctx, page, &seen)) {
			*victim = page;
			return true;
		}
		/* Not now: behind the others, so the next pick moves on. */
		unlink_page(f, page);
		append(f, page);
	}
	return false;
}

const struct eviction_policy_ops fifo_policy_ops = {
	.name = "fifo",
	.pick_victim = fifo_pick,
	.on_map = fifo_resident,
	.on_swap_in = fifo_resident,
	.on_evict = fifo_evicted,
};
