/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The ACPI tables of the Linux guest's virtual platform: RSDP, XSDT, FADT,
 * FACS, DSDT and MADT (ACPI 6.4, 5.2), built into one buffer that the
 * hypervisor copies to guest-physical memory; boot_params.acpi_rsdp_addr
 * then points at the RSDP. Pure C.
 *
 * The platform they describe: N vCPUs with APIC IDs 0..N-1, one I/O APIC,
 * a pair of 8259 PICs, a 16550 at 0x3F8 (IRQ 4), PCI bus 0 behind a root
 * bridge (the DSDT's \_SB.PCI0: guest/devices/dsdt.asl and
 * guest/devices/pci_layout.h), no HPET, no PM timer,
 * no CMOS RTC, no i8042, no VGA, and the fixed ACPI registers below.
 *
 * What the port handlers must do so that Linux 6.1 (ACPICA 20220331) stays
 * quiet:
 *  - PM1a_STS (16 bits at ACPI_PM1A_STS_PORT): reads 0; writes of ones
 *    clear bits (nothing to clear: no event is ever raised).
 *  - PM1a_EN (16 bits at ACPI_PM1A_EN_PORT): keeps what is written and
 *    reads it back. ACPICA enables GBL_EN at start-up and reads it back
 *    (drivers/acpi/acpica/evxfevnt.c: acpi_enable_event); a bit that does
 *    not stick prints "Could not enable GlobalLock event".
 *  - PM1a_CNT (16 bits at ACPI_PM1A_CNT_PORT): keeps what is written and
 *    reads it back with ACPI_PM1_CNT_SCI_EN set (SMI_CMD is 0, so the
 *    platform is always in ACPI mode: ACPI 6.4, 4.8.3.2, SCI_EN). A write for
 *    which acpi_pm1_cnt_is_poweroff() is true is the guest's power-off.
 *  - ACPI_RESET_PORT: a byte write of ACPI_RESET_VALUE is the guest's
 *    reboot (drivers/acpi/acpica/hwxface.c: acpi_reset).
 *  - The SCI is ISA IRQ ACPI_SCI_IRQ: on the 8259 pair, and on the I/O
 *    APIC's GSI 9, level-triggered and active high (the MADT's override);
 *    it is never raised.
 * The guest's e820 map must report the table range as ACPI (or reserved)
 * memory, never as RAM (ACPI 6.4, 5.2.10: the FACS must not be RAM).
 */
#ifndef GUEST_ACPI_TABLES_H
#define GUEST_ACPI_TABLES_H

#include "guest/devices/acpi_sleep.h"   /* ACPI_S5_SLP_TYP */
#include "lib/types.h"

/*
 * Fixed hardware I/O ports (FADT, ACPI 6.4, 4.8.3). 0x600 is also where
 * QEMU's ICH9 model puts its PM block, so nothing else probes there.
 */
#define ACPI_PM1A_EVT_PORT      0x600
#define ACPI_PM1A_EVT_LEN       4       /* PM1a_STS, then PM1a_EN */
#define ACPI_PM1A_STS_PORT      ACPI_PM1A_EVT_PORT
#define ACPI_PM1A_EN_PORT       (ACPI_PM1A_EVT_PORT + ACPI_PM1A_EVT_LEN / 2)
#define ACPI_PM1A_CNT_PORT      0x604
#define ACPI_PM1A_CNT_LEN       2

/* FADT RESET_REG and RESET_VALUE (ACPI 6.4, 4.8.3, "Reset Register"). */
#define ACPI_RESET_PORT         0xcf9
#define ACPI_RESET_VALUE        0x06

/* FADT SCI_INT: an ISA IRQ (the MADT puts it on GSI 9 too). */
#define ACPI_SCI_IRQ            9

/* PM1 control register bits (ACPI 6.4, 4.8.3.2, "PM1 Control Grouping"). */
#define ACPI_PM1_CNT_SCI_EN     0x0001
#define ACPI_PM1_CNT_SLP_TYP_SHIFT 10
#define ACPI_PM1_CNT_SLP_TYP_MASK  0x1c00
#define ACPI_PM1_CNT_SLP_EN     0x2000

/*
 * APIC IDs are 0..N-1 in Processor Local APIC entries, whose 8-bit ID
 * reserves 0xFF; without interrupt remapping Linux brings up no CPU whose
 * APIC ID is above 255 anyway, unless KVM_FEATURE_MSI_EXT_DEST_ID is
 * offered (arch/x86/kernel/apic/apic.c: try_to_enable_x2apic).
 */
#define ACPI_MAX_VCPUS          255

/* Enough for ACPI_MAX_VCPUS at any buf_gpa alignment. */
#define ACPI_TABLES_MAX_SIZE    4096

struct acpi_build_result {
	uint64_t rsdp_gpa;      /* for boot_params.acpi_rsdp_addr */
	size_t length;          /* bytes of buf used, from buf[0] */
};

/*
 * Writes the tables into buf, which the caller copies to guest-physical
 * buf_gpa: every address inside is buf_gpa-relative. The FACS is 64-byte
 * aligned and each table 16-byte aligned in guest-physical terms, so buf_gpa
 * needs no particular alignment. Returns 0 and fills out; -1 when nvcpus is
 * 0 or above ACPI_MAX_VCPUS or the tables would not lie below 4 GiB (the
 * FADT's 32-bit DSDT and register fields); -2 when buf_size is too small.
 * On error neither buf nor out is written.
 */
int acpi_build_tables(uint8_t *buf, uint64_t buf_gpa, size_t buf_size,
		      unsigned nvcpus, struct acpi_build_result *out);

/*
 * True when value, written to PM1a_CNT, puts the machine into S5: SLP_EN
 * set and SLP_TYP == ACPI_S5_SLP_TYP (ACPI 6.4, 16.1, "Sleeping States").
 * Linux first writes SLP_TYP alone, then SLP_TYP|SLP_EN: only the second
 * one is true.
 */
bool acpi_pm1_cnt_is_poweroff(uint16_t value);

#endif
