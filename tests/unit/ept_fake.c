/* SPDX-License-Identifier: BSD-2-Clause */
/* Fake physical memory for the EPT tests (see ept_fake.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/ept_fake.h"

uint64_t fake_alloc(void *ctx)
{
	struct fake_mem *fm = ctx;
	uint8_t *page;

	if (fm->used >= fm->fail_at || fm->used == FAKE_PAGES)
		return 0;
	page = fm->arena + (size_t)fm->used * PAGE_SIZE;
	memset(page, 0, PAGE_SIZE);
	return FAKE_BASE + (uint64_t)fm->used++ * PAGE_SIZE;
}

void *fake_phys_to_virt(void *ctx, uint64_t pa)
{
	struct fake_mem *fm = ctx;

	if (fm->frames && pa >= FAKE_FRAME_BASE)
		return fake_frame(fm, pa);
	/* Otherwise only table pages handed out are ever translated. */
	if (pa < FAKE_BASE || pa >= FAKE_BASE + fm->used * PAGE_SIZE ||
	    !IS_ALIGNED(pa, PAGE_SIZE))
		fail_msg("phys_to_virt(%#llx): not a table page",
			 (unsigned long long)pa);
	return fm->arena + (pa - FAKE_BASE);
}

int fake_frames_init(struct fake_mem *fm, unsigned nframes, uint8_t fill)
{
	fm->frames = aligned_alloc(PAGE_SIZE, (size_t)nframes * PAGE_SIZE);
	if (!fm->frames)
		return -1;
	memset(fm->frames, fill, (size_t)nframes * PAGE_SIZE);
	fm->nframes = nframes;
	return 0;
}

uint8_t *fake_frame(struct fake_mem *fm, uint64_t pa)
{
	if (!fm->frames || pa < FAKE_FRAME_BASE ||
	    pa >= FAKE_FRAME_BASE + (uint64_t)fm->nframes * PAGE_SIZE ||
	    !IS_ALIGNED(pa, PAGE_SIZE))
		fail_msg("phys_to_virt(%#llx): not a guest frame",
			 (unsigned long long)pa);
	return fm->frames + (pa - FAKE_FRAME_BASE);
}

int ept_fixture_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct ept_memory mem = {
		.alloc_table = fake_alloc,
		.phys_to_virt = fake_phys_to_virt,
	};

	if (!f)
		return -1;
	*state = f;
	f->fm.arena = aligned_alloc(PAGE_SIZE, FAKE_PAGES * PAGE_SIZE);
	if (!f->fm.arena)
		return -1;
	/* Garbage, so that relying on never-zeroed memory shows. */
	memset(f->fm.arena, 0xa5, FAKE_PAGES * PAGE_SIZE);
	f->fm.fail_at = NO_FAIL;
	mem.ctx = &f->fm;
	return ept_init(&f->ept, &mem) == HV_OK ? 0 : -1;
}

int ept_fixture_teardown(void **state)
{
	struct fixture *f = *state;

	free(f->fm.frames);
	free(f->fm.arena);
	free(f);
	return 0;
}

uint64_t *cpu_walk(struct fixture *f, uint64_t gpa, int *level)
{
	uint64_t pa = f->ept.pml4_pa;

	for (int lvl = 4;; lvl--) {
		uint64_t *t = fake_phys_to_virt(&f->fm, pa);
		uint64_t *e = &t[(gpa >> (12 + 9 * (lvl - 1))) & 511];

		if (!(*e & EPT_RWX))
			return NULL;
		if (lvl == 1 || (lvl == 2 && (*e & EPT_LARGE_PAGE))) {
			*level = lvl;
			return e;
		}
		assert_int_equal(*e & ~(EPT_ADDR_MASK | EPT_ACCESSED), EPT_RWX);
		pa = *e & EPT_ADDR_MASK;
	}
}
