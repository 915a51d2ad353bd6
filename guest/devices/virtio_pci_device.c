// SPDX-License-Identifier: BSD-2-Clause
/* A modern virtio PCI function for the guest: see virtio_pci_device.h. */
#include "guest/devices/virtio_pci_device.h"
#include "lib/string.h"

/* Type 0 header (PCI Local Bus Specification 3.0, 6.1). */
#define CFG_VENDOR_ID 0x00
#define CFG_DEVICE_ID 0x02
#define CFG_COMMAND 0x04
#define CFG_STATUS 0x06
#define CFG_REVISION 0x08
#define CFG_SUBCLASS 0x0a
#define CFG_BAR0 0x10
#define CFG_SUBSYSTEM_VENDOR_ID 0x2c
#define CFG_SUBSYSTEM_ID 0x2e
#define CFG_CAPABILITIES 0x34
#define CFG_INTERRUPT_LINE 0x3c
#define CFG_INTERRUPT_PIN 0x3d
#define CFG_SPACE 0x100

#define STATUS_INTERRUPT 0x0008u
#define STATUS_CAP_LIST 0x0010u
/* Class 00 (before class codes), subclass ff: QEMU's PCI_CLASS_OTHERS. */
#define SUBCLASS_OTHERS 0xff
#define REVISION_MODERN 1               /* 4.1.2.1: at least 1 */
#define SUBSYSTEM_ID 0x1100
#define INTERRUPT_PIN_A 1
#define CAP_ID_VENDOR 0x09
#define COMMAND_KEPT (PCI_COMMAND_MEMORY | PCI_COMMAND_BUS_MASTER | \
		      PCI_COMMAND_INTX_DISABLE)

/* The capability chain: where each structure is in BAR0. */
#define CAP_COMMON 0x40
#define CAP_NOTIFY 0x50
#define CAP_ISR 0x64
#define CAP_DEVICE 0x74

struct cap_place {
	uint8_t at, next, len, type;
	uint32_t offset;
};

static const struct cap_place caps[] = {
	{ CAP_COMMON, CAP_NOTIFY, VIRTIO_CAP_SIZE, VIRTIO_PCI_CAP_COMMON_CFG,
	  VIRTIO_PCI_DEVICE_COMMON },
	{ CAP_NOTIFY, CAP_ISR, VIRTIO_NOTIFY_CAP_SIZE,
	  VIRTIO_PCI_CAP_NOTIFY_CFG, VIRTIO_PCI_DEVICE_NOTIFY },
	{ CAP_ISR, CAP_DEVICE, VIRTIO_CAP_SIZE, VIRTIO_PCI_CAP_ISR_CFG,
	  VIRTIO_PCI_DEVICE_ISR },
	{ CAP_DEVICE, 0, VIRTIO_CAP_SIZE, VIRTIO_PCI_CAP_DEVICE_CFG,
	  VIRTIO_PCI_DEVICE_CONFIG },
};

static void reset_device(struct virtio_pci_device *v)
{
	v->device_feature_select = 0;
	v->driver_feature_select = 0;
	v->driver_features = 0;
	v->status = 0;
	v->queue_select = 0;
	for (unsigned q = 0; q < VIRTIO_PCI_DEVICE_MAX_QUEUES; q++)
		virtq_device_reset(&v->queue[q], v->ops->queue_max);
	__atomic_store_n(&v->isr, 0, __ATOMIC_RELEASE);
	if (v->ops->reset)
		v->ops->reset(v->dev);
}

void virtio_pci_device_init(struct virtio_pci_device *v,
			    const struct virtio_device_ops *ops, void *dev,
			    uint32_t bar0, uint8_t interrupt_line)
{
	memset(v, 0, sizeof(*v));
	v->ops = ops;
	v->dev = dev;
	v->bar0 = bar0 & ~(VIRTIO_PCI_DEVICE_BAR_SIZE - 1);
	v->interrupt_line = interrupt_line;
	reset_device(v);
}

static uint32_t cap_length(const struct virtio_pci_device *v, uint8_t type)
{
	switch (type) {
	case VIRTIO_PCI_CAP_COMMON_CFG:
		return VIRTIO_COMMON_CFG_LENGTH;
	case VIRTIO_PCI_CAP_NOTIFY_CFG:
		return VIRTIO_PCI_DEVICE_NOTIFY_MULTIPLIER * v->ops->nqueues;
	case VIRTIO_PCI_CAP_ISR_CFG:
		return 1;
	default:
		return v->ops->config_len;
	}
}

