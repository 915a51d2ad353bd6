/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A guest with swap over fake hardware, for the tests of swap/guest_*.c:
 * EPT tables and frames in fake physical memory (ept_fake.h), a fake swap
 * device (an array of slot contents) whose requests wait in a queue until
 * the test completes them, in any order, well or badly, and a CPU that
 * sets the EPT accessed and dirty bits as it touches guest pages.
 */
#ifndef TESTS_UNIT_SWAP_FAKE_H
#define TESTS_UNIT_SWAP_FAKE_H

#include "swap/guest_memory.h"
#include "tests/unit/ept_fake.h"

/* Fill of frames and slots before first use: never all zero. */
#define SWAP_FAKE_GARBAGE 0x5a

struct swap_fake {
	struct fixture *ef;             /* EPT over fake memory */
	struct frame_pool pool;
	uint64_t *pool_storage;
	uint8_t *state;
	struct guest_page_meta *meta;
	struct swap_slots slots;
	uint64_t *slot_storage;
	uint8_t *disk;                  /* nslots pages */
	struct swap_io *queue;          /* I/O submitted, not completed */
	unsigned queued;
	unsigned submitted;             /* submissions ever */
	unsigned flushes;               /* flush callbacks */
	/* page_settled callbacks: how many, and the last one's arguments. */
	unsigned settled;
	uint64_t settled_gfn;
	bool settled_resident;
	/* Called by the flush callback (the guest lock is "dropped"). */
	void (*on_flush)(struct swap_fake *sf);
	void *test;                     /* the test's own state */
	unsigned npages, nframes, nslots;
	struct guest_memory gm;
};

/*
 * A guest of npages pages over nframes frames and nslots slots, swap
 * enabled with watermarks low/high. Fails the test when anything fails.
 */
struct swap_fake *swap_fake_new(unsigned npages, unsigned nframes,
				unsigned nslots, uint64_t low, uint64_t high);
void swap_fake_free(struct swap_fake *sf);

uint8_t *swap_fake_slot(struct swap_fake *sf, uint32_t slot);
uint8_t *swap_fake_frame(struct swap_fake *sf, uint64_t pa);

/* Index in the queue of the I/O of page gfn, or -1. */
int swap_fake_find(const struct swap_fake *sf, uint64_t gfn);

/*
 * Carries out queued I/O number i and reports it with guest_memory_io_done,
 * whose value it returns. ok: the data is copied (frame to slot or slot to
 * frame); !ok: the destination gets garbage, as from a transfer cut short.
 */
enum hv_err swap_fake_complete(struct swap_fake *sf, unsigned i, bool ok);

/* Completes everything queued, oldest first, well; returns how many. */
unsigned swap_fake_complete_all(struct swap_fake *sf);

/*
 * The CPU touching page gfn: when it is mapped, sets the accessed bit
 * (and the dirty bit for a write) in the EPT entry and returns the frame's
 * memory; NULL when it is not mapped (the CPU would exit).
 */
uint8_t *swap_fake_touch(struct swap_fake *sf, uint64_t gfn, bool write);

/*
 * touch, with a fault when not mapped: returns the frame once the page is
 * mapped, or NULL with *r set to the fault's result.
 */
uint8_t *swap_fake_access(struct swap_fake *sf, uint64_t gfn, bool write,
			  enum guest_fault_result *r);

#endif
