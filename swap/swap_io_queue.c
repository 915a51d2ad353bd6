// SPDX-License-Identifier: BSD-2-Clause
#include "swap/swap_io_queue.h"
#include "lib/string.h"

void swap_io_queue_init(struct swap_io_queue *q, unsigned device_slots)
{
	memset(q, 0, sizeof(*q));
	q->device_slots = MAX(1u, MIN(device_slots, SWAP_IO_IN_FLIGHT_MAX));
}

static bool ring_add(struct swap_io_ring *r, const struct swap_io *io)
{
	if (r->count == SWAP_QUEUE_MAX)
		return false;
	r->io[(r->head + r->count) % SWAP_QUEUE_MAX] = *io;
	r->count++;
	return true;
}

bool swap_io_queue_add(struct swap_io_queue *q, const struct swap_io *io)
{
	return ring_add(io->op == SWAP_IO_READ ? &q->reads : &q->writes, io);
}

unsigned swap_io_queue_waiting(const struct swap_io_queue *q)
{
	return q->reads.count + q->writes.count;
}

unsigned swap_io_queue_room_for_writes(const struct swap_io_queue *q)
{
	unsigned used = q->writes.count + SWAP_QUEUE_RESERVE;

	return used >= SWAP_QUEUE_MAX ? 0 : SWAP_QUEUE_MAX - used;
}

static int free_slot(const struct swap_io_queue *q)
{
	for (unsigned i = 0; i < SWAP_IO_IN_FLIGHT_MAX; i++)
		if (!q->at_device[i].used)
			return (int)i;
	return -1;
}

static struct swap_io_ring *next_ring(struct swap_io_queue *q)
{
	if (q->reads.count)
		return &q->reads;
	if (q->writes.count && q->writes_in_flight < SWAP_WRITES_AHEAD_MAX)
		return &q->writes;
	return NULL;
}

bool swap_io_queue_next(struct swap_io_queue *q, struct swap_io *io,
			void **cookie)
{
	struct swap_io_ring *r;
	int slot;

	if (q->in_flight >= q->device_slots)
		return false;
	r = next_ring(q);
	slot = free_slot(q);
	if (!r || slot < 0)
		return false;
	*io = r->io[r->head];
	*cookie = (void *)(uintptr_t)(slot + 1);
	q->next_ring = r;
	q->next_slot = (unsigned)slot;
	return true;
}

void swap_io_queue_submitted(struct swap_io_queue *q, uint64_t now)
{
	struct swap_io_ring *r = q->next_ring;
	struct swap_io_in_flight *f = &q->at_device[q->next_slot];

	if (!r)
		return;
	*f = (struct swap_io_in_flight){
		.io = r->io[r->head], .submitted_tsc = now, .used = true,
	};
	r->head = (r->head + 1) % SWAP_QUEUE_MAX;
	r->count--;
	q->in_flight++;
	if (f->io.op == SWAP_IO_WRITE)
		q->writes_in_flight++;
	else if (q->writes.count)
		q->reads_ahead_of_writes++;
	q->next_ring = NULL;
}

void swap_io_queue_unsubmit(struct swap_io_queue *q)
{
	q->next_ring = NULL;
}

const struct swap_io_in_flight *swap_io_queue_peek(const struct swap_io_queue *q,
						   void *cookie)
{
	uintptr_t n = (uintptr_t)cookie;

	if (n < 1 || n > SWAP_IO_IN_FLIGHT_MAX || !q->at_device[n - 1].used)
		return NULL;
	return &q->at_device[n - 1];
}

bool swap_io_queue_complete(struct swap_io_queue *q, void *cookie,
			    struct swap_io *io)
{
	uintptr_t n = (uintptr_t)cookie;
	struct swap_io_in_flight *f;

	if (n < 1 || n > SWAP_IO_IN_FLIGHT_MAX || !q->at_device[n - 1].used) {
		q->unknown_completions++;
		return false;
	}
	f = &q->at_device[n - 1];
	*io = f->io;
	f->used = false;
	q->in_flight--;
	if (io->op == SWAP_IO_WRITE)
		q->writes_in_flight--;
	return true;
}

bool swap_io_queue_oldest_overdue(struct swap_io_queue *q, uint64_t now,
				  uint64_t limit, struct swap_io *io,
				  uint64_t *age, bool *first)
{
	struct swap_io_in_flight *oldest = NULL;

	for (unsigned i = 0; i < SWAP_IO_IN_FLIGHT_MAX; i++) {
		struct swap_io_in_flight *f = &q->at_device[i];

		/* now may trail a request another CPU's TSC stamped. */
		if (f->used && now > f->submitted_tsc &&
		    now - f->submitted_tsc > limit &&
		    (!oldest || f->submitted_tsc < oldest->submitted_tsc))
			oldest = f;
	}
	if (!oldest)
		return false;
	*io = oldest->io;
	*age = now - oldest->submitted_tsc;
	*first = !oldest->reported;
	oldest->reported = true;
	return true;
}
