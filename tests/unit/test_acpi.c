/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arch/x86/acpi.c: checksums, MADT CPU entries (ACPI 6.5, 5.2.12) and the
 * table search through the XSDT or RSDT. Tables are built here, each in a
 * heap block of exactly its length so that ASan sees any read beyond it.
 * acpi_find_table takes physical addresses and the hypervisor runs
 * identity-mapped, so the tests pass pointers; the RSDT holds 32-bit
 * addresses, so its tables live in memory mapped below 4 GiB.
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

#define HDR sizeof(struct acpi_sdt_header)
#define SENTINEL 0xeeeeeeeeu        /* memset(ids, 0xee, ...) */

static void *blocks[16];
static unsigned nblocks;

static int teardown(void **state)
{
	(void)state;
	while (nblocks)
		free(blocks[--nblocks]);
	return 0;
}

static void *block(size_t len)
{
	void *p = calloc(1, len);

	assert_non_null(p);
	assert_true(nblocks < ARRAY_SIZE(blocks));
	blocks[nblocks++] = p;
	return p;
}

static void set_checksum(void *p, size_t len, uint8_t *field)
{
	uint8_t sum = 0;

	*field = 0;
	for (size_t i = 0; i < len; i++)
		sum += ((uint8_t *)p)[i];
	*field = (uint8_t)-sum;
}

/* A table of len bytes at p: header filled in, checksum right. */
static struct acpi_sdt_header *sdt_at(void *p, const char sig[4],
				      uint32_t len, const void *body)
{
	struct acpi_sdt_header *h = p;

	memcpy(h->signature, sig, 4);
	h->length = len;
	h->revision = 1;
	memcpy(h->oem_id, "APFTST", 6);
	memcpy(h->oem_table_id, "UNITTEST", 8);
	if (body)
		memcpy(h + 1, body, len - HDR);
	set_checksum(h, len, &h->checksum);
	return h;
}

static struct acpi_sdt_header *sdt(const char sig[4], uint32_t len,
				   const void *body)
{
	return sdt_at(block(len), sig, len, body);
}

/* ---- MADT ---- */

struct madt {
	uint8_t b[256];
	size_t len;
};

static void madt_begin(struct madt *m)
{
	/* Local APIC address, flags (PCAT_COMPAT). */
	const uint32_t fields[2] = { 0xfee00000, 1 };

	memset(m, 0, sizeof(*m));
	memcpy(m->b + HDR, fields, sizeof(fields));
	m->len = HDR + 8;
}

static void madt_raw(struct madt *m, const void *entry, size_t len)
{
	assert_true(m->len + len <= sizeof(m->b));
	memcpy(m->b + m->len, entry, len);
	m->len += len;
}

static void madt_lapic(struct madt *m, uint8_t uid, uint8_t id, uint32_t flags)
{
	uint8_t e[8] = { 0, 8, uid, id };

	memcpy(e + 4, &flags, 4);
	madt_raw(m, e, sizeof(e));
}

static void madt_x2apic(struct madt *m, uint32_t id, uint32_t flags,
			uint32_t uid)
{
	uint8_t e[16] = { 9, 16 };

	memcpy(e + 4, &id, 4);
	memcpy(e + 8, &flags, 4);
	memcpy(e + 12, &uid, 4);
	madt_raw(m, e, sizeof(e));
}

/* The MADT in a block of its exact length. */
static struct acpi_sdt_header *madt_end(struct madt *m)
{
	return sdt("APIC", (uint32_t)m->len, m->b + HDR);
}

/* ids[0..n) are want[0..n); the last of want is usually SENTINEL. */
static void assert_ids(const uint32_t *ids, const uint32_t *want, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(ids[i], want[i]);
}

static void test_checksum(void **state)
{
	uint8_t b[8] = { 1, 2, 3, 4, 5, 6, 7, 0 };

	(void)state;
	assert_true(acpi_checksum_ok(b, 0));
	assert_false(acpi_checksum_ok(b, 7));
	b[7] = (uint8_t)-28;
	assert_true(acpi_checksum_ok(b, 8));
	b[3]++;
	assert_false(acpi_checksum_ok(b, 8));
	b[4]--;
	assert_true(acpi_checksum_ok(b, 8));
	assert_true(acpi_checksum_ok("\x80\x80", 2));
}

