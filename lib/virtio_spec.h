/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Numbers of the Virtual I/O Device (VIRTIO) specification 1.2 that both
 * sides of apfvisor use: its virtio-blk driver (swap/drivers/) and its
 * virtio devices for the guest (guest/devices/). Only what the spec fixes
 * is here; each side has its own state.
 */
#ifndef LIB_VIRTIO_SPEC_H
#define LIB_VIRTIO_SPEC_H

#include "lib/types.h"

#define VIRTIO_PCI_VENDOR 0x1af4
/* Modern (non-transitional) devices: 0x1040 + the device ID (4.1.2.1). */
#define VIRTIO_PCI_MODERN_DEVICE_BASE 0x1040

/* Device status (2.1). */
#define VIRTIO_STATUS_ACKNOWLEDGE  1
#define VIRTIO_STATUS_DRIVER       2
#define VIRTIO_STATUS_DRIVER_OK    4
#define VIRTIO_STATUS_FEATURES_OK  8
#define VIRTIO_STATUS_NEEDS_RESET  64
#define VIRTIO_STATUS_FAILED       128

/* Reserved feature bits (6). */
#define VIRTIO_F_VERSION_1 32

/* The virtio PCI capabilities' cfg_type (4.1.4). */
#define VIRTIO_PCI_CAP_COMMON_CFG 1
#define VIRTIO_PCI_CAP_NOTIFY_CFG 2
#define VIRTIO_PCI_CAP_ISR_CFG    3
#define VIRTIO_PCI_CAP_DEVICE_CFG 4

/* Byte offsets in struct virtio_pci_cap (4.1.4). */
#define VIRTIO_CAP_VNDR        0
#define VIRTIO_CAP_NEXT        1
#define VIRTIO_CAP_LEN         2
#define VIRTIO_CAP_CFG_TYPE    3
#define VIRTIO_CAP_BAR         4
#define VIRTIO_CAP_OFFSET      8
#define VIRTIO_CAP_LENGTH      12
#define VIRTIO_CAP_NOTIFY_MULTIPLIER 16 /* struct virtio_pci_notify_cap */
#define VIRTIO_CAP_SIZE        16
#define VIRTIO_NOTIFY_CAP_SIZE 20

/* struct virtio_pci_common_cfg (4.1.4.3). */
#define VIRTIO_COMMON_DEVICE_FEATURE_SELECT 0x00
#define VIRTIO_COMMON_DEVICE_FEATURE        0x04
#define VIRTIO_COMMON_DRIVER_FEATURE_SELECT 0x08
#define VIRTIO_COMMON_DRIVER_FEATURE        0x0c
#define VIRTIO_COMMON_MSIX_CONFIG           0x10
#define VIRTIO_COMMON_NUM_QUEUES            0x12
#define VIRTIO_COMMON_DEVICE_STATUS         0x14
#define VIRTIO_COMMON_CONFIG_GENERATION     0x15
#define VIRTIO_COMMON_QUEUE_SELECT          0x16
#define VIRTIO_COMMON_QUEUE_SIZE            0x18
#define VIRTIO_COMMON_QUEUE_MSIX_VECTOR     0x1a
#define VIRTIO_COMMON_QUEUE_ENABLE          0x1c
#define VIRTIO_COMMON_QUEUE_NOTIFY_OFF      0x1e
#define VIRTIO_COMMON_QUEUE_DESC            0x20
#define VIRTIO_COMMON_QUEUE_DRIVER          0x28
#define VIRTIO_COMMON_QUEUE_DEVICE          0x30
#define VIRTIO_COMMON_CFG_LENGTH            0x38

#define VIRTIO_MSI_NO_VECTOR 0xffff

/* The ISR status byte (4.1.4.5): read clears it. */
#define VIRTIO_ISR_QUEUE  1
#define VIRTIO_ISR_CONFIG 2

/* Split virtqueues (2.7). */
#define VIRTQ_DESC_F_NEXT   1
#define VIRTQ_DESC_F_WRITE  2
#define VIRTQ_DESC_F_INDIRECT 4
#define VIRTQ_AVAIL_F_NO_INTERRUPT 1
#define VIRTQ_USED_F_NO_NOTIFY     1
#define VIRTQ_MAX_SIZE 32768

struct virtq_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

struct virtq_used_elem {
	uint32_t id;
	uint32_t len;
};

/* Bytes of each part of a split queue of size entries (2.7, no events). */
#define VIRTQ_DESC_BYTES(size)  (16ull * (size))
#define VIRTQ_AVAIL_BYTES(size) (4ull + 2ull * (size))
#define VIRTQ_USED_BYTES(size)  (4ull + 8ull * (size))

#endif
