/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/devices/acpi_tables.c: the guest's ACPI tables, read back at the byte
 * offsets of ACPI 6.4, 5.2 (not through the builder's own structs) and
 * walked with the host-side parser arch/x86/acpi.c. That parser takes
 * physical addresses and dereferences them, so the tables are built into
 * memory mapped below 4 GiB (MAP_32BIT) with buf_gpa equal to the buffer's
 * own address. Size errors are checked on heap buffers of exact length, so
 * that ASan sees any write beyond them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "arch/x86/acpi.h"
#include "guest/devices/acpi_tables.h"
#include "guest/devices/dsdt_aml.h"
#include "guest/devices/pci_layout.h"

#define HDR 36                  /* System Description Table Header */
#define LOW_SIZE (2 * PAGE_SIZE)
#define HV_GPA 0xe0000ull       /* where the hypervisor puts them */

static uint8_t *low;            /* LOW_SIZE bytes below 4 GiB */

static int setup(void **state)
{
	(void)state;
	low = mmap(NULL, LOW_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (low == MAP_FAILED)
		return -1;
	return (uintptr_t)low + LOW_SIZE <= GiB(4) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	munmap(low, LOW_SIZE);
	return 0;
}

static uint8_t rd8(const uint8_t *p, size_t off)
{
	return p[off];
}

static uint16_t rd16(const uint8_t *p, size_t off)
{
	return (uint16_t)(p[off] | p[off + 1] << 8);
}

static uint32_t rd32(const uint8_t *p, size_t off)
{
	return rd16(p, off) | (uint32_t)rd16(p, off + 2) << 16;
}

static uint64_t rd64(const uint8_t *p, size_t off)
{
	return rd32(p, off) | (uint64_t)rd32(p, off + 4) << 32;
}

static uint64_t pa(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static const uint8_t *at(uint64_t gpa)
{
	return (const uint8_t *)(uintptr_t)gpa;
}

/* The tables of one build, found the way an OS finds them. */
struct tables {
	struct acpi_build_result res;
	const uint8_t *rsdp, *xsdt, *fadt, *facs, *dsdt, *madt;
};

static void build_at(struct tables *t, uint8_t *buf, unsigned nvcpus)
{
	memset(low, 0xa5, LOW_SIZE);
	assert_int_equal(acpi_build_tables(buf, pa(buf), LOW_SIZE - (buf - low),
					   nvcpus, &t->res), 0);
	t->rsdp = at(t->res.rsdp_gpa);
	t->xsdt = at(rd64(t->rsdp, 24));
	t->fadt = (const uint8_t *)acpi_find_table(t->res.rsdp_gpa, "FACP");
	t->madt = (const uint8_t *)acpi_find_table(t->res.rsdp_gpa, "APIC");
	assert_non_null(t->fadt);
	assert_non_null(t->madt);
	t->facs = at(rd64(t->fadt, 132));
	t->dsdt = at(rd64(t->fadt, 140));
}

static void build(struct tables *t, unsigned nvcpus)
{
	build_at(t, low, nvcpus);
}

/* [p, p + len) lies inside the bytes the build says it used. */
static void assert_inside(const struct tables *t, const uint8_t *buf,
			  const uint8_t *p, size_t len)
{
	assert_true(p >= buf);
	assert_true(p + len <= buf + t->res.length);
}

static void assert_header(const uint8_t *p, const char sig[4], uint32_t len,
			  uint8_t revision)
{
	assert_memory_equal(p, sig, 4);
	assert_int_equal(rd32(p, 4), len);
	assert_int_equal(rd8(p, 8), revision);
	assert_true(acpi_checksum_ok(p, len));
	assert_memory_equal(p + 10, "APFVSR", 6);
	assert_memory_equal(p + 16, "APFVISOR", 8);
	assert_int_equal(rd32(p, 24), 1);
	assert_memory_equal(p + 28, "APFV", 4);
}

static void test_rsdp(void **state)
{
	struct tables t;

	(void)state;
	build(&t, 2);
	assert_int_equal(t.res.rsdp_gpa, pa(low));
	assert_memory_equal(t.rsdp, "RSD PTR ", 8);
	assert_true(acpi_checksum_ok(t.rsdp, 20));
	assert_true(acpi_checksum_ok(t.rsdp, 36));
	assert_memory_equal(t.rsdp + 9, "APFVSR", 6);
	assert_int_equal(rd8(t.rsdp, 15), 2);
	assert_int_equal(rd32(t.rsdp, 16), 0);          /* no RSDT */
	assert_int_equal(rd32(t.rsdp, 20), 36);
	assert_int_equal(rd64(t.rsdp, 24), pa(t.xsdt));
	assert_int_equal(pa(t.xsdt) % 16, 0);
}

static void test_xsdt(void **state)
{
	struct tables t;

	(void)state;
	build(&t, 2);
	assert_header(t.xsdt, "XSDT", HDR + 16, 1);
	assert_int_equal(rd64(t.xsdt, HDR), pa(t.fadt));
	assert_int_equal(rd64(t.xsdt, HDR + 8), pa(t.madt));
	/* The DSDT and FACS are reached through the FADT only. */
	assert_null(acpi_find_table(t.res.rsdp_gpa, "DSDT"));
	assert_null(acpi_find_table(t.res.rsdp_gpa, "FACS"));
}

static void check_tables(unsigned nvcpus)
{
	struct tables t;
	const uint8_t *all[6];
	size_t len[6];

	build(&t, nvcpus);
	assert_true(t.res.length <= ACPI_TABLES_MAX_SIZE);
	assert_header(t.xsdt, "XSDT", HDR + 16, 1);
	assert_header(t.fadt, "FACP", 276, 6);
	assert_header(t.dsdt, "DSDT", rd32(dsdt_aml, 4), 2);
	assert_header(t.madt, "APIC", 44 + 8 * nvcpus + 12 + 3 * 10 + 6, 5);
	all[0] = t.rsdp, len[0] = 36;
	all[1] = t.xsdt, len[1] = rd32(t.xsdt, 4);
	all[2] = t.fadt, len[2] = rd32(t.fadt, 4);
	all[3] = t.facs, len[3] = rd32(t.facs, 4);
	all[4] = t.dsdt, len[4] = rd32(t.dsdt, 4);
	all[5] = t.madt, len[5] = rd32(t.madt, 4);
	for (unsigned i = 0; i < 6; i++) {
		assert_inside(&t, low, all[i], len[i]);
		assert_int_equal(pa(all[i]) % 16, 0);
		for (unsigned j = 0; j < i; j++)
			assert_true(all[j] + len[j] <= all[i] ||
				    all[i] + len[i] <= all[j]);
	}
	/* Nothing beyond the reported length was written. */
	assert_int_equal(low[t.res.length], 0xa5);
}

static void test_every_table(void **state)
{
	static const unsigned counts[] = { 1, 2, 3, 8, 64, 254, 255 };

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(counts); i++)
		check_tables(counts[i]);
}

static void check_madt(unsigned nvcpus)
{
	struct tables t;
	uint32_t ids[ACPI_MAX_VCPUS + 1];
	const uint8_t *e, *nmi;

	build(&t, nvcpus);
	assert_int_equal(acpi_madt_cpus((const void *)t.madt, ids,
					ARRAY_SIZE(ids)), nvcpus);
	for (unsigned i = 0; i < nvcpus; i++)
		assert_int_equal(ids[i], i);
	assert_int_equal(rd32(t.madt, 36), 0xfee00000);
	assert_int_equal(rd32(t.madt, 40), 1);          /* PCAT_COMPAT */
	for (unsigned i = 0; i < nvcpus; i++) {
		e = t.madt + 44 + 8 * i;
		assert_int_equal(rd8(e, 0), 0);         /* Local APIC */
		assert_int_equal(rd8(e, 1), 8);
		assert_int_equal(rd8(e, 2), i);         /* ACPI Processor UID */
		assert_int_equal(rd8(e, 3), i);         /* APIC ID */
		assert_int_equal(rd32(e, 4), 1);        /* enabled */
	}
	e = t.madt + 44 + 8 * nvcpus;                   /* I/O APIC */
	assert_int_equal(rd8(e, 0), 1);
	assert_int_equal(rd8(e, 1), 12);
	assert_int_equal(rd8(e, 2), 0);                 /* ID, as QEMU's */
	assert_int_equal(rd32(e, 4), 0xfec00000);
	assert_int_equal(rd32(e, 8), 0);                /* GSI base */
	e += 12;                /* Interrupt Source Overrides, as QEMU's */
	assert_int_equal(rd8(e, 0), 2);
	assert_int_equal(rd8(e, 1), 10);
	assert_int_equal(rd8(e, 2), 0);                 /* ISA */
	assert_int_equal(rd8(e, 3), 0);                 /* IRQ 0 */
	assert_int_equal(rd32(e, 4), 2);                /* on GSI 2 */
	assert_int_equal(rd16(e, 8), 0);                /* conforms */
	e += 10;
	assert_int_equal(rd8(e, 0), 2);
	assert_int_equal(rd8(e, 3), 9);                 /* the SCI */
	assert_int_equal(rd32(e, 4), 9);
	assert_int_equal(rd16(e, 8), 0x000d);           /* level, high */
	e += 10;                /* the PCI line of the DSDT's _PRT */
	assert_int_equal(rd8(e, 0), 2);
	assert_int_equal(rd8(e, 2), 0);
	assert_int_equal(rd8(e, 3), 11);
	assert_int_equal(rd32(e, 4), 11);
	assert_int_equal(rd16(e, 8), 0x000f);           /* level, low */
	nmi = e + 10;                                   /* Local APIC NMI */
	assert_int_equal(rd8(nmi, 0), 4);
	assert_int_equal(rd8(nmi, 1), 6);
	assert_int_equal(rd8(nmi, 2), 0xff);            /* all processors */
	assert_int_equal(rd16(nmi, 3), 0x0005);         /* active high, edge */
	assert_int_equal(rd8(nmi, 5), 1);               /* LINT1 */
	assert_ptr_equal(nmi + 6, t.madt + rd32(t.madt, 4));
}

static void test_madt(void **state)
{
	static const unsigned counts[] = { 1, 2, 4, 255 };

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(counts); i++)
		check_madt(counts[i]);
}

/* A System I/O Generic Address Structure (5.2.3.2) at off. */
static void assert_io_gas(const uint8_t *p, size_t off, uint8_t bits,
			  uint8_t access, uint64_t port)
{
	assert_int_equal(rd8(p, off), 1);
	assert_int_equal(rd8(p, off + 1), bits);
	assert_int_equal(rd8(p, off + 2), 0);
	assert_int_equal(rd8(p, off + 3), access);
	assert_int_equal(rd64(p, off + 4), port);
}

static void assert_zero(const uint8_t *p, size_t off, size_t len)
{
	for (size_t i = 0; i < len; i++)
		assert_int_equal(p[off + i], 0);
}

static void test_fadt_fields(void **state)
{
	struct tables t;
	const uint8_t *f;

	(void)state;
	build(&t, 4);
	f = t.fadt;
	assert_int_equal(rd8(f, 131), 4);               /* minor version */
	assert_int_equal(rd32(f, 36), 0);               /* FIRMWARE_CTRL */
	assert_int_equal(rd64(f, 132), pa(t.facs));     /* X_FIRMWARE_CTRL */
	assert_int_equal(rd32(f, 40), pa(t.dsdt));      /* DSDT */
	assert_int_equal(rd64(f, 140), pa(t.dsdt));     /* X_DSDT */
	assert_int_equal(rd8(f, 45), 0);                /* PM profile */
	assert_int_equal(rd16(f, 46), 9);               /* SCI_INT */
	assert_zero(f, 48, 8);          /* SMI_CMD .. PSTATE_CNT */
	assert_int_equal(rd32(f, 56), 0x600);           /* PM1a_EVT_BLK */
	assert_int_equal(rd32(f, 64), 0x604);           /* PM1a_CNT_BLK */
	assert_zero(f, 60, 4);          /* PM1b_EVT_BLK */
	assert_zero(f, 68, 20);         /* PM1b_CNT .. GPE1_BLK */
	assert_int_equal(rd8(f, 88), 4);                /* PM1_EVT_LEN */
	assert_int_equal(rd8(f, 89), 2);                /* PM1_CNT_LEN */
	assert_zero(f, 90, 6);          /* PM2_CNT_LEN .. CST_CNT */
	assert_int_equal(rd16(f, 96), 101);             /* no C2 */
	assert_int_equal(rd16(f, 98), 1001);            /* no C3 */
	assert_zero(f, 100, 9);         /* FLUSH_SIZE .. CENTURY */
	/* Legacy devices, no VGA, no MSI, no CMOS RTC; no 8042. */
	assert_int_equal(rd16(f, 109), 0x002d);
	/*
	 * WBINVD, PROC_C1, PWR_BUTTON, SLP_BUTTON, FIX_RTC, RESET_REG_SUP,
	 * HEADLESS, FORCE_APIC_PHYSICAL_DESTINATION_MODE; not HW_REDUCED.
	 */
	assert_int_equal(rd32(f, 112), 0x00081475);
	assert_io_gas(f, 116, 8, 1, 0xcf9);             /* RESET_REG */
	assert_int_equal(rd8(f, 128), 0x06);            /* RESET_VALUE */
	assert_int_equal(rd16(f, 129), 0);              /* ARM_BOOT_ARCH */
	assert_io_gas(f, 148, 32, 2, 0x600);            /* X_PM1a_EVT_BLK */
	assert_zero(f, 160, 12);                        /* X_PM1b_EVT_BLK */
	assert_io_gas(f, 172, 16, 2, 0x604);            /* X_PM1a_CNT_BLK */
	assert_zero(f, 184, 84);        /* X_PM1b_CNT .. SLEEP_STATUS_REG */
	assert_memory_equal(f + 268, "APFVISOR", 8);    /* hypervisor vendor */
}

/* How ACPICA treats a FADT register block (its fadt_info_table). */
enum block_kind {
	REQUIRED,               /* address and length must be non-zero */
	OPTIONAL,               /* shares its length field with block a */
	SEPARATE_LENGTH,        /* address and length both zero or not */
};

/* A FADT register block: 32-bit address, its length, its X_ GAS. */
struct fadt_block {
	size_t addr32, len, gas;
	uint8_t default_bits;   /* 0: no default width (GPE blocks) */
	enum block_kind kind;
};

/*
 * ACPICA's checks of the same blocks, which print "ACPI BIOS Warning" or
 * "ACPI BIOS Error" in Linux when they fail (drivers/acpi/acpica/tbfadt.c:
 * acpi_tb_convert_fadt and acpi_tb_setup_fadt_registers).
 */
static void test_fadt_passes_acpica_checks(void **state)
{
	static const struct fadt_block blocks[] = {
		{ 56, 88, 148, 32, REQUIRED },          /* PM1a_EVT */
		{ 60, 88, 160, 32, OPTIONAL },          /* PM1b_EVT */
		{ 64, 89, 172, 16, REQUIRED },          /* PM1a_CNT */
		{ 68, 89, 184, 16, OPTIONAL },          /* PM1b_CNT */
		{ 72, 90, 196, 8, SEPARATE_LENGTH },    /* PM2_CNT */
		{ 76, 91, 208, 32, SEPARATE_LENGTH },   /* PM_TMR */
		{ 80, 92, 220, 0, SEPARATE_LENGTH },    /* GPE0 */
		{ 84, 93, 232, 0, SEPARATE_LENGTH },    /* GPE1 */
	};
	struct tables t;

	(void)state;
	build(&t, 1);
	for (unsigned i = 0; i < ARRAY_SIZE(blocks); i++) {
		const struct fadt_block *b = &blocks[i];
		uint32_t a32 = rd32(t.fadt, b->addr32);
		uint8_t len = rd8(t.fadt, b->len);
		uint64_t a64 = rd64(t.fadt, b->gas + 4);
		uint8_t bits = rd8(t.fadt, b->gas + 1);

		if (a32 && a64)
			assert_int_equal(a32, a64);
		if (a64)
			assert_int_equal(bits, len * 8);
		if (a64 && b->default_bits)
			assert_int_equal(bits, b->default_bits);
		if (b->kind == REQUIRED)
			assert_true(a64 && len);
		if (b->kind == SEPARATE_LENGTH)
			assert_int_equal(!!a64, !!len);
	}
}

static void test_facs(void **state)
{
	struct tables t;

	(void)state;
	build(&t, 1);
	assert_int_equal(pa(t.facs) % 64, 0);
	assert_memory_equal(t.facs, "FACS", 4);
	assert_int_equal(rd32(t.facs, 4), 64);
	assert_int_equal(rd8(t.facs, 32), 2);           /* version */
	assert_zero(t.facs, 8, 24);     /* signature, waking vectors, lock */
	assert_zero(t.facs, 33, 31);
}

/* Any buf_gpa alignment: the alignment is kept in guest-physical terms. */
static void test_unaligned_gpa(void **state)
{
	static const unsigned shifts[] = { 1, 4, 8, 15, 16, 33, 63 };

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(shifts); i++) {
		struct tables t;

		build_at(&t, low + shifts[i], 255);
		assert_int_equal(t.res.rsdp_gpa % 16, 0);
		assert_int_equal(pa(t.facs) % 64, 0);
		assert_int_equal(pa(t.xsdt) % 16, 0);
		assert_int_equal(pa(t.madt) % 16, 0);
		assert_inside(&t, low + shifts[i], t.rsdp, 36);
		assert_inside(&t, low + shifts[i], t.madt, rd32(t.madt, 4));
		assert_true(t.res.length <= ACPI_TABLES_MAX_SIZE);
		assert_int_equal(acpi_madt_cpus((const void *)t.madt, NULL, 0),
				 255);
	}
}

