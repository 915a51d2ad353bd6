/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The reference model of test_guest_memory_model.c: what each guest page
 * holds and which state it must be in, kept by the test from what it did
 * and what the module reported, independently of the module's own records;
 * and the invariants checked against it after every step
 * (guest_model_check.c).
 */
#ifndef TESTS_UNIT_GUEST_MODEL_H
#define TESTS_UNIT_GUEST_MODEL_H

#include "tests/unit/swap_fake.h"

#define MODEL_PAGES 64
#define MODEL_FRAMES 16
#define MODEL_SLOTS 42
#define MODEL_VCPUS 3
#define MODEL_TLB 4
/*
 * The guest reads and writes 4 words per page, spread over it from its
 * first to its last 8 bytes; every other byte stays zero, which the
 * periodic full check verifies.
 */
#define MODEL_WORDS 4

struct model_page {
	uint64_t w[MODEL_WORDS];
	enum guest_page_state state;
	bool slot_valid;        /* the page's slot holds exactly w */
	bool victim;            /* unmapped by the running evict step */
	bool cancel;            /* taken back during its write, copy kept */
	bool lost;              /* its swap-in failed for good */
	unsigned tries;         /* failed attempts of its I/O in flight */
};

struct tlb_entry {
	bool valid;
	bool dirty;             /* cached with the dirty bit set */
	uint64_t gfn;
	uint64_t pa;
};

enum access_op { OP_READ, OP_WRITE, OP_CLEAR };

struct vcpu {
	bool pending;           /* an access waits to be retried */
	enum access_op op;
	uint64_t gfn;
	unsigned word;
	uint64_t value;
	unsigned no_frame;      /* NO_FRAME answers in a row */
	struct tlb_entry tlb[MODEL_TLB];
};

/* What happened, to show that the run went everywhere. */
struct model_counts {
	uint64_t accesses, tlb_hits, faults, retries_abandoned;
	uint64_t results[GUEST_FAULT_IO_ERROR + 1];
	uint64_t daemon_steps, victims, put_back;
	uint64_t completions, failed_completions, stale;
	uint64_t host_writes, window_cancels, window_activity;
	uint64_t write_cancels;         /* faults during a write */
	uint64_t full_checks;
	uint64_t retired;       /* slots whose write failed */
	uint64_t swap_full_reports;
	uint64_t discards, discarded;   /* report_free calls, pages dropped */
	uint64_t overwrites;            /* whole_page_store calls */
};

struct sim {
	struct swap_fake *sf;
	struct model_page page[MODEL_PAGES];
	struct vcpu vcpu[MODEL_VCPUS];
	uint64_t rng;
	uint64_t step;
	uint64_t hot_base;      /* the guest's working set drifts */
	bool hog;               /* writing everywhere, clearing nothing */
	int bad_slot;           /* every I/O on it fails; -1: none */
	bool in_flush;          /* inside the daemon's flush window */
	/* Inside guest_memory_discard of these pages (report_free). */
	bool discarding;
	uint64_t discard_first, discard_n;
	uint64_t old_ids[16];   /* completed I/O ids, for stale reports */
	unsigned nold;
	struct model_counts n;
};

/* Fails the test, naming the step (include after cmocka.h). */
#define FAIL(s, fmt, ...)                                                   \
	fail_msg("step %llu: " fmt, (unsigned long long)(s)->step,           \
		 ##__VA_ARGS__)

static inline unsigned word_offset(unsigned k)
{
	return k * (PAGE_SIZE - 8) / (MODEL_WORDS - 1) / 8 * 8;
}

static inline uint64_t *frame_word(uint8_t *page, unsigned k)
{
	return (uint64_t *)(page + word_offset(k));
}

/* All invariants; full adds a byte-by-byte check of every page. */
void model_check(struct sim *s, bool full);

/* A failed write's slot is retired (never handed out again). */
void model_check_retired(struct sim *s, const struct swap_io *io);

/*
 * After a failed completion of io (free_slots: free before it): checks the
 * retry (a write on a fresh slot, the failed one retired; a read on the
 * same slot) and returns whether one was due.
 */
bool model_retry_expected(struct sim *s, const struct swap_io *io,
			  uint32_t free_slots);

/* Checks the page_settled events since before: want (0 or 1) of them. */
void model_check_settled(struct sim *s, const struct swap_io *io,
			 unsigned before, bool want);

/* Page gfn, just mapped by an I/O's end: accessed bit set, dirty clear. */
void model_check_fresh_mapping(struct sim *s, uint64_t gfn);

/* Prints what the run did, from the module's counters and the test's. */
void model_report(const struct sim *s, double secs);

/* Fails unless every path of the module was taken at least once. */
void model_check_coverage(const struct sim *s);

#endif
