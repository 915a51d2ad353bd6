// SPDX-License-Identifier: BSD-2-Clause
/*
 * virtio-net, virtio 1.0 PCI transport, polled. Section numbers are those
 * of "Virtual I/O Device (VIRTIO) Version 1.0" (cs04).
 *
 * This file is the PCI transport and the bring-up; the queues and their
 * checks of everything the device writes are
 * net/drivers/virtio_net_queue.c. Everything the device reads or writes
 * (rings, frame buffers) comes from the hypervisor heap below 4 GiB,
 * identity-mapped. Negotiated: VIRTIO_F_VERSION_1, and VIRTIO_NET_F_MAC
 * and VIRTIO_NET_F_STATUS when offered; nothing else (no checksum or
 * segmentation offload, no MRG_RXBUF, no control queue, one queue pair).
 */
#include "net/drivers/virtio_net.h"
#include "net/drivers/virtio_net_queue.h"
#include "arch/x86/pci.h"
#include "arch/x86/virtio_pci.h"
#include "lib/console.h"
#include "lib/format.h"
#include "lib/heap.h"

/* Device IDs (4.1.2): 0x1040 + type 1 (network), or the transitional one. */
#define VIRTIO_PCI_NET_MODERN       0x1041
#define VIRTIO_PCI_NET_TRANSITIONAL 0x1000

/* Network device feature bits (5.1.3). */
#define VIRTIO_NET_F_MAC            5
#define VIRTIO_NET_F_STATUS         16

/* struct virtio_net_config (5.1.4): mac[6], then le16 status. */
#define NET_CFG_MAC                 0
#define NET_CFG_STATUS              6
#define VIRTIO_NET_S_LINK_UP        1

#define GENERATION_TRIES            100

struct vnet {
	struct nic nic;
	struct virtio_pci vp;
	char name[32];
	bool has_status;                /* VIRTIO_NET_F_STATUS negotiated */
	bool mac_made_up;               /* no VIRTIO_NET_F_MAC */
	volatile uint16_t *notify_rx, *notify_tx;
	struct vnet_queue queue;
};

/* ------------------------------------------------------ configuration */

/*
 * 4.1.3.1: each field is read with its own width (8 bits for the MAC's
 * bytes, 16 for status), and 2.3.1: several fields read together only
 * count when config_generation did not change meanwhile.
 */
static uint8_t cfg_generation(struct virtio_pci *vp)
{
	return *(volatile uint8_t *)(vp->common +
				     VIRTIO_COMMON_CONFIG_GENERATION);
}

static enum hv_err read_mac(struct virtio_pci *vp, uint8_t mac[6])
{
	for (unsigned t = 0; t < GENERATION_TRIES; t++) {
		uint8_t gen = cfg_generation(vp);

		for (unsigned i = 0; i < 6; i++)
			mac[i] = *(volatile uint8_t *)(vp->devcfg +
						       NET_CFG_MAC + i);
		if (cfg_generation(vp) == gen)
			return HV_OK;
	}
	return HV_ERR_DEVICE;
}

static uint16_t read_status(struct virtio_pci *vp)
{
	return *(volatile uint16_t *)(vp->devcfg + NET_CFG_STATUS);
}

/*
 * Without VIRTIO_NET_F_MAC the driver "SHOULD use a locally-administered
 * MAC address" (5.1.4.2): 02 (local, unicast), "ap", then the function's
 * address, so that two such interfaces differ.
 */
static void make_up_mac(const struct pci_device *d, uint8_t mac[6])
{
	mac[0] = 0x02;
	mac[1] = 'a';
	mac[2] = 'p';
	mac[3] = d->bus;
	mac[4] = d->dev;
	mac[5] = d->fn;
}

/* ----------------------------------------------------- initialization */

/*
 * 3.1.1 steps 4-6: VERSION_1 is required; MAC and STATUS are taken when
 * offered ("a truly minimal driver would only accept VIRTIO_NET_F_MAC",
 * 5.1.5), nothing else.
 */
static enum hv_err negotiate(struct vnet *vn, const char **why)
{
	uint64_t offered = virtio_pci_device_features(&vn->vp);
	uint64_t wanted = BIT(VIRTIO_F_VERSION_1);
	enum hv_err err;

	if (!(offered & BIT(VIRTIO_F_VERSION_1))) {
		*why = "the device does not offer VIRTIO_F_VERSION_1";
		return HV_ERR_UNSUPPORTED;
	}
	wanted |= offered & (BIT(VIRTIO_NET_F_MAC) | BIT(VIRTIO_NET_F_STATUS));
	err = virtio_pci_features_ok(&vn->vp, wanted);
	if (err) {
		*why = "the device refused our features (FEATURES_OK cleared)";
		return err;
	}
	vn->has_status = wanted & BIT(VIRTIO_NET_F_STATUS);
	vn->mac_made_up = !(wanted & BIT(VIRTIO_NET_F_MAC));
	/* 5.1.4: mac is always there, status only with its feature. */
	if (vn->vp.devcfg_len < (vn->has_status ? NET_CFG_STATUS + 2 :
				 NET_CFG_MAC + 6)) {
		*why = "the device configuration is too short for its fields";
		return HV_ERR_DEVICE;
	}
	return HV_OK;
}

