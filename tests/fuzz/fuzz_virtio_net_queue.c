/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: net/drivers/virtio_net_queue.c with the fuzzer as the
 * device. The input is a script of steps: the driver transmits a frame of
 * any length, the "device" writes an arbitrary used element into either
 * queue, sets either used index to any value, writes bytes anywhere in
 * the memory it shares with the driver (rings, descriptors, buffers), or
 * the driver receives. Whatever the device writes, the queues must stay
 * inside their memory (the sanitizers see its exact allocation), hand the
 * caller no frame longer than NIC_FRAME_MAX nor shorter than an Ethernet
 * header, copy exactly the bytes the device put after the header, lose
 * or double no buffer, count every frame, drop and busy, break at most
 * once with exactly one error line and one stop, and once broken never
 * touch the shared memory again.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/asan_interface.h>

#include "lib/console.h"
#include "net/drivers/virtio_net_queue.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_script.h"

#define MEM_BYTES (VNET_MEM_PAGES * PAGE_SIZE)

static unsigned error_lines, stops;

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
	CHECK(strstr(line, "net: virtio-net 00:04.0: ") == line);
	CHECK(strstr(line, "the interface is not used any more") != NULL);
	error_lines++;
}

static void stop(void *ctx)
{
	(void)ctx;
	stops++;
}

/* Buffers on the device agree with the counts; no free one doubled. */
static void check_books(const struct vnet_queue *q)
{
	unsigned rx_posted = 0, tx_posted = 0;
	bool seen[VNET_QUEUE_SIZE] = { false };

	for (unsigned i = 0; i < VNET_QUEUE_SIZE; i++) {
		rx_posted += q->rx.posted[i];
		tx_posted += q->tx.posted[i];
		CHECK(i < q->rx.size || !q->rx.posted[i]);
		CHECK(i < q->tx.size || !q->tx.posted[i]);
	}
	/* A receive buffer is given back before another is looked at. */
	CHECK(q->rx.on_device == q->rx.size && rx_posted == q->rx.size);
	CHECK(q->tx.on_device == tx_posted);
	CHECK(q->tx_nfree + q->tx.on_device == q->tx.size);
	for (unsigned i = 0; i < q->tx_nfree; i++) {
		uint16_t id = q->tx_free[i];

		CHECK(id < q->tx.size && !q->tx.posted[id] && !seen[id]);
		seen[id] = true;
	}
}

