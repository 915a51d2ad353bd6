/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fake physical memory for the EPT tests: table pages live in a heap arena
 * but have "host-physical" addresses FAKE_BASE + offset, so phys != virt and
 * any table address the code forgets to translate (or translates wrongly)
 * fails the checks in fake_phys_to_virt instead of silently working.
 * Tests of code that also writes guest frames through phys_to_virt add a
 * second arena of frames at FAKE_FRAME_BASE (fake_frames_init).
 */
#ifndef TESTS_UNIT_EPT_FAKE_H
#define TESTS_UNIT_EPT_FAKE_H

#include "ept/ept.h"

#define FAKE_BASE 0x100000000ull
#define FAKE_PAGES 2048
#define NO_FAIL (~0u)
/* Guest frames: far from the table pages, so the two cannot be confused. */
#define FAKE_FRAME_BASE 0x200000000ull

struct fake_mem {
	uint8_t *arena;
	unsigned used;          /* pages handed out */
	unsigned fail_at;       /* allocation number that fails first */
	uint8_t *frames;        /* NULL, or nframes pages at FAKE_FRAME_BASE */
	unsigned nframes;
};

struct fixture {
	struct fake_mem fm;
	struct ept ept;
};

uint64_t fake_alloc(void *ctx);
void *fake_phys_to_virt(void *ctx, uint64_t pa);

/*
 * Gives fm nframes frames at FAKE_FRAME_BASE, every byte set to fill, that
 * fake_phys_to_virt translates too (freed by ept_fixture_teardown); 0 or -1.
 */
int fake_frames_init(struct fake_mem *fm, unsigned nframes, uint8_t fill);

/* The memory of frame pa (4 KiB aligned, one of the frames), or fails. */
uint8_t *fake_frame(struct fake_mem *fm, uint64_t pa);

/* cmocka setup/teardown: a fixture with an initialised EPT. */
int ept_fixture_setup(void **state);
int ept_fixture_teardown(void **state);

/*
 * The test's own walk, as the CPU does it (SDM 29.3.2), checking on the way
 * that non-leaf entries are address | RWX and nothing else. Returns the leaf
 * entry so that tests can set A/D bits as the CPU would, or NULL.
 */
uint64_t *cpu_walk(struct fixture *f, uint64_t gpa, int *level);

#endif