/*
 * The largest power of two the device takes (2.4: split queue sizes are
 * powers of two), at most VNET_QUEUE_SIZE; 0 when the queue is missing.
 */
static uint16_t queue_size(struct vnet *vn, uint16_t index)
{
	uint16_t max = virtio_pci_queue_max(&vn->vp, index);
	uint16_t size = VNET_QUEUE_SIZE;

	while (size > max)
		size >>= 1;
	return size;
}

/*
 * The queues broke (the device wrote what an honest one never does): a
 * reset stops it using the rings and buffers (2.1.2, 3.1.1). The buffers
 * are never handed to anyone else, so nothing waits for the reset: a
 * reset that does not finish is only reported.
 */
static void stop_device(void *ctx)
{
	struct vnet *vn = ctx;

	if (virtio_pci_reset(&vn->vp)) {
		hv_error("net: %s: the device did not finish its reset "
			 "either", vn->name);
		return;
	}
	/* Only after the reset: a status written meanwhile never reads 0. */
	virtio_pci_add_status(&vn->vp, VIRTIO_STATUS_FAILED);
}

/* 4.1.5.1.3 for queue 0 (receiveq1) and queue 1 (transmitq1). */
static enum hv_err setup_queues(struct vnet *vn, const char **why)
{
	uint16_t rx_size = queue_size(vn, VNET_RX_QUEUE);
	uint16_t tx_size = queue_size(vn, VNET_TX_QUEUE);
	struct vnet_queue *q = &vn->queue;
	struct virtio_queue_addrs rx, tx;

	if (!rx_size || !tx_size) {
		*why = "the receive or transmit queue is missing";
		return HV_ERR_UNSUPPORTED;
	}
	q->name = vn->name;
	q->stop_device = stop_device;
	q->ctx = vn;
	vnet_queue_init(q, (void *)(uintptr_t)
			hv_alloc_pages_low(VNET_MEM_PAGES), rx_size, tx_size);
	rx = (struct virtio_queue_addrs){ (uintptr_t)q->rx.desc,
					  (uintptr_t)q->rx.avail,
					  (uintptr_t)q->rx.used };
	tx = (struct virtio_queue_addrs){ (uintptr_t)q->tx.desc,
					  (uintptr_t)q->tx.avail,
					  (uintptr_t)q->tx.used };
	vn->notify_rx = virtio_pci_queue_enable(&vn->vp, VNET_RX_QUEUE,
						q->rx.size, &rx, why);
	if (!vn->notify_rx)
		return HV_ERR_DEVICE;
	vn->notify_tx = virtio_pci_queue_enable(&vn->vp, VNET_TX_QUEUE,
						q->tx.size, &tx, why);
	return vn->notify_tx ? HV_OK : HV_ERR_DEVICE;
}

/* A MAC a device gives must be a unicast address, and not all zeros. */
static bool mac_usable(const uint8_t mac[6])
{
	uint8_t any = 0;

	for (unsigned i = 0; i < 6; i++)
		any |= mac[i];
	return any && !(mac[0] & 1);
}

/* 3.1.1: reset, ACKNOWLEDGE, DRIVER, features, queues, DRIVER_OK. */
static enum hv_err bring_up(struct vnet *vn, const char **why)
{
	enum hv_err err = virtio_pci_reset(&vn->vp);

	if (err) {
		*why = "the device did not finish its reset";
		return err;
	}
	virtio_pci_add_status(&vn->vp, VIRTIO_STATUS_ACKNOWLEDGE);
	virtio_pci_add_status(&vn->vp, VIRTIO_STATUS_DRIVER);
	err = negotiate(vn, why);
	if (err)
		return err;
	if (vn->mac_made_up) {
		make_up_mac(&vn->vp.pci, vn->nic.mac);
	} else if (read_mac(&vn->vp, vn->nic.mac)) {
		*why = "the MAC address could not be read consistently";
		return HV_ERR_DEVICE;
	} else if (!mac_usable(vn->nic.mac)) {
		*why = "the device's MAC address is zero or a multicast one";
		return HV_ERR_DEVICE;
	}
	err = setup_queues(vn, why);
	if (err)
		return err;
	virtio_pci_add_status(&vn->vp, VIRTIO_STATUS_DRIVER_OK);
	if (virtio_pci_status(&vn->vp) & VIRTIO_STATUS_NEEDS_RESET) {
		*why = "the device needs a reset right after DRIVER_OK";
		return HV_ERR_DEVICE;
	}
	/*
	 * The receive buffers went in before DRIVER_OK (5.1.5 step 3); the
	 * device may be told only now (3.1.1: not before DRIVER_OK).
	 */
	virtio_pci_notify(vn->notify_rx, VNET_RX_QUEUE);
	return HV_OK;
}

/* -------------------------------------------------------------- I/O */

