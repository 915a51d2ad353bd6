/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guest's PCI host bridge, as far as a kernel's PCI probe looks at it:
 * configuration mechanism #1 (PCI Local Bus Specification 3.0, 3.2.2.3.2)
 * with CONFIG_ADDRESS at port 0xcf8 (32-bit accesses only) and
 * CONFIG_DATA at 0xcfc-0xcff (any size and offset). Bus 0 device 0
 * function 0 is the host bridge QEMU's pc machine has there (Intel 440FX,
 * 8086:1237, revision 2, class 06 00 00, subsystem 1af4:1100). Its header
 * reads as zero past the IDs, and writes to it are dropped (no BARs, no
 * PAM or SMRAM registers, no command bits: nothing behind the bridge needs
 * them). Other devices of bus 0 (function 0 only) are attached by their
 * models (pci_host_attach: the virtio balloon). Every other bus, device
 * and function reads as all ones: no device.
 *
 * Byte and word accesses to 0xcf8 are not CONFIG_ADDRESS (so Linux's
 * mechanism #2 check in arch/x86/pci/direct.c fails, as on QEMU), and
 * port 0xcf9 stays the reset control register (guest/io_ports.c).
 */
#ifndef GUEST_PCI_HOST_H
#define GUEST_PCI_HOST_H

#include "lib/types.h"

#define PCI_CONFIG_ADDRESS_PORT 0xcf8
#define PCI_CONFIG_DATA_PORT 0xcfc
#define PCI_CONFIG_ENABLE 0x80000000u

#define PCI_HOST_VENDOR_ID 0x8086
#define PCI_HOST_DEVICE_ID 0x1237
#define PCI_HOST_REVISION 0x02
#define PCI_HOST_SUBSYSTEM_VENDOR_ID 0x1af4
#define PCI_HOST_SUBSYSTEM_ID 0x1100

#define PCI_HOST_SLOTS 32

/* A device's configuration space: offset 0..255, size 1, 2 or 4. */
struct pci_function {
	uint32_t (*read)(void *ctx, unsigned off, unsigned size);
	/* Returns nonzero when the device's interrupt line may have moved. */
	unsigned (*write)(void *ctx, unsigned off, unsigned size,
			  uint32_t value);
	void *ctx;
};

struct pci_host {
	uint32_t address;               /* CONFIG_ADDRESS as last written */
	struct pci_function slot[PCI_HOST_SLOTS];       /* read NULL: none */
};

/* No device on bus 0 but the host bridge. */
void pci_host_init(struct pci_host *h);

/* Puts f at bus 0, device slot, function 0 (1 <= slot < 32). */
void pci_host_attach(struct pci_host *h, unsigned slot,
		     const struct pci_function *f);

/* Whether a port access of this size is the host bridge's. */
bool pci_host_owns_port(uint16_t port, unsigned size);

/*
 * A port access the bridge owns (size 1, 2 or 4); true when a device's
 * interrupt line may have moved.
 */
bool pci_host_io(struct pci_host *h, uint16_t port, unsigned size, bool in,
		 uint32_t *value);

#endif
