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

/* The list from next up to end, at most n pages, leaving out skip. */
static unsigned replay_ask(struct prefetch_replay *r, uint64_t skip,
			   uint64_t end, uint64_t *more, unsigned n)
{
	unsigned asked = 0;

	while (asked < n && r->next < end) {
		uint64_t at = r->next++;
		uint64_t want = r->order[at];

		if (want < r->npages && want != skip) {
			r->asked_at[asked] = at;
			more[asked++] = want;
		}
	}
	return asked;
}

static unsigned replay_fault(void *self, uint64_t page, bool swap_in,
			     uint64_t *more, unsigned room)
{
	struct prefetch_replay *r = self;
	unsigned n = MIN(MIN(r->pages, room), PREFETCH_MAX_PAGES);
	uint64_t from;
	unsigned asked;

	if (!swap_in || page >= r->npages || !r->position[page])
		return 0;
	/* The entry after the page's; further on if that stretch was asked. */
	from = r->position[page];
	if (!(r->next > from && r->next - from < n))
		r->next = from;
	asked = replay_ask(r, page, r->count, more, n);
	r->goal = r->next;
	return asked;
}

static void replay_refused(void *self, unsigned first)
{
	struct prefetch_replay *r = self;

	/* Asked again from there, up to the same goal. */
	if (first < PREFETCH_MAX_PAGES && r->asked_at[first] < r->next)
		r->next = r->asked_at[first];
}

static unsigned replay_frames(void *self, uint64_t *more, unsigned room)
{
	struct prefetch_replay *r = self;

	return replay_ask(r, UINT64_MAX, r->goal, more,
			  MIN(MIN(r->pages, room), PREFETCH_MAX_PAGES));
}

const struct prefetch_policy_ops prefetch_replay_ops = {
	.name = "replay",
	.on_fault = replay_fault,
	.on_refused = replay_refused,
	.on_frames = replay_frames,
};
