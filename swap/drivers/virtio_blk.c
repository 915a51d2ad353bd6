// SPDX-License-Identifier: BSD-2-Clause
/*
 * virtio-blk, virtio 1.0 PCI transport, polled. Section numbers are those of
 * "Virtual I/O Device (VIRTIO) Version 1.0" (cs04).
 *
 * This file is the PCI transport and the bring-up; the queue itself and
 * its checks of everything the device writes are swap/drivers/virtio_blk_queue.c.
 * Everything the device reads or writes (rings, headers, status bytes)
 * comes from the hypervisor heap below 4 GiB; the data pages are the
 * caller's. Only VIRTIO_F_VERSION_1 is negotiated.
 */
#include "swap/drivers/virtio_blk.h"
#include "lib/heap.h"
#include "lib/console.h"
#include "lib/format.h"
#include "arch/x86/virtio_pci.h"
#include "swap/drivers/virtio_blk_queue.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"

/* Device IDs (4.1.2): 0x1040 + type 2 (block), or the transitional one. */
#define VIRTIO_PCI_BLK_MODERN       0x1042
#define VIRTIO_PCI_BLK_TRANSITIONAL 0x1001

/* Block device feature bits (5.2.3). */
#define VIRTIO_BLK_F_RO     5

/* struct virtio_blk_config (5.2.4): capacity in 512-byte sectors. */
#define BLK_CFG_CAPACITY    0

/* A request the device has not answered after this long breaks the queue. */
#define VBLK_IO_TIMEOUT_S   10

struct vblk {
	struct blockdev bdev;
	struct virtio_pci vp;
	char name[32];
	volatile uint16_t *notify;      /* queue 0's notify address */
	struct vblk_queue queue;
	bool reset_asked;               /* the queue broke: 0 written */
	bool stopped;                   /* ... and read back (reset done) */
};

/* ----------------------------------------------------- initialization */

/* 3.1.1 steps 4-6: VERSION_1 is all we take; a read-only disk is no use. */
static enum hv_err negotiate(struct vblk *vb, const char **why)
{
	uint64_t offered = virtio_pci_device_features(&vb->vp);
	enum hv_err err;

	if (!(offered & BIT(VIRTIO_F_VERSION_1))) {
		*why = "the device does not offer VIRTIO_F_VERSION_1";
		return HV_ERR_UNSUPPORTED;
	}
	if (offered & BIT(VIRTIO_BLK_F_RO)) {
		*why = "the device is read-only (VIRTIO_BLK_F_RO)";
		return HV_ERR_UNSUPPORTED;
	}
	err = virtio_pci_features_ok(&vb->vp, BIT(VIRTIO_F_VERSION_1));
	if (err)
		*why = "the device refused our features (FEATURES_OK cleared)";
	return err;
}

/*
 * The queue broke (the device wrote what an honest one never does): a
 * reset stops the device from using the rings and the pages (2.1.2, 3.1.1).
 * True once the reset has finished. The queue asks again on each poll
 * while its reads are held: those calls only read the status back, one
 * register read, instead of writing 0 and spinning once more.
 */
static bool stop_device(void *ctx)
{
	struct vblk *vb = ctx;

	if (vb->stopped)
		return true;
	if (!vb->reset_asked) {
		vb->reset_asked = true;
		if (virtio_pci_reset(&vb->vp)) {
			hv_error("%s: the device did not finish its reset "
				 "either; the pages of its reads in flight "
				 "stay held until it does", vb->name);
			return false;
		}
	} else if (virtio_pci_status(&vb->vp) != 0) {
		return false;   /* 4.1.4.3.2: 0 read back ends the reset */
	}
	vb->stopped = true;
	/* Only now: a status written meanwhile would never read back 0. */
	virtio_pci_add_status(&vb->vp, VIRTIO_STATUS_FAILED);
	return true;
}

static enum hv_err setup_queue(struct vblk *vb, const char **why)
{
	uint16_t max = virtio_pci_queue_max(&vb->vp, 0);
	struct vblk_queue *q = &vb->queue;
	struct virtio_queue_addrs addrs;
	uint16_t qsize = VBLK_QUEUE_SIZE;

	/*
	 * The largest power of two the device takes; it must hold one
	 * request (a maximum of 3 gave 2 descriptors: no request ever).
	 */
	while (qsize > max)
		qsize >>= 1;
	if (qsize < VBLK_DESC_PER_REQ) {
		*why = "queue 0 is missing or too small";
		return HV_ERR_UNSUPPORTED;
	}
	q->name = vb->name;
	q->stop_device = stop_device;
	q->ctx = vb;
	/* The capacity is read later; no request before DRIVER_OK. */
	vblk_queue_init(q, (void *)(uintptr_t)
			hv_alloc_pages_low(VBLK_RING_PAGES), qsize, 0,
			tsc_hz * VBLK_IO_TIMEOUT_S);
	addrs = (struct virtio_queue_addrs){ (uintptr_t)q->desc,
					     (uintptr_t)q->avail,
					     (uintptr_t)q->used };
	vb->notify = virtio_pci_queue_enable(&vb->vp, 0, q->qsize, &addrs,
					     why);
	return vb->notify ? HV_OK : HV_ERR_DEVICE;
}

