/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fixture of the NVMe driver tests (test_nvme.c, test_nvme_io.c): the
 * fake controller of tests/unit/nvme_fake.c behind struct nvme_mmio_ops,
 * the driver's controller, the pages it allocates (freed by teardown()),
 * the error-line check and a controller brought up with one namespace.
 * Included once by each test program.
 */
#ifndef TESTS_UNIT_NVME_TEST_FIXTURE_H
#define TESTS_UNIT_NVME_TEST_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/console_capture.h"
#include "tests/unit/nvme_fake.h"
#include "swap/drivers/nvme_command.h"
#include "swap/drivers/nvme_identify.h"

#define NAME      "nvme 00:04.0"
#define MAX_PAGES 2048
#define POLL_LIMIT 100000

static struct fake_nvme fake;
static struct nvme_ctrl ctrl;
static void *pages[MAX_PAGES];
static unsigned npages;

static inline void *alloc_pages(unsigned n)
{
	void *p = aligned_alloc(4096, n * 4096ul);

	assert_non_null(p);
	assert_true(npages < MAX_PAGES);
	memset(p, 0, n * 4096ul);
	pages[npages++] = p;
	return p;
}

static inline int setup(void **state)
{
	(void)state;
	fake_nvme_init(&fake);
	memset(&ctrl, 0, sizeof(ctrl));
	snprintf(ctrl.name, sizeof(ctrl.name), NAME);
	ctrl.regs = (struct nvme_regs){ .ops = &fake_nvme_ops, .ctx = &fake,
					.ticks_per_ms = 1 };
	ctrl.regs_size = 0x4000;
	ctrl.alloc_pages = alloc_pages;
	console_forget();
	return 0;
}

static inline int teardown(void **state)
{
	(void)state;
	while (npages)
		free(pages[--npages]);
	fake_nvme_free(&fake);
	return 0;
}

static inline void expect_one_error(const char *line)
{
	assert_int_equal(console_nlines, 1);
	assert_string_equal(console_lines[0], line);
}

static inline struct blockdev *bring_up_one(unsigned lba_shift)
{
	fake_nvme_add_ns(&fake, 1, FAKE_NVME_DISK_BYTES >> lba_shift,
			 lba_shift);
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_OK);
	assert_int_equal(console_nlines, 1);
	assert_int_equal(ctrl.nns, 1);
	console_forget();
	return &ctrl.ns[0].bdev;
}

#endif
