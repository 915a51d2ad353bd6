// SPDX-License-Identifier: BSD-2-Clause
#include <efi.h>
#include <efilib.h>

#include "boot/efi_cpus.h"

#define MP_SERVICES_PROTOCOL_GUID \
	{ 0x3fdda605, 0xa76e, 0x4f46, \
	  { 0xad, 0x29, 0x12, 0xf4, 0x53, 0x1b, 0x3d, 0x08 } }
#define PROCESSOR_ENABLED_BIT 0x2

/* PI spec layout; newer firmware appends extended data we do not read. */
struct efi_processor_information {
	UINT64 processor_id;            /* the APIC ID */
	UINT32 status_flag;
	UINT32 package, core, thread;
	UINT8 extended[64];
};

struct efi_mp_services {
	EFI_STATUS(EFIAPI *get_number_of_processors)(
		struct efi_mp_services *self, UINTN *count, UINTN *enabled);
	EFI_STATUS(EFIAPI *get_processor_info)(
		struct efi_mp_services *self, UINTN number,
		struct efi_processor_information *info);
	/* StartupAllAPs, StartupThisAP, SwitchBSP, EnableDisableAP, WhoAmI */
	void *unused[5];
};

void efi_discover_cpus(struct boot_info *bi)
{
	EFI_GUID guid = MP_SERVICES_PROTOCOL_GUID;
	struct efi_mp_services *mp;
	UINTN count, enabled;

	bi->n_cpus = 0;
	if (EFI_ERROR(uefi_call_wrapper(BS->LocateProtocol, 3, &guid, NULL,
					(void **)&mp)))
		return;
	if (EFI_ERROR(mp->get_number_of_processors(mp, &count, &enabled)))
		return;
	for (UINTN i = 0; i < count && bi->n_cpus < MAX_HOST_CPUS; i++) {
		struct efi_processor_information info;

		if (EFI_ERROR(mp->get_processor_info(mp, i, &info)) ||
		    !(info.status_flag & PROCESSOR_ENABLED_BIT))
			continue;
		bi->cpu_apic_ids[bi->n_cpus++] = (uint32_t)info.processor_id;
	}
}
