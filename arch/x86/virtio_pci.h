/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The virtio 1.0 PCI transport ("modern" devices; virtio 1.0, 4.1): the
 * vendor capabilities that locate the common, notify, ISR and
 * device-specific structures, the device status, feature negotiation and
 * queue setup. Device drivers (swap/drivers/virtio_blk.c,
 * net/drivers/virtio_net.c) build on it. Polled: no
 * MSI-X vector is ever assigned.
 */
#ifndef ARCH_X86_VIRTIO_PCI_H
#define ARCH_X86_VIRTIO_PCI_H

#include "arch/x86/pci.h"
#include "lib/errors.h"
#include "lib/virtio_spec.h"

struct virtio_pci {
	struct pci_device pci;
	volatile uint8_t *common;       /* struct virtio_pci_common_cfg */
	volatile uint8_t *notify_base;
	volatile uint8_t *isr;          /* NULL when the device has none */
	volatile uint8_t *devcfg;       /* device-specific configuration */
	uint32_t notify_len, devcfg_len;
	uint32_t notify_multiplier;
};

/* The physical addresses of a split virtqueue's three parts (2.4). */
struct virtio_queue_addrs {
	uint64_t desc, driver, device;
};

/*
 * Finds the first capability of each type (4.1.4), checks each structure
 * lies inside its memory BAR, maps it and enables memory decoding and bus
 * mastering. Returns HV_OK, or with *why set: HV_ERR_DEVICE when a
 * capability cannot be used, HV_ERR_UNSUPPORTED when there are none (a
 * legacy-only device).
 */
enum hv_err virtio_pci_init(struct virtio_pci *vp, const struct pci_device *d,
			    const char **why);

/*
 * Writes 0 and waits (bounded) until the status reads back 0: HV_OK, or
 * HV_ERR_TIMEOUT.
 */
enum hv_err virtio_pci_reset(struct virtio_pci *vp);
uint8_t virtio_pci_status(struct virtio_pci *vp);
void virtio_pci_add_status(struct virtio_pci *vp, uint8_t bits);

uint64_t virtio_pci_device_features(struct virtio_pci *vp);
/*
 * Writes the driver features and sets FEATURES_OK; HV_ERR_UNSUPPORTED if it
 * did not stick (the device refused them).
 */
enum hv_err virtio_pci_features_ok(struct virtio_pci *vp, uint64_t features);

/*
 * A 32-bit little-endian field at offset off of the device-specific
 * configuration, and a 64-bit one read consistently (config_generation):
 * HV_ERR_INVALID past the end of the window, HV_ERR_DEVICE when it changed
 * on every try.
 */
uint32_t virtio_pci_config32(struct virtio_pci *vp, unsigned off);
enum hv_err virtio_pci_config64(struct virtio_pci *vp, unsigned off,
				uint64_t *v);

/* Selects queue q; returns its maximum size, 0 when it does not exist. */
uint16_t virtio_pci_queue_max(struct virtio_pci *vp, uint16_t q);

/*
 * Sets queue q's size and addresses, enables it and returns where to
 * write q to notify the device (virtio_pci_notify), or NULL with *why.
 */
volatile uint16_t *virtio_pci_queue_enable(struct virtio_pci *vp, uint16_t q,
					   uint16_t size,
					   const struct virtio_queue_addrs *a,
					   const char **why);

/* 4.1.5.2: the notification is the queue index, written 16 bits wide. */
static inline void virtio_pci_notify(volatile uint16_t *notify, uint16_t q)
{
	*notify = q;
}

#endif
