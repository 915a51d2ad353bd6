/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One host CPU's trace ring: variable-length records (lib/trace/trace_format.h)
 * in a byte buffer, written only by that CPU, read when the trace is
 * written out. Plain C over plain data (tests/unit/test_trace_ring.c).
 *
 * A record never wraps: when it does not fit before the end of the buffer,
 * the rest of the buffer becomes a gap (its first 8 bytes all ones, a TSC
 * no record has) and the record starts at byte 0. When the ring is full:
 * in stop mode the new record is lost (counted) and the ring stays as it
 * is, so the oldest events survive; in overwrite mode the oldest records
 * are dropped (counted) until the new one fits, so the newest survive.
 *
 * Reading while the owner writes: in stop mode nothing is ever removed,
 * so a reader that takes trace_ring_snapshot() first walks records that
 * stay valid; in overwrite mode read only when the writer has stopped.
 */
#ifndef LIB_TRACE_RING_H
#define LIB_TRACE_RING_H

#include "lib/types.h"

struct trace_ring {
	uint8_t *buf;
	uint32_t size;          /* bytes, a multiple of 8 */
	bool overwrite;
	uint32_t head;          /* offset of the oldest record */
	uint32_t tail;          /* offset where the next record goes */
	volatile uint32_t used; /* bytes from head to tail, gaps included */
	uint64_t kept;          /* records in the ring now */
	uint64_t lost;          /* records not kept (stop) or dropped */
	bool full;              /* stop mode: a record did not fit */
};

/* What a reader may walk: [head, head + used) as it was at the time. */
struct trace_ring_view {
	uint32_t head;
	uint32_t used;
};

/* buf: size bytes (a multiple of 8, at least 64). Empty. */
void trace_ring_init(struct trace_ring *r, void *buf, uint32_t size,
		     bool overwrite);

/*
 * Room for a record of size bytes (16 and up; at most a quarter of the
 * ring): returns where to write it, or NULL when it is lost. The record
 * counts once trace_ring_commit() is called.
 */
void *trace_ring_reserve(struct trace_ring *r, uint32_t size);
void trace_ring_commit(struct trace_ring *r, uint32_t size);

struct trace_ring_view trace_ring_snapshot(const struct trace_ring *r);

/*
 * Calls fn for each record of view, oldest first; returns how many. fn
 * gets the record (its size at TRACE_REC_SIZE).
 */
uint64_t trace_ring_walk(const struct trace_ring *r,
			 struct trace_ring_view view,
			 void (*fn)(void *ctx, const uint8_t *rec,
				    uint32_t size),
			 void *ctx);

#endif
