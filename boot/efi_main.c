// SPDX-License-Identifier: BSD-2-Clause
/*
 * The UEFI entry (GNU-EFI). Everything that needs boot services happens here:
 * read apfvisor.cfg and the guest images from the volume we were loaded
 * from, check VT-x while an error can still be returned to the firmware,
 * allocate the hypervisor's memory, take the memory map and leave boot
 * services. Then the core (hv_main) owns the machine.
 */
#include <efi.h>
#include <efilib.h>

#include "boot/boot_info.h"
#include "boot/efi_boot_disk.h"
#include "boot/efi_cpus.h"
#include "boot/efi_files.h"
#include "boot/efi_memory.h"
#include "boot/efi_screen.h"
#include "boot/screen_console.h"
#include "arch/x86/serial.h"
#include "arch/x86/cpu.h"
#include "lib/civil_time.h"
#include "lib/console.h"
#include "lib/format.h"
#include "lib/string.h"
#include "guest/loaders/guest_image.h"
#include "guest/vm.h"
#include "vmx/vmx_caps.h"

#define APFVISOR_VERSION "0.1"
#define CONFIG_FILE_NAME "apfvisor.cfg"

static struct boot_info boot_info;

static const char *efi_status_name(EFI_STATUS st)
{
	switch (st) {
	case EFI_SUCCESS: return "EFI_SUCCESS";
	case EFI_LOAD_ERROR: return "EFI_LOAD_ERROR";
	case EFI_INVALID_PARAMETER: return "EFI_INVALID_PARAMETER";
	case EFI_UNSUPPORTED: return "EFI_UNSUPPORTED";
	case EFI_NOT_FOUND: return "EFI_NOT_FOUND";
	case EFI_OUT_OF_RESOURCES: return "EFI_OUT_OF_RESOURCES";
	case EFI_DEVICE_ERROR: return "EFI_DEVICE_ERROR";
	default: return "EFI_ERROR";
	}
}

static EFI_STATUS return_to_firmware(EFI_STATUS st)
{
	hv_info("exiting to firmware with status %s", efi_status_name(st));
	efi_screen_hold_before_return();
	efi_console_detach(serial_write);
	return st;
}

/*
 * Reads and parses apfvisor.cfg; on failure err says why (not printed
 * here: where lines go depends on the config, see efi_main).
 */
static EFI_STATUS load_config(EFI_HANDLE image, struct boot_info *bi,
			      char *err, size_t err_len)
{
	struct hv_config *cfg = &bi->cfg;
	struct efi_file f;
	EFI_STATUS st = efi_read_file(image, CONFIG_FILE_NAME, &f);

	if (EFI_ERROR(st)) {
		fmt_snprintf(err, err_len, "cannot read %s from the boot "
			     "volume (%s)", CONFIG_FILE_NAME,
			     efi_status_name(st));
		return st;
	}
	if (config_parse(f.data, f.size, cfg, err, err_len) != 0)
		return EFI_INVALID_PARAMETER;
	bi->config_text = f.data;
	bi->config_len = f.size;
	return EFI_SUCCESS;
}

static EFI_STATUS load_guest_images(EFI_HANDLE image, struct boot_info *bi)
{
	struct efi_file f;
	EFI_STATUS st = efi_read_file(image, bi->cfg.guest_kernel, &f);

	if (EFI_ERROR(st)) {
		hv_error("apfvisor.cfg: guest.kernel: cannot read '%s' (%s)",
			 bi->cfg.guest_kernel, efi_status_name(st));
		return st;
	}
	bi->kernel = f.data;
	bi->kernel_size = f.size;
	if (!bi->cfg.guest_initrd[0])
		return EFI_SUCCESS;
	st = efi_read_file(image, bi->cfg.guest_initrd, &f);
	if (EFI_ERROR(st)) {
		hv_error("apfvisor.cfg: guest.initrd: cannot read '%s' (%s)",
			 bi->cfg.guest_initrd, efi_status_name(st));
		return st;
	}
	bi->initrd = f.data;
	bi->initrd_size = f.size;
	return EFI_SUCCESS;
}

/* swap.prefetch_trace: replay's fault list (swap/policy/fault_list.h). */
static EFI_STATUS load_prefetch_list(EFI_HANDLE image, struct boot_info *bi)
{
	struct efi_file f;
	EFI_STATUS st;

	if (bi->cfg.swap_prefetch == SWAP_PREFETCH_REPLAY &&
	    !bi->cfg.swap_prefetch_trace[0]) {
		hv_error("apfvisor.cfg: swap.prefetch = replay needs "
			 "swap.prefetch_trace (a fault list: tools/apftrace "
			 "--extract-faults)");
		return EFI_INVALID_PARAMETER;
	}
	if (!bi->cfg.swap_prefetch_trace[0])
		return EFI_SUCCESS;
	st = efi_read_file(image, bi->cfg.swap_prefetch_trace, &f);
	if (EFI_ERROR(st)) {
		hv_error("apfvisor.cfg: swap.prefetch_trace: cannot read '%s' "
			 "(%s)", bi->cfg.swap_prefetch_trace,
			 efi_status_name(st));
		return st;
	}
	bi->prefetch_list = f.data;
	bi->prefetch_list_size = f.size;
	return EFI_SUCCESS;
}

