// SPDX-License-Identifier: BSD-2-Clause
/*
 * virtio 1.0 PCI transport. Section numbers are those of "Virtual I/O
 * Device (VIRTIO) Version 1.0" (cs04). Every structure is reached through
 * a memory BAR; a device that places one in I/O space is refused.
 */
#include "arch/x86/virtio_pci.h"
#include "arch/x86/host_paging.h"

/* Capability and register numbers: lib/virtio_spec.h. */
#define RESET_SPINS      1000000
#define GENERATION_TRIES 100

/* MMIO with the widths 4.1.3.1 requires; 64-bit fields as two 32-bit. */
static uint8_t rd8(volatile uint8_t *base, unsigned off)
{
	return *(volatile uint8_t *)(base + off);
}

static uint16_t rd16(volatile uint8_t *base, unsigned off)
{
	return *(volatile uint16_t *)(base + off);
}

static uint32_t rd32(volatile uint8_t *base, unsigned off)
{
	return *(volatile uint32_t *)(base + off);
}

static void wr8(volatile uint8_t *base, unsigned off, uint8_t v)
{
	*(volatile uint8_t *)(base + off) = v;
}

static void wr16(volatile uint8_t *base, unsigned off, uint16_t v)
{
	*(volatile uint16_t *)(base + off) = v;
}

static void wr32(volatile uint8_t *base, unsigned off, uint32_t v)
{
	*(volatile uint32_t *)(base + off) = v;
}

static void wr64(volatile uint8_t *base, unsigned off, uint64_t v)
{
	wr32(base, off, (uint32_t)v);
	wr32(base, off + 4, (uint32_t)(v >> 32));
}

/*
 * Where one capability's structure lies: BAR base + offset, checked against
 * the BAR's size and mapped (a 64-bit BAR may sit far above RAM). NULL,
 * with *why set, when it is unusable.
 */
static volatile uint8_t *cap_window(const struct pci_device *d, uint8_t cap,
				    uint32_t *len, const char **why)
{
	uint8_t bar_index = pci_read8(d, cap + VIRTIO_CAP_BAR);
	uint32_t offset = pci_read32(d, cap + VIRTIO_CAP_OFFSET);
	struct pci_bar bar;

	*len = pci_read32(d, cap + VIRTIO_CAP_LENGTH);
	if (pci_bar_decode(d, bar_index, &bar) || !bar.size || !bar.base) {
		*why = "a virtio capability names an unusable BAR";
		return NULL;
	}
	if (bar.io) {
		*why = "a virtio structure in I/O space is not supported";
		return NULL;
	}
	if ((uint64_t)offset + *len > bar.size) {
		*why = "a virtio structure extends past the end of its BAR";
		return NULL;
	}
	if (!host_paging_map_mmio(bar.base + offset, *len)) {
		*why = "a virtio structure cannot be mapped (too large or "
		       "beyond physical addresses)";
		return NULL;
	}
	return (volatile uint8_t *)(uintptr_t)(bar.base + offset);
}

/* One vendor capability: keep it if it is the first of its type. */
static void take_cap(struct virtio_pci *vp, uint8_t cap, const char **why)
{
	const struct pci_device *d = &vp->pci;
	uint8_t type = pci_read8(d, cap + VIRTIO_CAP_CFG_TYPE);
	uint32_t len;

	if (type == VIRTIO_PCI_CAP_COMMON_CFG && !vp->common) {
		vp->common = cap_window(d, cap, &len, why);
		/* Not kept: its registers would lie past what was given. */
		if (vp->common && len < VIRTIO_COMMON_CFG_LENGTH) {
			vp->common = NULL;
			*why = "the common configuration is too short";
		}
	} else if (type == VIRTIO_PCI_CAP_NOTIFY_CFG && !vp->notify_base) {
		vp->notify_base = cap_window(d, cap, &vp->notify_len, why);
		vp->notify_multiplier =
			pci_read32(d, cap + VIRTIO_CAP_NOTIFY_MULTIPLIER);
	} else if (type == VIRTIO_PCI_CAP_ISR_CFG && !vp->isr) {
		vp->isr = cap_window(d, cap, &len, why);
	} else if (type == VIRTIO_PCI_CAP_DEVICE_CFG && !vp->devcfg) {
		vp->devcfg = cap_window(d, cap, &vp->devcfg_len, why);
	}
}

/*
 * 4.1.4: "the driver SHOULD use the first instance of each type". A list
 * that loops is walked no further than a list can be long.
 */
enum hv_err virtio_pci_init(struct virtio_pci *vp, const struct pci_device *d,
			    const char **why)
{
	unsigned n = 0;

	*vp = (struct virtio_pci){ .pci = *d };
	*why = NULL;
	for (uint8_t cap = pci_next_cap(d, PCI_CAP_ID_VENDOR, 0);
	     cap && !*why && n++ < PCI_CAP_MAX_COUNT;
	     cap = pci_next_cap(d, PCI_CAP_ID_VENDOR, cap))
		take_cap(vp, cap, why);
	if (*why)
		return HV_ERR_DEVICE;
	if (!vp->common || !vp->notify_base || !vp->devcfg) {
		*why = "no virtio 1.0 PCI capabilities (a legacy-only device; "
		       "QEMU: virtio-blk-pci,disable-legacy=on)";
		return HV_ERR_UNSUPPORTED;
	}
	pci_enable(d, PCI_COMMAND_MEMORY | PCI_COMMAND_BUS_MASTER);
	return HV_OK;
}