static void test_madt_local_apic(void **state)
{
	struct madt m;
	uint32_t ids[6];

	(void)state;
	madt_begin(&m);
	madt_lapic(&m, 0, 0, 1);        /* enabled */
	madt_lapic(&m, 1, 1, 0);        /* disabled */
	madt_lapic(&m, 2, 4, 2);        /* online capable */
	madt_lapic(&m, 3, 6, 3);        /* both */
	madt_lapic(&m, 4, 7, 0xfffffffc); /* only reserved bits */
	madt_lapic(&m, 5, 0xfe, 1);
	memset(ids, 0xee, sizeof(ids));
	assert_int_equal(acpi_madt_cpus(madt_end(&m), ids, 6), 4);
	assert_ids(ids, (const uint32_t[]){ 0, 4, 6, 0xfe, SENTINEL }, 5);
}

static void test_madt_x2apic(void **state)
{
	struct madt m;
	uint32_t ids[5];

	(void)state;
	madt_begin(&m);
	madt_x2apic(&m, 0x100, 1, 7);
	madt_lapic(&m, 1, 3, 1);
	madt_x2apic(&m, 0x101, 0, 8);
	madt_x2apic(&m, 0x12345678, 2, 9);
	memset(ids, 0xee, sizeof(ids));
	assert_int_equal(acpi_madt_cpus(madt_end(&m), ids, 5), 3);
	assert_ids(ids, (const uint32_t[]){ 0x100, 3, 0x12345678, SENTINEL },
		   4);
}

static void test_madt_other_entries(void **state)
{
	/* Each would read as an enabled CPU if taken for one. */
	const uint8_t ioapic[12] = { 1, 12, 9, 0, 1, 0, 0, 0, 1, 0, 0, 0 };
	const uint8_t iso[10] = { 2, 10, 0, 2, 2, 0, 0, 0, 1, 0 };
	const uint8_t nmi[6] = { 4, 6, 0xff, 1, 0, 1 };
	const uint8_t x2nmi[12] = { 0xa, 12, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0 };
	/* Types 0 and 9 too short for their fields: skipped, not read. */
	const uint8_t short_lapic[6] = { 0, 6, 9, 9, 1, 0 };
	const uint8_t short_x2apic[12] = { 9, 12, 0, 0, 9, 0, 0, 0, 1, 0, 0,
					   0 };
	struct madt m;
	uint32_t ids[4];

	(void)state;
	madt_begin(&m);
	madt_raw(&m, ioapic, sizeof(ioapic));
	madt_lapic(&m, 0, 2, 1);
	madt_raw(&m, iso, sizeof(iso));
	madt_raw(&m, nmi, sizeof(nmi));
	madt_raw(&m, short_lapic, sizeof(short_lapic));
	madt_raw(&m, x2nmi, sizeof(x2nmi));
	madt_raw(&m, short_x2apic, sizeof(short_x2apic));
	madt_x2apic(&m, 0x200, 1, 0);
	memset(ids, 0xee, sizeof(ids));
	assert_int_equal(acpi_madt_cpus(madt_end(&m), ids, 4), 2);
	assert_ids(ids, (const uint32_t[]){ 2, 0x200, SENTINEL }, 3);
}

/* The MADT of m with extra bytes appended, e.g. a cut-off entry. */
static unsigned count_with(struct madt *m, const void *tail, size_t len)
{
	uint32_t ids[4];

	if (len)
		madt_raw(m, tail, len);
	return acpi_madt_cpus(madt_end(m), ids, 4);
}

