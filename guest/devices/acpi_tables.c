// SPDX-License-Identifier: BSD-2-Clause
/*
 * The guest's ACPI tables. Layouts follow ACPI 6.4, 5.2 (section numbers
 * below are that spec's); what Linux 6.1 checks while reading them is in
 * drivers/acpi/acpica/tbfadt.c (acpi_tb_convert_fadt,
 * acpi_tb_setup_fadt_registers), tbutils.c (acpi_tb_parse_root_table) and
 * arch/x86/kernel/acpi/boot.c (acpi_parse_fadt, acpi_process_madt).
 *
 * Choices, and why:
 *  - No PM timer. ACPI 5.0A made it optional, and ACPICA accepts a zero
 *    PM_TMR_BLK with a zero PM_TMR_LEN ("PmTimerBlock" is only
 *    ACPI_FADT_SEPARATE_LENGTH in tbfadt.c). Linux keeps time with kvmclock
 *    and the TSC (../shared/APF-PROTOCOL.md, 8) and never registers the
 *    acpi_pm clocksource, whose start-up check would need a PIT
 *    (drivers/clocksource/acpi_pm.c: verify_pmtmr_rate).
 *  - Processor Local APIC entries (type 0), not Local x2APIC ones (type 9):
 *    5.2.12.12 asks for type 0 below APIC ID 255, QEMU does the same, and
 *    Linux registers them in either APIC mode (boot.c: acpi_parse_lapic),
 *    while type 9 entries also pass apic->apic_id_valid() (acpi_parse_x2apic).
 *  - One Local APIC NMI entry (type 4): LINT1 of every processor is NMI, the
 *    PC-AT wiring; Linux only prints it (acpi_parse_lapic_nmi).
 *  - One I/O APIC entry (type 1: ID 0, 0xFEC00000, GSI base 0) and the
 *    Interrupt Source Overrides (type 2) QEMU's PC lists
 *    (hw/i386/acpi-common.c: acpi_build_madt): ISA IRQ 0 on GSI 2, and
 *    the SCI, IRQ 9, level-triggered and active high. QEMU also lists
 *    IRQs 5, 10 and 11 level-triggered, for its PCI interrupt links. Here
 *    only IRQ 11 is a PCI line (PCI_BALLOON_GSI, guest/devices/
 *    pci_layout.h), reached from the DSDT's _PRT without a link device;
 *    Linux registers such a GSI level-triggered and active low
 *    (drivers/acpi/pci_irq.c: acpi_pci_irq_enable), so its override says
 *    the same: otherwise the pin starts as an ISA one, edge and active
 *    high, and only its first user may change that
 *    (arch/x86/kernel/apic/io_apic.c: mp_check_pin_attr). IRQs 5 and 10
 *    stay ISA ones, edge and active high. A kernel booted with "noapic"
 *    ignores the I/O APIC and keeps APIC_VIRTUAL_WIRE
 *    (arch/x86/kernel/apic/apic.c: __apic_intr_mode_select): ISA IRQs come
 *    from the 8259s through LINT0. The MADT flag PCAT_COMPAT says the
 *    8259s are there.
 *  - FADT flag FORCE_APIC_PHYSICAL_DESTINATION_MODE: Linux then sends IPIs
 *    in physical destination mode, xAPIC or x2APIC
 *    (apic/apic_flat_64.c: physflat_acpi_madt_oem_check,
 *    apic/x2apic_phys.c: x2apic_fadt_phys), so a destination is an APIC ID.
 */
#include "guest/devices/acpi_tables.h"
#include "guest/devices/dsdt_aml.h"
#include "guest/devices/pci_layout.h"
#include "lib/string.h"

#define OEM_ID                  "APFVSR"
#define OEM_TABLE_ID            "APFVISOR"
#define OEM_REVISION            1
#define CREATOR_ID              "APFV"
#define CREATOR_REVISION        1
#define HYPERVISOR_VENDOR_ID    "APFVISOR"      /* FADT, since ACPI 6.0 */

/* Revisions of ACPI 6.4, the version ACPICA in Linux 6.1 implements. */
#define RSDP_REVISION           2
#define XSDT_REVISION           1
#define FADT_REVISION           6
#define FADT_MINOR_VERSION      4
#define FACS_VERSION            2
#define DSDT_REVISION           2       /* 2+: 64-bit AML integers */
#define MADT_REVISION           5