/* 4.1.4.3.2: after writing 0 the driver waits until it reads back 0. */
enum hv_err virtio_pci_reset(struct virtio_pci *vp)
{
	wr8(vp->common, VIRTIO_COMMON_DEVICE_STATUS, 0);
	for (unsigned i = 0; i < RESET_SPINS; i++)
		if (rd8(vp->common, VIRTIO_COMMON_DEVICE_STATUS) == 0)
			return HV_OK;
	return HV_ERR_TIMEOUT;
}

uint8_t virtio_pci_status(struct virtio_pci *vp)
{
	return rd8(vp->common, VIRTIO_COMMON_DEVICE_STATUS);
}

void virtio_pci_add_status(struct virtio_pci *vp, uint8_t bits)
{
	wr8(vp->common, VIRTIO_COMMON_DEVICE_STATUS, virtio_pci_status(vp) | bits);
}

uint64_t virtio_pci_device_features(struct virtio_pci *vp)
{
	uint64_t f;

	wr32(vp->common, VIRTIO_COMMON_DEVICE_FEATURE_SELECT, 0);
	f = rd32(vp->common, VIRTIO_COMMON_DEVICE_FEATURE);
	wr32(vp->common, VIRTIO_COMMON_DEVICE_FEATURE_SELECT, 1);
	return f | (uint64_t)rd32(vp->common, VIRTIO_COMMON_DEVICE_FEATURE) << 32;
}

/* 3.1.1 steps 5-6: the device clears FEATURES_OK if it rejects them. */
enum hv_err virtio_pci_features_ok(struct virtio_pci *vp, uint64_t features)
{
	wr32(vp->common, VIRTIO_COMMON_DRIVER_FEATURE_SELECT, 0);
	wr32(vp->common, VIRTIO_COMMON_DRIVER_FEATURE, (uint32_t)features);
	wr32(vp->common, VIRTIO_COMMON_DRIVER_FEATURE_SELECT, 1);
	wr32(vp->common, VIRTIO_COMMON_DRIVER_FEATURE, (uint32_t)(features >> 32));
	virtio_pci_add_status(vp, VIRTIO_STATUS_FEATURES_OK);
	return virtio_pci_status(vp) & VIRTIO_STATUS_FEATURES_OK ?
		       HV_OK : HV_ERR_UNSUPPORTED;
}

uint32_t virtio_pci_config32(struct virtio_pci *vp, unsigned off)
{
	return rd32(vp->devcfg, off);
}

/*
 * 2.3.1: a field wider than 32 bits is only consistent if
 * config_generation did not change while it was read.
 */
enum hv_err virtio_pci_config64(struct virtio_pci *vp, unsigned off,
				uint64_t *v)
{
	if ((uint64_t)off + 8 > vp->devcfg_len)
		return HV_ERR_INVALID;
	for (unsigned i = 0; i < GENERATION_TRIES; i++) {
		uint8_t gen = rd8(vp->common, VIRTIO_COMMON_CONFIG_GENERATION);
		uint64_t lo = rd32(vp->devcfg, off);
		uint64_t hi = rd32(vp->devcfg, off + 4);

		if (rd8(vp->common, VIRTIO_COMMON_CONFIG_GENERATION) == gen) {
			*v = lo | hi << 32;
			return HV_OK;
		}
	}
	return HV_ERR_DEVICE;
}

uint16_t virtio_pci_queue_max(struct virtio_pci *vp, uint16_t q)
{
	wr16(vp->common, VIRTIO_COMMON_QUEUE_SELECT, q);
	return rd16(vp->common, VIRTIO_COMMON_QUEUE_SIZE);
}

/* 4.1.5.1.3: select, size, addresses, then enable. */
volatile uint16_t *virtio_pci_queue_enable(struct virtio_pci *vp, uint16_t q,
					   uint16_t size,
					   const struct virtio_queue_addrs *a,
					   const char **why)
{
	uint64_t notify_at;

	wr16(vp->common, VIRTIO_COMMON_QUEUE_SELECT, q);
	wr16(vp->common, VIRTIO_COMMON_QUEUE_SIZE, size);
	wr64(vp->common, VIRTIO_COMMON_QUEUE_DESC, a->desc);
	wr64(vp->common, VIRTIO_COMMON_QUEUE_DRIVER, a->driver);
	wr64(vp->common, VIRTIO_COMMON_QUEUE_DEVICE, a->device);
	/* 4.1.4.4: queue_notify_off * notify_off_multiplier from the base. */
	notify_at = (uint64_t)rd16(vp->common, VIRTIO_COMMON_QUEUE_NOTIFY_OFF) *
		    vp->notify_multiplier;
	if (notify_at + sizeof(uint16_t) > vp->notify_len) {
		*why = "the queue notify address lies outside its capability";
		return NULL;
	}
	wr16(vp->common, VIRTIO_COMMON_QUEUE_ENABLE, 1);
	return (volatile uint16_t *)(vp->notify_base + notify_at);
}
