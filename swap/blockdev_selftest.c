// SPDX-License-Identifier: BSD-2-Clause
/*
 * The block driver self-test. Two passes over the first SELFTEST_PAGES
 * slots (or all of them on a smaller area): write every slot, then read
 * every slot back, each pass keeping as many requests in flight as the
 * device takes. Every 8-byte word of slot s holds (nonce << 32 | s * 512 +
 * word), so a page landing in the wrong slot, a stale page from an earlier
 * run and a torn page are all told apart from the right one. Read buffers
 * are poisoned before each read, so data left from the write pass cannot
 * pass for data read back.
 */
#include "swap/blockdev_selftest.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"
#include "lib/trace/trace.h"
#include "lib/heap.h"
#include "lib/console.h"
#include "lib/string.h"
#include "swap/swap_device.h"

#define SELFTEST_PAGES       4096
#define SELFTEST_MAX_BUFFERS 64
#define SELFTEST_TIMEOUT_MS  10000
#define SELFTEST_SHOW_MISMATCHES 3
#define WORDS_PER_PAGE (PAGE_SIZE / sizeof(uint64_t))
#define POISON 0xa5

struct st_buffer {
	uint64_t *page;
	uint64_t slot;
	uint64_t submitted_tsc;         /* trace = on */
	bool busy;
};

struct selftest {
	struct blockdev *dev;
	struct swap_header_info hdr;
	uint64_t pages;
	uint32_t nonce;
	struct st_buffer buf[SELFTEST_MAX_BUFFERS];
	unsigned nbuf;
	uint64_t written, read, mismatches, errors;
	bool stalled;
};

static uint64_t pattern(const struct selftest *t, uint64_t slot, unsigned w)
{
	return (uint64_t)t->nonce << 32 |
	       (uint32_t)(slot * WORDS_PER_PAGE + w);
}

static void fill(const struct selftest *t, struct st_buffer *b)
{
	for (unsigned w = 0; w < WORDS_PER_PAGE; w++)
		b->page[w] = pattern(t, b->slot, w);
}

/* Counts a page that differs anywhere; shows the first few. */
static void verify(struct selftest *t, const struct st_buffer *b)
{
	for (unsigned w = 0; w < WORDS_PER_PAGE; w++) {
		uint64_t want = pattern(t, b->slot, w);

		if (b->page[w] == want)
			continue;
		if (t->mismatches < SELFTEST_SHOW_MISMATCHES)
			hv_error("blockdev selftest: slot %llu word %u: "
				 "expected 0x%016llx, got 0x%016llx",
				 (unsigned long long)b->slot, w,
				 (unsigned long long)want,
				 (unsigned long long)b->page[w]);
		t->mismatches++;
		return;
	}
}

static struct st_buffer *free_buffer(struct selftest *t)
{
	for (unsigned i = 0; i < t->nbuf; i++)
		if (!t->buf[i].busy)
			return &t->buf[i];
	return NULL;
}

/*
 * trace = on: the self-test's I/O as swap I/O of slots (gpa 0: no guest
 * page), so a trace can be recorded where no guest runs (QEMU TCG).
 */
static void trace_selftest_io(struct st_buffer *b, enum blk_op op, bool done,
			      bool ok)
{
	uint32_t slot = (uint32_t)b->slot;
	uint64_t latency;

	if (!trace_on)
		return;
	if (!done) {
		b->submitted_tsc = trace_clock();
		if (op == BLK_WRITE)
			trace_swap_out_submit_at(b->submitted_tsc,
						 TRACE_NO_VCPU, 0, slot);
		else
			trace_swap_in_submit_at(b->submitted_tsc,
						TRACE_NO_VCPU, 0, slot);
		return;
	}
	latency = trace_clock() - b->submitted_tsc;
	if (op == BLK_WRITE)
		trace_swap_out_done(TRACE_NO_VCPU, 0, slot, ok, latency);
	else
		trace_swap_in_done(TRACE_NO_VCPU, 0, slot, ok, latency);
}

/* Submits slot *next from a free buffer; false when nothing was taken. */
static bool submit_one(struct selftest *t, enum blk_op op, uint64_t *next)
{
	struct st_buffer *b = free_buffer(t);
	struct blk_request req;

	if (!b || *next >= t->pages)
		return false;
	b->slot = *next;
	if (op == BLK_WRITE)
		fill(t, b);
	else
		memset(b->page, POISON, PAGE_SIZE);
	req = (struct blk_request){
		.op = op,
		.offset = swap_slot_offset(b->slot),
		.buffer_pa = (uint64_t)(uintptr_t)b->page,
		.cookie = b,
	};
	if (blk_submit(t->dev, &req))
		return false;           /* queue full: poll first */
	b->busy = true;
	trace_selftest_io(b, op, false, true);
	(*next)++;
	return true;
}

