// SPDX-License-Identifier: BSD-2-Clause
/*
 * AHCI host bus adapters: finding them on PCI, taking them from the
 * firmware, finding their SATA disks, and the blockdev glue. The ports'
 * command engines and slots are swap/drivers/ahci_port.c. Section numbers are
 * those of "Serial ATA AHCI 1.3.1".
 *
 * The HBA is never reset (GHC.HR): that would reset the boot disk's port
 * too, which apfvisor leaves alone (ahci_skip_boot_port).
 */
#include "swap/drivers/ahci.h"
#include "swap/drivers/ahci_port.h"
#include "swap/drivers/ata_identify.h"
#include "arch/x86/cpu.h"
#include "arch/x86/host_paging.h"
#include "arch/x86/pci.h"
#include "arch/x86/tsc.h"
#include "lib/console.h"
#include "lib/format.h"
#include "lib/heap.h"
#include "lib/string.h"

/* PCI class 01h (mass storage), subclass 06h (SATA), interface 01h. */
#define PCI_CLASS_STORAGE   0x01
#define PCI_SUBCLASS_SATA   0x06
#define PCI_PROG_IF_AHCI    0x01
#define AHCI_ABAR_INDEX     5

#define AHCI_MAX_HBAS       4
#define AHCI_MAX_DISKS      8
/* 10.6.3: the BIOS may take up to 2 s to finish what it was doing. */
#define AHCI_HANDOFF_TIMEOUT_MS 2500

struct ahci_disk {
	struct blockdev bdev;
	struct ahci_port port;
	struct ata_identity id;
};

static struct ahci_hba ahci_hbas[AHCI_MAX_HBAS];
static struct blockdev *ahci_found[AHCI_MAX_DISKS];
static unsigned ahci_nfound;
static bool ahci_probed;

static struct {
	bool known;
	uint8_t dev, fn;
	unsigned port;
} boot_port;

void ahci_skip_boot_port(uint8_t dev, uint8_t fn, unsigned port)
{
	boot_port.known = true;
	boot_port.dev = dev;
	boot_port.fn = fn;
	boot_port.port = port;
}

static bool is_boot_port(const struct pci_device *d, unsigned port)
{
	return boot_port.known && boot_port.dev == d->dev &&
	       boot_port.fn == d->fn && boot_port.port == port;
}

/* ------------------------------------------------------------ blockdev */

static enum hv_err ahci_submit(struct blockdev *dev,
			       const struct blk_request *req)
{
	struct ahci_disk *d = dev->driver;
	enum hv_err err = ahci_port_submit(&d->port, req);

	if (err)
		return err;
	blk_count_submitted(dev, req);
	return HV_OK;
}

static unsigned ahci_poll(struct blockdev *dev, struct blk_completion *out,
			  unsigned max)
{
	struct ahci_disk *d = dev->driver;
	unsigned n = ahci_port_poll(&d->port, out, max);

	blk_count_errors(dev, out, n);
	dev->short_transfers = d->port.short_transfers;
	dev->frames_held = d->port.frames_held;
	return n;
}

static const struct blockdev_ops ahci_ops = {
	.submit = ahci_submit,
	.poll = ahci_poll,
};

/* -------------------------------------------------------------- disks */

static bool check_identity(struct ahci_disk *d, const uint16_t *words)
{
	const char *why = ata_identity_parse(words, &d->id);

	if (!why && !d->id.lba48)
		why = "no 48-bit Address feature set (READ DMA EXT needs it)";
	if (why)
		hv_error("%s: ATA disk \"%s\": %s; the disk is not used",
			 d->port.name, d->id.model, why);
	return !why;
}

static void describe(const struct ahci_disk *d)
{
	const struct ahci_port *p = &d->port;

	hv_info("%s: ATA disk \"%s\", %llu sectors (%llu MiB), LBA48, %s, %u "
		"slots", p->name, d->id.model,
		(unsigned long long)d->id.sectors,
		(unsigned long long)(p->size >> 20),
		p->ncq ? "NCQ" : "DMA", p->nslots);
}

static struct blockdev *use_port(const struct ahci_hba *hba, unsigned index,
				 uint16_t *words)
{
	struct ahci_disk *d = hv_alloc(sizeof(*d));
	void *mem = (void *)(uintptr_t)hv_alloc_pages_low(AHCI_PORT_MEM_PAGES);
	unsigned slots;
	bool ncq;

	memset(d, 0, sizeof(*d));
	ahci_port_attach(&d->port, hba, index, mem);
	if (!ahci_port_init(&d->port) ||
	    !ahci_port_identify(&d->port, words))
		return NULL;
	if (!check_identity(d, words)) {
		ahci_port_stop(&d->port);
		return NULL;
	}
	slots = ahci_queue_depth(hba->cap, d->id.ncq_depth, &ncq);
	ahci_port_configure(&d->port, slots, ncq,
			    ALIGN_DOWN(d->id.sectors * ATA_SECTOR_SIZE,
				       PAGE_SIZE));
	d->bdev = (struct blockdev){
		.ops = &ahci_ops,
		.name = d->port.name,
		.size = d->port.size,
		.queue_depth = d->port.nslots,
		.driver = d,
	};
	describe(d);
	return &d->bdev;
}