/*
 * At 0xE0000, as the hypervisor builds them: every address inside is
 * 0xE0000-based and the bytes are those of a build at another page-aligned
 * address, pointers aside.
 */
static void test_hypervisor_gpa(void **state)
{
	struct acpi_build_result res;
	struct tables t;
	uint8_t *buf = malloc(ACPI_TABLES_MAX_SIZE);
	const uint8_t *fadt;
	uint64_t xsdt;

	(void)state;
	assert_non_null(buf);
	build(&t, 3);
	assert_int_equal(acpi_build_tables(buf, HV_GPA, ACPI_TABLES_MAX_SIZE, 3,
					   &res), 0);
	assert_int_equal(res.rsdp_gpa, HV_GPA);
	assert_int_equal(res.length, t.res.length);
	xsdt = rd64(buf, 24);
	assert_int_equal(xsdt - HV_GPA, pa(t.xsdt) - pa(low));
	assert_true(acpi_checksum_ok(buf + (xsdt - HV_GPA), HDR + 16));
	fadt = buf + (rd64(buf + (xsdt - HV_GPA), HDR) - HV_GPA);
	assert_int_equal(fadt - buf, t.fadt - low);
	assert_true(acpi_checksum_ok(fadt, 276));
	assert_int_equal(rd64(fadt, 132) - HV_GPA, t.facs - low);
	assert_int_equal(rd64(fadt, 140) - HV_GPA, t.dsdt - low);
	assert_int_equal(rd32(fadt, 40), rd64(fadt, 140));
	assert_memory_equal(buf + (t.madt - low), t.madt, rd32(t.madt, 4));
	assert_memory_equal(buf + (t.dsdt - low), t.dsdt, rd32(t.dsdt, 4));
	free(buf);
}

