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
#define PREFETCH_MAX_PAGES 64

struct prefetch_policy_ops {
	const char *name;
	/*
	 * A fault on page; swap_in: it started a read of the page (a major
	 * fault). Writes up to room page indexes to more[] and returns how
	 * many; NULL: never asks.
	 */
	unsigned (*on_fault)(void *self, uint64_t page, bool swap_in,
			     uint64_t *more, unsigned room);
	/*
	 * Optional, with on_frames: of the pages the last call (on_fault or
	 * on_frames) gave, more[first] and those after it were not read,
	 * the pool being at its low watermark. The policy may ask for them
	 * again when on_frames is called.
	 */
	void (*on_refused)(void *self, unsigned first);
	/*
	 * Free frames are back above the low watermark after a refusal:
	 * pages to try again (up to room), as on_fault answers.
	 */
	unsigned (*on_frames)(void *self, uint64_t *more, unsigned room);
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

/* Whether the policy takes refused pages back (on_refused, on_frames). */
static inline bool prefetch_policy_resumes(const struct prefetch_policy *p)
{
	return p->ops->on_refused && p->ops->on_frames;
}

static inline void prefetch_policy_refused(const struct prefetch_policy *p,
					   unsigned first)
{
	if (prefetch_policy_resumes(p))
		p->ops->on_refused(p->self, first);
}

static inline unsigned prefetch_policy_frames(const struct prefetch_policy *p,
					      uint64_t *more, unsigned room)
{
	unsigned asked;

	if (!prefetch_policy_resumes(p))
		return 0;
	asked = p->ops->on_frames(p->self, more, room);
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

/*
 * REPLAY: a recorded run's swap-in faults, in the order they first
 * faulted (swap/policy/fault_list.h, from tools/apftrace
 * --extract-faults), as REAP replays a snapshot's working set. A fault
 * that starts the swap-in of a page on the list asks for the pages the
 * list has after it, up to pages of them, going on from where the last
 * request stopped when the guest is still on the same stretch of the list.
 * Pages refused for lack of free frames are asked for again, in list
 * order, when frames come back (on_frames), instead of being left to
 * fault: that stretch is the one the guest is about to walk.
 * The list is of page indexes (0 to npages - 1, as every policy sees
 * pages); position[page] is the page's place in it plus one (0: not on
 * it), npages entries.
 */
struct prefetch_replay {
	const uint64_t *order;  /* count page indexes */
	uint64_t count;
	uint32_t *position;     /* npages entries */
	uint64_t npages;
	unsigned pages;         /* how far ahead, at most PREFETCH_MAX_PAGES */
	uint64_t next;          /* the list's position after the last asked */
	uint64_t goal;          /* ... and the end of the stretch last asked */
	/* The list position of each page the last call gave. */
	uint64_t asked_at[PREFETCH_MAX_PAGES];
};

extern const struct prefetch_policy_ops prefetch_replay_ops;

/*
 * Fills position[] (npages entries, zeroed) from order[] (count entries):
 * the first place of each page; an entry past npages is skipped. False:
 * the list is too long for 32-bit positions.
 */
bool prefetch_replay_init(struct prefetch_replay *r, const uint64_t *order,
			  uint64_t count, uint32_t *position, uint64_t npages,
			  unsigned pages);

static inline struct prefetch_policy
prefetch_replay(struct prefetch_replay *r)
{
	return (struct prefetch_policy){ .ops = &prefetch_replay_ops,
					 .self = r };
}

static inline struct prefetch_policy
prefetch_stride(struct prefetch_stride *s)
{
	return (struct prefetch_policy){ .ops = &prefetch_stride_ops,
					 .self = s };
}

#endif
