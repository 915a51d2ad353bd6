/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A modern (VIRTIO 1.2, 4.1) virtio PCI function for the guest: its PCI
 * configuration space with the four virtio vendor capabilities, and one
 * 32-bit memory BAR (BAR0, VIRTIO_PCI_DEVICE_BAR_SIZE) that holds
 *
 *   0x0000  common configuration (struct virtio_pci_common_cfg)
 *   0x1000  ISR status (read clears it)
 *   0x2000  the device's own configuration (the device's ops)
 *   0x3000  notifications: queue n at 0x3000 + 4 * n
 *
 * Interrupts are INTx (pin A): the line is up while the ISR status is not
 * zero and the command register does not disable INTx. There is no MSI-X
 * capability, so a driver uses INTx (Linux: vp_find_vqs_intx), and no
 * VIRTIO_PCI_CAP_PCI_CFG window (known limit: Linux does not use it).
 *
 * The device behind it (the balloon) gives its features, queue count and
 * configuration space through struct virtio_device_ops; buffers are its
 * business: a notification is returned to the caller, which runs the
 * device. Plain C over plain state, under the caller's lock.
 */
#ifndef GUEST_DEVICES_VIRTIO_PCI_DEVICE_H
#define GUEST_DEVICES_VIRTIO_PCI_DEVICE_H

#include "guest/devices/virtq_device.h"
#include "lib/types.h"
#include "lib/virtio_spec.h"

#define VIRTIO_PCI_DEVICE_BAR_SIZE 0x4000u
#define VIRTIO_PCI_DEVICE_MAX_QUEUES 8
#define VIRTIO_PCI_DEVICE_COMMON 0x0000u
#define VIRTIO_PCI_DEVICE_ISR    0x1000u
#define VIRTIO_PCI_DEVICE_CONFIG 0x2000u
#define VIRTIO_PCI_DEVICE_NOTIFY 0x3000u
#define VIRTIO_PCI_DEVICE_NOTIFY_MULTIPLIER 4u

/* PCI command register bits kept (PCI Local Bus 3.0, 6.2.2). */
#define PCI_COMMAND_MEMORY        0x0002u
#define PCI_COMMAND_BUS_MASTER    0x0004u
#define PCI_COMMAND_INTX_DISABLE  0x0400u

struct virtio_device_ops {
	uint16_t device_id;             /* virtio device ID (5.x) */
	uint64_t features;              /* offered; VIRTIO_F_VERSION_1 too */
	unsigned nqueues;               /* <= VIRTIO_PCI_DEVICE_MAX_QUEUES */
	uint16_t queue_max;             /* entries, a power of two */
	unsigned config_len;            /* bytes of device configuration */
	/* One byte of the device configuration (off < config_len). */
	uint8_t (*config_byte)(void *dev, unsigned off);
	void (*config_write_byte)(void *dev, unsigned off, uint8_t value);
	/* The driver reset the device (status 0): forget its buffers. */
	void (*reset)(void *dev);
};

struct virtio_pci_device {
	const struct virtio_device_ops *ops;
	void *dev;
	/* PCI configuration space (under the devices' lock). */
	uint16_t command;
	uint32_t bar0;                  /* the guest's BAR value */
	uint8_t interrupt_line;
	/* The common configuration. */
	uint32_t device_feature_select, driver_feature_select;
	uint64_t driver_features;
	uint8_t status;
	uint8_t config_generation;
	uint16_t queue_select;
	struct virtq_device queue[VIRTIO_PCI_DEVICE_MAX_QUEUES];
	/* Read-clear by the driver, set by the device: an atomic byte. */
	uint8_t isr;
};

/* What an access asks of the caller (bits). */
#define VIRTIO_PCI_NOTIFIED(q) (1u << (q))      /* run queue q */
#define VIRTIO_PCI_IRQ_CHANGED (1u << 31)       /* re-read the INTx level */

/* bar0: where the BAR starts (the caller's platform layout). */
void virtio_pci_device_init(struct virtio_pci_device *v,
			    const struct virtio_device_ops *ops, void *dev,
			    uint32_t bar0, uint8_t interrupt_line);

/* PCI configuration space, offset 0..255, size 1, 2 or 4 in one dword. */
uint32_t virtio_pci_device_config_read(const struct virtio_pci_device *v,
				       unsigned off, unsigned size);
unsigned virtio_pci_device_config_write(struct virtio_pci_device *v,
					unsigned off, unsigned size,
					uint32_t value);

/* Where BAR0 decodes now; false when memory decoding is off. */
bool virtio_pci_device_bar(const struct virtio_pci_device *v, uint64_t *base);

/* An access at off into BAR0, size 1, 2, 4 or 8. */
uint64_t virtio_pci_device_mmio_read(struct virtio_pci_device *v,
				     uint64_t off, unsigned size,
				     unsigned *events);
unsigned virtio_pci_device_mmio_write(struct virtio_pci_device *v,
				      uint64_t off, unsigned size,
				      uint64_t value);

/* The device used buffers or changed its configuration (VIRTIO_ISR_*). */
void virtio_pci_device_interrupt(struct virtio_pci_device *v, uint8_t bits);

/*
 * A queue broke (the driver wrote nonsense into it): DEVICE_NEEDS_RESET and
 * a configuration interrupt (2.1.1); the driver's reset clears it.
 */
void virtio_pci_device_needs_reset(struct virtio_pci_device *v);

/* The INTx line's level now. */
static inline bool virtio_pci_device_irq_level(const struct virtio_pci_device *v)
{
	return __atomic_load_n(&v->isr, __ATOMIC_ACQUIRE) &&
	       !(__atomic_load_n(&v->command, __ATOMIC_RELAXED) &
		 PCI_COMMAND_INTX_DISABLE);
}

/* DRIVER_OK is set and the device was not reset since. */
bool virtio_pci_device_live(const struct virtio_pci_device *v);

#endif