static void test_madt_truncated(void **state)
{
	const uint8_t lapic[8] = { 0, 8, 1, 1, 1, 0, 0, 0 };
	const uint8_t zero_len[8] = { 0, 0, 1, 1, 1, 0, 0, 0 };
	const uint8_t one_len[8] = { 0, 1, 1, 1, 1, 0, 0, 0 };
	struct madt m;

	(void)state;
	/* An entry running past the table's end: not read. */
	madt_begin(&m);
	madt_lapic(&m, 0, 0, 1);
	assert_int_equal(count_with(&m, lapic, 4), 1);
	madt_begin(&m);
	madt_x2apic(&m, 5, 1, 0);
	assert_int_equal(count_with(&m, (const uint8_t[]){ 9, 16, 0, 0, 6, 0,
			 0, 0, 1, 0, 0, 0 }, 12), 1);
	/* Only the type byte left. */
	madt_begin(&m);
	madt_lapic(&m, 0, 0, 1);
	assert_int_equal(count_with(&m, lapic, 1), 1);
	/* Zero and one byte lengths would never advance: parsing stops. */
	madt_begin(&m);
	madt_lapic(&m, 0, 0, 1);
	madt_raw(&m, zero_len, sizeof(zero_len));
	assert_int_equal(count_with(&m, lapic, sizeof(lapic)), 1);
	madt_begin(&m);
	madt_raw(&m, one_len, sizeof(one_len));
	assert_int_equal(count_with(&m, lapic, sizeof(lapic)), 0);
	/* No entries at all; a bare header without the APIC address. */
	madt_begin(&m);
	assert_int_equal(count_with(&m, NULL, 0), 0);
	assert_int_equal(acpi_madt_cpus(sdt("APIC", HDR, NULL), NULL, 0), 0);
}

static void test_madt_max(void **state)
{
	struct madt m;
	uint32_t ids[3];
	struct acpi_sdt_header *t;

	(void)state;
	madt_begin(&m);
	for (uint8_t i = 0; i < 5; i++)
		madt_lapic(&m, i, (uint8_t)(10 + i), 1);
	t = madt_end(&m);
	memset(ids, 0xee, sizeof(ids));
	assert_int_equal(acpi_madt_cpus(t, ids, 2), 5);
	assert_ids(ids, (const uint32_t[]){ 10, 11, SENTINEL }, 3);
	assert_int_equal(acpi_madt_cpus(t, NULL, 0), 5);
}

/* ---- Finding tables ---- */

static struct acpi_rsdp *rsdp_at(void *p, uint8_t revision, uint32_t rsdt,
				 uint64_t xsdt)
{
	struct acpi_rsdp *r = p;

	memcpy(r->signature, "RSD PTR ", 8);
	memcpy(r->oem_id, "APFTST", 6);
	r->revision = revision;
	r->rsdt_address = rsdt;
	r->length = sizeof(*r);
	r->xsdt_address = xsdt;
	set_checksum(r, 20, &r->checksum);
	set_checksum(r, sizeof(*r), &r->extended_checksum);
	return r;
}

