// SPDX-License-Identifier: BSD-2-Clause
/*
 * Configuration space through ECAM when the ACPI MCFG gave a window
 * (pci_use_ecam), else through configuration mechanism #1 (PCI Local Bus
 * Specification 3.0, 3.2.2.3.2): write the enable bit, bus, device,
 * function and dword offset to CONFIG_ADDRESS (0xCF8), then access
 * CONFIG_DATA (0xCFC). That address/data pair is shared by all CPUs, so
 * each port access holds a lock.
 */
#include "arch/x86/pci.h"
#include "arch/x86/io.h"
#include "lib/spinlock.h"

#define PCI_CONFIG_ADDRESS 0xcf8
#define PCI_CONFIG_DATA    0xcfc
#define PCI_CONFIG_ENABLE  BIT(31)
#define PCI_PORT_CONFIG_SIZE 0x100

#define PCI_BUSES     256
#define PCI_DEVICES   32
#define PCI_FUNCTIONS 8
#define PCI_BARS      6

/* Capabilities start after the 64-byte header and are dword aligned. */
#define PCI_CAP_MIN_OFFSET 0x40

/* BAR low bits (PCI 3.0, 6.2.5.1). */
#define PCI_BAR_IO            BIT(0)
#define PCI_BAR_MEM_TYPE_MASK (3u << 1)
#define PCI_BAR_MEM_TYPE_64   (2u << 1)
#define PCI_BAR_PREFETCHABLE  BIT(3)
#define PCI_BAR_IO_MASK       (~3u)
#define PCI_BAR_MEM_MASK      (~15u)
/* 52 bits: the widest physical address there is (SDM Vol. 3A, 4.1.4). */
#define PCI_PHYS_LIMIT        (1ull << 52)

static struct spinlock pci_lock;
static struct pci_ecam_window ecam;
static bool ecam_in_use;

void pci_use_ecam(const struct pci_ecam_window *w)
{
	ecam = *w;
	ecam_in_use = true;
}

void pci_use_ports(void)
{
	ecam_in_use = false;
}

/*
 * One access of width 1, 2 or 4 bytes; a byte or word lies at
 * CONFIG_DATA + (off & 3) within the selected dword. Ports reach only the
 * first 256 bytes: beyond them a read gives all ones and a write is
 * dropped, as for an absent function.
 */
static uint32_t port_access(const struct pci_device *d, uint16_t off,
			    unsigned width, bool write, uint32_t v)
{
	uint16_t port = PCI_CONFIG_DATA + (off & 3 & ~(width - 1));

	if (off >= PCI_PORT_CONFIG_SIZE)
		return write ? v : 0xffffffffu >> (32 - 8 * width);
	spin_lock(&pci_lock);
	outl(PCI_CONFIG_ADDRESS, PCI_CONFIG_ENABLE | (uint32_t)d->bus << 16 |
		 (uint32_t)d->dev << 11 | (uint32_t)d->fn << 8 | (off & 0xfc));
	if (width == 1 && write)
		outb(port, (uint8_t)v);
	else if (width == 1)
		v = inb(port);
	else if (width == 2 && write)
		outw(port, (uint16_t)v);
	else if (width == 2)
		v = inw(port);
	else if (write)
		outl(port, v);
	else
		v = inl(port);
	spin_unlock(&pci_lock);
	return v;
}

/* ECAM: each access is one memory access of its own width, no lock. */
static uint32_t ecam_access(const struct pci_device *d, uint16_t off,
			    unsigned width, bool write, uint32_t v)
{
	uintptr_t a = (uintptr_t)pci_ecam_address(&ecam, d->bus, d->dev,
						  d->fn, off & ~(width - 1));

	if (width == 1 && write)
		*(volatile uint8_t *)a = (uint8_t)v;
	else if (width == 1)
		v = *(volatile uint8_t *)a;
	else if (width == 2 && write)
		*(volatile uint16_t *)a = (uint16_t)v;
	else if (width == 2)
		v = *(volatile uint16_t *)a;
	else if (write)
		*(volatile uint32_t *)a = v;
	else
		v = *(volatile uint32_t *)a;
	return v;
}

static uint32_t config_access(const struct pci_device *d, uint16_t off,
			      unsigned width, bool write, uint32_t v)
{
	if (ecam_in_use && pci_ecam_covers(&ecam, d->bus))
		return ecam_access(d, off, width, write, v);
	return port_access(d, off, width, write, v);
}

uint8_t pci_read8(const struct pci_device *d, uint16_t off)
{
	return (uint8_t)config_access(d, off, 1, false, 0);
}

uint16_t pci_read16(const struct pci_device *d, uint16_t off)
{
	return (uint16_t)config_access(d, off, 2, false, 0);
}

