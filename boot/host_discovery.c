// SPDX-License-Identifier: BSD-2-Clause
#include "boot/host_discovery.h"
#include "boot/host_cpus.h"
#include "boot/ram_map.h"
#include "arch/x86/acpi.h"
#include "arch/x86/acpi_fadt.h"
#include "arch/x86/acpi_mcfg.h"
#include "arch/x86/host_paging.h"
#include "arch/x86/pci.h"
#include "arch/x86/tsc.h"
#include "lib/console.h"

#define MADT_SIGNATURE "APIC"
#define FADT_SIGNATURE "FACP"
#define MCFG_SIGNATURE "MCFG"

static uint32_t madt_ids[MAX_HOST_CPUS];

unsigned host_discover_cpus(const struct boot_info *bi, uint32_t bsp_apic_id,
			    uint32_t *ids, unsigned max)
{
	const struct acpi_sdt_header *madt =
		acpi_find_table(bi->acpi_rsdp, MADT_SIGNATURE);
	struct host_cpu_lists lists = { .madt = madt_ids,
					.mp = bi->cpu_apic_ids,
					.n_mp = bi->n_cpus };

	if (madt)
		lists.n_madt = MIN(acpi_madt_cpus(madt, madt_ids,
						  MAX_HOST_CPUS),
				   MAX_HOST_CPUS);
	return host_cpus_choose(&lists, bsp_apic_id, ids, max);
}

static uint64_t frames_above_4g(const struct boot_info *bi, uint64_t *total)
{
	uint64_t above = 0;

	*total = 0;
	for (unsigned i = 0; i < bi->n_guest_frame_ranges; i++) {
		const struct frame_range *r = &bi->guest_frames[i];
		uint64_t base = r->base, end = base + (r->frames << PAGE_SHIFT);

		*total += end - base;
		if (end > GiB(4))
			above += end - MAX(base, GiB(4));
	}
	return above;
}

static void report_memory(const struct boot_info *bi)
{
	uint64_t below, above, frames, frames_high;

	ram_map_split_4g(bi->ram, bi->n_ram, &below, &above);
	hv_info("memory: %u RAM range(s), %llu MiB below 4 GiB, %llu MiB "
		"above 4 GiB, mapped up to 0x%llx", bi->n_ram,
		(unsigned long long)(below >> 20),
		(unsigned long long)(above >> 20),
		(unsigned long long)bi->phys_top);
	if (bi->n_ram_unrecorded)
		hv_info("memory: %u more RAM range(s) than the %u recorded: "
			"they are mapped uncached", bi->n_ram_unrecorded,
			BOOT_MAX_RAM_RANGES);
	frames_high = frames_above_4g(bi, &frames);
	hv_info("memory: guest frames %llu MiB in %u range(s), %llu MiB of "
		"them above 4 GiB", (unsigned long long)(frames >> 20),
		bi->n_guest_frame_ranges,
		(unsigned long long)(frames_high >> 20));
}

/*
 * ECAM when the MCFG gives a window for segment 0 and it answers for the
 * host bridge as the ports do (a window that reads all ones there is not
 * where the MCFG says).
 */
static void choose_pci_access(const struct boot_info *bi)
{
	const struct acpi_sdt_header *mcfg =
		acpi_find_table(bi->acpi_rsdp, MCFG_SIGNATURE);
	const char *why = "no ACPI MCFG";
	struct pci_ecam_window w;
	struct pci_device bridge = { 0 };
	uint16_t by_port, by_ecam;

	if (!mcfg || !acpi_mcfg_segment0(mcfg, &w, &why)) {
		hv_info("pci: config space through ports 0xcf8/0xcfc (%s)",
			why);
		return;
	}
	if (!host_paging_map_mmio(w.base, pci_ecam_size(&w))) {
		hv_error("pci: the ACPI MCFG's ECAM window at 0x%llx cannot "
			 "be mapped: config space through ports 0xcf8/0xcfc",
			 (unsigned long long)w.base);
		return;
	}
	bridge.bus = w.bus_start;
	by_port = pci_read16(&bridge, PCI_VENDOR_ID);
	pci_use_ecam(&w);
	by_ecam = pci_read16(&bridge, PCI_VENDOR_ID);
	if (by_ecam == 0xffff && by_port != 0xffff) {
		pci_use_ports();
		hv_error("pci: the ACPI MCFG's ECAM window at 0x%llx reads no "
			 "device at %02x:00.0 where the ports find vendor "
			 "0x%04x: config space through ports 0xcf8/0xcfc",
			 (unsigned long long)w.base, w.bus_start, by_port);
		return;
	}
	hv_info("pci: ECAM at 0x%llx for buses %u-%u (ACPI MCFG); config "
		"space through memory", (unsigned long long)w.base,
		w.bus_start, w.bus_end);
}

static bool calibrate_tsc(const struct boot_info *bi)
{
	const struct acpi_sdt_header *fadt =
		acpi_find_table(bi->acpi_rsdp, FADT_SIGNATURE);
	static struct acpi_pm_timer pm;
	const char *why = "no ACPI FADT";

	if (!fadt || !acpi_fadt_pm_timer(fadt, &pm, &why))
		return tsc_calibrate(bi->cfg.tsc_source, NULL, why);
	if (pm.mmio && !host_paging_map_mmio(pm.address, sizeof(uint32_t)))
		return tsc_calibrate(bi->cfg.tsc_source, NULL,
				     "the FADT's PM timer address cannot be "
				     "mapped");
	hv_info("tsc: ACPI PM timer at %s 0x%llx, %u-bit (FADT)",
		pm.mmio ? "address" : "port",
		(unsigned long long)pm.address, pm.is_32bit ? 32 : 24);
	return tsc_calibrate(bi->cfg.tsc_source, &pm, NULL);
}

bool host_discover_platform(const struct boot_info *bi)
{
	report_memory(bi);
	choose_pci_access(bi);
	return calibrate_tsc(bi);
}
