// SPDX-License-Identifier: BSD-2-Clause
/* The device side of a split virtqueue: see virtq_device.h. */
#include "guest/devices/virtq_device.h"

/* Offsets in the driver and device areas (VIRTIO 1.2, 2.7.6 and 2.7.8). */
#define AVAIL_FLAGS 0
#define AVAIL_IDX 2
#define AVAIL_RING 4
#define USED_IDX 2
#define USED_RING 4

void virtq_device_reset(struct virtq_device *q, uint16_t max)
{
	*q = (struct virtq_device){ .size = max, .max = max };
}

bool virtq_device_size_ok(const struct virtq_device *q, uint16_t size)
{
	return size && size <= q->max && !(size & (size - 1));
}

static enum virtq_pop broken(struct virtq_device *q, const char *why)
{
	q->broken = true;
	q->why_broken = why;
	return VIRTQ_BROKEN;
}

static bool read16(const struct virtq_ram *ram, uint64_t gpa, uint16_t *v)
{
	return ram->read(ram->ctx, gpa, v, sizeof(*v)) == 0;
}

/* Walks the chain from head into out. */
static enum virtq_pop walk_chain(struct virtq_device *q,
				 const struct virtq_ram *ram, uint16_t head,
				 struct virtq_buffer *out)
{
	uint16_t i = head;
	bool writable_seen = false;

	out->head = head;
	out->nsegs = 0;
	for (;;) {
		struct virtq_desc d;

		if (i >= q->size)
			return broken(q, "a descriptor index past the queue");
		if (out->nsegs == VIRTQ_MAX_SEGS || out->nsegs == q->size)
			return broken(q, "a descriptor chain longer than the "
					 "queue (a loop?)");
		if (ram->read(ram->ctx, q->desc + VIRTQ_DESC_BYTES(i), &d,
			      sizeof(d)))
			return broken(q, "the descriptor table is not guest RAM");
		if (d.flags & VIRTQ_DESC_F_INDIRECT)
			return broken(q, "an indirect descriptor (not offered)");
		if (!(d.flags & VIRTQ_DESC_F_WRITE) && writable_seen)
			return broken(q, "a device-readable descriptor after a "
					 "device-writable one");
		writable_seen |= (d.flags & VIRTQ_DESC_F_WRITE) != 0;
		out->seg[out->nsegs++] = (struct virtq_seg){
			.addr = d.addr, .len = d.len,
			.device_writes = (d.flags & VIRTQ_DESC_F_WRITE) != 0,
		};
		if (!(d.flags & VIRTQ_DESC_F_NEXT))
			return VIRTQ_BUFFER;
		i = d.next;
	}
}

enum virtq_pop virtq_device_pop(struct virtq_device *q,
				const struct virtq_ram *ram,
				struct virtq_buffer *out)
{
	uint16_t avail_idx, head;

	if (q->broken)
		return VIRTQ_BROKEN;
	if (!q->enabled)
		return VIRTQ_EMPTY;
	if (!read16(ram, q->avail + AVAIL_IDX, &avail_idx))
		return broken(q, "the driver area is not guest RAM");
	if (avail_idx == q->next_avail)
		return VIRTQ_EMPTY;
	if ((uint16_t)(avail_idx - q->next_avail) > q->size)
		return broken(q, "more buffers available than the queue holds");
	/*
	 * Each chain the device holds keeps at least one descriptor: with
	 * size of them held, the driver has none left to offer another.
	 */
	if ((uint16_t)(q->next_avail - q->used_idx) >= q->size)
		return broken(q, "more buffers outstanding than the queue "
				 "holds");
	/* The ring entry is read after the index (x86: loads in order). */
	if (!read16(ram, q->avail + AVAIL_RING + 2ull * (q->next_avail % q->size),
		    &head))
		return broken(q, "the driver area is not guest RAM");
	q->next_avail++;
	return walk_chain(q, ram, head, out);
}

bool virtq_device_push(struct virtq_device *q, const struct virtq_ram *ram,
		       uint16_t head, uint32_t len)
{
	const struct virtq_used_elem e = { .id = head, .len = len };
	uint16_t idx = (uint16_t)(q->used_idx + 1);

	if (q->broken)
		return false;
	/* The element first, then the index that publishes it (x86 TSO). */
	if (ram->write(ram->ctx, q->used + USED_RING + 8ull * (q->used_idx % q->size),
		       &e, sizeof(e)) ||
	    ram->write(ram->ctx, q->used + USED_IDX, &idx, sizeof(idx))) {
		broken(q, "the device area is not guest RAM");
		return false;
	}
	q->used_idx = idx;
	return true;
}

bool virtq_device_wants_interrupt(struct virtq_device *q,
				  const struct virtq_ram *ram)
{
	uint16_t flags;

	if (!read16(ram, q->avail + AVAIL_FLAGS, &flags)) {
		broken(q, "the driver area is not guest RAM");
		return false;
	}
	return !(flags & VIRTQ_AVAIL_F_NO_INTERRUPT);
}
