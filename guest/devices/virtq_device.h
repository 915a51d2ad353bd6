/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The device's side of a split virtqueue (VIRTIO 1.2, 2.7) in guest RAM:
 * take the next buffer the driver made available, give it back as used.
 * Everything in the rings is the guest's to write, so every index, length
 * and chain is checked: a chain longer than the queue, a descriptor index
 * out of range, an indirect descriptor (never offered), a read-only
 * segment after a writable one, or more buffers made available than the
 * queue holds is a broken queue, which the transport reports once and
 * stops serving until the driver resets the device.
 *
 * Guest RAM is reached only through struct virtq_ram (the VM's
 * vm_read_ram/vm_write_ram, or a test's array), so this file is plain C
 * that unit tests and the fuzzer drive.
 */
#ifndef GUEST_DEVICES_VIRTQ_DEVICE_H
#define GUEST_DEVICES_VIRTQ_DEVICE_H

#include "lib/types.h"
#include "lib/virtio_spec.h"

struct virtq_ram {
	/* 0, or -1 when [gpa, gpa + len) is not all guest RAM. */
	int (*read)(void *ctx, uint64_t gpa, void *dst, uint64_t len);
	int (*write)(void *ctx, uint64_t gpa, const void *src, uint64_t len);
	void *ctx;
};

/* Segments of one buffer the device looks at; a longer chain is broken. */
#define VIRTQ_MAX_SEGS 64

struct virtq_seg {
	uint64_t addr;
	uint32_t len;
	bool device_writes;     /* VIRTQ_DESC_F_WRITE */
};

struct virtq_buffer {
	uint16_t head;          /* what virtq_device_push gives back */
	unsigned nsegs;
	struct virtq_seg seg[VIRTQ_MAX_SEGS];
};

struct virtq_device {
	/* Set by the driver through the transport (4.1.4.3). */
	uint16_t size;          /* a power of two, 1..max */
	uint16_t max;           /* what the device offers */
	bool enabled;
	uint64_t desc, avail, used;     /* guest-physical */
	/* The device's own place in the rings. */
	uint16_t next_avail;    /* the next avail.ring entry to take */
	uint16_t used_idx;      /* the used.idx the device last wrote */
	bool broken;
	const char *why_broken; /* a constant string, for the report */
};

enum virtq_pop {
	VIRTQ_EMPTY,            /* nothing new */
	VIRTQ_BUFFER,           /* *out holds one */
	VIRTQ_BROKEN,           /* the queue is unusable (q->why_broken) */
};

/* An empty, disabled queue offering max entries (a power of two). */
void virtq_device_reset(struct virtq_device *q, uint16_t max);

/* The size the driver chose is one the device can serve. */
bool virtq_device_size_ok(const struct virtq_device *q, uint16_t size);

/* Takes the next available buffer, if any, walking its chain. */
enum virtq_pop virtq_device_pop(struct virtq_device *q,
				const struct virtq_ram *ram,
				struct virtq_buffer *out);

/*
 * Gives buffer head back with len bytes written by the device; false when
 * the used ring is not guest RAM (the queue is then broken).
 */
bool virtq_device_push(struct virtq_device *q, const struct virtq_ram *ram,
		       uint16_t head, uint32_t len);

/* The driver has not asked for no interrupt (VIRTQ_AVAIL_F_NO_INTERRUPT). */
bool virtq_device_wants_interrupt(struct virtq_device *q,
				  const struct virtq_ram *ram);

#endif