/* System Description Table Header (5.2.6). */
struct sdt_header {
	char signature[4];
	uint32_t length;                /* of the whole table */
	uint8_t revision;
	uint8_t checksum;               /* the whole table sums to 0 */
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	char creator_id[4];
	uint32_t creator_revision;
} PACKED;

/* Root System Description Pointer (5.2.5.3). */
struct rsdp {
	char signature[8];              /* "RSD PTR " */
	uint8_t checksum;               /* the ACPI 1.0 part sums to 0 */
	char oem_id[6];
	uint8_t revision;
	uint32_t rsdt_address;
	uint32_t length;
	uint64_t xsdt_address;
	uint8_t extended_checksum;      /* the whole structure sums to 0 */
	uint8_t reserved[3];
} PACKED;

#define RSDP_V1_LENGTH 20               /* the part ACPI 1.0 defined */

/* XSDT (5.2.8): 64-bit addresses of the tables not reached otherwise. */
#define XSDT_ENTRIES 2                  /* FADT, MADT */
#define XSDT_LENGTH (sizeof(struct sdt_header) + XSDT_ENTRIES * 8)

/* Generic Address Structure (5.2.3.2). */
struct gas {
	uint8_t space_id;
	uint8_t bit_width;
	uint8_t bit_offset;
	uint8_t access_size;
	uint64_t address;
} PACKED;

#define GAS_SYSTEM_IO           1
#define GAS_ACCESS_BYTE         1
#define GAS_ACCESS_WORD         2

/* Fixed ACPI Description Table, revision 6 (5.2.9). */
struct fadt {
	struct sdt_header hdr;
	uint32_t firmware_ctrl;
	uint32_t dsdt;
	uint8_t reserved0;
	uint8_t preferred_pm_profile;
	uint16_t sci_int;
	uint32_t smi_cmd;
	uint8_t acpi_enable, acpi_disable, s4bios_req, pstate_cnt;
	uint32_t pm1a_evt_blk, pm1b_evt_blk, pm1a_cnt_blk, pm1b_cnt_blk;
	uint32_t pm2_cnt_blk, pm_tmr_blk, gpe0_blk, gpe1_blk;
	uint8_t pm1_evt_len, pm1_cnt_len, pm2_cnt_len, pm_tmr_len;
	uint8_t gpe0_blk_len, gpe1_blk_len, gpe1_base, cst_cnt;
	uint16_t p_lvl2_lat, p_lvl3_lat, flush_size, flush_stride;
	uint8_t duty_offset, duty_width, day_alrm, mon_alrm, century;
	uint16_t iapc_boot_arch;
	uint8_t reserved1;
	uint32_t flags;
	struct gas reset_reg;
	uint8_t reset_value;
	uint16_t arm_boot_arch;
	uint8_t minor_version;
	uint64_t x_firmware_ctrl;
	uint64_t x_dsdt;
	struct gas x_pm1a_evt_blk, x_pm1b_evt_blk;
	struct gas x_pm1a_cnt_blk, x_pm1b_cnt_blk;
	struct gas x_pm2_cnt_blk, x_pm_tmr_blk;
	struct gas x_gpe0_blk, x_gpe1_blk;
	struct gas sleep_control_reg, sleep_status_reg;
	char hypervisor_vendor_id[8];
} PACKED;

/* FADT Flags (5.2.9, fixed feature flags). */
#define FADT_WBINVD             BIT(0)
#define FADT_PROC_C1            BIT(2)
#define FADT_PWR_BUTTON         BIT(4)  /* no fixed-feature power button */
#define FADT_SLP_BUTTON         BIT(5)  /* no fixed-feature sleep button */
#define FADT_FIX_RTC            BIT(6)  /* no RTC wake status in PM1 */
#define FADT_RESET_REG_SUP      BIT(10)
#define FADT_HEADLESS           BIT(12)
#define FADT_APIC_PHYSICAL      BIT(19)

/*
 * IA-PC Boot Architecture Flags (5.2.9.3). Without the 8042 bit Linux
 * skips the i8042 probe; with CMOS_RTC_NOT_PRESENT it registers no
 * rtc_cmos device (boot.c: acpi_parse_fadt).
 */
#define BOOT_LEGACY_DEVICES     BIT(0)  /* the 16550 and the 8259s */
#define BOOT_VGA_NOT_PRESENT    BIT(2)
#define BOOT_MSI_NOT_SUPPORTED  BIT(3)
#define BOOT_CMOS_RTC_NOT_PRESENT BIT(5)