/* Whether needle occurs in the len bytes at p. */
static bool contains(const uint8_t *p, size_t len, const uint8_t *needle,
		     size_t n)
{
	for (size_t i = 0; i + n <= len; i++)
		if (memcmp(p + i, needle, n) == 0)
			return true;
	return false;
}

/*
 * The guest's DSDT is iasl's table under the builder's header: both
 * headers say the same (the DefinitionBlock of guest/devices/dsdt.asl
 * and acpi_tables.c agree), and the AML is iasl's byte for byte.
 */
static void test_dsdt_is_iasls(void **state)
{
	struct tables t;
	uint8_t sum = 0;

	(void)state;
	build(&t, 1);
	assert_int_equal(rd32(dsdt_aml, 4), dsdt_aml_size);
	assert_true(dsdt_aml_size > HDR);
	assert_true(dsdt_aml_size <= DSDT_AML_MAX_SIZE);
	for (size_t i = 0; i < dsdt_aml_size; i++)
		sum += dsdt_aml[i];
	assert_int_equal(sum, 0);                       /* iasl's checksum */
	/* Signature, length, revision; then OEM ID to OEM revision. */
	assert_memory_equal(t.dsdt, dsdt_aml, 9);
	assert_memory_equal(t.dsdt + 10, dsdt_aml + 10, 28 - 10);
	assert_memory_equal(t.dsdt + HDR, dsdt_aml + HDR, dsdt_aml_size - HDR);
}

