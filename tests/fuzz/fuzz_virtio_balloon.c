// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer target: the guest's virtio balloon (guest/devices/
 * virtio_balloon.c, virtio_pci_device.c, virtq_device.c) driven by a
 * script of what a guest can do - BAR and configuration-space accesses,
 * stores into its rings anywhere in a 64 KiB RAM, notifications, time
 * passing - with a well-behaved bring-up as one step so that inputs reach
 * the queues quickly. Checks: every discard asks for whole pages inside
 * the address space, used.idx never runs ahead of what was made available,
 * the INTx level follows the ISR and the command register.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "guest/devices/virtio_balloon.h"
#include "tests/fuzz/fuzz_script.h"

#define RAM_SIZE 0x10000u
#define QBASE(q) (0x8000u + 0x1000u * (q))

static uint8_t ram[RAM_SIZE];
static struct virtio_balloon b;
static uint64_t now;

static int ram_read(void *ctx, uint64_t gpa, void *dst, uint64_t len)
{
	(void)ctx;
	if (gpa >= RAM_SIZE || RAM_SIZE - gpa < len)
		return -1;
	memcpy(dst, ram + gpa, len);
	return 0;
}

static int ram_write(void *ctx, uint64_t gpa, const void *src, uint64_t len)
{
	(void)ctx;
	if (gpa >= RAM_SIZE || RAM_SIZE - gpa < len)
		return -1;
	memcpy(ram + gpa, src, len);
	return 0;
}

static void discard(void *ctx, uint64_t gpa, uint64_t pages,
		    struct balloon_discard_result *r)
{
	(void)ctx;
	assert(gpa % 4096 == 0);
	assert(pages && pages <= (UINT64_MAX - gpa) / 4096 + 1);
	r->dropped += pages;
}

static void run(unsigned events)
{
	if (events & ~VIRTIO_PCI_IRQ_CHANGED)
		virtio_balloon_run(&b, events & ~VIRTIO_PCI_IRQ_CHANGED, now);
}

static void mmio_write(uint64_t off, unsigned size, uint64_t value)
{
	run(virtio_pci_device_mmio_write(&b.pci, off, size, value));
}

/* What Linux's drivers do before the first buffer. */
static void bring_up(void)
{
	virtio_pci_device_config_write(&b.pci, 0x04, 2, 0x0006);
	mmio_write(VIRTIO_COMMON_DEVICE_STATUS, 1, 0);
	mmio_write(VIRTIO_COMMON_DEVICE_STATUS, 1, 3);
	mmio_write(VIRTIO_COMMON_DRIVER_FEATURE_SELECT, 4, 0);
	mmio_write(VIRTIO_COMMON_DRIVER_FEATURE, 4, 0x22);
	mmio_write(VIRTIO_COMMON_DRIVER_FEATURE_SELECT, 4, 1);
	mmio_write(VIRTIO_COMMON_DRIVER_FEATURE, 4, 1);
	mmio_write(VIRTIO_COMMON_DEVICE_STATUS, 1, 0x0b);
	for (unsigned q = 0; q < BALLOON_QUEUES; q++) {
		mmio_write(VIRTIO_COMMON_QUEUE_SELECT, 2, q);
		mmio_write(VIRTIO_COMMON_QUEUE_SIZE, 2, 32);
		mmio_write(VIRTIO_COMMON_QUEUE_DESC, 8, QBASE(q));
		mmio_write(VIRTIO_COMMON_QUEUE_DRIVER, 8, QBASE(q) + 0x200);
		mmio_write(VIRTIO_COMMON_QUEUE_DEVICE, 8, QBASE(q) + 0x400);
		mmio_write(VIRTIO_COMMON_QUEUE_ENABLE, 2, 1);
	}
	mmio_write(VIRTIO_COMMON_DEVICE_STATUS, 1, 0x0f);
}

static void check(void)
{
	uint8_t isr = b.pci.isr;

	assert(virtio_pci_device_irq_level(&b.pci) ==
	       (isr && !(b.pci.command & PCI_COMMAND_INTX_DISABLE)));
	for (unsigned q = 0; q < BALLOON_QUEUES; q++) {
		const struct virtq_device *vq = &b.pci.queue[q];

		/* The device never gives back more than it took. */
		assert((uint16_t)(vq->next_avail - vq->used_idx) <= vq->size ||
		       vq->broken);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned sizes[4] = { 1, 2, 4, 8 };
	const struct balloon_ops ops = {
		.ram = { .read = ram_read, .write = ram_write },
		.discard = discard,
	};
	struct fuzz_script s = { data, size };
	unsigned steps = 0;

	memset(ram, 0, sizeof(ram));
	now = 0;
	virtio_balloon_init(&b, &ops, 0xfebf0000u, 11);
	while (s.left && steps++ < 4096) {
		unsigned op = (unsigned)fuzz_take(&s, 1), events;
		uint64_t off = fuzz_take(&s, 2) % VIRTIO_PCI_DEVICE_BAR_SIZE;
		unsigned sz = sizes[op >> 6];
		uint64_t value = fuzz_take(&s, sz), base;

		switch (op & 7) {
		case 0:
			mmio_write(off, sz, value);
			break;
		case 1:
			virtio_pci_device_mmio_read(&b.pci, off, sz, &events);
			break;
		case 2:
			virtio_pci_device_config_write(&b.pci, off & 0xff,
						       sz > 4 ? 4 : sz,
						       (uint32_t)value);
			virtio_pci_device_bar(&b.pci, &base);
			break;
		case 3:
			virtio_pci_device_config_read(&b.pci, off & 0xff,
						      sz > 4 ? 4 : sz);
			break;
		case 4:
			/* The guest stores into its RAM (rings, buffers). */
			ram_write(NULL, (0x8000 + off) % (RAM_SIZE - 8), &value,
				  sz);
			break;
		case 5:
			bring_up();
			break;
		case 6:
			mmio_write(VIRTIO_PCI_DEVICE_NOTIFY + 4 * (off % 5), 2,
				   0);
			break;
		default:
			now += value;
			run(VIRTIO_PCI_NOTIFIED(0) >> 1 << 1);
			virtio_balloon_run(&b, 0, now);
		}
		check();
	}
	return 0;
}