/* Latencies above 100 and 1000 us say "no C2", "no C3" (5.2.9). */
#define NO_C2_LATENCY           101
#define NO_C3_LATENCY           1001

/* Firmware ACPI Control Structure (5.2.10). */
struct facs {
	char signature[4];
	uint32_t length;
	uint32_t hardware_signature;
	uint32_t firmware_waking_vector;
	uint32_t global_lock;
	uint32_t flags;
	uint64_t x_firmware_waking_vector;
	uint8_t version;
	uint8_t reserved0[3];
	uint32_t ospm_flags;
	uint8_t reserved1[24];
} PACKED;

#define FACS_ALIGN              64      /* 5.2.10 */

/* Multiple APIC Description Table (5.2.12) and four of its entries. */
struct madt {
	struct sdt_header hdr;
	uint32_t lapic_address;
	uint32_t flags;
} PACKED;

struct madt_lapic {                     /* 5.2.12.2 */
	uint8_t type, length, uid, apic_id;
	uint32_t flags;
} PACKED;

struct madt_ioapic {                    /* 5.2.12.3 */
	uint8_t type, length, ioapic_id, reserved;
	uint32_t address;
	uint32_t gsi_base;
} PACKED;

struct madt_override {                  /* 5.2.12.5 */
	uint8_t type, length, bus, source;
	uint32_t gsi;
	uint16_t inti_flags;
} PACKED;

#define MADT_OVERRIDES 3

struct madt_lapic_nmi {                 /* 5.2.12.7 */
	uint8_t type, length, uid;
	uint16_t inti_flags;
	uint8_t lint;
} PACKED;

#define MADT_LAPIC_ADDRESS      0xfee00000u
#define MADT_PCAT_COMPAT        BIT(0)
#define MADT_TYPE_LAPIC         0
#define MADT_TYPE_LAPIC_NMI     4
#define MADT_LAPIC_ENABLED      BIT(0)
#define MADT_ALL_PROCESSORS     0xff
#define MADT_INTI_HIGH_EDGE     0x0005  /* polarity 01, trigger mode 01 */
#define MADT_LINT1              1
#define MADT_TYPE_IOAPIC        1
#define MADT_TYPE_OVERRIDE      2
#define MADT_IOAPIC_ID          0       /* QEMU's ACPI_BUILD_IOAPIC_ID */
#define MADT_IOAPIC_ADDRESS     0xfec00000u
#define MADT_ISA_BUS            0
#define MADT_INTI_CONFORMS      0x0000  /* as the bus says: ISA, edge high */
#define MADT_INTI_HIGH_LEVEL    0x000d  /* polarity 01, trigger mode 11 */
#define MADT_INTI_LOW_LEVEL     0x000f  /* polarity 11, trigger mode 11 */
#define MADT_TIMER_IRQ          0
#define MADT_TIMER_GSI          2

_Static_assert(sizeof(struct sdt_header) == 36, "ACPI header");
_Static_assert(sizeof(struct rsdp) == 36, "RSDP");
_Static_assert(sizeof(struct gas) == 12, "GAS");
_Static_assert(offsetof(struct fadt, iapc_boot_arch) == 109, "FADT");
_Static_assert(offsetof(struct fadt, reset_reg) == 116, "FADT");
_Static_assert(offsetof(struct fadt, minor_version) == 131, "FADT");
_Static_assert(offsetof(struct fadt, x_pm1a_evt_blk) == 148, "FADT");
_Static_assert(offsetof(struct fadt, hypervisor_vendor_id) == 268, "FADT");
_Static_assert(sizeof(struct fadt) == 276, "FADT revision 6");
_Static_assert(sizeof(struct facs) == 64, "FACS");
_Static_assert(sizeof(struct madt) == 44, "MADT");
_Static_assert(sizeof(struct madt_lapic) == 8, "MADT type 0");
_Static_assert(sizeof(struct madt_lapic_nmi) == 6, "MADT type 4");
_Static_assert(sizeof(struct madt_ioapic) == 12, "MADT type 1");
_Static_assert(sizeof(struct madt_override) == 10, "MADT type 2");
_Static_assert(ACPI_S5_SLP_TYP > 0 && ACPI_S5_SLP_TYP <= 7,
	       "SLP_TYP is 3 bits, and 0 is no sleep state");
