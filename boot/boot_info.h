/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What boot/ (UEFI) hands to the core after ExitBootServices. Everything in
 * it is host-physical and identity-mapped (UEFI's paging is 1:1 and so is the
 * hypervisor's).
 */
#ifndef BOOT_BOOT_INFO_H
#define BOOT_BOOT_INFO_H

#include "boot/config.h"
#include "arch/x86/host_paging.h"
#include "swap/frame_pool.h"
#include "lib/limits.h"
#include "lib/text_screen.h"

#define BOOT_MAX_RAM_RANGES 128

/* The AHCI port of the disk apfvisor was loaded from. */
struct boot_sata_port {
	bool known;             /* the boot disk is on a SATA (AHCI) port */
	uint8_t pci_dev, pci_fn;        /* the HBA's PCI device, function */
	uint16_t port;          /* HBA port number */
};

struct boot_info {
	struct hv_config cfg;
	const char *config_text;        /* apfvisor.cfg as read (the trace) */
	uint64_t config_len;

	/* Guest images as read from the ESP. */
	const void *kernel;
	uint64_t kernel_size;
	const void *initrd;
	uint64_t initrd_size;
	/* swap.prefetch_trace, as read (NULL: none). */
	const char *prefetch_list;
	uint64_t prefetch_list_size;

	uint64_t acpi_rsdp;             /* 0 when the firmware gave none */

	/* The screen console's framebuffer (base NULL: none). */
	struct framebuffer screen;
	/* The boot disk's AHCI port: the swap drivers leave it alone. */
	struct boot_sata_port boot_sata;

	/* Wall-clock time (UEFI GetTime) and the TSC when it was read. */
	uint64_t boot_epoch_sec;
	uint64_t boot_tsc;
	uint64_t hv_start_tsc;          /* when hv_main took over */

	/* Host CPUs from the firmware's MP Services (0 = not available). */
	uint32_t cpu_apic_ids[MAX_HOST_CPUS];
	unsigned n_cpus;

	/* Hypervisor heap: page tables, stacks, VMCSs, EPT tables, ... */
	uint64_t heap_base;
	uint64_t heap_size;

	/* Host RAM the guest may occupy (host.guest_frames). */
	struct frame_range guest_frames[FRAME_POOL_MAX_RANGES];
	unsigned n_guest_frame_ranges;

	/* One page below 1 MiB for the host APs' real-mode start. */
	uint64_t trampoline_pa;

	/* Memory the firmware described as RAM (mapped write-back). */
	struct phys_range ram[BOOT_MAX_RAM_RANGES];
	unsigned n_ram;
	unsigned n_ram_unrecorded;      /* ranges beyond BOOT_MAX_RAM_RANGES */
	uint64_t phys_top;              /* end of the highest map entry */
};

struct vm_spec;

/*
 * The guest's images and what they are loaded with (kernel, initrd, their
 * names, guest.format, cmdline, memory) from bi into spec; the rest of
 * spec is left as it is. (efi_main judges the images with them before the
 * VT-x check; hv_main builds the VM.)
 */
void boot_info_image_spec(const struct boot_info *bi, struct vm_spec *spec);

/* The core: never returns. */
NORETURN void hv_main(struct boot_info *bi);

#endif
