/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A PCI function played by the fuzz input, for the targets that link
 * arch/x86/pci.c with tests/unit/fake_x86 first on the include path: its
 * configuration space behind ports 0xCF8/0xCFC (configuration mechanism
 * #1; the port functions are defined here), with the BAR sizing protocol
 * (all ones written, the writable address bits read back: any value the
 * input gives, a hostile device's too; the next write, whatever it is,
 * puts a value back), and host_paging_map_mmio recording what the driver
 * maps.
 *
 * Beyond the sanitizers' checks: a BAR holds all ones only while memory
 * and I/O decoding are off (PCI 3.0, 6.2.5.1); the ports are used in
 * CONFIG_ADDRESS-then-data order with the enable bit set.
 */
#ifndef TESTS_FUZZ_FUZZ_PCI_DEVICE_H
#define TESTS_FUZZ_FUZZ_PCI_DEVICE_H

#include <string.h>

#include "arch/x86/host_paging.h"
#include "arch/x86/io.h"
#include "arch/x86/pci.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_script.h"

#define FUZZ_PCI_MAPS 16

struct fuzz_pci_fn {
	uint8_t cfg[256];
	uint32_t bar_mask[6];           /* read back after all ones */
	uint32_t address;               /* CONFIG_ADDRESS */
	bool sizing[6];                 /* the BAR holds all ones */
	struct {
		uint64_t base, size;
	} maps[FUZZ_PCI_MAPS];          /* host_paging_map_mmio calls */
	unsigned nmaps;
	/* Called for each mapping, when set (after fuzz_pci_take). */
	void (*on_map)(uint64_t base, uint64_t size);
};

static struct fuzz_pci_fn fuzz_pci;

static inline uint32_t fuzz_pci_dword(unsigned off)
{
	uint32_t v;

	memcpy(&v, fuzz_pci.cfg + off, 4);
	return v;
}

/*
 * The function's configuration space and BAR masks from the input: 64
 * bytes of header, then capabilities (the rest of the 256 bytes), then
 * six masks, each 4 bytes.
 */
static inline void fuzz_pci_take(struct fuzz_script *in)
{
	memset(&fuzz_pci, 0, sizeof(fuzz_pci));
	for (unsigned i = 0; i < sizeof(fuzz_pci.cfg); i++)
		fuzz_pci.cfg[i] = (uint8_t)fuzz_take(in, 1);
	for (unsigned i = 0; i < 6; i++)
		fuzz_pci.bar_mask[i] = (uint32_t)fuzz_take(in, 4);
}

/* Which of the ports' bytes a data access of width bytes at port reads. */
static inline unsigned fuzz_pci_offset(uint16_t port, unsigned width)
{
	unsigned off = (fuzz_pci.address & 0xfc) + (port - 0xcfc);

	CHECK(fuzz_pci.address & 0x80000000u);
	CHECK(port >= 0xcfc && port + width <= 0xd00);
	CHECK((port & (width - 1)) == 0);
	return off;
}

static inline uint32_t fuzz_pci_read(uint16_t port, unsigned width)
{
	unsigned off = fuzz_pci_offset(port, width);
	uint32_t v = 0;

	memcpy(&v, fuzz_pci.cfg + off, width);
	return v;
}

static inline void fuzz_pci_write(uint16_t port, unsigned width, uint32_t v)
{
	unsigned off = fuzz_pci_offset(port, width);

	if (width == 4 && off >= PCI_BAR0 && off < PCI_BAR0 + 24) {
		unsigned i = (off - PCI_BAR0) / 4;

		if (v == 0xffffffffu && !fuzz_pci.sizing[i]) {
			uint16_t cmd = (uint16_t)fuzz_pci_dword(PCI_COMMAND);

			CHECK(!(cmd & (PCI_COMMAND_IO | PCI_COMMAND_MEMORY)));
			fuzz_pci.sizing[i] = true;
			v = fuzz_pci.bar_mask[i];
		} else {
			/* Any other write ends the sizing (all ones too:
			 * the BAR's own value put back). */
			fuzz_pci.sizing[i] = false;
		}
	}
	memcpy(fuzz_pci.cfg + off, &v, width);
	/* Decoding back on while a BAR is still being sized. */
	if (off <= PCI_COMMAND + 1 && off + width > PCI_COMMAND)
		for (unsigned i = 0; i < 6; i++)
			CHECK(!fuzz_pci.sizing[i] ||
			      !(fuzz_pci.cfg[PCI_COMMAND] &
				(PCI_COMMAND_IO | PCI_COMMAND_MEMORY)));
}

void outl(uint16_t port, uint32_t v)
{
	if (port == 0xcf8) {
		fuzz_pci.address = v;
		return;
	}
	fuzz_pci_write(port, 4, v);
}

void outw(uint16_t port, uint16_t v)
{
	fuzz_pci_write(port, 2, v);
}

void outb(uint16_t port, uint8_t v)
{
	fuzz_pci_write(port, 1, v);
}

uint32_t inl(uint16_t port)
{
	return fuzz_pci_read(port, 4);
}

uint16_t inw(uint16_t port)
{
	return (uint16_t)fuzz_pci_read(port, 2);
}

uint8_t inb(uint16_t port)
{
	return (uint8_t)fuzz_pci_read(port, 1);
}

/* The real bound (arch/x86/host_paging.h), then the mapping recorded. */
bool host_paging_map_mmio(uint64_t base, uint64_t size)
{
	if (!host_mmio_range_ok(base, size))
		return false;
	CHECK(fuzz_pci.nmaps < FUZZ_PCI_MAPS);
	fuzz_pci.maps[fuzz_pci.nmaps].base = base;
	fuzz_pci.maps[fuzz_pci.nmaps].size = size;
	fuzz_pci.nmaps++;
	if (fuzz_pci.on_map)
		fuzz_pci.on_map(base, size);
	return true;
}

/* The function as pci_scan would have found it (bus 0, device 3). */
static inline struct pci_device fuzz_pci_device(void)
{
	return (struct pci_device){
		.bus = 0, .dev = 3, .fn = 0,
		.vendor = (uint16_t)fuzz_pci_dword(PCI_VENDOR_ID),
		.device = (uint16_t)(fuzz_pci_dword(PCI_VENDOR_ID) >> 16),
		.class_code = fuzz_pci.cfg[PCI_CLASS],
		.subclass = fuzz_pci.cfg[PCI_SUBCLASS],
		.prog_if = fuzz_pci.cfg[PCI_PROG_IF],
		.header_type = fuzz_pci.cfg[PCI_HEADER_TYPE] &
			       PCI_HEADER_TYPE_MASK,
	};
}

#endif
