/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where apfvisor was loaded from, as far as the swap drivers must know:
 * the SATA port of the boot disk, which they leave alone.
 */
#ifndef BOOT_EFI_BOOT_DISK_H
#define BOOT_EFI_BOOT_DISK_H

#include <efi.h>
#include "boot/boot_info.h"

/*
 * Reads the device path of the volume image was loaded from, e.g.
 * PciRoot(0x0)/Pci(0x1F,0x2)/Sata(0x0,0xFFFF,0x0): the PCI device and
 * function of the node before the Sata() node and its HBA port number
 * (UEFI 2.x 10.3.4.6). out->known stays false on any other path.
 */
void efi_find_boot_sata_port(EFI_HANDLE image, struct boot_sata_port *out);

#endif