_Static_assert(PCI_BALLOON_GSI < 16, "an ISA IRQ: the MADT overrides it");
_Static_assert(PCI_WINDOW32_LIMIT - PCI_WINDOW32_BASE + 1 ==
	       PCI_WINDOW32_SIZE, "the DSDT's 32-bit PCI window");

/*
 * The DSDT: the header written here like every other table's, then the
 * AML iasl compiled from guest/devices/dsdt.asl (20.2), which is
 * dsdt_aml past iasl's own header. Its length is therefore iasl's.
 */
#define DSDT_LENGTH dsdt_aml_size

#define MADT_LENGTH(nvcpus)                                               \
	(sizeof(struct madt) + (nvcpus) * sizeof(struct madt_lapic) +      \
	 sizeof(struct madt_ioapic) +                                      \
	 MADT_OVERRIDES * sizeof(struct madt_override) +                   \
	 sizeof(struct madt_lapic_nmi))

/* Each table at its worst alignment: the padding before it is below it. */
_Static_assert(sizeof(struct rsdp) + 15 + XSDT_LENGTH + 15 +
	       sizeof(struct fadt) + FACS_ALIGN - 1 + sizeof(struct facs) +
	       15 + DSDT_AML_MAX_SIZE + 15 + MADT_LENGTH(ACPI_MAX_VCPUS) <=
	       ACPI_TABLES_MAX_SIZE, "ACPI_TABLES_MAX_SIZE");

/* Where each table goes: byte offsets into buf. */
struct layout {
	size_t rsdp, xsdt, fadt, facs, dsdt, madt, end;
};

/* Puts len bytes at the next multiple of align in guest-physical terms. */
static size_t place(size_t *cursor, uint64_t gpa, size_t len, uint64_t align)
{
	size_t off = (size_t)(ALIGN_UP(gpa + *cursor, align) - gpa);

	*cursor = off + len;
	return off;
}

static void plan(struct layout *l, uint64_t gpa, unsigned nvcpus)
{
	size_t cursor = 0;

	l->rsdp = place(&cursor, gpa, sizeof(struct rsdp), 16);
	l->xsdt = place(&cursor, gpa, XSDT_LENGTH, 16);
	l->fadt = place(&cursor, gpa, sizeof(struct fadt), 16);
	l->facs = place(&cursor, gpa, sizeof(struct facs), FACS_ALIGN);
	l->dsdt = place(&cursor, gpa, DSDT_LENGTH, 16);
	l->madt = place(&cursor, gpa, MADT_LENGTH(nvcpus), 16);
	l->end = cursor;
}

static uint8_t byte_sum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += b[i];
	return sum;
}

static void header(struct sdt_header *h, const char sig[4], size_t length,
		   uint8_t revision)
{
	memcpy(h->signature, sig, sizeof(h->signature));
	h->length = (uint32_t)length;
	h->revision = revision;
	memcpy(h->oem_id, OEM_ID, sizeof(h->oem_id));
	memcpy(h->oem_table_id, OEM_TABLE_ID, sizeof(h->oem_table_id));
	h->oem_revision = OEM_REVISION;
	memcpy(h->creator_id, CREATOR_ID, sizeof(h->creator_id));
	h->creator_revision = CREATOR_REVISION;
}

/* Called last: the checksum covers every byte of the table. */
static void seal(struct sdt_header *h)
{
	h->checksum = 0;
	h->checksum = (uint8_t)-byte_sum(h, h->length);
}

/*
 * Revision 2 with no RSDT: OSes that know the XSDT must use it (5.2.5.3),
 * and the 32-bit-only RSDT would serve only ACPI 1.0 OSes.
 */
static void write_rsdp(struct rsdp *r, uint64_t xsdt_gpa)
{
	memcpy(r->signature, "RSD PTR ", sizeof(r->signature));
	memcpy(r->oem_id, OEM_ID, sizeof(r->oem_id));
	r->revision = RSDP_REVISION;
	r->length = sizeof(*r);
	r->xsdt_address = xsdt_gpa;
	r->checksum = (uint8_t)-byte_sum(r, RSDP_V1_LENGTH);
	r->extended_checksum = (uint8_t)-byte_sum(r, sizeof(*r));
}

/* The FADT comes first, the way firmware lists it (and ACPI 1.0 asked). */
static void write_xsdt(uint8_t *p, uint64_t fadt_gpa, uint64_t madt_gpa)
{
	struct sdt_header *h = (struct sdt_header *)p;

	header(h, "XSDT", XSDT_LENGTH, XSDT_REVISION);
	memcpy(p + sizeof(*h), &fadt_gpa, 8);
	memcpy(p + sizeof(*h) + 8, &madt_gpa, 8);
	seal(h);
}