static uint32_t le_byte(uint32_t value, unsigned i)
{
	return (value >> (8 * i)) & 0xff;
}

/* Byte off of capability c. */
static uint8_t cap_byte(const struct virtio_pci_device *v,
			const struct cap_place *c, unsigned off)
{
	switch (off) {
	case VIRTIO_CAP_VNDR:
		return CAP_ID_VENDOR;
	case VIRTIO_CAP_NEXT:
		return c->next;
	case VIRTIO_CAP_LEN:
		return c->len;
	case VIRTIO_CAP_CFG_TYPE:
		return c->type;
	case VIRTIO_CAP_BAR:
		return 0;
	}
	if (off >= VIRTIO_CAP_OFFSET && off < VIRTIO_CAP_OFFSET + 4)
		return (uint8_t)le_byte(c->offset, off - VIRTIO_CAP_OFFSET);
	if (off >= VIRTIO_CAP_LENGTH && off < VIRTIO_CAP_LENGTH + 4)
		return (uint8_t)le_byte(cap_length(v, c->type),
					off - VIRTIO_CAP_LENGTH);
	if (off >= VIRTIO_CAP_NOTIFY_MULTIPLIER && off < c->len)
		return (uint8_t)le_byte(VIRTIO_PCI_DEVICE_NOTIFY_MULTIPLIER,
					off - VIRTIO_CAP_NOTIFY_MULTIPLIER);
	return 0;
}

static uint16_t pci_status(const struct virtio_pci_device *v)
{
	return STATUS_CAP_LIST |
	       (__atomic_load_n(&v->isr, __ATOMIC_ACQUIRE) ? STATUS_INTERRUPT
							   : 0);
}

static uint8_t config_byte(const struct virtio_pci_device *v, unsigned off)
{
	for (unsigned i = 0; i < ARRAY_SIZE(caps); i++)
		if (off >= caps[i].at && off < caps[i].at + caps[i].len)
			return cap_byte(v, &caps[i], off - caps[i].at);
	switch (off & ~1u) {
	case CFG_VENDOR_ID:
		return (uint8_t)le_byte(VIRTIO_PCI_VENDOR, off & 1);
	case CFG_DEVICE_ID:
		return (uint8_t)le_byte(VIRTIO_PCI_MODERN_DEVICE_BASE +
					v->ops->device_id, off & 1);
	case CFG_COMMAND:
		return (uint8_t)le_byte(v->command, off & 1);
	case CFG_STATUS:
		return (uint8_t)le_byte(pci_status(v), off & 1);
	case CFG_SUBSYSTEM_VENDOR_ID:
		return (uint8_t)le_byte(VIRTIO_PCI_VENDOR, off & 1);
	case CFG_SUBSYSTEM_ID:
		return (uint8_t)le_byte(SUBSYSTEM_ID, off & 1);
	}
	if (off >= CFG_BAR0 && off < CFG_BAR0 + 4)
		return (uint8_t)le_byte(v->bar0, off - CFG_BAR0);
	switch (off) {
	case CFG_REVISION:
		return REVISION_MODERN;
	case CFG_SUBCLASS:
		return SUBCLASS_OTHERS;
	case CFG_CAPABILITIES:
		return CAP_COMMON;
	case CFG_INTERRUPT_LINE:
		return v->interrupt_line;
	case CFG_INTERRUPT_PIN:
		return INTERRUPT_PIN_A;
	}
	return 0;
}

uint32_t virtio_pci_device_config_read(const struct virtio_pci_device *v,
				       unsigned off, unsigned size)
{
	uint32_t value = 0;

	for (unsigned i = 0; i < size && off + i < CFG_SPACE; i++)
		value |= (uint32_t)config_byte(v, off + i) << (8 * i);
	return value;
}

/* Replaces the bytes of reg (width bytes at at) that [off, off+size) covers. */
static uint32_t merge(uint32_t reg, unsigned at, unsigned width, unsigned off,
		      unsigned size, uint32_t value)
{
	for (unsigned i = 0; i < size; i++) {
		unsigned b = off + i;

		if (b < at || b >= at + width)
			continue;
		reg &= ~(0xffu << (8 * (b - at)));
		reg |= le_byte(value, i) << (8 * (b - at));
	}
	return reg;
}