/*
 * Objects the hypervisor's C relies on, as AML (ACPI 6.4, 20.2) encoded
 * here by hand: Name (_S5, Package () { 5, 5, 0, 0 }), and the _PRT
 * entry Package () { 0x0003FFFF, 0, 0, 11 } (slot 3, INTA#, GSI 11).
 */
static void test_dsdt_objects(void **state)
{
	static const uint8_t s5[] = {
		0x08, '_', 'S', '5', '_',       /* NameOp, NameSeg */
		0x12, 0x08, 0x04,               /* PackageOp, PkgLength, 4 */
		0x0a, 0x05, 0x0a, 0x05,         /* BytePrefix 5, twice */
		0x00, 0x00,                     /* ZeroOp, twice */
	};
	static const uint8_t inta[] = {
		0x12, 0x0b, 0x04,               /* PackageOp, PkgLength, 4 */
		0x0c, 0xff, 0xff, 0x03, 0x00,   /* DWordPrefix 0x0003FFFF */
		0x00, 0x00,                     /* pin 0 (INTA#), source 0 */
		0x0a, 0x0b,                     /* BytePrefix 11 */
	};
	static const uint8_t prt[] = { 0x08, '_', 'P', 'R', 'T' };
	struct tables t;
	uint32_t len;

	(void)state;
	build(&t, 1);
	len = rd32(t.dsdt, 4);
	assert_true(contains(t.dsdt + HDR, len - HDR, s5, sizeof(s5)));
	assert_int_equal(ACPI_S5_SLP_TYP, s5[9]);
	assert_int_equal(ACPI_S5_SLP_TYP, s5[11]);
	assert_true(contains(t.dsdt + HDR, len - HDR, prt, sizeof(prt)));
	assert_true(contains(t.dsdt + HDR, len - HDR, inta, sizeof(inta)));
	assert_int_equal(PCI_BALLOON_SLOT, inta[6]);
	assert_int_equal(PCI_BALLOON_GSI, inta[11]);
}

