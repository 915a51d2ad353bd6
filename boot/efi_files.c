// SPDX-License-Identifier: BSD-2-Clause
#include <efi.h>
#include <efilib.h>

#include "boot/efi_files.h"
#include "lib/console.h"
#include "lib/string.h"

#define EFI_PATH_MAX 256

static void to_efi_path(const char *path, CHAR16 *out, size_t max)
{
	size_t i = 0;

	if (*path == '/' || *path == '\\')
		path++;
	out[i++] = L'\\';
	for (; *path && i + 1 < max; path++)
		out[i++] = (*path == '/') ? L'\\' : (CHAR16)(unsigned char)*path;
	out[i] = 0;
}

static EFI_STATUS open_root(EFI_HANDLE image, EFI_FILE_HANDLE *root)
{
	EFI_LOADED_IMAGE *loaded;
	EFI_STATUS st;

	st = uefi_call_wrapper(BS->HandleProtocol, 3, image,
			       &LoadedImageProtocol, (void **)&loaded);
	if (EFI_ERROR(st))
		return st;
	*root = LibOpenRoot(loaded->DeviceHandle);
	return *root ? EFI_SUCCESS : EFI_NOT_FOUND;
}

EFI_STATUS efi_read_file(EFI_HANDLE image, const char *path,
			 struct efi_file *out)
{
	CHAR16 wpath[EFI_PATH_MAX];
	EFI_FILE_HANDLE root, file;
	EFI_PHYSICAL_ADDRESS pages;
	EFI_FILE_INFO *info;
	EFI_STATUS st;
	UINTN size;

	st = open_root(image, &root);
	if (EFI_ERROR(st))
		return st;
	to_efi_path(path, wpath, EFI_PATH_MAX);
	st = uefi_call_wrapper(root->Open, 5, root, &file, wpath,
			       EFI_FILE_MODE_READ, 0);
	uefi_call_wrapper(root->Close, 1, root);
	if (EFI_ERROR(st))
		return st;
	info = LibFileInfo(file);
	if (!info) {
		uefi_call_wrapper(file->Close, 1, file);
		return EFI_DEVICE_ERROR;
	}
	size = info->FileSize;
	FreePool(info);
	st = uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages,
			       EfiLoaderData, EFI_SIZE_TO_PAGES(size + 1),
			       &pages);
	if (!EFI_ERROR(st)) {
		out->data = (void *)(uintptr_t)pages;
		out->size = size;
		st = uefi_call_wrapper(file->Read, 3, file, &size, out->data);
		((char *)out->data)[out->size] = 0;
	}
	uefi_call_wrapper(file->Close, 1, file);
	return st;
}

uint64_t efi_find_acpi_rsdp(EFI_SYSTEM_TABLE *systab)
{
	EFI_GUID acpi20 = ACPI_20_TABLE_GUID;
	EFI_GUID acpi10 = ACPI_TABLE_GUID;
	uint64_t found = 0;

	for (UINTN i = 0; i < systab->NumberOfTableEntries; i++) {
		EFI_CONFIGURATION_TABLE *t = &systab->ConfigurationTable[i];

		if (!CompareGuid(&t->VendorGuid, &acpi20))
			return (uint64_t)(uintptr_t)t->VendorTable;
		if (!CompareGuid(&t->VendorGuid, &acpi10))
			found = (uint64_t)(uintptr_t)t->VendorTable;
	}
	return found;
}

static EFI_SYSTEM_TABLE *console_systab;

static void efi_console_write(const char *s, size_t len)
{
	CHAR16 buf[128];
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			buf[n++] = L'\r';
		buf[n++] = (CHAR16)(unsigned char)s[i];
		if (n >= ARRAY_SIZE(buf) - 2 || i + 1 == len) {
			buf[n] = 0;
			uefi_call_wrapper(console_systab->ConOut->OutputString,
					  2, console_systab->ConOut, buf);
			n = 0;
		}
	}
}

static bool efi_console_attached;

static bool path_has_uart(EFI_DEVICE_PATH *dp)
{
	for (; dp && !IsDevicePathEnd(dp); dp = NextDevicePathNode(dp))
		if (DevicePathType(dp) == MESSAGING_DEVICE_PATH &&
		    DevicePathSubType(dp) == MSG_UART_DP)
			return true;
	return false;
}

/*
 * True when one of the firmware's text consoles is a serial terminal (OVMF
 * puts COM1 there): then UEFI already copies ConOut to the serial line.
 */
static bool text_console_on_serial(void)
{
	EFI_HANDLE *handles = NULL;
	UINTN count = 0;
	bool found = false;

	if (EFI_ERROR(LibLocateHandle(ByProtocol, &TextOutProtocol, NULL,
				      &count, &handles)))
		return false;
	for (UINTN i = 0; i < count && !found; i++)
		found = path_has_uart(DevicePathFromHandle(handles[i]));
	FreePool(handles);
	return found;
}

void efi_console_attach(EFI_SYSTEM_TABLE *systab, console_sink_fn serial_sink)
{
	console_systab = systab;
	if (!systab->ConOut)
		return;
	efi_console_attached = true;
	/* One copy of each line on COM1, not two. */
	if (text_console_on_serial())
		console_remove_sink(serial_sink);
	console_add_sink(efi_console_write);
}

void efi_console_detach(console_sink_fn serial_sink)
{
	if (!efi_console_attached)
		return;
	efi_console_attached = false;
	console_remove_sink(efi_console_write);
	console_remove_sink(serial_sink);
	console_add_sink(serial_sink);
}