static void probe_ports(const struct pci_device *pci,
			const struct ahci_hba *hba)
{
	uint32_t pi = ahci_read32(hba, AHCI_PI);
	uint16_t *words = (uint16_t *)(uintptr_t)hv_alloc_pages_low(1);

	for (unsigned i = 0; i < AHCI_MAX_PORTS; i++) {
		uint32_t base = AHCI_PORT_BASE(i);
		struct blockdev *dev;

		if (!(pi & BIT(i)) || is_boot_port(pci, i))
			continue;
		if (!ahci_port_has_disk(ahci_read32(hba, base + PX_SSTS),
					ahci_read32(hba, base + PX_SIG)))
			continue;
		if (ahci_nfound == AHCI_MAX_DISKS)
			return;
		dev = use_port(hba, i, words);
		if (dev)
			ahci_found[ahci_nfound++] = dev;
	}
}

/* ---------------------------------------------------------------- HBA */

/* 10.6.3: ask the BIOS to let go, when the HBA has the handshake. */
static void take_from_bios(const struct ahci_hba *hba)
{
	uint64_t hz = tsc_hz ? tsc_hz : 4000000000ull;
	uint64_t end = rdtsc() + hz / 1000 * AHCI_HANDOFF_TIMEOUT_MS;
	uint32_t bohc;

	if (!(ahci_read32(hba, AHCI_CAP2) & AHCI_CAP2_BOH))
		return;
	ahci_write32(hba, AHCI_BOHC,
		     ahci_read32(hba, AHCI_BOHC) | AHCI_BOHC_OOS);
	do {
		bohc = ahci_read32(hba, AHCI_BOHC);
		if (!(bohc & (AHCI_BOHC_BOS | AHCI_BOHC_BB)))
			return;
		cpu_relax();
	} while (rdtsc() < end);
	hv_info("ahci %s: the BIOS did not release the HBA (BOHC 0x%08x); "
		"going on", hba->pci_name, bohc);
}

static bool bring_up_hba(const struct pci_device *d, struct ahci_hba *hba)
{
	struct pci_bar bar;
	uint32_t ghc;

	fmt_snprintf(hba->pci_name, sizeof(hba->pci_name), "%02x:%02x.%x",
		     d->bus, d->dev, d->fn);
	if (pci_bar_decode(d, AHCI_ABAR_INDEX, &bar) || bar.io || !bar.size ||
	    !bar.base) {
		hv_error("ahci %s: BAR5 (ABAR) is not a memory BAR; the "
			 "controller is not used", hba->pci_name);
		return false;
	}
	if (!host_paging_map_mmio(bar.base, bar.size)) {
		hv_error("ahci %s: ABAR at 0x%llx, %llu bytes, cannot be "
			 "mapped; the controller is not used", hba->pci_name,
			 (unsigned long long)bar.base,
			 (unsigned long long)bar.size);
		return false;
	}
	hba->abar = (uintptr_t)bar.base;
	pci_enable(d, PCI_COMMAND_MEMORY | PCI_COMMAND_BUS_MASTER);
	take_from_bios(hba);
	/* AHCI mode on, interrupts off: apfvisor polls (3.1.2). */
	ghc = ahci_read32(hba, AHCI_GHC);
	ahci_write32(hba, AHCI_GHC, (ghc | AHCI_GHC_AE) & ~AHCI_GHC_IE);
	hba->cap = ahci_read32(hba, AHCI_CAP);
	return true;
}

unsigned ahci_probe_all(struct blockdev **out, unsigned max)
{
	struct pci_device d;
	unsigned nhba = 0, n;

	for (unsigned i = 0; !ahci_probed && nhba < AHCI_MAX_HBAS &&
	     pci_find_class(PCI_CLASS_STORAGE, PCI_SUBCLASS_SATA, i, &d);
	     i++) {
		if (d.prog_if != PCI_PROG_IF_AHCI)
			continue;
		if (bring_up_hba(&d, &ahci_hbas[nhba]))
			probe_ports(&d, &ahci_hbas[nhba++]);
	}
	ahci_probed = true;
	n = MIN(max, ahci_nfound);
	for (unsigned i = 0; i < n; i++)
		out[i] = ahci_found[i];
	return n;
}
