/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A striped and replicated swap set's state, shared by its two files:
 * swap/blockdev_stripe.c (the layout, and the requests of the set) and
 * swap/stripe_resync.c (members away and back, the re-replication of the
 * pages they missed, spares taking their place). Nobody else includes
 * this.
 */
#ifndef SWAP_STRIPE_INTERNAL_H
#define SWAP_STRIPE_INTERNAL_H

#include "lib/counters.h"
#include "swap/blockdev_stripe.h"
#include "swap/swap_format.h"

#define NO_PAGE UINT64_MAX

#define STRIPE_COUNTERS(X) \
	X(struct stripe_counters, degraded_writes, "stripe.degraded_writes") \
	X(struct stripe_counters, read_fallbacks, "stripe.read_fallbacks") \
	X(struct stripe_counters, pages_resynced, "stripe.pages_resynced") \
	X(struct stripe_counters, members_lost, "stripe.members_lost") \
	X(struct stripe_counters, members_back, "stripe.members_back") \
	X(struct stripe_counters, members_refused, "stripe.members_refused") \
	X(struct stripe_counters, members_replaced, "stripe.members_replaced") \
	X(struct stripe_counters, requests_failed, "stripe.requests_failed") \
	X(struct stripe_counters, busy_for_resync, "stripe.busy_for_resync")

struct stripe_counters {
	STRIPE_COUNTERS(COUNTER_FIELD)
};

enum sub_kind {
	SUB_REQUEST,            /* one copy of a request of the set */
	SUB_CHECK,              /* a member's header, read on its return */
	SUB_RESYNC_READ,        /* a missed page, read from another copy */
	SUB_RESYNC_WRITE,       /* ... and written to the member that missed it */
};

/* What a member's completion cookie points at. */
struct sub {
	enum sub_kind kind;
	uint8_t member;         /* whose request (a copy: the one it fills) */
	uint8_t on;             /* the member it was sent to */
	uint8_t copy;           /* SUB_REQUEST: which copy (k) */
	uint16_t index;         /* index in requests[] or in jobs[] */
};

enum member_state {
	MEMBER_OK,
	MEMBER_AWAY,            /* its device said it is unavailable */
	MEMBER_CHECKING,        /* back: its header is being read again */
	MEMBER_REFUSED,         /* came back with another header: not used */
};

enum resync_phase {
	RESYNC_IDLE,
	RESYNC_READING,
	RESYNC_WRITING,
};

struct member {
	struct blockdev *dev;
	enum member_state state;
	uint8_t header[SWAP_HEADER_SIZE];       /* as opened */
	uint8_t *page;          /* a low page: header checks and copies */
	uint8_t *missed;        /* a bit per member page: a write it missed */
	uint64_t nmissed;
	uint64_t cursor;        /* where the next missed page is looked for */
	unsigned inflight;      /* requests on its device */
	uint64_t away_since;    /* TSC it went away (or was refused) */
	unsigned resyncing;     /* copy jobs on its pages */
	struct sub check_sub;
};

/*
 * Copies of missed pages made at once, over the whole set. Each holds
 * one request on a member at a time (the read on the source, then the
 * write on the member that missed the page), so together with a header
 * check they need at most STRIPE_RESYNC_JOBS + 1 of a member's requests:
 * the set keeps that many aside (MEMBER_RESERVE), and the set's own
 * requests never find a member full because of them.
 */
#define STRIPE_RESYNC_JOBS 8

struct resync_job {
	enum resync_phase phase;
	uint8_t member;         /* the member that missed the page */
	uint64_t mpage;         /* its page being copied */
	uint64_t data;          /* ... which is this data page of the set */
	uint8_t *page;          /* a low page: the copy on its way */
	struct sub read_sub, write_sub;
};

struct request {
	bool in_use;
	struct blk_request req;
	uint64_t data;          /* data page of the set; NO_PAGE: the header */
	unsigned pending;       /* copies on a member */
	unsigned written;       /* copies written */
	unsigned tried;         /* bit k: copy k was read (or could not be) */
	struct sub sub[STRIPE_MAX_MEMBERS];
};

struct stripe {
	struct blockdev bdev;
	char name[64];
	unsigned n, replicas;
	uint64_t member_pages;  /* pages of each member, its header included */
	uint64_t rows;
	uint8_t *header;        /* the set's own (page 0), made here */
	uint8_t *written;       /* a bit per data page: it holds data */
	struct member m[STRIPE_MAX_MEMBERS];
	/* swap.spare: devices that take an away member's place. */
	struct blockdev *spare[STRIPE_MAX_MEMBERS];
	uint8_t *spare_header[STRIPE_MAX_MEMBERS];
	unsigned nspares;
	uint64_t replace_after; /* TSC ticks away before that; 0: never */
	struct request r[STRIPE_MAX_REQUESTS];
	struct resync_job job[STRIPE_RESYNC_JOBS];
	struct blk_completion done[STRIPE_MAX_REQUESTS];
	unsigned done_head, done_count;
	struct stripe_counters counters;
	struct counter_source counter_src;
};

/* swap/blockdev_stripe.c: the layout, and the missed pages' bitmap. */

/* The member that holds copy k of data page data. */
unsigned stripe_copy_member(const struct stripe *st, uint64_t data,
			    unsigned k);
/* Its page on that member. */
uint64_t stripe_copy_mpage(const struct stripe *st, uint64_t data,
			   unsigned k);
/* The set's data page that member page mpage (>= 1) of member s holds. */
uint64_t stripe_data_of(const struct stripe *st, unsigned s, uint64_t mpage,
			unsigned *k);
/* Member page mpage of m missed a write: it is stale until copied again. */
bool stripe_missed(const struct member *m, uint64_t mpage);
void stripe_set_missed(struct member *m, uint64_t mpage, bool on);
/* Copy k of data page d may be read: its member is there and has it. */
bool stripe_copy_valid(const struct stripe *st, uint64_t d, unsigned k);

/* swap/stripe_resync.c: members away and back, re-replication, spares. */

/* A page of data is being copied to a member that missed it. */
bool stripe_resync_in_flight(const struct stripe *st, uint64_t data);
/* The completions of a member's header check and of a page's copy. */
void stripe_check_done(struct stripe *st, unsigned s, bool ok);
void stripe_resync_read_done(struct stripe *st, unsigned job, bool ok);
void stripe_resync_write_done(struct stripe *st, unsigned job, bool ok);
/* Members that went away or came back; copies for those that did. */
void stripe_watch_members(struct stripe *st);

#endif
