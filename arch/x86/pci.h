/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PCI configuration space through ECAM (the ACPI MCFG's window, all 4 KiB
 * of each function) or through I/O ports 0xCF8/0xCFC (configuration
 * mechanism #1, PCI Local Bus Specification 3.0, 3.2.2.3.2), a bounded bus
 * scan, the capability list, BAR decoding and the command register. Enough
 * for the block drivers under swap/; no interrupts are set up (apfvisor
 * polls), so INTx is disabled on every device a driver enables.
 */
#ifndef ARCH_X86_PCI_H
#define ARCH_X86_PCI_H

#include "lib/types.h"
#include "arch/x86/pci_ecam.h"

/* Configuration header registers (PCI 3.0, 6.1, Figure 6-1). */
#define PCI_VENDOR_ID      0x00
#define PCI_DEVICE_ID      0x02
#define PCI_COMMAND        0x04
#define PCI_STATUS         0x06
#define PCI_REVISION_ID    0x08
#define PCI_PROG_IF        0x09
#define PCI_SUBCLASS       0x0a
#define PCI_CLASS          0x0b
#define PCI_HEADER_TYPE    0x0e
#define PCI_BAR0           0x10
#define PCI_CAP_PTR        0x34

#define PCI_COMMAND_IO            BIT(0)
#define PCI_COMMAND_MEMORY        BIT(1)
#define PCI_COMMAND_BUS_MASTER    BIT(2)
#define PCI_COMMAND_INTX_DISABLE  BIT(10)
#define PCI_STATUS_CAP_LIST       BIT(4)
#define PCI_HEADER_TYPE_MASK      0x7f
#define PCI_HEADER_MULTI_FUNCTION 0x80

/* Capability IDs (PCI Code and ID Assignment Specification, 2). */
#define PCI_CAP_ID_VENDOR  0x09

#define PCI_ANY_ID 0xffff

struct pci_device {
	uint8_t bus, dev, fn;
	uint16_t vendor, device;
	uint8_t class_code, subclass, prog_if;
	uint8_t header_type;            /* without the multi-function bit */
};

struct pci_bar {
	uint64_t base;                  /* bus address (= physical on x86) */
	uint64_t size;                  /* bytes; 0 when the BAR is unused */
	bool io;                        /* I/O space, else memory */
	bool is64;                      /* a 64-bit memory BAR (uses 2 slots) */
	bool prefetchable;
};

/*
 * Config accesses to the buses w covers go through its ECAM window from now
 * on (the window must be mapped); pci_use_ports goes back to 0xCF8/0xCFC.
 */
void pci_use_ecam(const struct pci_ecam_window *w);
void pci_use_ports(void);

uint8_t pci_read8(const struct pci_device *d, uint16_t off);
uint16_t pci_read16(const struct pci_device *d, uint16_t off);
uint32_t pci_read32(const struct pci_device *d, uint16_t off);
void pci_write8(const struct pci_device *d, uint16_t off, uint8_t v);
void pci_write16(const struct pci_device *d, uint16_t off, uint16_t v);
void pci_write32(const struct pci_device *d, uint16_t off, uint32_t v);

/* Called for each function found; return true to stop the scan. */
typedef bool (*pci_visit_fn)(const struct pci_device *d, void *arg);

/*
 * Visits every function of buses 0..255 in bus/device/function order.
 * Returns true when fn stopped the scan.
 */
bool pci_scan(pci_visit_fn fn, void *arg);

/*
 * The nth (from 0) function whose IDs match (PCI_ANY_ID matches any), or
 * whose class and subclass match; false when there is none.
 */
bool pci_find_device(uint16_t vendor, uint16_t device, unsigned nth,
		     struct pci_device *out);
bool pci_find_class(uint8_t class_code, uint8_t subclass, unsigned nth,
		    struct pci_device *out);

/*
 * The config-space offset of the next capability with the given ID after
 * the one at prev (prev = 0: from the start of the list); 0 when none.
 * The device writes the list: it may loop, so a walk over it stops after
 * PCI_CAP_MAX_COUNT capabilities (one per dword after the header).
 */
#define PCI_CAP_MAX_COUNT ((256 - 0x40) / 4)
uint8_t pci_next_cap(const struct pci_device *d, uint8_t cap_id,
		     uint8_t prev);

/*
 * Decodes BAR index (0..5, type 0 header). Sizing writes all ones to the
 * BAR, so it is done with I/O and memory decoding off and the command
 * register restored afterwards. Returns -1 for a bad index, a header that
 * is not type 0, or the upper half of a 64-bit BAR. The size is the
 * lowest address bit the device lets be written, the base aligned to it;
 * a memory BAR reaching past 2^52 decodes with size 0 (unused).
 */
int pci_bar_decode(const struct pci_device *d, unsigned index,
		   struct pci_bar *out);

/* Sets bits (PCI_COMMAND_*) in the command register, and disables INTx. */
void pci_enable(const struct pci_device *d, uint16_t bits);

#endif
