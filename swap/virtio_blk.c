// SPDX-License-Identifier: BSD-2-Clause
/*
 * virtio-blk, virtio 1.0 PCI transport, polled. Section numbers are those of
 * "Virtual I/O Device (VIRTIO) Version 1.0" (cs04).
 *
 * Queue 0 holds QUEUE_SIZE descriptors; request slot r always uses
 * descriptors 3r, 3r+1 and 3r+2 (header, data page, status byte), so there
 * is no descriptor free list, only a stack of free slots, and a used-ring
 * id names its slot directly. Everything the device reads or writes (rings,
 * headers, status bytes) comes from the hypervisor heap below 4 GiB; the
 * data pages are the caller's. Only VIRTIO_F_VERSION_1 is negotiated.
 */
#include "swap/virtio_blk.h"
#include "lib/heap.h"
#include "lib/console.h"
#include "lib/format.h"
#include "swap/virtio_pci.h"

/* Device IDs (4.1.2): 0x1040 + type 2 (block), or the transitional one. */
#define VIRTIO_PCI_BLK_MODERN       0x1042
#define VIRTIO_PCI_BLK_TRANSITIONAL 0x1001

/* Block device feature bits (5.2.3). */
#define VIRTIO_BLK_F_RO     5

/* struct virtio_blk_config (5.2.4): capacity in 512-byte sectors. */
#define BLK_CFG_CAPACITY    0
#define BLK_SECTOR_SHIFT    9

/* Request types and status values (5.2.6). */
#define VIRTIO_BLK_T_IN     0
#define VIRTIO_BLK_T_OUT    1
#define VIRTIO_BLK_S_OK     0
#define VIRTIO_BLK_S_IOERR  1
#define VIRTIO_BLK_S_UNSUPP 2

/* Split virtqueue (2.4.5 - 2.4.8). */
#define VIRTQ_DESC_F_NEXT   1
#define VIRTQ_DESC_F_WRITE  2
#define VIRTQ_AVAIL_F_NO_INTERRUPT 1
#define VIRTQ_USED_F_NO_NOTIFY     1

#define QUEUE_SIZE      64      /* at most; a power of two (2.4) */
#define DESC_PER_REQ    3
#define MAX_SLOTS       (QUEUE_SIZE / DESC_PER_REQ)

struct virtq_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

struct virtq_avail {
	uint16_t flags;
	uint16_t idx;
	uint16_t ring[QUEUE_SIZE];
};

struct virtq_used_elem {
	uint32_t id;
	uint32_t len;
};

struct virtq_used {
	uint16_t flags;
	uint16_t idx;
	struct virtq_used_elem ring[QUEUE_SIZE];
};

struct virtio_blk_req_hdr {
	uint32_t type;
	uint32_t reserved;
	uint64_t sector;
};

/* What the device reads and writes besides the data pages: one page. */
struct vblk_dma {
	struct virtio_blk_req_hdr hdr[MAX_SLOTS];
	uint8_t status[MAX_SLOTS];
};

struct vblk {
	struct blockdev bdev;
	struct virtio_pci vp;
	char name[32];
	volatile uint16_t *notify;      /* queue 0's notify address */
	uint16_t qsize;                 /* descriptors in queue 0 */
	unsigned nslots;                /* requests in flight at most */
	struct virtq_desc *desc;
	struct virtq_avail *avail;
	struct virtq_used *used;
	struct vblk_dma *dma;
	uint16_t avail_idx;             /* our copy of avail->idx */
	uint16_t used_seen;             /* used->idx we have consumed up to */
	void *cookie[MAX_SLOTS];
	uint8_t free_slot[MAX_SLOTS];
	unsigned nfree;
	/*
	 * Requests refused without the device (past the end): still returned
	 * by poll, in a slot each, so the caller sees one path.
	 */
	uint8_t local_slot[MAX_SLOTS];
	unsigned nlocal;
};

static void *pa_ptr(uint64_t pa)
{
	return (void *)(uintptr_t)pa;
}