static void test_poweroff(void **state)
{
	const uint16_t s5 = ACPI_S5_SLP_TYP << 10;

	(void)state;
	/* Linux's write #2, with SCI_EN read back, and without it. */
	assert_true(acpi_pm1_cnt_is_poweroff(s5 | 0x2000 | 0x0001));
	assert_true(acpi_pm1_cnt_is_poweroff(s5 | 0x2000));
	assert_true(acpi_pm1_cnt_is_poweroff(s5 | 0x2000 | 0xc3fe));
	/* Linux's write #1 (SLP_TYP alone), and SLP_EN with SLP_TYP 0. */
	assert_false(acpi_pm1_cnt_is_poweroff(s5 | 0x0001));
	assert_false(acpi_pm1_cnt_is_poweroff(0x2000 | 0x0001));
	for (uint16_t typ = 0; typ < 8; typ++)
		if (typ != ACPI_S5_SLP_TYP)
			assert_false(acpi_pm1_cnt_is_poweroff(typ << 10 |
							      0x2000));
	assert_false(acpi_pm1_cnt_is_poweroff(0));
	assert_false(acpi_pm1_cnt_is_poweroff(0xffff));
	assert_int_equal(ACPI_PM1_CNT_SLP_EN, 0x2000);
	assert_int_equal(ACPI_PM1_CNT_SLP_TYP_MASK, 0x1c00);
	assert_int_equal(ACPI_PM1_CNT_SCI_EN, 0x0001);
}

