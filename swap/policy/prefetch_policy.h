/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What else to read when the guest faults: the seam between the swap
 * engine and a prefetch (readahead) policy, as swap_vma_readahead is to
 * Linux's swap-in path (mm/swap_state.c).
 *
 * The engine tells the policy of each guest fault on a RAM page, after
 * handling it, by page index (0 to npages - 1, as for the eviction policy);
 * the policy may answer with more pages to bring in. The engine reads only
 * those that are in swap and readable, and only while the frame pool stays
 * above its low watermark: a hint, never a demand. A page read ahead is
 * counted in swap.prefetch_reads and becomes resident like any swap-in.
 *
 * The default is prefetch_none: no page is read that was not faulted on.
 */
#ifndef SWAP_POLICY_PREFETCH_POLICY_H
#define SWAP_POLICY_PREFETCH_POLICY_H

#include "lib/types.h"

/* Pages a policy may ask for per fault at most. */
#define PREFETCH_MAX_PAGES 16

struct prefetch_policy_ops {
	const char *name;
	/*
	 * A fault on page; swap_in: it started a read of the page (a major
	 * fault). Writes up to room page indexes to more[] and returns how
	 * many; NULL: never asks.
	 */
	unsigned (*on_fault)(void *self, uint64_t page, bool swap_in,
			     uint64_t *more, unsigned room);
};

struct prefetch_policy {
	const struct prefetch_policy_ops *ops;
	void *self;
};

static inline unsigned prefetch_policy_fault(const struct prefetch_policy *p,
					     uint64_t page, bool swap_in,
					     uint64_t *more, unsigned room)
{
	unsigned asked;

	if (!p->ops->on_fault)
		return 0;
	/* Once: a policy with state (stride) moves on at each call. */
	asked = p->ops->on_fault(p->self, page, swap_in, more, room);
	return MIN(asked, room);
}

/* Reads nothing ahead: today's behaviour. */
extern const struct prefetch_policy_ops prefetch_none_ops;

static inline struct prefetch_policy prefetch_none(void)
{
	return (struct prefetch_policy){ .ops = &prefetch_none_ops };
}

/*
 * An example, off unless a caller installs it: after a fault that started
 * a swap-in of page p, ask for p + 1 .. p + pages (at most
 * PREFETCH_MAX_PAGES), the guest's next pages in physical order.
 */
struct prefetch_sequential {
	unsigned pages;
};

extern const struct prefetch_policy_ops prefetch_sequential_ops;

static inline struct prefetch_policy
prefetch_sequential(struct prefetch_sequential *s)
{
	return (struct prefetch_policy){ .ops = &prefetch_sequential_ops,
					 .self = s };
}

/*
 * STRIDE: when the last major faults were a constant distance apart (an
 * array walked by a step: a column of a matrix, a field of each record;
 * 1 is a sequential stream, either direction), the walk's next pages are
 * asked for, page + stride up to page + pages * stride. The walk is then
 * expected to fault next just past the last page asked for, so a walk the
 * prefetching keeps ahead of stays recognised.
 */
struct prefetch_stride {
	unsigned pages;         /* how far ahead, at most PREFETCH_MAX_PAGES */
	uint64_t last;          /* the walk's last page: faulted or asked for */
	int64_t stride;         /* the distance seen last; 0: none yet */
	bool started;           /* last is set */
};

extern const struct prefetch_policy_ops prefetch_stride_ops;

static inline struct prefetch_policy
prefetch_stride(struct prefetch_stride *s)
{
	return (struct prefetch_policy){ .ops = &prefetch_stride_ops,
					 .self = s };
}

#endif
