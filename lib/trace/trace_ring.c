// SPDX-License-Identifier: BSD-2-Clause
/*
 * The per-CPU trace ring (lib/trace/trace_ring.h). The live records lie from
 * head to tail, wrapping once at most (at a gap); free space is the rest.
 */
#include "lib/trace/trace_ring.h"
#include "lib/trace/trace_format.h"
#include "lib/string.h"

#define GAP_MARK 0xffffffffffffffffull

static bool is_gap(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v == GAP_MARK;
}

static uint32_t record_span_at(const uint8_t *p)
{
	uint16_t size;

	memcpy(&size, p + TRACE_REC_SIZE, sizeof(size));
	return trace_record_span(size);
}

void trace_ring_init(struct trace_ring *r, void *buf, uint32_t size,
		     bool overwrite)
{
	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->size = size & ~(uint32_t)(TRACE_RECORD_ALIGN - 1);
	r->overwrite = overwrite;
}

/* Overwrite mode: forget the oldest record (or the gap at the end). */
static void drop_oldest(struct trace_ring *r)
{
	const uint8_t *p = r->buf + r->head;

	if (is_gap(p)) {
		r->used -= r->size - r->head;
		r->head = 0;
		return;
	}
	r->used -= record_span_at(p);
	r->head += record_span_at(p);
	if (r->head == r->size)
		r->head = 0;
	r->kept--;
	r->lost++;
}

void *trace_ring_reserve(struct trace_ring *r, uint32_t size)
{
	uint32_t span = trace_record_span(size), gap = 0;

	if (r->used == 0)
		r->head = r->tail = 0;
	if (r->tail + span > r->size)
		gap = r->size - r->tail;
	if (r->size - r->used < gap + span) {
		if (!r->overwrite) {
			r->lost++;
			r->full = true;
			return NULL;
		}
		while (r->size - r->used < gap + span)
			drop_oldest(r);
	}
	if (gap) {
		uint64_t mark = GAP_MARK;

		memcpy(r->buf + r->tail, &mark, sizeof(mark));
		__atomic_thread_fence(__ATOMIC_RELEASE);
		r->used += gap;
		r->tail = 0;
	}
	return r->buf + r->tail;
}

void trace_ring_commit(struct trace_ring *r, uint32_t size)
{
	uint32_t span = trace_record_span(size);

	r->tail += span;
	if (r->tail == r->size)
		r->tail = 0;
	r->kept++;
	/* The record's bytes before the count a reader trusts. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	r->used += span;
}

struct trace_ring_view trace_ring_snapshot(const struct trace_ring *r)
{
	struct trace_ring_view v = { .head = r->head, .used = r->used };

	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return v;
}

uint64_t trace_ring_walk(const struct trace_ring *r,
			 struct trace_ring_view view,
			 void (*fn)(void *ctx, const uint8_t *rec,
				    uint32_t size),
			 void *ctx)
{
	uint32_t pos = view.head, left = view.used;
	uint64_t n = 0;

	while (left >= TRACE_RECORD_ALIGN) {
		const uint8_t *p = r->buf + pos;
		uint32_t span;
		uint16_t size;

		if (is_gap(p)) {
			if (r->size - pos > left)
				break;
			left -= r->size - pos;
			pos = 0;
			continue;
		}
		memcpy(&size, p + TRACE_REC_SIZE, sizeof(size));
		span = trace_record_span(size);
		if (size < TRACE_RECORD_HEADER || span > left ||
		    pos + span > r->size)
			break;          /* cannot happen: the writer is ours */
		fn(ctx, p, size);
		n++;
		pos += span;
		if (pos == r->size)
			pos = 0;
		left -= span;
	}
	return n;
}