static bool covers(unsigned at, unsigned width, unsigned off, unsigned size)
{
	return off < at + width && at < off + size;
}

unsigned virtio_pci_device_config_write(struct virtio_pci_device *v,
					unsigned off, unsigned size,
					uint32_t value)
{
	unsigned events = 0;

	if (covers(CFG_COMMAND, 2, off, size)) {
		uint16_t old = v->command;

		v->command = (uint16_t)(merge(v->command, CFG_COMMAND, 2, off,
					      size, value) & COMMAND_KEPT);
		if ((old ^ v->command) & PCI_COMMAND_INTX_DISABLE)
			events |= VIRTIO_PCI_IRQ_CHANGED;
	}
	/* A BAR keeps its size's low bits zero: how its size is found. */
	if (covers(CFG_BAR0, 4, off, size))
		v->bar0 = merge(v->bar0, CFG_BAR0, 4, off, size, value) &
			  ~(VIRTIO_PCI_DEVICE_BAR_SIZE - 1);
	if (covers(CFG_INTERRUPT_LINE, 1, off, size))
		v->interrupt_line = (uint8_t)merge(v->interrupt_line,
						   CFG_INTERRUPT_LINE, 1, off,
						   size, value);
	return events;
}

bool virtio_pci_device_bar(const struct virtio_pci_device *v, uint64_t *base)
{
	*base = __atomic_load_n(&v->bar0, __ATOMIC_RELAXED);
	return (__atomic_load_n(&v->command, __ATOMIC_RELAXED) &
		PCI_COMMAND_MEMORY) && *base;
}

static struct virtq_device *selected(struct virtio_pci_device *v)
{
	return v->queue_select < v->ops->nqueues ? &v->queue[v->queue_select]
						 : NULL;
}

/* The common configuration as bytes, as the driver would read them. */
static void common_bytes(struct virtio_pci_device *v,
			 uint8_t b[VIRTIO_COMMON_CFG_LENGTH])
{
	struct virtq_device *q = selected(v);
	uint64_t features = 0;
	uint16_t u16;

	memset(b, 0, VIRTIO_COMMON_CFG_LENGTH);
	if (v->device_feature_select < 2)
		features = v->ops->features >> (32 * v->device_feature_select);
	memcpy(b + VIRTIO_COMMON_DEVICE_FEATURE_SELECT,
	       &v->device_feature_select, 4);
	memcpy(b + VIRTIO_COMMON_DEVICE_FEATURE, &features, 4);
	memcpy(b + VIRTIO_COMMON_DRIVER_FEATURE_SELECT,
	       &v->driver_feature_select, 4);
	if (v->driver_feature_select < 2) {
		uint32_t half = (uint32_t)(v->driver_features >>
					   (32 * v->driver_feature_select));

		memcpy(b + VIRTIO_COMMON_DRIVER_FEATURE, &half, 4);
	}
	u16 = VIRTIO_MSI_NO_VECTOR;
	memcpy(b + VIRTIO_COMMON_MSIX_CONFIG, &u16, 2);
	u16 = (uint16_t)v->ops->nqueues;
	memcpy(b + VIRTIO_COMMON_NUM_QUEUES, &u16, 2);
	b[VIRTIO_COMMON_DEVICE_STATUS] = v->status;
	b[VIRTIO_COMMON_CONFIG_GENERATION] = v->config_generation;
	memcpy(b + VIRTIO_COMMON_QUEUE_SELECT, &v->queue_select, 2);
	if (!q)
		return;         /* a queue that does not exist reads size 0 */
	memcpy(b + VIRTIO_COMMON_QUEUE_SIZE, &q->size, 2);
	u16 = VIRTIO_MSI_NO_VECTOR;
	memcpy(b + VIRTIO_COMMON_QUEUE_MSIX_VECTOR, &u16, 2);
	u16 = q->enabled;
	memcpy(b + VIRTIO_COMMON_QUEUE_ENABLE, &u16, 2);
	u16 = v->queue_select;  /* notify_off: queue n at n * multiplier */
	memcpy(b + VIRTIO_COMMON_QUEUE_NOTIFY_OFF, &u16, 2);
	memcpy(b + VIRTIO_COMMON_QUEUE_DESC, &q->desc, 8);
	memcpy(b + VIRTIO_COMMON_QUEUE_DRIVER, &q->avail, 8);
	memcpy(b + VIRTIO_COMMON_QUEUE_DEVICE, &q->used, 8);
}