uint32_t pci_read32(const struct pci_device *d, uint16_t off)
{
	return config_access(d, off, 4, false, 0);
}

void pci_write8(const struct pci_device *d, uint16_t off, uint8_t v)
{
	config_access(d, off, 1, true, v);
}

void pci_write16(const struct pci_device *d, uint16_t off, uint16_t v)
{
	config_access(d, off, 2, true, v);
}

void pci_write32(const struct pci_device *d, uint16_t off, uint32_t v)
{
	config_access(d, off, 4, true, v);
}

/*
 * Fills *d for bus:dev.fn; false when no function answers (a read of an
 * absent function returns all ones, PCI 3.0, 6.1: vendor ID 0xFFFF is
 * never assigned).
 */
static bool probe_function(uint8_t bus, uint8_t dev, uint8_t fn,
			   struct pci_device *d)
{
	*d = (struct pci_device){ .bus = bus, .dev = dev, .fn = fn };
	d->vendor = pci_read16(d, PCI_VENDOR_ID);
	if (d->vendor == 0xffff)
		return false;
	d->device = pci_read16(d, PCI_DEVICE_ID);
	d->class_code = pci_read8(d, PCI_CLASS);
	d->subclass = pci_read8(d, PCI_SUBCLASS);
	d->prog_if = pci_read8(d, PCI_PROG_IF);
	d->header_type = pci_read8(d, PCI_HEADER_TYPE);
	return true;
}

/*
 * Functions 1..7 are only looked at when function 0 exists and says it is
 * multi-function (PCI 3.0, 6.2.1, Header Type): single-function devices
 * may answer for every function number.
 */
static bool scan_device(uint8_t bus, uint8_t dev, pci_visit_fn fn, void *arg)
{
	struct pci_device d;
	unsigned nfn;

	if (!probe_function(bus, dev, 0, &d))
		return false;
	nfn = (d.header_type & PCI_HEADER_MULTI_FUNCTION) ? PCI_FUNCTIONS : 1;
	d.header_type &= PCI_HEADER_TYPE_MASK;
	if (fn(&d, arg))
		return true;
	for (unsigned f = 1; f < nfn; f++) {
		if (!probe_function(bus, dev, (uint8_t)f, &d))
			continue;
		d.header_type &= PCI_HEADER_TYPE_MASK;
		if (fn(&d, arg))
			return true;
	}
	return false;
}

/*
 * Every bus number is tried rather than following bridges: it finds devices
 * behind any host bridge and stays bounded (256 * 32 vendor-ID reads for the
 * empty slots, a few milliseconds on hardware).
 */
bool pci_scan(pci_visit_fn fn, void *arg)
{
	for (unsigned bus = 0; bus < PCI_BUSES; bus++)
		for (unsigned dev = 0; dev < PCI_DEVICES; dev++)
			if (scan_device((uint8_t)bus, (uint8_t)dev, fn, arg))
				return true;
	return false;
}

struct find_args {
	bool by_class;
	uint16_t vendor, device;
	uint8_t class_code, subclass;
	unsigned nth;
	struct pci_device *out;
};

static bool find_visit(const struct pci_device *d, void *arg)
{
	struct find_args *a = arg;
	bool match;

	if (a->by_class)
		match = d->class_code == a->class_code &&
			d->subclass == a->subclass;
	else
		match = (a->vendor == PCI_ANY_ID || d->vendor == a->vendor) &&
			(a->device == PCI_ANY_ID || d->device == a->device);
	if (!match)
		return false;
	if (a->nth--)
		return false;
	*a->out = *d;
	return true;
}

bool pci_find_device(uint16_t vendor, uint16_t device, unsigned nth,
		     struct pci_device *out)
{
	struct find_args a = { .vendor = vendor, .device = device,
			       .nth = nth, .out = out };

	return pci_scan(find_visit, &a);
}

bool pci_find_class(uint8_t class_code, uint8_t subclass, unsigned nth,
		    struct pci_device *out)
{
	struct find_args a = { .by_class = true, .class_code = class_code,
			       .subclass = subclass, .nth = nth, .out = out };

	return pci_scan(find_visit, &a);
}

/*
 * The list starts at the Capabilities Pointer when the status register says
 * there is one (PCI 3.0, 6.7); each entry is ID, next pointer. The walk is
 * bounded by the number of dword slots, so a looping list cannot hang it.
 */