static void test_bad_arguments(void **state)
{
	struct acpi_build_result res = { 0x1234, 0x5678 };
	uint8_t *buf = malloc(ACPI_TABLES_MAX_SIZE);

	(void)state;
	assert_non_null(buf);
	memset(buf, 0xa5, ACPI_TABLES_MAX_SIZE);
	assert_int_equal(acpi_build_tables(buf, HV_GPA, ACPI_TABLES_MAX_SIZE,
					   0, &res), -1);
	assert_int_equal(acpi_build_tables(buf, HV_GPA, ACPI_TABLES_MAX_SIZE,
					   256, &res), -1);
	assert_int_equal(acpi_build_tables(buf, GiB(4), ACPI_TABLES_MAX_SIZE,
					   1, &res), -1);
	assert_int_equal(acpi_build_tables(buf, GiB(4) - 256,
					   ACPI_TABLES_MAX_SIZE, 1, &res), -1);
	assert_int_equal(acpi_build_tables(buf, ~0ull, ACPI_TABLES_MAX_SIZE,
					   1, &res), -1);
	assert_int_equal(res.rsdp_gpa, 0x1234);
	assert_int_equal(res.length, 0x5678);
	for (size_t i = 0; i < ACPI_TABLES_MAX_SIZE; i++)
		assert_int_equal(buf[i], 0xa5);
	free(buf);
}

