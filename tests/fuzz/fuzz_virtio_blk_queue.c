/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: swap/drivers/virtio_blk_queue.c with the fuzzer as the device.
 * The input is a script of steps: the driver submits a request, the
 * "device" writes an arbitrary used element, sets the used index to any
 * value, scribbles on a status byte, or the driver polls at a later time.
 * Whatever the device writes, the queue must stay inside its memory (the
 * sanitizers see the rings' exact allocation), hand each request back
 * exactly once, lose no slot, and once broken never read the rings again;
 * when the device's reset does not finish (at once, later or never), it
 * holds only reads, and only while broken.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/asan_interface.h>

#include "lib/console.h"
#include "swap/drivers/virtio_blk_queue.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_script.h"

#define MAX_REQUESTS 512

void hv_info(const char *fmt, ...)
{
	(void)fmt;
}

void hv_error(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	CHECK(strstr(line, "the disk is not used any more") != NULL ||
	      strstr(line, "a short read") != NULL);
}

static unsigned stops;
static bool reset_finishes;     /* what the next stop reports */

static bool stop(void *ctx)
{
	(void)ctx;
	stops++;
	return reset_finishes;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t page[PAGE_SIZE];
	/* 0: never submitted, 1: on the way, 2: handed back. */
	static uint8_t state[MAX_REQUESTS];
	struct fuzz_script s = { data, size };
	struct blk_completion c[VBLK_MAX_SLOTS];
	struct vblk_queue q;
	unsigned submitted = 0, returned = 0;
	uint64_t now = 0;
	bool poisoned = false;
	void *rings = aligned_alloc(PAGE_SIZE, VBLK_RING_PAGES * PAGE_SIZE);

	memset(&q, 0, sizeof(q));
	memset(state, 0, sizeof(state));
	stops = 0;
	reset_finishes = true;
	q.name = "virtio-blk 00:04.0";
	q.stop_device = stop;
	vblk_queue_init(&q, rings, (uint16_t)(4u << (fuzz_take(&s, 1) % 6)),
			64 * PAGE_SIZE, 1000);
	while (s.left) {
		unsigned step = fuzz_take(&s, 1), n;

		/* Broken: the device is stopped, the rings are off limits. */
		if (q.broken && step % 5 >= 1 && step % 5 <= 3)
			continue;
		switch (step % 5) {
		case 0: {               /* the driver submits */
			struct blk_request r = {
				.op = step & 0x80 ? BLK_WRITE : BLK_READ,
				.offset = (uint64_t)fuzz_take(&s, 1) * PAGE_SIZE,
				.buffer_pa = (uintptr_t)page,
				.cookie = (void *)(uintptr_t)(submitted + 1),
			};
			bool notify;

			if (submitted == MAX_REQUESTS)
				goto out;
			if (vblk_queue_submit(&q, &r, now, &notify) == 0) {
				state[submitted++] = 1;
			} else {
				CHECK(q.nfree == 0);
			}
			break;
		}
		case 1: {               /* a used element, index bumped */
			uint32_t id = fuzz_take(&s, 4), len = fuzz_take(&s, 4);

			q.used->ring[q.used->idx & (q.qsize - 1)] =
				(struct virtq_used_elem){ id, len };
			q.used->idx++;
			break;
		}
		case 2:                 /* any used index */
			q.used->idx = (uint16_t)fuzz_take(&s, 2);
			break;
		case 3:                 /* any status byte */
			q.dma->status[fuzz_take(&s, 1) % VBLK_MAX_SLOTS] =
				(uint8_t)fuzz_take(&s, 1);
			break;
		case 4:                 /* the driver polls, later */
			now += fuzz_take(&s, 2);
			/* A reset finishes at once, late, or never. */
			reset_finishes = now & 1;
			n = vblk_queue_poll(&q, c, 1 + step / 5 %
					    VBLK_MAX_SLOTS, now);
			for (unsigned i = 0; i < n; i++) {
				uintptr_t k = (uintptr_t)c[i].cookie;

				CHECK(k >= 1 && k <= submitted);
				CHECK(state[k - 1] == 1);
				state[k - 1] = 2;
				returned++;
			}
			break;
		}
		/* No slot lost or doubled. */
		CHECK(q.nfree <= q.nslots);
		CHECK(q.nfree + q.on_device + q.nlocal == q.nslots);
		CHECK(submitted - returned == q.on_device + q.nlocal);
		CHECK(q.broken ? stops >= 1 : stops == 0);
		/* Only reads are held, and only for an unfinished reset. */
		for (unsigned k = 0; k < q.nslots; k++)
			CHECK(!q.slot[k].held ||
			      (q.broken && q.slot[k].published &&
			       q.slot[k].op == BLK_READ));
		if (q.broken && !poisoned) {
			ASAN_POISON_MEMORY_REGION(rings, VBLK_RING_PAGES *
						  PAGE_SIZE);
			poisoned = true;
		}
	}
out:
	ASAN_UNPOISON_MEMORY_REGION(rings, VBLK_RING_PAGES * PAGE_SIZE);
	free(rings);
	return 0;
}