static struct gas io_register(uint16_t port, unsigned bytes, uint8_t access)
{
	struct gas g = {
		.space_id = GAS_SYSTEM_IO,
		.bit_width = (uint8_t)(bytes * 8),
		.access_size = access,
		.address = port,
	};

	return g;
}

/*
 * Each register block is given twice, as a port with a length and as an X_
 * GAS, in agreement: ACPICA warns about a 32/64X address or length mismatch
 * and about widths other than 32 bits for PM1 event blocks and 16 for PM1
 * control blocks (acpi_tb_convert_fadt, acpi_tb_setup_fadt_registers).
 * Blocks we lack (PM1b, PM2, PM timer, GPE0/1) are 0 in both forms.
 */
static void fadt_registers(struct fadt *f)
{
	f->sci_int = ACPI_SCI_IRQ;
	f->pm1a_evt_blk = ACPI_PM1A_EVT_PORT;
	f->pm1_evt_len = ACPI_PM1A_EVT_LEN;
	f->x_pm1a_evt_blk = io_register(ACPI_PM1A_EVT_PORT, ACPI_PM1A_EVT_LEN,
					GAS_ACCESS_WORD);
	f->pm1a_cnt_blk = ACPI_PM1A_CNT_PORT;
	f->pm1_cnt_len = ACPI_PM1A_CNT_LEN;
	f->x_pm1a_cnt_blk = io_register(ACPI_PM1A_CNT_PORT, ACPI_PM1A_CNT_LEN,
					GAS_ACCESS_WORD);
	/* An I/O reset register: 8 bits at bit offset 0 (4.8.3). */
	f->reset_reg = io_register(ACPI_RESET_PORT, 1, GAS_ACCESS_BYTE);
	f->reset_value = ACPI_RESET_VALUE;
}

/*
 * SMI_CMD, ACPI_ENABLE and ACPI_DISABLE stay 0: there is no legacy mode to
 * leave (5.2.9). PM profile 0 is "unspecified".
 */
static void fadt_features(struct fadt *f)
{
	f->p_lvl2_lat = NO_C2_LATENCY;
	f->p_lvl3_lat = NO_C3_LATENCY;
	f->iapc_boot_arch = BOOT_LEGACY_DEVICES | BOOT_VGA_NOT_PRESENT |
			    BOOT_MSI_NOT_SUPPORTED | BOOT_CMOS_RTC_NOT_PRESENT;
	f->flags = FADT_WBINVD | FADT_PROC_C1 | FADT_PWR_BUTTON |
		   FADT_SLP_BUTTON | FADT_FIX_RTC | FADT_RESET_REG_SUP |
		   FADT_HEADLESS | FADT_APIC_PHYSICAL;
	memcpy(f->hypervisor_vendor_id, HYPERVISOR_VENDOR_ID,
	       sizeof(f->hypervisor_vendor_id));
}

/*
 * The FACS address goes in X_FIRMWARE_CTRL only: ACPI 5.0 to 6.0 allow
 * just one of FIRMWARE_CTRL and X_FIRMWARE_CTRL to be non-zero, and ACPICA
 * takes the X_ field when FIRMWARE_CTRL is 0 (tbutils.c:
 * acpi_tb_initialize_facs). DSDT and X_DSDT may both be set; they are
 * equal, which ACPICA checks (tbfadt.c: acpi_tb_select_address).
 */
static void write_fadt(struct fadt *f, uint64_t facs_gpa, uint64_t dsdt_gpa)
{
	header(&f->hdr, "FACP", sizeof(*f), FADT_REVISION);
	f->minor_version = FADT_MINOR_VERSION;
	f->x_firmware_ctrl = facs_gpa;
	f->dsdt = (uint32_t)dsdt_gpa;
	f->x_dsdt = dsdt_gpa;
	fadt_registers(f);
	fadt_features(f);
	seal(&f->hdr);
}

/* No checksum, no global lock owner, no S4BIOS, no 64-bit waking. */
static void write_facs(struct facs *facs)
{
	memcpy(facs->signature, "FACS", sizeof(facs->signature));
	facs->length = sizeof(*facs);
	facs->version = FACS_VERSION;
}