static uint64_t ptr_pa(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* ----------------------------------------------------- initialization */

/* 3.1.1 steps 4-6: VERSION_1 is all we take; a read-only disk is no use. */
static int negotiate(struct vblk *vb, const char **why)
{
	uint64_t offered = virtio_pci_device_features(&vb->vp);

	if (!(offered & BIT(VIRTIO_F_VERSION_1))) {
		*why = "the device does not offer VIRTIO_F_VERSION_1";
		return -1;
	}
	if (offered & BIT(VIRTIO_BLK_F_RO)) {
		*why = "the device is read-only (VIRTIO_BLK_F_RO)";
		return -1;
	}
	if (virtio_pci_features_ok(&vb->vp, BIT(VIRTIO_F_VERSION_1))) {
		*why = "the device refused our features (FEATURES_OK cleared)";
		return -1;
	}
	return 0;
}

static void alloc_rings(struct vblk *vb)
{
	uint64_t pa = hv_alloc_pages_low(4);

	/* One page each: more than the alignment 2.4 asks (16, 2, 4). */
	vb->desc = pa_ptr(pa);
	vb->avail = pa_ptr(pa + PAGE_SIZE);
	vb->used = pa_ptr(pa + 2 * PAGE_SIZE);
	vb->dma = pa_ptr(pa + 3 * PAGE_SIZE);
	/* We poll: ask the device not to interrupt (2.4.7). */
	vb->avail->flags = VIRTQ_AVAIL_F_NO_INTERRUPT;
}

static uint16_t pick_queue_size(uint16_t max)
{
	uint16_t n = QUEUE_SIZE;

	while (n > max)
		n >>= 1;
	return n;
}

static int setup_queue(struct vblk *vb, const char **why)
{
	uint16_t max = virtio_pci_queue_max(&vb->vp, 0);
	struct virtio_queue_addrs addrs;

	if (max < DESC_PER_REQ) {
		*why = "queue 0 is missing or too small";
		return -1;
	}
	vb->qsize = pick_queue_size(max);
	vb->nslots = vb->qsize / DESC_PER_REQ;
	alloc_rings(vb);
	addrs = (struct virtio_queue_addrs){ ptr_pa(vb->desc),
					     ptr_pa(vb->avail),
					     ptr_pa(vb->used) };
	vb->notify = virtio_pci_queue_enable(&vb->vp, 0, vb->qsize, &addrs,
					     why);
	return vb->notify ? 0 : -1;
}

static void init_slots(struct vblk *vb)
{
	vb->nfree = vb->nslots;
	for (unsigned i = 0; i < vb->nslots; i++)
		vb->free_slot[i] = (uint8_t)(vb->nslots - 1 - i);
}

/* 3.1.1: reset, ACKNOWLEDGE, DRIVER, features, queue, DRIVER_OK. */
static int bring_up(struct vblk *vb, const char **why)
{
	uint64_t sectors;

	if (virtio_pci_reset(&vb->vp)) {
		*why = "the device did not finish its reset";
		return -1;
	}
	virtio_pci_add_status(&vb->vp, VIRTIO_STATUS_ACKNOWLEDGE);
	virtio_pci_add_status(&vb->vp, VIRTIO_STATUS_DRIVER);
	if (negotiate(vb, why) || setup_queue(vb, why))
		return -1;
	if (virtio_pci_config64(&vb->vp, BLK_CFG_CAPACITY, &sectors)) {
		*why = "the capacity could not be read consistently";
		return -1;
	}
	vb->bdev.size = sectors << BLK_SECTOR_SHIFT;
	init_slots(vb);
	virtio_pci_add_status(&vb->vp, VIRTIO_STATUS_DRIVER_OK);
	if (virtio_pci_status(&vb->vp) & VIRTIO_STATUS_NEEDS_RESET) {
		*why = "the device needs a reset right after DRIVER_OK";
		return -1;
	}
	return 0;
}

/* -------------------------------------------------------------- I/O */

static unsigned take_slot(struct vblk *vb)
{
	return vb->free_slot[--vb->nfree];
}

static void give_slot(struct vblk *vb, unsigned slot)
{
	vb->free_slot[vb->nfree++] = (uint8_t)slot;
}

/* The three descriptors of a slot: header, data, status (5.2.6). */
static void fill_descriptors(struct vblk *vb, unsigned slot,
			     const struct blk_request *req)
{
	struct virtq_desc *d = &vb->desc[slot * DESC_PER_REQ];
	uint16_t head = (uint16_t)(slot * DESC_PER_REQ);

	vb->dma->hdr[slot] = (struct virtio_blk_req_hdr){
		.type = req->op == BLK_WRITE ? VIRTIO_BLK_T_OUT
					      : VIRTIO_BLK_T_IN,
		.sector = req->offset >> BLK_SECTOR_SHIFT,
	};
	vb->dma->status[slot] = 0xff;
	d[0] = (struct virtq_desc){ ptr_pa(&vb->dma->hdr[slot]),
				    sizeof(vb->dma->hdr[slot]),
				    VIRTQ_DESC_F_NEXT, head + 1 };
	d[1] = (struct virtq_desc){ req->buffer_pa, PAGE_SIZE,
				    VIRTQ_DESC_F_NEXT |
				    (req->op == BLK_READ ? VIRTQ_DESC_F_WRITE
							 : 0), head + 2 };
	d[2] = (struct virtq_desc){ ptr_pa(&vb->dma->status[slot]), 1,
				    VIRTQ_DESC_F_WRITE, 0 };
}

/*
 * 3.2.1: put the head in the available ring, then publish idx; the write
 * barrier orders the descriptors and the ring entry before idx (3.2.1.3),
 * the full barrier orders idx before the read of the used flags and the
 * notification (3.2.1.4); the notify write carries the queue index (4.1.5.2).
 */
static void publish(struct vblk *vb, unsigned slot)
{
	vb->avail->ring[vb->avail_idx & (vb->qsize - 1)] =
		(uint16_t)(slot * DESC_PER_REQ);
	vb->avail_idx++;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	*(volatile uint16_t *)&vb->avail->idx = vb->avail_idx;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!(*(volatile uint16_t *)&vb->used->flags & VIRTQ_USED_F_NO_NOTIFY))
		virtio_pci_notify(vb->notify, 0);
}