/* FEATURES_OK holds only for a subset of the offer with VERSION_1. */
static uint8_t checked_status(struct virtio_pci_device *v, uint8_t status)
{
	uint64_t f = v->driver_features;

	if ((status & VIRTIO_STATUS_FEATURES_OK) &&
	    ((f & ~v->ops->features) || !(f & BIT(VIRTIO_F_VERSION_1))))
		status &= (uint8_t)~VIRTIO_STATUS_FEATURES_OK;
	return status;
}

/*
 * Buffers a driver adds and notifies before DRIVER_OK (Linux primes the
 * balloon's statistics queue so) wait for it (3.1.1): setting DRIVER_OK
 * is a notification of every queue.
 */
static unsigned write_status(struct virtio_pci_device *v, uint8_t status)
{
	bool was_live = virtio_pci_device_live(v);

	if (status == 0) {
		reset_device(v);
		return VIRTIO_PCI_IRQ_CHANGED;
	}
	v->status = checked_status(v, status);
	if (!was_live && virtio_pci_device_live(v))
		return VIRTIO_PCI_NOTIFIED(v->ops->nqueues) - 1;
	return 0;
}

static void write_queue_field(struct virtio_pci_device *v, unsigned field,
			      const uint8_t *b)
{
	struct virtq_device *q = selected(v);
	uint16_t u16;

	/* The layout of a queue is fixed while it is enabled (4.1.4.3.2). */
	if (!q || q->enabled)
		return;
	switch (field) {
	case VIRTIO_COMMON_QUEUE_SIZE:
		memcpy(&u16, b + field, 2);
		if (virtq_device_size_ok(q, u16))
			q->size = u16;
		break;
	case VIRTIO_COMMON_QUEUE_ENABLE:
		memcpy(&u16, b + field, 2);
		q->enabled = u16 == 1;
		break;
	case VIRTIO_COMMON_QUEUE_DESC:
		memcpy(&q->desc, b + field, 8);
		break;
	case VIRTIO_COMMON_QUEUE_DRIVER:
		memcpy(&q->avail, b + field, 8);
		break;
	case VIRTIO_COMMON_QUEUE_DEVICE:
		memcpy(&q->used, b + field, 8);
		break;
	}
}

static unsigned common_write(struct virtio_pci_device *v, unsigned off,
			     unsigned size, uint64_t value)
{
	static const struct { uint8_t at, width; } fields[] = {
		{ VIRTIO_COMMON_DEVICE_FEATURE_SELECT, 4 },
		{ VIRTIO_COMMON_DRIVER_FEATURE_SELECT, 4 },
		{ VIRTIO_COMMON_DRIVER_FEATURE, 4 },
		{ VIRTIO_COMMON_DEVICE_STATUS, 1 },
		{ VIRTIO_COMMON_QUEUE_SELECT, 2 },
		{ VIRTIO_COMMON_QUEUE_SIZE, 2 },
		{ VIRTIO_COMMON_QUEUE_ENABLE, 2 },
		{ VIRTIO_COMMON_QUEUE_DESC, 8 },
		{ VIRTIO_COMMON_QUEUE_DRIVER, 8 },
		{ VIRTIO_COMMON_QUEUE_DEVICE, 8 },
	};
	uint8_t b[VIRTIO_COMMON_CFG_LENGTH];
	unsigned events = 0;

	common_bytes(v, b);
	for (unsigned i = 0; i < size && off + i < sizeof(b); i++)
		b[off + i] = (uint8_t)(value >> (8 * i));
	for (unsigned i = 0; i < ARRAY_SIZE(fields); i++) {
		unsigned at = fields[i].at;

		if (!covers(at, fields[i].width, off, size))
			continue;
		switch (at) {
		case VIRTIO_COMMON_DEVICE_FEATURE_SELECT:
			memcpy(&v->device_feature_select, b + at, 4);
			break;
		case VIRTIO_COMMON_DRIVER_FEATURE_SELECT:
			memcpy(&v->driver_feature_select, b + at, 4);
			break;
		case VIRTIO_COMMON_DRIVER_FEATURE:
			if (v->driver_feature_select < 2 &&
			    !(v->status & VIRTIO_STATUS_FEATURES_OK)) {
				unsigned shift = 32 * v->driver_feature_select;
				uint32_t half;

				memcpy(&half, b + at, 4);
				v->driver_features &= ~(0xffffffffull << shift);
				v->driver_features |= (uint64_t)half << shift;
			}
			break;
		case VIRTIO_COMMON_DEVICE_STATUS:
			events |= write_status(v, b[at]);
			break;
		case VIRTIO_COMMON_QUEUE_SELECT:
			memcpy(&v->queue_select, b + at, 2);
			break;
		default:
			write_queue_field(v, at, b);
		}
	}
	return events;
}