/* A build into a heap block of exactly size bytes; ASan guards the end. */
static int build_sized(size_t size, unsigned nvcpus,
		       struct acpi_build_result *res)
{
	uint8_t *buf = malloc(size ? size : 1);
	int rc;

	assert_non_null(buf);
	memset(buf, 0xa5, size);
	rc = acpi_build_tables(buf, HV_GPA, size, nvcpus, res);
	if (rc)
		for (size_t i = 0; i < size; i++)
			assert_int_equal(buf[i], 0xa5);
	free(buf);
	return rc;
}

static void test_buffer_too_small(void **state)
{
	static const unsigned counts[] = { 1, 2, 255 };

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(counts); i++) {
		struct acpi_build_result res = { 0, 0 };
		size_t need;

		assert_int_equal(build_sized(ACPI_TABLES_MAX_SIZE, counts[i],
					     &res), 0);
		need = res.length;
		assert_int_equal(build_sized(need, counts[i], &res), 0);
		assert_int_equal(res.length, need);
		res.length = 7;
		assert_int_equal(build_sized(need - 1, counts[i], &res), -2);
		assert_int_equal(build_sized(36, counts[i], &res), -2);
		assert_int_equal(build_sized(0, counts[i], &res), -2);
		assert_int_equal(res.length, 7);
	}
}

/* Padding is zeroed: the output does not depend on what buf held. */
static void test_deterministic(void **state)
{
	struct acpi_build_result a, b;
	uint8_t *x = malloc(ACPI_TABLES_MAX_SIZE);
	uint8_t *y = malloc(ACPI_TABLES_MAX_SIZE);

	(void)state;
	assert_non_null(x);
	assert_non_null(y);
	memset(x, 0x00, ACPI_TABLES_MAX_SIZE);
	memset(y, 0xff, ACPI_TABLES_MAX_SIZE);
	assert_int_equal(acpi_build_tables(x, HV_GPA + 8, ACPI_TABLES_MAX_SIZE,
					   16, &a), 0);
	assert_int_equal(acpi_build_tables(y, HV_GPA + 8, ACPI_TABLES_MAX_SIZE,
					   16, &b), 0);
	assert_int_equal(a.length, b.length);
	assert_int_equal(a.rsdp_gpa, HV_GPA + 16);
	assert_memory_equal(x, y, a.length);
	free(x);
	free(y);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rsdp),
		cmocka_unit_test(test_xsdt),
		cmocka_unit_test(test_every_table),
		cmocka_unit_test(test_madt),
		cmocka_unit_test(test_fadt_fields),
		cmocka_unit_test(test_fadt_passes_acpica_checks),
		cmocka_unit_test(test_facs),
		cmocka_unit_test(test_unaligned_gpa),
		cmocka_unit_test(test_hypervisor_gpa),
		cmocka_unit_test(test_dsdt_is_iasls),
		cmocka_unit_test(test_dsdt_objects),
		cmocka_unit_test(test_poweroff),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_buffer_too_small),
		cmocka_unit_test(test_deterministic),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