static uint64_t pa(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* An RSDP (revision 2) and XSDT listing the n tables. */
static uint64_t xsdt_rsdp(const struct acpi_sdt_header **tables, unsigned n)
{
	uint64_t entries[8];

	assert_true(n <= ARRAY_SIZE(entries));
	for (unsigned i = 0; i < n; i++)
		entries[i] = pa(tables[i]);
	return pa(rsdp_at(block(sizeof(struct acpi_rsdp)), 2, 0,
			  pa(sdt("XSDT", (uint32_t)(HDR + 8 * n), entries))));
}

static void test_find_xsdt(void **state)
{
	const struct acpi_sdt_header *facp = sdt("FACP", 116, NULL);
	const struct acpi_sdt_header *hpet = sdt("HPET", 56, NULL);
	const struct acpi_sdt_header *madt = sdt("APIC", 44, NULL);
	const struct acpi_sdt_header *t[] = { facp, NULL, hpet, madt };
	uint64_t rsdp = xsdt_rsdp(t, 4);

	(void)state;
	assert_ptr_equal(acpi_find_table(rsdp, "APIC"), madt);
	assert_ptr_equal(acpi_find_table(rsdp, "FACP"), facp);
	assert_ptr_equal(acpi_find_table(rsdp, "HPET"), hpet);
	assert_null(acpi_find_table(rsdp, "SSDT"));
	assert_null(acpi_find_table(rsdp, "APIc"));
}

static void test_find_bad_checksum(void **state)
{
	struct acpi_sdt_header *bad = sdt("APIC", 44, NULL);
	const struct acpi_sdt_header *good = sdt("APIC", 52, NULL);
	const struct acpi_sdt_header *t[] = { bad, good };
	uint64_t rsdp = xsdt_rsdp(t, 2);
	uint64_t only_bad;

	(void)state;
	bad->oem_revision++;
	assert_ptr_equal(acpi_find_table(rsdp, "APIC"), good);
	only_bad = xsdt_rsdp((const struct acpi_sdt_header *[]){ bad }, 1);
	assert_null(acpi_find_table(only_bad, "APIC"));
}

static void test_find_bad_rsdp_and_root(void **state)
{
	const struct acpi_sdt_header *madt = sdt("APIC", 44, NULL);
	struct acpi_rsdp *r = block(sizeof(*r));
	struct acpi_sdt_header *xsdt = block(HDR + 8);
	uint64_t entry = pa(madt);
	const uint32_t short_lengths[] = { HDR + 4, HDR, HDR - 1, 0 };

	(void)state;
	assert_null(acpi_find_table(0, "APIC"));
	sdt_at(xsdt, "XSDT", HDR + 8, &entry);
	rsdp_at(r, 2, 0, pa(xsdt));
	assert_ptr_equal(acpi_find_table(pa(r), "APIC"), madt);
	r->signature[3] = 'p';
	assert_null(acpi_find_table(pa(r), "APIC"));
	r->signature[3] = ' ';
	/*
	 * Shorter than one entry, or than its own header (which once wrapped
	 * to 2^32 - 5 entries): nothing to search, nothing read beyond it.
	 */
	for (unsigned i = 0; i < ARRAY_SIZE(short_lengths); i++) {
		xsdt->length = short_lengths[i];
		assert_null(acpi_find_table(pa(r), "APIC"));
		assert_null(acpi_find_table(pa(r), "SSDT"));
	}
}

static void test_find_rsdt(void **state)
{
	const size_t size = 2 * PAGE_SIZE;
	uint8_t *low = mmap(NULL, size, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	struct acpi_sdt_header *madt, *hpet;
	struct acpi_rsdp *r;
	uint32_t entries[2];

	(void)state;
	assert_true(low != MAP_FAILED);
	assert_true(pa(low + size) <= UINT32_MAX);
	madt = sdt_at(low, "APIC", 44, NULL);
	hpet = sdt_at(low + 64, "HPET", 56, NULL);
	entries[0] = (uint32_t)pa(hpet);
	entries[1] = (uint32_t)pa(madt);
	sdt_at(low + 128, "RSDT", HDR + 8, entries);

	/* Revision 0: RSDT only; xsdt_address is not even there. */
	r = rsdp_at(low + 256, 0, (uint32_t)pa(low + 128), 0);
	assert_ptr_equal(acpi_find_table(pa(r), "APIC"), madt);
	assert_ptr_equal(acpi_find_table(pa(r), "HPET"), hpet);
	assert_null(acpi_find_table(pa(r), "FACP"));
	/* Revision 2 without an XSDT falls back to the RSDT. */
	r = rsdp_at(low + 320, 2, (uint32_t)pa(low + 128), 0);
	assert_ptr_equal(acpi_find_table(pa(r), "APIC"), madt);
	/* A revision 2 RSDP with both prefers the XSDT (empty here). */
	sdt_at(low + 512, "XSDT", HDR, NULL);
	r = rsdp_at(low + 384, 2, (uint32_t)pa(low + 128), pa(low + 512));
	assert_null(acpi_find_table(pa(r), "APIC"));
	/* A bad checksum in an RSDT-listed table hides it. */
	madt->creator_id ^= 1;
	r = rsdp_at(low + 448, 0, (uint32_t)pa(low + 128), 0);
	assert_null(acpi_find_table(pa(r), "APIC"));
	assert_ptr_equal(acpi_find_table(pa(r), "HPET"), hpet);
	munmap(low, size);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checksum),
		cmocka_unit_test_teardown(test_madt_local_apic, teardown),
		cmocka_unit_test_teardown(test_madt_x2apic, teardown),
		cmocka_unit_test_teardown(test_madt_other_entries, teardown),
		cmocka_unit_test_teardown(test_madt_truncated, teardown),
		cmocka_unit_test_teardown(test_madt_max, teardown),
		cmocka_unit_test_teardown(test_find_xsdt, teardown),
		cmocka_unit_test_teardown(test_find_bad_checksum, teardown),
		cmocka_unit_test_teardown(test_find_bad_rsdp_and_root,
					  teardown),
		cmocka_unit_test(test_find_rsdt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
