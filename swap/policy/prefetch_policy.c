// SPDX-License-Identifier: BSD-2-Clause
/* The prefetch policies of swap/policy/prefetch_policy.h. */
#include "swap/policy/prefetch_policy.h"

const struct prefetch_policy_ops prefetch_none_ops = {
	.name = "none",
};

static unsigned sequential_fault(void *self, uint64_t page, bool swap_in,
				 uint64_t *more, unsigned room)
{
	const struct prefetch_sequential *s = self;
	unsigned n = MIN(MIN(s->pages, room), PREFETCH_MAX_PAGES);

	if (!swap_in)
		return 0;
	for (unsigned i = 0; i < n; i++)
		more[i] = page + 1 + i;
	return n;
}

const struct prefetch_policy_ops prefetch_sequential_ops = {
	.name = "sequential",
	.on_fault = sequential_fault,
};

static unsigned stride_fault(void *self, uint64_t page, bool swap_in,
			     uint64_t *more, unsigned room)
{
	struct prefetch_stride *s = self;
	unsigned n = MIN(MIN(s->pages, room), PREFETCH_MAX_PAGES);
	int64_t step = (int64_t)(page - s->last);
	bool walking = s->started && step && step == s->stride;
	unsigned asked = 0;

	if (!swap_in)
		return 0;
	s->started = true;
	s->stride = step;
	s->last = page;
	if (!walking)
		return 0;
	/* Forward up to 2^64 - 1, backward down to page 0, no further. */
	while (asked < n) {
		uint64_t next = s->last + (uint64_t)step;

		if (step > 0 ? next < s->last : next > s->last)
			break;
		more[asked++] = next;
		s->last = next;
	}
	return asked;
}

const struct prefetch_policy_ops prefetch_stride_ops = {
	.name = "stride",
	.on_fault = stride_fault,
};

bool prefetch_replay_init(struct prefetch_replay *r, const uint64_t *order,
			  uint64_t count, uint32_t *position, uint64_t npages,
			  unsigned pages)
{
	if (count >= UINT32_MAX)
		return false;
	*r = (struct prefetch_replay){ .order = order, .count = count,
				       .position = position, .npages = npages,
				       .pages = pages };
	for (uint64_t i = 0; i < count; i++)
		if (order[i] < npages && !position[order[i]])
			position[order[i]] = (uint32_t)(i + 1);
	return true;
}

static unsigned replay_fault(void *self, uint64_t page, bool swap_in,
			     uint64_t *more, unsigned room)
{
	struct prefetch_replay *r = self;
	unsigned n = MIN(MIN(r->pages, room), PREFETCH_MAX_PAGES);
	uint64_t from, asked = 0;

	if (!swap_in || page >= r->npages || !r->position[page])
		return 0;
	/* The entry after the page's; further on if that stretch was asked. */
	from = r->position[page];
	if (r->next > from && r->next - from < n)
		from = r->next;
	while (asked < n && from < r->count) {
		uint64_t want = r->order[from++];

		if (want < r->npages && want != page)
			more[asked++] = want;
	}
	r->next = from;
	return (unsigned)asked;
}

const struct prefetch_policy_ops prefetch_replay_ops = {
	.name = "replay",
	.on_fault = replay_fault,
};
