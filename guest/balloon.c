// SPDX-License-Identifier: BSD-2-Clause
/* The VM's virtio balloon on its platform: see guest/balloon.h. */
#include "guest/balloon.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"
#include "guest/interrupts.h"
#include "guest/vm.h"
#include "lib/console.h"
#include "lib/heap.h"

#define NOWHERE (~0ull & ~(uint64_t)(VIRTIO_PCI_DEVICE_BAR_SIZE - 1))

static int ram_read(void *ctx, uint64_t gpa, void *dst, uint64_t len)
{
	return vm_read_ram(ctx, gpa, dst, len);
}

static int ram_write(void *ctx, uint64_t gpa, const void *src, uint64_t len)
{
	return vm_write_ram(ctx, gpa, src, len);
}

static void discard(void *ctx, uint64_t gpa, uint64_t pages,
		    struct balloon_discard_result *r)
{
	struct vm *vm = ctx;
	struct guest_discard_result d = { 0 };

	spin_lock(&vm->memory.lock);
	guest_memory_discard(&vm->memory.ram, gpa, pages, &d);
	spin_unlock(&vm->memory.lock);
	r->dropped += d.dropped;
	r->already_free += d.already_free;
	r->busy += d.kept;
	r->outside_ram += d.outside_ram;
}

static uint64_t now_ns(void)
{
	return tsc_hz ? rdtsc() / (tsc_hz / 1000000) * 1000 : 0;
}

/* Under dev.lock: the BAR or the command register may have moved. */
static void place_bar(struct vm_balloon *b)
{
	uint64_t base;

	__atomic_store_n(&b->bar_word,
			 virtio_pci_device_bar(&b->dev.pci, &base) ? base
								   : NOWHERE,
			 __ATOMIC_RELEASE);
}

static uint32_t config_read(void *ctx, unsigned off, unsigned size)
{
	struct vm_balloon *b = ctx;

	return virtio_pci_device_config_read(&b->dev.pci, off, size);
}

static unsigned config_write(void *ctx, unsigned off, unsigned size,
			     uint32_t value)
{
	struct vm_balloon *b = ctx;
	unsigned events;

	events = virtio_pci_device_config_write(&b->dev.pci, off, size, value);
	place_bar(b);
	return events & VIRTIO_PCI_IRQ_CHANGED;
}

static void update_line(struct vm *vm)
{
	vm_devices_lock(vm);
	guest_update_irq_lines(vm);
	vm_devices_unlock(vm, true);
}

/* Its own locking: serving a queue reads guest RAM (memory.lock). */
static enum io_claim balloon_mmio(struct vm *vm, void *opaque, unsigned vcpu,
				  uint64_t offset, unsigned size, bool write,
				  uint64_t *value)
{
	struct vm_balloon *b = opaque;
	const char *broken = NULL;
	unsigned events;

	(void)vcpu;
	spin_lock(&b->lock);
	if (write)
		events = virtio_pci_device_mmio_write(&b->dev.pci, offset,
						      size, *value);
	else
		*value = virtio_pci_device_mmio_read(&b->dev.pci, offset, size,
						     &events);
	if ((events & ~VIRTIO_PCI_IRQ_CHANGED) &&
	    virtio_balloon_run(&b->dev, events & ~VIRTIO_PCI_IRQ_CHANGED,
			       now_ns()))
		events |= VIRTIO_PCI_IRQ_CHANGED;
	if (b->dev.why_broken) {
		broken = b->dev.why_broken;
		b->dev.why_broken = NULL;
	}
	spin_unlock(&b->lock);
	if (broken)
		hv_info("balloon: the guest's driver broke a queue (%s): the "
			"device needs a reset", broken);
	if (events & VIRTIO_PCI_IRQ_CHANGED)
		update_line(vm);
	return IO_CLAIMED;
}

bool vm_balloon_create(struct vm *vm)
{
	struct vm_balloon *b = hv_alloc(sizeof(*b));
	const struct balloon_ops ops = {
		.ram = { .read = ram_read, .write = ram_write, .ctx = vm },
		.discard = discard,
		.ctx = vm,
	};
	const struct pci_function f = {
		.read = config_read, .write = config_write, .ctx = b,
	};
	const struct io_mmio_range bar = {
		.len = VIRTIO_PCI_DEVICE_BAR_SIZE,
		.vcpu_base = &b->bar_word,
		.vcpu_stride = 0,
		.vcpu_base_mask = ~0ull,
		.fn = balloon_mmio,
		.opaque = b,
		.own_locking = true,
	};

	virtio_balloon_init(&b->dev, &ops, BALLOON_BAR0, PCI_BALLOON_GSI);
	place_bar(b);
	if (io_register_mmio(&vm->dev.io, &bar) != IO_REGISTERED)
		return false;
	pci_host_attach(&vm->dev.pci_host, PCI_BALLOON_SLOT, &f);
	b->counters = (struct counter_source){
		.defs = balloon_counter_defs,
		.ndefs = balloon_counter_count,
		.obj = &b->dev.stats,
	};
	counters_register(&b->counters);
	vm->dev.balloon = b;
	return true;
}