static void write_dsdt(uint8_t *p)
{
	struct sdt_header *h = (struct sdt_header *)p;

	header(h, "DSDT", DSDT_LENGTH, DSDT_REVISION);
	memcpy(p + sizeof(*h), dsdt_aml + sizeof(*h),
	       DSDT_LENGTH - sizeof(*h));
	seal(h);
}

static void write_madt(uint8_t *p, unsigned nvcpus)
{
	struct madt *m = (struct madt *)p;
	struct madt_lapic *cpu = (struct madt_lapic *)(m + 1);
	struct madt_ioapic *io = (struct madt_ioapic *)(cpu + nvcpus);
	struct madt_override *ovr = (struct madt_override *)(io + 1);
	struct madt_lapic_nmi *nmi =
		(struct madt_lapic_nmi *)(ovr + MADT_OVERRIDES);

	header(&m->hdr, "APIC", MADT_LENGTH(nvcpus), MADT_REVISION);
	m->lapic_address = MADT_LAPIC_ADDRESS;
	m->flags = MADT_PCAT_COMPAT;
	for (unsigned i = 0; i < nvcpus; i++) {
		cpu[i].type = MADT_TYPE_LAPIC;
		cpu[i].length = sizeof(cpu[i]);
		cpu[i].uid = (uint8_t)i;
		cpu[i].apic_id = (uint8_t)i;
		cpu[i].flags = MADT_LAPIC_ENABLED;
	}
	*io = (struct madt_ioapic){
		.type = MADT_TYPE_IOAPIC, .length = sizeof(*io),
		.ioapic_id = MADT_IOAPIC_ID, .address = MADT_IOAPIC_ADDRESS,
	};
	ovr[0] = (struct madt_override){
		.type = MADT_TYPE_OVERRIDE, .length = sizeof(ovr[0]),
		.bus = MADT_ISA_BUS, .source = MADT_TIMER_IRQ,
		.gsi = MADT_TIMER_GSI, .inti_flags = MADT_INTI_CONFORMS,
	};
	ovr[1] = (struct madt_override){
		.type = MADT_TYPE_OVERRIDE, .length = sizeof(ovr[1]),
		.bus = MADT_ISA_BUS, .source = ACPI_SCI_IRQ,
		.gsi = ACPI_SCI_IRQ, .inti_flags = MADT_INTI_HIGH_LEVEL,
	};
	ovr[2] = (struct madt_override){
		.type = MADT_TYPE_OVERRIDE, .length = sizeof(ovr[2]),
		.bus = MADT_ISA_BUS, .source = PCI_BALLOON_GSI,
		.gsi = PCI_BALLOON_GSI, .inti_flags = MADT_INTI_LOW_LEVEL,
	};
	nmi->type = MADT_TYPE_LAPIC_NMI;
	nmi->length = sizeof(*nmi);
	nmi->uid = MADT_ALL_PROCESSORS;
	nmi->inti_flags = MADT_INTI_HIGH_EDGE;
	nmi->lint = MADT_LINT1;
	seal(&m->hdr);
}

int acpi_build_tables(uint8_t *buf, uint64_t buf_gpa, size_t buf_size,
		      unsigned nvcpus, struct acpi_build_result *out)
{
	struct layout l;

	if (nvcpus == 0 || nvcpus > ACPI_MAX_VCPUS || buf_gpa >= GiB(4))
		return -1;
	plan(&l, buf_gpa, nvcpus);
	if (buf_gpa + l.end > GiB(4))
		return -1;
	if (l.end > buf_size)
		return -2;

	memset(buf, 0, l.end);
	write_rsdp((struct rsdp *)(buf + l.rsdp), buf_gpa + l.xsdt);
	write_xsdt(buf + l.xsdt, buf_gpa + l.fadt, buf_gpa + l.madt);
	write_fadt((struct fadt *)(buf + l.fadt), buf_gpa + l.facs,
		   buf_gpa + l.dsdt);
	write_facs((struct facs *)(buf + l.facs));
	write_dsdt(buf + l.dsdt);
	write_madt(buf + l.madt, nvcpus);

	out->rsdp_gpa = buf_gpa + l.rsdp;
	out->length = l.end;
	return 0;
}

bool acpi_pm1_cnt_is_poweroff(uint16_t value)
{
	unsigned slp_typ = (value & ACPI_PM1_CNT_SLP_TYP_MASK) >>
			   ACPI_PM1_CNT_SLP_TYP_SHIFT;

	return (value & ACPI_PM1_CNT_SLP_EN) && slp_typ == ACPI_S5_SLP_TYP;
}