uint64_t virtio_pci_device_mmio_read(struct virtio_pci_device *v,
				     uint64_t off, unsigned size,
				     unsigned *events)
{
	uint64_t value = 0;

	*events = 0;
	if (off + size <= VIRTIO_PCI_DEVICE_COMMON + VIRTIO_COMMON_CFG_LENGTH) {
		uint8_t b[VIRTIO_COMMON_CFG_LENGTH];

		common_bytes(v, b);
		memcpy(&value, b + off, size);
	} else if (off == VIRTIO_PCI_DEVICE_ISR) {
		value = __atomic_exchange_n(&v->isr, 0, __ATOMIC_ACQ_REL);
		*events = VIRTIO_PCI_IRQ_CHANGED;
	} else if (off >= VIRTIO_PCI_DEVICE_CONFIG &&
		   off + size <= VIRTIO_PCI_DEVICE_CONFIG + v->ops->config_len) {
		for (unsigned i = 0; i < size; i++)
			value |= (uint64_t)v->ops->config_byte(
					 v->dev, (unsigned)(off - VIRTIO_PCI_DEVICE_CONFIG) + i)
				 << (8 * i);
	}
	return value;
}

unsigned virtio_pci_device_mmio_write(struct virtio_pci_device *v,
				      uint64_t off, unsigned size,
				      uint64_t value)
{
	if (off + size <= VIRTIO_PCI_DEVICE_COMMON + VIRTIO_COMMON_CFG_LENGTH)
		return common_write(v, (unsigned)off, size, value);
	if (off >= VIRTIO_PCI_DEVICE_CONFIG &&
	    off + size <= VIRTIO_PCI_DEVICE_CONFIG + v->ops->config_len) {
		for (unsigned i = 0; i < size; i++)
			v->ops->config_write_byte(
				v->dev, (unsigned)(off - VIRTIO_PCI_DEVICE_CONFIG) + i,
				(uint8_t)(value >> (8 * i)));
		return 0;
	}
	if (off >= VIRTIO_PCI_DEVICE_NOTIFY &&
	    off < VIRTIO_PCI_DEVICE_NOTIFY +
			  VIRTIO_PCI_DEVICE_NOTIFY_MULTIPLIER * v->ops->nqueues) {
		unsigned q = (unsigned)(off - VIRTIO_PCI_DEVICE_NOTIFY) /
			     VIRTIO_PCI_DEVICE_NOTIFY_MULTIPLIER;

		/* Buffers are served only once the driver is ready. */
		return virtio_pci_device_live(v) ? VIRTIO_PCI_NOTIFIED(q) : 0;
	}
	return 0;
}

void virtio_pci_device_interrupt(struct virtio_pci_device *v, uint8_t bits)
{
	__atomic_fetch_or(&v->isr, bits, __ATOMIC_ACQ_REL);
}

void virtio_pci_device_needs_reset(struct virtio_pci_device *v)
{
	v->status |= VIRTIO_STATUS_NEEDS_RESET;
	virtio_pci_device_interrupt(v, VIRTIO_ISR_CONFIG);
}

bool virtio_pci_device_live(const struct virtio_pci_device *v)
{
	return (v->status & VIRTIO_STATUS_DRIVER_OK) &&
	       !(v->status & VIRTIO_STATUS_FAILED);
}
