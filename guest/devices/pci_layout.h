/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guest's PCI bus 0 as the DSDT describes it (guest/devices/dsdt.asl,
 * device \_SB.PCI0), for the C code that emulates devices on it. iasl's
 * preprocessor reads this file too: #define of plain integers only, no C
 * suffixes (0x10u), no types.
 *
 * Memory: the root bridge's one 32-bit window, where Linux places the
 * BARs it assigns (arch/x86/pci/acpi.c: pci_acpi_scan_root takes the
 * windows of _CRS). It starts where guest RAM below 4 GiB ends at the
 * latest (lib/guest_ram.c: 3.5 GiB, QEMU's max-ram-below-4g) and ends
 * below the I/O APIC page (IOAPIC_BASE, 0xFEC00000); the local APIC
 * page at 0xFEE00000 is above it too. A device model that sets a BAR
 * itself must keep it inside [PCI_WINDOW32_BASE, PCI_WINDOW32_LIMIT].
 *
 * Interrupts: the DSDT's _PRT routes each INTx# pin straight to an I/O
 * APIC input (a GSI), with no PCI interrupt link devices. Linux then
 * programs that input level-triggered and active low (drivers/acpi/
 * pci_irq.c: acpi_pci_irq_enable), and the MADT's Interrupt Source
 * Override for the same ISA IRQ says the same (acpi_tables.c). The I/O
 * APIC model does not apply polarity (guest/devices/ioapic.c): a device
 * drives the pin with ioapic_set_pin(io, gsi, true) while it asserts
 * INTx# and false once the guest has cleared its cause.
 */
#ifndef GUEST_PCI_LAYOUT_H
#define GUEST_PCI_LAYOUT_H

/*
 * The 32-bit memory window of bus 0: first byte, last byte, and size
 * (a literal: iasl folds no expression in a resource descriptor, and
 * checks that the three agree).
 */
#define PCI_WINDOW32_BASE 0xE0000000
#define PCI_WINDOW32_LIMIT 0xFEBFFFFF
#define PCI_WINDOW32_SIZE 0x1EC00000

/*
 * The virtio balloon, device PCI_BALLOON_SLOT function 0 of bus 0
 * (00:03.0). Every INTx# pin of that slot, INTA# included, reaches the
 * I/O APIC at GSI PCI_BALLOON_GSI, which is ISA IRQ 11 too (a line
 * QEMU's pc machine also gives PCI devices; nothing ISA uses it here).
 */
#define PCI_BALLOON_SLOT 3
#define PCI_BALLOON_GSI 11

#endif
