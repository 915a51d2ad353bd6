// SPDX-License-Identifier: BSD-2-Clause
/*
 * The virtio-blk request queue (swap/drivers/virtio_blk_queue.h). Section numbers
 * are those of "Virtual I/O Device (VIRTIO) Version 1.0" (cs04).
 */
#include "swap/drivers/virtio_blk_queue.h"
#include "lib/console.h"
#include "lib/format.h"

static void *pa_ptr(uint64_t pa)
{
	return (void *)(uintptr_t)pa;
}

static uint64_t ptr_pa(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

void vblk_queue_init(struct vblk_queue *q, void *rings, uint16_t qsize,
		     uint64_t device_size, uint64_t timeout_ticks)
{
	uint64_t pa = ptr_pa(rings);

	while (qsize > VBLK_QUEUE_SIZE)
		qsize >>= 1;
	q->qsize = qsize;
	q->nslots = qsize / VBLK_DESC_PER_REQ;
	q->device_size = device_size;
	q->timeout_ticks = timeout_ticks;
	/* One page each: more than the alignment 2.4 asks (16, 2, 4). */
	q->desc = pa_ptr(pa);
	q->avail = pa_ptr(pa + PAGE_SIZE);
	q->used = pa_ptr(pa + 2 * PAGE_SIZE);
	q->dma = pa_ptr(pa + 3 * PAGE_SIZE);
	/* We poll: ask the device not to interrupt (2.4.7). */
	q->avail->flags = VIRTQ_AVAIL_F_NO_INTERRUPT;
	q->avail->idx = 0;
	q->used->idx = 0;
	q->avail_idx = q->used_seen = 0;
	q->on_device = q->nlocal = 0;
	q->broken = NULL;
	q->nfree = q->nslots;
	for (unsigned i = 0; i < q->nslots; i++) {
		q->free_slot[i] = (uint8_t)(q->nslots - 1 - i);
		q->slot[i].published = false;
		q->slot[i].held = false;
	}
}

/* Bytes of a request the device may write: the data of a read, status. */
static uint32_t writable_bytes(enum blk_op op)
{
	return (op == BLK_READ ? PAGE_SIZE : 0) + 1;
}

static void complete_locally(struct vblk_queue *q, unsigned slot,
			     enum blk_status st)
{
	q->local[q->nlocal].slot = (uint8_t)slot;
	q->local[q->nlocal].status = st;
	q->nlocal++;
}

/*
 * The requests on the device fail, but a read only once the device is
 * confirmed stopped: until then it may still write into the read's page,
 * which must therefore go neither back to the frame pool nor to the
 * guest. Such a read stays on the device, its page held (counted once),
 * and a later poll asks for the stop again. A write fails at once: the
 * device only ever reads its page.
 */
static void fail_on_device(struct vblk_queue *q, bool stopped)
{
	for (unsigned s = 0; s < q->nslots; s++) {
		if (!q->slot[s].published)
			continue;
		if (!stopped && q->slot[s].op == BLK_READ) {
			if (!q->slot[s].held)
				q->frames_held++;
			q->slot[s].held = true;
			continue;
		}
		q->slot[s].published = false;
		q->slot[s].held = false;
		q->on_device--;
		complete_locally(q, s, BLK_IO_ERROR);
	}
}

static bool device_stopped(struct vblk_queue *q)
{
	return !q->stop_device || q->stop_device(q->ctx);
}

/*
 * The device did what an honest one never does: stop it, so it cannot
 * write into pages we hand back, and fail what it had.
 */
static void break_queue(struct vblk_queue *q, const char *why,
			const char *fmt, ...) PRINTF_LIKE(3, 4);

static void break_queue(struct vblk_queue *q, const char *why,
			const char *fmt, ...)
{
	char detail[160];
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	hv_error("%s: %s (%s); the disk is not used any more, its %u "
		 "request(s) in flight fail", q->name, why, detail,
		 q->on_device);
	q->broken = why;
	q->device_errors++;
	fail_on_device(q, device_stopped(q));
}

/* The three descriptors of a slot: header, data, status (5.2.6). */
static void fill_descriptors(struct vblk_queue *q, unsigned slot,
			     const struct blk_request *req)
{
	struct virtq_desc *d = &q->desc[slot * VBLK_DESC_PER_REQ];
	uint16_t head = (uint16_t)(slot * VBLK_DESC_PER_REQ);

	q->dma->hdr[slot] = (struct virtio_blk_req_hdr){
		.type = req->op == BLK_WRITE ? VIRTIO_BLK_T_OUT
					      : VIRTIO_BLK_T_IN,
		.sector = req->offset >> VBLK_SECTOR_SHIFT,
	};
	q->dma->status[slot] = 0xff;
	d[0] = (struct virtq_desc){ ptr_pa(&q->dma->hdr[slot]),
				    sizeof(q->dma->hdr[slot]),
				    VIRTQ_DESC_F_NEXT, head + 1 };
	d[1] = (struct virtq_desc){ req->buffer_pa, PAGE_SIZE,
				    VIRTQ_DESC_F_NEXT |
				    (req->op == BLK_READ ? VIRTQ_DESC_F_WRITE
							 : 0), head + 2 };
	d[2] = (struct virtq_desc){ ptr_pa(&q->dma->status[slot]), 1,
				    VIRTQ_DESC_F_WRITE, 0 };
}

/*
 * 3.2.1: put the head in the available ring, then publish idx; the write
 * barrier orders the descriptors and the ring entry before idx (3.2.1.3),
 * the full barrier orders idx before the read of the used flags (3.2.1.4).
 */
static bool publish(struct vblk_queue *q, unsigned slot)
{
	q->avail->ring[q->avail_idx & (q->qsize - 1)] =
		(uint16_t)(slot * VBLK_DESC_PER_REQ);
	q->avail_idx++;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	*(volatile uint16_t *)&q->avail->idx = q->avail_idx;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return !(*(volatile uint16_t *)&q->used->flags &
		 VIRTQ_USED_F_NO_NOTIFY);
}

enum hv_err vblk_queue_submit(struct vblk_queue *q,
			      const struct blk_request *req, uint64_t now,
			      bool *notify)
{
	unsigned slot;

	*notify = false;
	if (!q->nfree)
		return HV_ERR_BUSY;
	slot = q->free_slot[--q->nfree];
	q->slot[slot].cookie = req->cookie;
	q->slot[slot].op = req->op;
	if (q->broken) {
		complete_locally(q, slot, BLK_IO_ERROR);
		return HV_OK;
	}
	if (!IS_ALIGNED(req->offset, PAGE_SIZE) ||
	    req->offset >= q->device_size ||
	    q->device_size - req->offset < PAGE_SIZE) {
		complete_locally(q, slot, BLK_OUT_OF_RANGE);
		return HV_OK;
	}
	fill_descriptors(q, slot, req);
	q->slot[slot].published = true;
	q->slot[slot].held = false;
	q->slot[slot].deadline = now + q->timeout_ticks;
	q->on_device++;
	*notify = publish(q, slot);
	return HV_OK;
}

static void complete(struct vblk_queue *q, unsigned slot, enum blk_status st,
		     struct blk_completion *out)
{
	out->cookie = q->slot[slot].cookie;
	out->status = st;
	q->free_slot[q->nfree++] = (uint8_t)slot;
}

static enum blk_status map_status(uint8_t s)
{
	/* IOERR, UNSUPP and anything unexpected are all the device's error. */
	return s == VIRTIO_BLK_S_OK ? BLK_OK : BLK_IO_ERROR;
}

/*
 * One used element, read once (the device may be writing the ring). A
 * slot number when the element answers a request on the device (its used
 * length in *len), else -1 with the queue broken.
 */
static int check_used(struct vblk_queue *q, uint16_t index, uint32_t *len)
{
	const volatile struct virtq_used_elem *e =
		&q->used->ring[index & (q->qsize - 1)];
	uint32_t id = e->id;
	unsigned slot = id / VBLK_DESC_PER_REQ;

	*len = e->len;

	if (id % VBLK_DESC_PER_REQ || slot >= q->nslots) {
		break_queue(q, "the device returned a descriptor that was "
			    "never a request's first", "used id %u", id);
		return -1;
	}
	if (!q->slot[slot].published) {
		break_queue(q, "the device returned a request it did not "
			    "have", "used id %u, returned twice or never "
			    "submitted", id);
		return -1;
	}
	if (*len > writable_bytes(q->slot[slot].op)) {
		break_queue(q, "the device claims to have written more than "
			    "the request's buffers", "used id %u, length %u "
			    "of at most %u", id, *len,
			    writable_bytes(q->slot[slot].op));
		return -1;
	}
	return (int)slot;
}

/*
 * The device's answer to the request in slot. A read answered OK must
 * have a used length covering the page and the status byte (2.4.8: the
 * bytes the device wrote into the request's buffers): anything less means
 * part of the page was never written, and it holds whatever the frame
 * held before. Such a read fails like one the device said IOERR to, and
 * is counted; the first is shown. Writes are not checked: their used
 * length only covers the status byte, nothing of the page.
 */
static enum blk_status request_status(struct vblk_queue *q, unsigned slot,
				      uint32_t len)
{
	uint8_t status = *(volatile uint8_t *)&q->dma->status[slot];
	uint32_t want = writable_bytes(q->slot[slot].op);

	if (map_status(status) != BLK_OK)
		return BLK_IO_ERROR;
	if (q->slot[slot].op != BLK_READ || len >= want)
		return BLK_OK;
	if (!q->short_transfers)
		hv_error("%s: a short read: the read of sector %llu was "
			 "answered OK with a used length of %u, not %u; it "
			 "fails (later ones are only counted)", q->name,
			 (unsigned long long)q->dma->hdr[slot].sector, len,
			 want);
	q->short_transfers++;
	return BLK_IO_ERROR;
}

/*
 * 3.2.2: the device writes the used element (and the status byte before
 * it) and then used->idx; the acquire load of idx orders our reads of
 * both after it.
 */
static unsigned take_used(struct vblk_queue *q, struct blk_completion *out,
			  unsigned max, bool *drained)
{
	uint16_t used_idx = __atomic_load_n(&q->used->idx, __ATOMIC_ACQUIRE);
	uint16_t ready = (uint16_t)(used_idx - q->used_seen);
	unsigned n = 0;

	if (ready > q->on_device) {
		break_queue(q, "the device's used index ran ahead of the "
			    "requests it had", "%u new used entries, %u "
			    "requests on the device", ready, q->on_device);
		return 0;
	}
	while (n < max && q->used_seen != used_idx) {
		uint32_t len;
		int slot = check_used(q, q->used_seen, &len);

		if (slot < 0)
			return n;
		q->used_seen++;
		q->slot[slot].published = false;
		q->on_device--;
		complete(q, (unsigned)slot,
			 request_status(q, (unsigned)slot, len), &out[n++]);
	}
	*drained = q->used_seen == used_idx;
	return n;
}

static void check_deadlines(struct vblk_queue *q, uint64_t now)
{
	for (unsigned s = 0; s < q->nslots; s++) {
		if (!q->slot[s].published || now <= q->slot[s].deadline)
			continue;
		break_queue(q, "the device did not answer in time",
			    "a %s of sector %llu", q->slot[s].op == BLK_READ ?
			    "read" : "write",
			    (unsigned long long)q->dma->hdr[s].sector);
		return;
	}
}

unsigned vblk_queue_poll(struct vblk_queue *q, struct blk_completion *out,
			 unsigned max, uint64_t now)
{
	bool drained = false;
	unsigned n = 0;

	/* Answers still in the used ring are not late: deadlines after. */
	if (!q->broken) {
		n = take_used(q, out, max, &drained);
		if (!q->broken && drained)
			check_deadlines(q, now);
	} else if (q->on_device && device_stopped(q)) {
		/* Reads held for a stop that has now finished. */
		fail_on_device(q, true);
	}
	while (n < max && q->nlocal) {
		q->nlocal--;
		complete(q, q->local[q->nlocal].slot, q->local[q->nlocal].status,
			 &out[n++]);
	}
	return n;
}
