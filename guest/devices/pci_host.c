// SPDX-License-Identifier: BSD-2-Clause
/* The guest's PCI host bridge and configuration mechanism #1. */
#include "guest/devices/pci_host.h"
#include "lib/string.h"

/* Type 0 header offsets (PCI Local Bus Specification 3.0, 6.1). */
#define CFG_VENDOR_ID 0x00
#define CFG_DEVICE_ID 0x02
#define CFG_REVISION 0x08
#define CFG_SUBCLASS 0x0a
#define CFG_CLASS 0x0b
#define CFG_SUBSYSTEM_VENDOR_ID 0x2c
#define CFG_SUBSYSTEM_ID 0x2e

#define CLASS_BRIDGE 0x06
#define SUBCLASS_HOST_BRIDGE 0x00

#define ADDRESS_BUS_SHIFT 16
#define ADDRESS_DEVFN_SHIFT 8
#define ADDRESS_SLOT_SHIFT 11
#define ADDRESS_FUNCTION_MASK 0x700u
#define ADDRESS_BUS_MASK 0xff0000u
#define ADDRESS_REGISTER_MASK 0xfcu

void pci_host_init(struct pci_host *h)
{
	memset(h, 0, sizeof(*h));
}

void pci_host_attach(struct pci_host *h, unsigned slot,
		     const struct pci_function *f)
{
	if (slot > 0 && slot < PCI_HOST_SLOTS)
		h->slot[slot] = *f;
}

/* The device CONFIG_ADDRESS selects other than the bridge, or NULL. */
static const struct pci_function *addressed(const struct pci_host *h)
{
	unsigned slot = (h->address >> ADDRESS_SLOT_SHIFT) & (PCI_HOST_SLOTS - 1);

	if (!(h->address & PCI_CONFIG_ENABLE) ||
	    (h->address & (ADDRESS_BUS_MASK | ADDRESS_FUNCTION_MASK)) ||
	    !slot || !h->slot[slot].read)
		return NULL;
	return &h->slot[slot];
}

bool pci_host_owns_port(uint16_t port, unsigned size)
{
	if (port == PCI_CONFIG_ADDRESS_PORT)
		return size == 4;
	return port >= PCI_CONFIG_DATA_PORT && port < PCI_CONFIG_DATA_PORT + 4;
}

#define LOW(v) ((uint8_t)((v) & 0xff))
#define HIGH(v) ((uint8_t)((v) >> 8))

/* 00:00.0's configuration space up to the subsystem IDs; zero past it. */
static const uint8_t host_bridge_header[CFG_SUBSYSTEM_ID + 2] = {
	[CFG_VENDOR_ID] = LOW(PCI_HOST_VENDOR_ID),
	[CFG_VENDOR_ID + 1] = HIGH(PCI_HOST_VENDOR_ID),
	[CFG_DEVICE_ID] = LOW(PCI_HOST_DEVICE_ID),
	[CFG_DEVICE_ID + 1] = HIGH(PCI_HOST_DEVICE_ID),
	[CFG_REVISION] = PCI_HOST_REVISION,
	[CFG_SUBCLASS] = SUBCLASS_HOST_BRIDGE,
	[CFG_CLASS] = CLASS_BRIDGE,
	[CFG_SUBSYSTEM_VENDOR_ID] = LOW(PCI_HOST_SUBSYSTEM_VENDOR_ID),
	[CFG_SUBSYSTEM_VENDOR_ID + 1] = HIGH(PCI_HOST_SUBSYSTEM_VENDOR_ID),
	[CFG_SUBSYSTEM_ID] = LOW(PCI_HOST_SUBSYSTEM_ID),
	[CFG_SUBSYSTEM_ID + 1] = HIGH(PCI_HOST_SUBSYSTEM_ID),
};

static uint8_t host_bridge_byte(unsigned offset)
{
	return offset < sizeof(host_bridge_header) ? host_bridge_header[offset]
						   : 0;
}

static uint32_t config_read(const struct pci_host *h, unsigned offset,
			    unsigned size)
{
	uint32_t value = 0;

	/* Bus 0, device 0, function 0 only; bits 30:24 are reserved. */
	if (!(h->address & PCI_CONFIG_ENABLE) ||
	    (h->address & 0x00ffff00u) != 0)
		return size == 4 ? 0xffffffffu : (1u << (size * 8)) - 1;
	for (unsigned i = 0; i < size; i++)
		value |= (uint32_t)host_bridge_byte(offset + i) << (8 * i);
	return value;
}

bool pci_host_io(struct pci_host *h, uint16_t port, unsigned size, bool in,
		 uint32_t *value)
{
	unsigned byte = port - PCI_CONFIG_DATA_PORT;
	const struct pci_function *f;
	unsigned off;

	if (port == PCI_CONFIG_ADDRESS_PORT) {
		if (in)
			*value = h->address;
		else
			h->address = *value;
		return false;
	}
	/* An access that runs past 0xcff keeps to the dword (no wrap). */
	if (byte + size > 4)
		size = 4 - byte;
	off = (h->address & ADDRESS_REGISTER_MASK) + byte;
	f = addressed(h);
	if (f && in)
		*value = f->read(f->ctx, off, size);
	else if (f)
		return f->write(f->ctx, off, size, *value) != 0;
	else if (in)
		*value = config_read(h, off, size);
	/* Writes to the bridge: its header is read-only (see pci_host.h). */
	return false;
}