uint8_t pci_next_cap(const struct pci_device *d, uint8_t cap_id,
		     uint8_t prev)
{
	uint8_t off;

	if (!(pci_read16(d, PCI_STATUS) & PCI_STATUS_CAP_LIST))
		return 0;
	off = prev ? pci_read8(d, prev + 1) : pci_read8(d, PCI_CAP_PTR);
	for (unsigned n = 0; n < PCI_CAP_MAX_COUNT; n++) {
		off &= 0xfc;
		if (off < PCI_CAP_MIN_OFFSET)
			return 0;
		if (pci_read8(d, off) == cap_id)
			return off;
		off = pci_read8(d, off + 1);
	}
	return 0;
}

/* Writes all ones and reads back which address bits are writable. */
static uint32_t size_probe(const struct pci_device *d, uint16_t reg)
{
	uint32_t old = pci_read32(d, reg), mask;

	pci_write32(d, reg, 0xffffffff);
	mask = pci_read32(d, reg);
	pci_write32(d, reg, old);
	return mask;
}

/*
 * The lowest writable address bit is the size (a power of two), and the
 * address bits below it are not the device's: a device answering the
 * sizing with holes in its mask, or with low bits set in its address, is
 * taken at that, not at a size or a start beyond what it decodes.
 */
static uint64_t size_of_mask(uint64_t mask)
{
	return mask & (~mask + 1);
}

static void decode_mem(const struct pci_device *d, uint16_t reg, uint32_t lo,
		       struct pci_bar *out)
{
	uint64_t mask = size_probe(d, reg) & PCI_BAR_MEM_MASK;

	out->base = lo & PCI_BAR_MEM_MASK;
	out->prefetchable = lo & PCI_BAR_PREFETCHABLE;
	out->is64 = (lo & PCI_BAR_MEM_TYPE_MASK) == PCI_BAR_MEM_TYPE_64;
	if (out->is64) {
		out->base |= (uint64_t)pci_read32(d, reg + 4) << 32;
		mask |= (uint64_t)size_probe(d, reg + 4) << 32;
	} else if (mask) {
		mask |= 0xffffffff00000000ull;
	}
	out->size = size_of_mask(mask);
	if (out->size)
		out->base &= ~(out->size - 1);
	/* Past the widest physical address no CPU reaches it: unused. */
	if (out->size > PCI_PHYS_LIMIT || out->base > PCI_PHYS_LIMIT - out->size)
		out->size = 0;
}

/*
 * Whether BAR index is the upper half of a 64-bit BAR: only a walk from
 * BAR0 knows, since an upper half may hold any value.
 */
static bool is_upper_half(const struct pci_device *d, unsigned index)
{
	unsigned i = 0;

	while (i < index) {
		uint32_t v = pci_read32(d, PCI_BAR0 + 4 * i);

		if (!(v & PCI_BAR_IO) &&
		    (v & PCI_BAR_MEM_TYPE_MASK) == PCI_BAR_MEM_TYPE_64)
			i += 2;
		else
			i += 1;
	}
	return i > index;
}

static void decode_io(const struct pci_device *d, uint16_t reg, uint32_t lo,
		      struct pci_bar *out)
{
	/* I/O BARs may leave the upper 16 bits unimplemented (zero). */
	uint32_t mask = size_probe(d, reg) & PCI_BAR_IO_MASK;

	out->io = true;
	out->base = lo & PCI_BAR_IO_MASK;
	out->size = mask ? size_of_mask(mask | 0xffff0000u) : 0;
	if (out->size)
		out->base &= ~(out->size - 1);
}

int pci_bar_decode(const struct pci_device *d, unsigned index,
		   struct pci_bar *out)
{
	uint16_t reg = PCI_BAR0 + 4 * index, cmd;
	uint32_t lo;

	*out = (struct pci_bar){ 0 };
	if (d->header_type != 0 || index >= PCI_BARS ||
	    is_upper_half(d, index))
		return -1;
	lo = pci_read32(d, reg);
	if (!(lo & PCI_BAR_IO) && index == PCI_BARS - 1 &&
	    (lo & PCI_BAR_MEM_TYPE_MASK) == PCI_BAR_MEM_TYPE_64)
		return -1;      /* a 64-bit BAR needs a second slot */
	/* PCI 3.0, 6.2.5.1: no decoding while a BAR holds all ones. */
	cmd = pci_read16(d, PCI_COMMAND);
	pci_write16(d, PCI_COMMAND,
		    cmd & ~(PCI_COMMAND_IO | PCI_COMMAND_MEMORY));
	if (lo & PCI_BAR_IO)
		decode_io(d, reg, lo, out);
	else
		decode_mem(d, reg, lo, out);
	pci_write16(d, PCI_COMMAND, cmd);
	return 0;
}

void pci_enable(const struct pci_device *d, uint16_t bits)
{
	uint16_t cmd = pci_read16(d, PCI_COMMAND);

	pci_write16(d, PCI_COMMAND, cmd | bits | PCI_COMMAND_INTX_DISABLE);
}