static unsigned harvest(struct selftest *t, enum blk_op op)
{
	struct blk_completion c[SELFTEST_MAX_BUFFERS];
	unsigned n = blk_poll(t->dev, c, t->nbuf);

	for (unsigned i = 0; i < n; i++) {
		struct st_buffer *b = c[i].cookie;

		b->busy = false;
		trace_selftest_io(b, op, true, c[i].status == BLK_OK);
		if (c[i].status != BLK_OK) {
			if (t->errors++ < SELFTEST_SHOW_MISMATCHES)
				hv_error("blockdev selftest: %s of slot %llu "
					 "failed (blk_status %d)",
					 op == BLK_WRITE ? "write" : "read",
					 (unsigned long long)b->slot,
					 (int)c[i].status);
			continue;
		}
		if (op == BLK_WRITE) {
			t->written++;
		} else {
			t->read++;
			verify(t, b);
		}
	}
	return n;
}

/* hv_main calibrates the TSC first; the fallback only guards against 0. */
static uint64_t timeout_ticks(void)
{
	return (tsc_hz ? tsc_hz : 1000000000ull) / 1000 * SELFTEST_TIMEOUT_MS;
}

/* One pass over all test slots; returns the TSC ticks it took. */
static uint64_t run_pass(struct selftest *t, enum blk_op op)
{
	uint64_t next = 0, start = rdtsc(), last = start;
	unsigned in_flight = 0;

	while (next < t->pages || in_flight) {
		unsigned done;

		while (submit_one(t, op, &next))
			in_flight++;
		done = harvest(t, op);
		in_flight -= done;
		if (done) {
			last = rdtsc();
		} else if (rdtsc() - last > timeout_ticks()) {
			hv_error("blockdev selftest: %s: no completion for "
				 "%u ms with %u requests in flight",
				 t->dev->name, SELFTEST_TIMEOUT_MS, in_flight);
			t->stalled = true;
			break;
		} else {
			cpu_relax();
		}
	}
	return rdtsc() - start;
}

static uint64_t ticks_ms(uint64_t ticks)
{
	return tsc_hz ? ticks * 1000 / tsc_hz : 0;
}

/* The header must be exactly as swap_device_open found it. */
static bool header_intact(struct selftest *t)
{
	uint8_t *page = (uint8_t *)(uintptr_t)hv_alloc_pages_low(1);
	struct swap_header_info now;
	char err[160];

	if (blk_run_sync(t->dev, BLK_READ, 0, (uint64_t)(uintptr_t)page,
			 SELFTEST_TIMEOUT_MS) != HV_OK) {
		hv_error("blockdev selftest: the header page could not be "
			 "read back");
		return false;
	}
	if (swap_header_parse(page, t->dev->size, &now, err, sizeof(err))) {
		hv_error("blockdev selftest: the header page changed: %s", err);
		return false;
	}
	if (memcmp(&now, &t->hdr, sizeof(now))) {
		hv_error("blockdev selftest: the header page changed");
		return false;
	}
	return true;
}

static void setup(struct selftest *t)
{
	uint64_t pa;

	t->pages = MIN(t->hdr.page_count, SELFTEST_PAGES);
	t->nbuf = MIN(t->dev->queue_depth, SELFTEST_MAX_BUFFERS);
	if (!t->nbuf)
		t->nbuf = 1;
	pa = hv_alloc_pages_low(t->nbuf);
	for (unsigned i = 0; i < t->nbuf; i++)
		t->buf[i].page = (uint64_t *)(uintptr_t)(pa + i * PAGE_SIZE);
	/* A new nonce per run: an earlier run's data must not pass. */
	t->nonce = (uint32_t)(rdtsc() ^ (rdtsc() >> 32)) | 1;
}

void blockdev_selftest_run(enum swap_device_kind kind)
{
	static struct selftest t;
	uint64_t wticks, rticks;
	bool pass;

	if (kind == SWAP_DEVICE_NONE) {
		hv_error("blockdev selftest: swap.device = none: no device to "
			 "test");
		return;
	}
	t.dev = swap_device_open(kind, &t.hdr);
	if (!t.dev)
		return;
	setup(&t);
	hv_info("blockdev selftest: %s, %llu pages from slot 0, %u in "
		"flight, nonce 0x%08x", t.dev->name,
		(unsigned long long)t.pages, t.nbuf, t.nonce);
	wticks = run_pass(&t, BLK_WRITE);
	rticks = t.stalled ? 0 : run_pass(&t, BLK_READ);
	pass = !t.stalled && header_intact(&t) && !t.mismatches &&
	       !t.errors && t.written == t.pages && t.read == t.pages;
	hv_info("blockdev selftest: wrote %llu pages, read %llu pages, "
		"mismatches %llu, errors %llu", (unsigned long long)t.written,
		(unsigned long long)t.read, (unsigned long long)t.mismatches,
		(unsigned long long)t.errors);
	hv_info("blockdev selftest: writes %llu ms, reads %llu ms",
		(unsigned long long)ticks_ms(wticks),
		(unsigned long long)ticks_ms(rticks));
	if (t.pages)
		hv_info("blockdev selftest: writes %llu cycles/page, reads %llu "
			"cycles/page (%u in flight)",
			(unsigned long long)(wticks / t.pages),
			(unsigned long long)(rticks / t.pages), t.nbuf);
	hv_info("blockdev selftest: %s", pass ? "PASS" : "FAIL");
}