/* The frame just published: one descriptor, header zeroed, padded. */
static void check_sent(const struct vnet_queue *q, const uint8_t *frame,
		       size_t len)
{
	static const uint8_t zeros[NIC_FRAME_MIN + VNET_HDR_LEN];
	uint16_t id = q->tx.avail->ring[(uint16_t)(q->tx.avail_idx - 1) &
					 (q->tx.size - 1)];
	const struct virtq_desc *d = &q->tx.desc[id];
	const uint8_t *b = (const uint8_t *)(uintptr_t)d->addr;
	size_t padded = len < NIC_FRAME_MIN ? NIC_FRAME_MIN : len;

	CHECK(id < q->tx.size && q->tx.posted[id]);
	CHECK(b == q->tx.buf + (size_t)id * VNET_BUF_STRIDE);
	CHECK(d->flags == 0 && d->len == VNET_HDR_LEN + padded);
	CHECK(memcmp(b, zeros, VNET_HDR_LEN) == 0);
	CHECK(memcmp(b + VNET_HDR_LEN, frame, len) == 0);
	CHECK(memcmp(b + VNET_HDR_LEN + len, zeros, padded - len) == 0);
	CHECK(*(volatile uint16_t *)&q->tx.avail->idx == q->tx.avail_idx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t frame[NIC_FRAME_MAX + 64], in[NIC_FRAME_MAX + 64];
	struct fuzz_script s = { data, size };
	uint64_t frames_out = 0, frames_in = 0, busy = 0, dropped = 0;
	bool poisoned = false;
	struct vnet_queue q;
	uint8_t *mem = aligned_alloc(PAGE_SIZE, MEM_BYTES);
	unsigned sizes = (unsigned)fuzz_take(&s, 1);

	memset(mem, 0, MEM_BYTES);
	memset(&q, 0, sizeof(q));
	error_lines = stops = 0;
	q.name = "virtio-net 00:04.0";
	q.stop_device = stop;
	/* 1 to 128 descriptors each (more is cut down to 64). */
	vnet_queue_init(&q, mem, (uint16_t)(1u << (sizes & 7)),
			(uint16_t)(1u << (sizes >> 3 & 7)));
	check_books(&q);
	while (s.left) {
		unsigned step = (unsigned)fuzz_take(&s, 1);
		struct vnet_ring *r = step & 0x80 ? &q.tx : &q.rx;

		/* Broken: the device is stopped, the memory is off limits. */
		if (q.broken && step % 6 >= 1 && step % 6 <= 3)
			continue;
		switch (step % 6) {
		case 0: {               /* the driver transmits */
			size_t len = fuzz_take(&s, 2) % (NIC_FRAME_MAX + 20);
			bool notify;
			enum hv_err err;

			memset(frame, (int)fuzz_take(&s, 1), len);
			frame[0] = (uint8_t)step;
			err = vnet_queue_transmit(&q, frame, len, &notify);
			if (q.broken) {
				CHECK(err == HV_ERR_DEVICE && !notify);
			} else if (len < NIC_ETH_HEADER ||
				   len > NIC_FRAME_MAX) {
				CHECK(err == HV_ERR_INVALID && !notify);
			} else if (err == HV_ERR_BUSY) {
				CHECK(q.tx_nfree == 0 && !notify);
				busy++;
			} else {
				CHECK(err == HV_OK);
				check_sent(&q, frame, len);
				frames_out++;
			}
			break;
		}
		case 1: {               /* a used element, index bumped */
			uint16_t idx = r->used->idx;

			r->used->ring[idx & (r->size - 1)] =
				(struct virtq_used_elem){
					(uint32_t)fuzz_take(&s, 4),
					(uint32_t)fuzz_take(&s, 4) };
			/* Mostly ids in range, lengths near a frame's. */
			if (step & 0x40) {
				r->used->ring[idx & (r->size - 1)].id %=
					r->size;
				r->used->ring[idx & (r->size - 1)].len %=
					VNET_RX_BUF_LEN + 8;
			}
			__atomic_store_n(&r->used->idx, (uint16_t)(idx + 1),
					 __ATOMIC_RELEASE);
			break;
		}
		case 2:                 /* any used index */
			r->used->idx = (uint16_t)fuzz_take(&s, 2);
			break;
		case 3:                 /* bytes anywhere in shared memory */
			mem[fuzz_take(&s, 3) % MEM_BYTES] =
				(uint8_t)fuzz_take(&s, 1);
			break;
		case 4:
		case 5: {               /* the driver receives */
			uint64_t dropped_before = q.rx_dropped;
			uint16_t seen_before = q.rx.used_seen, taken;
			bool notify;
			size_t n;

			memset(in, 0xee, sizeof(in));
			n = vnet_queue_receive(&q, in, &notify);
			CHECK(n == 0 || (n >= NIC_ETH_HEADER &&
					 n <= NIC_FRAME_MAX));
			/* Nothing written past the frame. */
			for (size_t i = n; i < sizeof(in); i++)
				CHECK(in[i] == 0xee);
			/* Each element taken was a frame or a drop... */
			taken = (uint16_t)(q.rx.used_seen - seen_before);
			CHECK(taken <= q.rx.size);
			CHECK(q.rx_dropped - dropped_before + (n > 0) == taken);
			dropped += q.rx_dropped - dropped_before;
			/* ... and each drop had a length no frame has. */
			for (uint16_t i = 0; i < taken - (n > 0); i++) {
				uint32_t len = q.rx.used->ring[
					(uint16_t)(seen_before + i) &
					(q.rx.size - 1)].len;

				CHECK(len < VNET_RX_MIN_LEN ||
				      len > VNET_RX_BUF_LEN);
			}
			CHECK(!q.broken || !notify);
			if (n) {
				/* The last element taken: its buffer. */
				const struct virtq_used_elem *e =
					&q.rx.used->ring[(uint16_t)
						(q.rx.used_seen - 1) &
						(q.rx.size - 1)];

				CHECK(e->len == n + VNET_HDR_LEN &&
				      e->id < q.rx.size);
				CHECK(memcmp(in, q.rx.buf + (size_t)e->id *
					     VNET_BUF_STRIDE + VNET_HDR_LEN,
					     n) == 0);
				frames_in++;
			}
			break;
		}
		}
		CHECK(q.tx_frames == frames_out && q.rx_frames == frames_in);
		CHECK(q.tx_busy == busy && q.rx_dropped == dropped);
		CHECK(q.broken ? stops == 1 && error_lines == 1 :
				 stops == 0 && error_lines == 0);
		if (q.broken && !poisoned) {
			ASAN_POISON_MEMORY_REGION(mem, MEM_BYTES);
			poisoned = true;
		}
		check_books(&q);
	}
	ASAN_UNPOISON_MEMORY_REGION(mem, MEM_BYTES);
	free(mem);
	return 0;
}
