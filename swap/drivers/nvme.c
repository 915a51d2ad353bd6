// SPDX-License-Identifier: BSD-2-Clause
/*
 * NVMe over PCI: the hardware edge of the driver. Finds the controllers
 * by class code, maps BAR0, lets swap/drivers/nvme_ctrl.c bring each one up over
 * MMIO and the TSC, and keeps the namespaces it found. Queues and Identify
 * pages come from the hypervisor heap below 4 GiB, identity-mapped, so a
 * pointer is the address the controller uses; the data pages are the
 * caller's.
 */
#include "swap/drivers/nvme.h"
#include "arch/x86/host_paging.h"
#include "arch/x86/pci.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"
#include "lib/console.h"
#include "lib/format.h"
#include "lib/heap.h"
#include "swap/drivers/nvme_ctrl.h"

#define NVME_MAX_CONTROLLERS 2
/* Ticks per ms assumed before tsc_calibrate_hz() has run. */
#define UNCALIBRATED_TICKS_PER_MS 1000000ull

/* --------------------------------------------------------------- MMIO */

/* 3.1: registers are read and written 32 bits at a time. */
static uint32_t mmio_read32(void *ctx, uint32_t off)
{
	return *(volatile uint32_t *)((uint8_t *)ctx + off);
}

static void mmio_write32(void *ctx, uint32_t off, uint32_t val)
{
	*(volatile uint32_t *)((uint8_t *)ctx + off) = val;
}

static uint64_t tsc_now(void *ctx)
{
	(void)ctx;
	return rdtsc();
}

static const struct nvme_mmio_ops nvme_mmio = {
	.read32 = mmio_read32,
	.write32 = mmio_write32,
	.now = tsc_now,
};

static void *alloc_low_pages(unsigned npages)
{
	return (void *)(uintptr_t)hv_alloc_pages_low(npages);
}

/* -------------------------------------------------------------- probe */

static struct blockdev *nvme_found[NVME_MAX_CONTROLLERS *
				   NVME_MAX_NAMESPACES];
static unsigned nvme_nfound;
static bool nvme_probed;

struct pci_list {
	struct pci_device dev[NVME_MAX_CONTROLLERS];
	unsigned n;
};

static bool is_nvme(const struct pci_device *d, void *arg)
{
	struct pci_list *list = arg;

	if (d->class_code != NVME_PCI_CLASS ||
	    d->subclass != NVME_PCI_SUBCLASS ||
	    d->prog_if != NVME_PCI_PROG_IF)
		return false;
	list->dev[list->n++] = *d;
	return list->n == NVME_MAX_CONTROLLERS;
}

/*
 * BAR0 (with BAR1 its upper half, 2.1.10): a memory BAR, mapped. Whether
 * it holds the doorbells is checked against CAP.DSTRD (nvme_ctrl.c).
 */
static volatile uint8_t *map_bar0(struct nvme_ctrl *c,
				  const struct pci_device *d)
{
	struct pci_bar bar;

	if (pci_bar_decode(d, 0, &bar) || !bar.size || !bar.base || bar.io) {
		hv_error("%s: BAR0 is not a usable memory BAR", c->name);
		return NULL;
	}
	if (!host_paging_map_mmio(bar.base, bar.size)) {
		hv_error("%s: BAR0 at 0x%llx, %llu bytes, cannot be mapped",
			 c->name, (unsigned long long)bar.base,
			 (unsigned long long)bar.size);
		return NULL;
	}
	c->regs_size = bar.size;
	return (volatile uint8_t *)(uintptr_t)bar.base;
}

static void bring_up_controller(const struct pci_device *d)
{
	struct nvme_ctrl *c = hv_alloc(sizeof(*c));
	volatile uint8_t *bar0;

	fmt_snprintf(c->name, sizeof(c->name), "nvme %02x:%02x.%x", d->bus,
		     d->dev, d->fn);
	bar0 = map_bar0(c, d);
	if (!bar0)
		return;
	/* Polled: memory decoding, bus mastering, INTx off (pci_enable). */
	pci_enable(d, PCI_COMMAND_MEMORY | PCI_COMMAND_BUS_MASTER);
	c->regs = (struct nvme_regs){
		.ops = &nvme_mmio,
		.ctx = (void *)(uintptr_t)bar0,
		.ticks_per_ms = tsc_hz ? tsc_hz / 1000
				       : UNCALIBRATED_TICKS_PER_MS,
	};
	c->alloc_pages = alloc_low_pages;
	if (nvme_ctrl_bring_up(c))
		return;
	for (unsigned i = 0; i < c->nns; i++)
		nvme_found[nvme_nfound++] = &c->ns[i].bdev;
}

unsigned nvme_probe_all(struct blockdev **out, unsigned max)
{
	struct pci_list list = { .n = 0 };
	unsigned n;

	if (!nvme_probed) {
		pci_scan(is_nvme, &list);
		for (unsigned i = 0; i < list.n; i++)
			bring_up_controller(&list.dev[i]);
		nvme_probed = true;
	}
	n = MIN(max, nvme_nfound);
	for (unsigned i = 0; i < n; i++)
		out[i] = nvme_found[i];
	return n;
}