/* struct nic's counters and state follow the queues'. */
static void sync_nic(struct vnet *vn)
{
	const struct vnet_queue *q = &vn->queue;

	vn->nic.rx_frames = q->rx_frames;
	vn->nic.tx_frames = q->tx_frames;
	vn->nic.rx_dropped = q->rx_dropped;
	vn->nic.tx_busy = q->tx_busy;
	vn->nic.broken = q->broken != NULL;
}

static enum hv_err vnet_transmit(struct nic *nic, const void *frame,
				 size_t len)
{
	struct vnet *vn = nic->driver;
	bool notify;
	enum hv_err err = vnet_queue_transmit(&vn->queue, frame, len, &notify);

	/* The notify write carries the queue index (4.1.5.2). */
	if (notify)
		virtio_pci_notify(vn->notify_tx, VNET_TX_QUEUE);
	sync_nic(vn);
	return err;
}

static size_t vnet_receive(struct nic *nic, void *buf)
{
	struct vnet *vn = nic->driver;
	bool notify;
	size_t len = vnet_queue_receive(&vn->queue, buf, &notify);

	if (notify)
		virtio_pci_notify(vn->notify_rx, VNET_RX_QUEUE);
	sync_nic(vn);
	return len;
}

/*
 * 5.1.4.2: with VIRTIO_NET_F_STATUS the bottom bit of status, else
 * "assume the link is active". A device reset after it broke has no link.
 */
static bool vnet_link_up(struct nic *nic)
{
	struct vnet *vn = nic->driver;

	if (vn->queue.broken)
		return false;
	if (!vn->has_status)
		return true;
	return read_status(&vn->vp) & VIRTIO_NET_S_LINK_UP;
}

static const struct nic_ops vnet_ops = {
	.transmit = vnet_transmit,
	.receive = vnet_receive,
	.link_up = vnet_link_up,
};

/* -------------------------------------------------------------- probe */

/* Every virtio-net function, in PCI order; probed once, then kept. */
static struct nic *vnet_found[NIC_MAX];
static unsigned vnet_nfound;
static bool vnet_probed;

struct pci_list {
	struct pci_device dev[NIC_MAX];
	unsigned n;
};

static bool is_virtio_net(const struct pci_device *d, void *arg)
{
	struct pci_list *list = arg;

	if (d->vendor != VIRTIO_PCI_VENDOR ||
	    (d->device != VIRTIO_PCI_NET_MODERN &&
	     d->device != VIRTIO_PCI_NET_TRANSITIONAL))
		return false;
	list->dev[list->n++] = *d;
	return list->n == NIC_MAX;
}

/*
 * A function given up on: reset, so that queues already enabled are
 * forgotten, then FAILED (3.1.1: the driver "SHOULD set FAILED").
 */
static struct nic *fail(struct vnet *vn, const char *why)
{
	if (vn->vp.common && !virtio_pci_reset(&vn->vp))
		virtio_pci_add_status(&vn->vp, VIRTIO_STATUS_FAILED);
	hv_error("net: %s: %s", vn->name, why);
	return NULL;
}

static struct nic *bring_up_function(const struct pci_device *d)
{
	const char *why = NULL;
	struct vnet *vn = hv_alloc(sizeof(*vn));
	const uint8_t *m;

	fmt_snprintf(vn->name, sizeof(vn->name), "virtio-net %02x:%02x.%x",
		     d->bus, d->dev, d->fn);
	switch (virtio_pci_init(&vn->vp, d, &why)) {
	case HV_OK:
		break;
	case HV_ERR_UNSUPPORTED:
		return fail(vn, "no virtio 1.0 PCI capabilities (a legacy-only "
			    "device; QEMU: virtio-net-pci without "
			    "disable-modern=on)");
	default:
		return fail(vn, why);
	}
	if (bring_up(vn, &why))
		return fail(vn, why);
	vn->nic.ops = &vnet_ops;
	vn->nic.name = vn->name;
	vn->nic.driver = vn;
	sync_nic(vn);
	m = vn->nic.mac;
	hv_info("net: %s, MAC %02x:%02x:%02x:%02x:%02x:%02x%s, link %s%s",
		vn->name, m[0], m[1], m[2], m[3], m[4], m[5],
		vn->mac_made_up ? " (made up: the device gives none)" : "",
		vnet_link_up(&vn->nic) ? "up" : "down",
		vn->has_status ? "" : " (not reported)");
	return &vn->nic;
}

unsigned virtio_net_probe_all(struct nic **out, unsigned max)
{
	struct pci_list list = { .n = 0 };
	unsigned n;

	if (!vnet_probed) {
		pci_scan(is_virtio_net, &list);
		for (unsigned i = 0; i < list.n; i++) {
			struct nic *nic = bring_up_function(&list.dev[i]);

			if (nic)
				vnet_found[vnet_nfound++] = nic;
		}
		vnet_probed = true;
	}
	n = MIN(max, vnet_nfound);
	for (unsigned i = 0; i < n; i++)
		out[i] = vnet_found[i];
	return n;
}
