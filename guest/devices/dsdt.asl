/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guest's DSDT (ACPI 6.4, 5.2.11.1), compiled by iasl at build time
 * (Makefile: build/gen/dsdt_aml.c). acpi_tables.c writes the table's
 * header itself, as for every other table, and copies only the AML that
 * follows iasl's header; the DefinitionBlock's arguments below are the
 * same as acpi_tables.c's (revision 2: 64-bit integers).
 *
 * The numbers C code must agree on come from the headers it includes
 * too, through iasl's preprocessor.
 */
#include "guest/devices/acpi_sleep.h"
#include "guest/devices/pci_layout.h"

DefinitionBlock ("", "DSDT", 2, "APFVSR", "APFVISOR", 1)
{
    /*
     * SLP_TYP for PM1a_CNT and PM1b_CNT, then two reserved values (7.4.2);
     * Linux reads it in drivers/acpi/acpica/hwxface.c:
     * acpi_get_sleep_type_data. _PTS, _SST and _S0.._S4 are optional and
     * their absence is not reported.
     */
    Name (\_S5, Package () { ACPI_S5_SLP_TYP, ACPI_S5_SLP_TYP, 0, 0 })

    Scope (\_SB)
    {
        /*
         * The PCI root bridge (6.1, 6.2, 6.5.5; PCI Firmware Specification
         * 3.2, 4.1): bus 0 behind configuration mechanism #1
         * (guest/devices/pci_host.c). Linux finds it by its _HID
         * (drivers/acpi/pci_root.c) and takes its windows from _CRS
         * (arch/x86/pci/acpi.c: pci_acpi_root_prepare_resources).
         */
        Device (PCI0)
        {
            Name (_HID, EisaId ("PNP0A03"))     /* PCI bus */
            Name (_UID, 0)
            Name (_BBN, 0)                      /* its bus number */
            /*
             * No _ADR: a device has a _HID or an _ADR, not both (6.1),
             * and iasl warns about both; QEMU's PCI0 has both, and Linux
             * reads no _ADR of a root bridge.
             */

            Name (_CRS, ResourceTemplate ()
            {
                /* Buses 0-255: everything below the bridge. */
                WordBusNumber (ResourceProducer, MinFixed, MaxFixed,
                    PosDecode,
                    0x0000,             /* granularity */
                    0x0000,             /* first */
                    0x00FF,             /* last */
                    0x0000,             /* translation */
                    0x0100)             /* length */

                /* CONFIG_ADDRESS and CONFIG_DATA: the bridge's own. */
                IO (Decode16, 0x0CF8, 0x0CF8, 0x01, 0x08)

                /* Port windows: all 64 Ki ports but the bridge's. */
                WordIO (ResourceProducer, MinFixed, MaxFixed, PosDecode,
                    EntireRange,
                    0x0000, 0x0000, 0x0CF7, 0x0000, 0x0CF8)
                WordIO (ResourceProducer, MinFixed, MaxFixed, PosDecode,
                    EntireRange,
                    0x0000, 0x0D00, 0xFFFF, 0x0000, 0xF300)

                /*
                 * The 32-bit memory window (pci_layout.h). No window for
                 * the legacy VGA range: there is no VGA device (the
                 * FADT says VGA Not Present), and 0xA0000-0xBFFFF is
                 * guest RAM (vga_text.c only reads what a guest left at
                 * 0xB8000).
                 */
                DWordMemory (ResourceProducer, PosDecode, MinFixed,
                    MaxFixed, NonCacheable, ReadWrite,
                    0x00000000,
                    PCI_WINDOW32_BASE,
                    PCI_WINDOW32_LIMIT,
                    0x00000000,
                    PCI_WINDOW32_SIZE)  /* iasl checks it */
            })

            /*
             * Interrupt routing (6.2.13): each entry is { device address
             * (slot << 16 | 0xFFFF: any function), pin (0-3: INTA#-INTD#),
             * source 0 (no link device), GSI }. Linux registers such a
             * GSI level-triggered, active low (drivers/acpi/pci_irq.c).
             */
            Name (_PRT, Package ()
            {
                Package () { PCI_BALLOON_SLOT << 16 | 0xFFFF, 0, 0,
                             PCI_BALLOON_GSI },
                Package () { PCI_BALLOON_SLOT << 16 | 0xFFFF, 1, 0,
                             PCI_BALLOON_GSI },
                Package () { PCI_BALLOON_SLOT << 16 | 0xFFFF, 2, 0,
                             PCI_BALLOON_GSI },
                Package () { PCI_BALLOON_SLOT << 16 | 0xFFFF, 3, 0,
                             PCI_BALLOON_GSI },
            })
        }
    }
}