static bool images_loadable(const struct boot_info *bi)
{
	struct vm_spec spec = { 0 };

	boot_info_image_spec(bi, &spec);
	return guest_image_loadable(&spec);
}

static void print_config(const struct hv_config *cfg)
{
	hv_info("config: guest.kernel=%s guest.memory=%llu MiB "
		"host.guest_frames=%llu MiB guest.vcpus=%u",
		cfg->guest_kernel,
		(unsigned long long)(cfg->guest_memory >> 20),
		(unsigned long long)(cfg->host_guest_frames >> 20),
		cfg->guest_vcpus);
}

/* The guest's kvmclock wall clock starts from the firmware's RTC time. */
static void read_wall_clock(struct boot_info *bi)
{
	EFI_TIME t;

	bi->boot_tsc = rdtsc();
	if (EFI_ERROR(uefi_call_wrapper(RT->GetTime, 2, &t, NULL)))
		return;
	bi->boot_epoch_sec = unix_time_from_date(t.Year, t.Month, t.Day,
						 t.Hour, t.Minute, t.Second);
	/* Firmware time is local time when TimeZone is given (UEFI 8.3). */
	if (t.TimeZone != EFI_UNSPECIFIED_TIMEZONE)
		bi->boot_epoch_sec += (int64_t)t.TimeZone * 60;
}

/* Refusals that need no hardware: said before anything is allocated. */
static EFI_STATUS check_memory_config(const struct hv_config *cfg)
{
	if (cfg->guest_memory > cfg->host_guest_frames &&
	    cfg->swap_device == SWAP_DEVICE_NONE) {
		hv_error("apfvisor.cfg: guest.memory (%llu MiB) is larger than "
			 "host.guest_frames (%llu MiB): overcommit needs a swap "
			 "device (swap.device = auto, virtio-blk, ahci or ata)",
			 (unsigned long long)(cfg->guest_memory >> 20),
			 (unsigned long long)(cfg->host_guest_frames >> 20));
		return EFI_INVALID_PARAMETER;
	}
	return EFI_SUCCESS;
}

/* crt0 (_start) calls this with the System V convention, not EFIAPI. */
EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	struct boot_info *bi = &boot_info;
	char config_error[CONFIG_ERROR_MAX];
	EFI_STATUS st;

	/*
	 * Not InitializeLib(): its object file also defines memset/memcpy,
	 * which would clash with lib/string.c. The library calls used here
	 * need only these globals.
	 */
	ST = systab;
	BS = systab->BootServices;
	RT = systab->RuntimeServices;
	serial_init();
	console_add_sink(serial_write);
	screen_console_record_early();
	st = load_config(image, bi, config_error, sizeof(config_error));
	/*
	 * The firmware's text console, which OVMF copies to every serial
	 * port it finds, shows apfvisor's lines until ExitBootServices; with
	 * the guest's terminal on COM2 (console.passthrough) they would reach
	 * that terminal too, so they go to COM1 alone (the screen gets them
	 * from screen_console's early record).
	 */
	if (EFI_ERROR(st) ||
	    bi->cfg.console_passthrough == CONSOLE_PASSTHROUGH_OFF)
		efi_console_attach(systab, serial_write);
	hv_info("apfvisor " APFVISOR_VERSION " starting");
	if (EFI_ERROR(st))
		hv_error("%s", config_error);
	/* A config that does not parse leaves the default: both. */
	efi_screen_setup(EFI_ERROR(st) ? CONSOLE_OUTPUT_BOTH
				       : bi->cfg.console_output,
			 bi, serial_write);
	if (EFI_ERROR(st))
		return return_to_firmware(st);
	if (!bi->cfg.host_guest_frames)
		bi->cfg.host_guest_frames = bi->cfg.guest_memory;
	print_config(&bi->cfg);
	efi_print_memory_summary();
	efi_discover_cpus(bi);
	if (bi->n_cpus)
		hv_info("host cpus: %u (UEFI MP services)", bi->n_cpus);

	st = check_memory_config(&bi->cfg);
	if (EFI_ERROR(st))
		return return_to_firmware(st);
	/*
	 * The images are read and judged before VT-x is checked: a kernel
	 * that cannot be loaded is refused the same way on any machine.
	 */
	st = load_guest_images(image, bi);
	if (!EFI_ERROR(st))
		st = load_prefetch_list(image, bi);
	if (EFI_ERROR(st))
		return return_to_firmware(st);
	if (!bi->cfg.debug_blockdev_selftest && !images_loadable(bi))
		return return_to_firmware(EFI_LOAD_ERROR);
	if (bi->cfg.debug_blockdev_selftest)
		hv_info("debug.blockdev_selftest: no guest, VT-x not needed");
	else if (!vmx_check_support())
		return return_to_firmware(EFI_UNSUPPORTED);
	bi->acpi_rsdp = efi_find_acpi_rsdp(systab);
	efi_find_boot_sata_port(image, &bi->boot_sata);
	read_wall_clock(bi);

	st = efi_allocate_hypervisor_memory(bi);
	if (EFI_ERROR(st))
		return return_to_firmware(st);

	efi_console_detach(serial_write);
	st = efi_take_memory_map_and_exit(image, bi);
	if (EFI_ERROR(st)) {
		hv_error("ExitBootServices failed (%s)", efi_status_name(st));
		return return_to_firmware(st);
	}
	hv_main(bi);
}
