/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The compressed tier (swap.tier = lz4): evicted pages kept compressed in
 * host memory instead of written to the disk, as zswap and Google's far
 * memory keep cold pages in a compressed pool before (or instead of) a
 * swap device. A fault on such a page expands it into a fresh frame at
 * once: no I/O, so no async page fault is needed.
 *
 * The pool is swap.tier_size bytes of slots of TIER_SLOT_BYTES each (two
 * per page, as zswap's first allocator, zbud, kept two compressed pages
 * in a page): a page goes to the tier only when lz4 shrinks it to half a
 * page or less; one that does not goes to the disk. When the pool is full
 * the oldest page in it (the coldest: a page leaves the pool when it is
 * touched) moves on to the disk, as zswap writes back its LRU entry: the
 * new page takes its slot, and the older one is expanded into the new
 * one's frame for the write (compressed_tier_store_moving_out). With
 * debug.swap_verify each slot keeps the page's checksum, checked when it
 * is expanded.
 *
 * A page that does not shrink still costs its compression. After
 * TIER_MISSES_BEFORE_SKIP such pages in a row only one page in
 * TIER_SKIP_PERIOD is tried (the rest go to the disk untried, counted as
 * tier.skipped) until one shrinks: a workload of incompressible pages
 * pays a sixteenth of the attempts.
 *
 * Plain C over memory the caller gives (swap/swap_daemon.c: the heap), no
 * lock of its own: the guest memory's lock covers it.
 */
#ifndef SWAP_COMPRESSED_TIER_H
#define SWAP_COMPRESSED_TIER_H

#include "lib/counters.h"
#include "lib/types.h"
#include "swap/page_compress.h"

#define TIER_SLOT_BYTES (PAGE_SIZE / 2)
#define TIER_NO_SLOT 0xffffffffu
#define TIER_MISSES_BEFORE_SKIP 8
#define TIER_SKIP_PERIOD 16

#define COMPRESSED_TIER_COUNTERS(X)                                          \
	X(struct compressed_tier_stats, stores, "tier.stores")               \
	X(struct compressed_tier_stats, loads, "tier.loads")                 \
	X(struct compressed_tier_stats, too_big, "tier.too_big")             \
	X(struct compressed_tier_stats, skipped, "tier.skipped")             \
	X(struct compressed_tier_stats, full, "tier.full")                   \
	X(struct compressed_tier_stats, dropped, "tier.dropped")             \
	X(struct compressed_tier_stats, moved_out, "tier.moved_out")         \
	X(struct compressed_tier_stats, verify_mismatches,                   \
	  "tier.verify_mismatches")                                          \
	X(struct compressed_tier_stats, bytes_in_use, "tier.bytes_in_use")

struct compressed_tier_stats {
	uint64_t stores;        /* pages compressed into a slot */
	uint64_t loads;         /* pages expanded back (a fault) */
	uint64_t too_big;       /* pages that did not shrink enough: disk */
	uint64_t skipped;       /* not tried after misses in a row: disk */
	uint64_t full;          /* pages turned away, no slot free: disk */
	uint64_t dropped;       /* slots given up without a load */
	uint64_t moved_out;     /* oldest pages expanded for the disk */
	uint64_t verify_mismatches;     /* expanded page not as stored */
	uint64_t bytes_in_use;  /* compressed bytes held now */
};

struct compressed_tier {
	uint8_t *arena;         /* nslots * TIER_SLOT_BYTES */
	uint32_t nslots;
	uint32_t *free_slots;   /* a stack of the free ones */
	uint32_t nfree;
	uint16_t *len;          /* per slot: bytes held */
	/*
	 * Per slot: the page's CRC-32, or NULL. Not lib/checksum.h's: its
	 * rotations cancel for a change repeated every 32 bytes, which a page
	 * of records can have.
	 */
	uint32_t *sum;
	void *state;            /* lz4's: PAGE_COMPRESS_STATE_SIZE bytes */
	uint8_t *scratch;       /* TIER_SLOT_BYTES: a page compressed */
	/* Per slot: the caller's name for the page held (its owner). */
	uint32_t *owner;
	/* The slots in use, oldest first: a list through prev and next. */
	uint32_t *prev, *next;
	uint32_t oldest, newest;        /* TIER_NO_SLOT: none */
	uint32_t misses;        /* pages in a row that did not shrink */
	uint32_t skip_left;     /* pages to send on untried */
	struct compressed_tier_stats stats;
};

/* Bytes of storage for nslots slots (with checksums when verify). */
size_t compressed_tier_storage(uint32_t nslots, bool verify);

/* Every slot free; storage: compressed_tier_storage bytes, 8-aligned. */
void compressed_tier_init(struct compressed_tier *t, void *storage,
			  uint32_t nslots, bool verify);

enum tier_store_result {
	TIER_STORED,
	TIER_TOO_BIG,           /* lz4 could not bring it to a slot's size,
				 * or it was not tried (tier.skipped) */
	TIER_FULL,              /* no slot free */
	/* compressed_tier_store_moving_out: */
	TIER_MOVED_OUT,         /* stored; page holds the oldest one now */
	TIER_MOVED_OUT_LOST,    /* stored; the oldest did not expand: lost */
};

/* The 4 KiB page at page, named owner, into a free slot (*slot). */
enum tier_store_result compressed_tier_store(struct compressed_tier *t,
					     const void *page, uint32_t owner,
					     uint32_t *slot);

/*
 * The pool is full: the page at page, named owner, takes the slot (*slot)
 * of the oldest page in the pool, which is expanded into page in its
 * place, for the caller to write to the disk; *moved names it.
 * TIER_MOVED_OUT; TIER_MOVED_OUT_LOST when the oldest did not expand to
 * what was stored (it is lost; page holds nothing of use); TIER_TOO_BIG
 * (nothing changed); TIER_FULL when the pool holds no page (no slots).
 */
enum tier_store_result
compressed_tier_store_moving_out(struct compressed_tier *t, void *page,
				 uint32_t owner, uint32_t *slot,
				 uint32_t *moved);

/*
 * Slot's page expanded into the 4 KiB at page; the slot is free after.
 * False when it did not expand to exactly a page or (with checksums) is
 * not the page stored: page must not be used then.
 */
bool compressed_tier_load(struct compressed_tier *t, uint32_t slot,
			  void *page);

/* Slot given up unread (its page written over, or dropped). */
void compressed_tier_drop(struct compressed_tier *t, uint32_t slot);

#endif