static int vblk_submit(struct blockdev *dev, const struct blk_request *req)
{
	struct vblk *vb = dev->driver;
	unsigned slot;

	if (!vb->nfree)
		return -1;
	slot = take_slot(vb);
	vb->cookie[slot] = req->cookie;
	if (req->op == BLK_WRITE)
		dev->writes++;
	else
		dev->reads++;
	if (!IS_ALIGNED(req->offset, PAGE_SIZE) || req->offset >= dev->size ||
	    dev->size - req->offset < PAGE_SIZE) {
		vb->local_slot[vb->nlocal++] = (uint8_t)slot;
		return 0;
	}
	fill_descriptors(vb, slot, req);
	publish(vb, slot);
	return 0;
}

static enum blk_status map_status(uint8_t s)
{
	/* IOERR, UNSUPP and anything unexpected are all the device's error. */
	return s == VIRTIO_BLK_S_OK ? BLK_OK : BLK_IO_ERROR;
}

static void complete(struct vblk *vb, unsigned slot, enum blk_status st,
		     struct blk_completion *out)
{
	out->cookie = vb->cookie[slot];
	out->status = st;
	if (st != BLK_OK)
		vb->bdev.errors++;
	give_slot(vb, slot);
}

/*
 * 3.2.2: the device writes the used element (and the status byte before
 * it) and then used->idx; the acquire load of idx orders our reads of
 * both after it.
 */
static unsigned vblk_poll(struct blockdev *dev, struct blk_completion *out,
			  unsigned max)
{
	struct vblk *vb = dev->driver;
	unsigned n = 0;
	uint16_t used_idx;

	while (n < max && vb->nlocal)
		complete(vb, vb->local_slot[--vb->nlocal], BLK_OUT_OF_RANGE,
			 &out[n++]);
	used_idx = __atomic_load_n(&vb->used->idx, __ATOMIC_ACQUIRE);
	while (n < max && vb->used_seen != used_idx) {
		struct virtq_used_elem e =
			vb->used->ring[vb->used_seen & (vb->qsize - 1)];
		unsigned slot = e.id / DESC_PER_REQ;

		vb->used_seen++;
		/* An id we never gave out would be a device bug: skip it. */
		if (e.id % DESC_PER_REQ || slot >= vb->nslots)
			continue;
		complete(vb, slot, map_status(vb->dma->status[slot]),
			 &out[n++]);
	}
	return n;
}

static const struct blockdev_ops vblk_ops = {
	.submit = vblk_submit,
	.poll = vblk_poll,
};

/* -------------------------------------------------------------- probe */

static bool is_virtio_blk(const struct pci_device *d, void *arg)
{
	if (d->vendor != VIRTIO_PCI_VENDOR ||
	    (d->device != VIRTIO_PCI_BLK_MODERN &&
	     d->device != VIRTIO_PCI_BLK_TRANSITIONAL))
		return false;
	*(struct pci_device *)arg = *d;
	return true;
}

static struct blockdev *fail(struct vblk *vb, const char *why)
{
	if (vb->vp.common)      /* 3.1.1: the driver "SHOULD set FAILED" */
		virtio_pci_add_status(&vb->vp, VIRTIO_STATUS_FAILED);
	hv_error("%s: %s", vb->name, why);
	return NULL;
}

struct blockdev *virtio_blk_probe(void)
{
	struct pci_device pci;
	const char *why = NULL;
	struct vblk *vb;

	if (!pci_scan(is_virtio_blk, &pci))
		return NULL;
	vb = hv_alloc(sizeof(*vb));
	fmt_snprintf(vb->name, sizeof(vb->name), "virtio-blk %02x:%02x.%x",
		     pci.bus, pci.dev, pci.fn);
	if (virtio_pci_init(&vb->vp, &pci, &why) || bring_up(vb, &why))
		return fail(vb, why);
	vb->bdev = (struct blockdev){
		.ops = &vblk_ops,
		.name = vb->name,
		.size = vb->bdev.size,
		.queue_depth = vb->nslots,
		.driver = vb,
	};
	return &vb->bdev;
}