/* 3.1.1: reset, ACKNOWLEDGE, DRIVER, features, queue, DRIVER_OK. */
static enum hv_err bring_up(struct vblk *vb, const char **why)
{
	uint64_t sectors;
	enum hv_err err = virtio_pci_reset(&vb->vp);

	if (err) {
		*why = "the device did not finish its reset";
		return err;
	}
	virtio_pci_add_status(&vb->vp, VIRTIO_STATUS_ACKNOWLEDGE);
	virtio_pci_add_status(&vb->vp, VIRTIO_STATUS_DRIVER);
	err = negotiate(vb, why);
	if (!err)
		err = setup_queue(vb, why);
	if (err)
		return err;
	err = virtio_pci_config64(&vb->vp, BLK_CFG_CAPACITY, &sectors);
	if (err) {
		*why = "the capacity could not be read consistently";
		return err;
	}
	vb->bdev.size = sectors << VBLK_SECTOR_SHIFT;
	vb->queue.device_size = vb->bdev.size;
	virtio_pci_add_status(&vb->vp, VIRTIO_STATUS_DRIVER_OK);
	if (virtio_pci_status(&vb->vp) & VIRTIO_STATUS_NEEDS_RESET) {
		*why = "the device needs a reset right after DRIVER_OK";
		return HV_ERR_DEVICE;
	}
	return HV_OK;
}

/* -------------------------------------------------------------- I/O */

static enum hv_err vblk_submit(struct blockdev *dev,
			       const struct blk_request *req)
{
	struct vblk *vb = dev->driver;
	bool notify;
	enum hv_err err = vblk_queue_submit(&vb->queue, req, rdtsc(), &notify);

	if (err)
		return err;
	blk_count_submitted(dev, req);
	/* The notify write carries the queue index (4.1.5.2). */
	if (notify)
		virtio_pci_notify(vb->notify, 0);
	return HV_OK;
}

static unsigned vblk_poll(struct blockdev *dev, struct blk_completion *out,
			  unsigned max)
{
	struct vblk *vb = dev->driver;
	unsigned n = vblk_queue_poll(&vb->queue, out, max, rdtsc());

	blk_count_errors(dev, out, n);
	dev->short_transfers = vb->queue.short_transfers;
	dev->frames_held = vb->queue.frames_held;
	return n;
}

static const struct blockdev_ops vblk_ops = {
	.submit = vblk_submit,
	.poll = vblk_poll,
};

/* -------------------------------------------------------------- probe */

#define VBLK_MAX_DEVICES 4

/* Every virtio-blk function, in PCI order; probed once, then kept. */
static struct blockdev *vblk_found[VBLK_MAX_DEVICES];
static unsigned vblk_nfound;
static bool vblk_probed;

struct pci_list {
	struct pci_device dev[VBLK_MAX_DEVICES];
	unsigned n;
};

static bool is_virtio_blk(const struct pci_device *d, void *arg)
{
	struct pci_list *list = arg;

	if (d->vendor != VIRTIO_PCI_VENDOR ||
	    (d->device != VIRTIO_PCI_BLK_MODERN &&
	     d->device != VIRTIO_PCI_BLK_TRANSITIONAL))
		return false;
	list->dev[list->n++] = *d;
	return list->n == VBLK_MAX_DEVICES;
}

static struct blockdev *fail(struct vblk *vb, const char *why)
{
	if (vb->vp.common)      /* 3.1.1: the driver "SHOULD set FAILED" */
		virtio_pci_add_status(&vb->vp, VIRTIO_STATUS_FAILED);
	hv_error("%s: %s", vb->name, why);
	return NULL;
}

static struct blockdev *bring_up_function(const struct pci_device *d)
{
	struct pci_device pci = *d;
	const char *why = NULL;
	struct vblk *vb;

	vb = hv_alloc(sizeof(*vb));
	fmt_snprintf(vb->name, sizeof(vb->name), "virtio-blk %02x:%02x.%x",
		     pci.bus, pci.dev, pci.fn);
	if (virtio_pci_init(&vb->vp, &pci, &why) || bring_up(vb, &why))
		return fail(vb, why);
	vb->bdev = (struct blockdev){
		.ops = &vblk_ops,
		.name = vb->name,
		.size = vb->bdev.size,
		.queue_depth = vb->queue.nslots,
		.driver = vb,
	};
	return &vb->bdev;
}

unsigned virtio_blk_probe_all(struct blockdev **out, unsigned max)
{
	struct pci_list list = { .n = 0 };
	unsigned n;

	if (!vblk_probed) {
		pci_scan(is_virtio_blk, &list);
		for (unsigned i = 0; i < list.n; i++) {
			struct blockdev *dev = bring_up_function(&list.dev[i]);

			if (dev)
				vblk_found[vblk_nfound++] = dev;
		}
		vblk_probed = true;
	}
	n = MIN(max, vblk_nfound);
	for (unsigned i = 0; i < n; i++)
		out[i] = vblk_found[i];
	return n;
}

struct blockdev *virtio_blk_probe(void)
{
	struct blockdev *dev;

	return virtio_blk_probe_all(&dev, 1) ? dev : NULL;
}
