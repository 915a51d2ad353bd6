// SPDX-License-Identifier: BSD-2-Clause
/* The boot disk's SATA port, from its UEFI device path. */
#include <efi.h>
#include <efilib.h>

#include "boot/efi_boot_disk.h"
#include "lib/string.h"

static bool is_node(EFI_DEVICE_PATH *dp, UINT8 type, UINT8 subtype)
{
	return DevicePathType(dp) == type && DevicePathSubType(dp) == subtype;
}

void efi_find_boot_sata_port(EFI_HANDLE image, struct boot_sata_port *out)
{
	const PCI_DEVICE_PATH *pci = NULL;
	EFI_LOADED_IMAGE *loaded;
	EFI_DEVICE_PATH *dp;

	memset(out, 0, sizeof(*out));
	if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, image,
					&LoadedImageProtocol,
					(void **)&loaded)))
		return;
	dp = DevicePathFromHandle(loaded->DeviceHandle);
	for (; dp && !IsDevicePathEnd(dp); dp = NextDevicePathNode(dp)) {
		if (is_node(dp, HARDWARE_DEVICE_PATH, HW_PCI_DP)) {
			pci = (const PCI_DEVICE_PATH *)dp;
		} else if (is_node(dp, MESSAGING_DEVICE_PATH, MSG_SATA_DP) &&
			   pci) {
			const SATA_DEVICE_PATH *sata =
				(const SATA_DEVICE_PATH *)dp;

			out->known = true;
			out->pci_dev = pci->Device;
			out->pci_fn = pci->Function;
			out->port = sata->HBAPortNumber;
			return;
		}
	}
}
