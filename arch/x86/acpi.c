// SPDX-License-Identifier: BSD-2-Clause
#include "arch/x86/acpi.h"
#include "lib/string.h"

#define MADT_ENTRIES_OFFSET 44          /* header + local APIC addr + flags */
#define MADT_TYPE_LOCAL_APIC 0
#define MADT_TYPE_LOCAL_X2APIC 9
#define MADT_CPU_ENABLED BIT(0)
#define MADT_CPU_ONLINE_CAPABLE BIT(1)

bool acpi_checksum_ok(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += b[i];
	return sum == 0;
}

static const struct acpi_sdt_header *table_at(uint64_t pa)
{
	return (const struct acpi_sdt_header *)(uintptr_t)pa;
}

static const struct acpi_sdt_header *
search_root(const struct acpi_sdt_header *root, unsigned entry_size,
	    const char sig[4])
{
	const uint8_t *entries = (const uint8_t *)(root + 1);
	unsigned n;

	/* A length below the header's would wrap to billions of entries. */
	if (root->length < sizeof(*root))
		return NULL;
	n = (root->length - sizeof(*root)) / entry_size;

	for (unsigned i = 0; i < n; i++) {
		uint64_t pa = 0;

		memcpy(&pa, entries + i * entry_size, entry_size);
		const struct acpi_sdt_header *t = table_at(pa);

		if (pa && !memcmp(t->signature, sig, 4) &&
		    acpi_checksum_ok(t, t->length))
			return t;
	}
	return NULL;
}

const struct acpi_sdt_header *acpi_find_table(uint64_t rsdp_pa,
					      const char sig[4])
{
	const struct acpi_rsdp *rsdp = (const void *)(uintptr_t)rsdp_pa;

	if (!rsdp_pa || memcmp(rsdp->signature, "RSD PTR ", 8))
		return NULL;
	if (rsdp->revision >= 2 && rsdp->xsdt_address)
		return search_root(table_at(rsdp->xsdt_address), 8, sig);
	return search_root(table_at(rsdp->rsdt_address), 4, sig);
}

static void record_cpu(uint32_t *ids, unsigned max, unsigned *n,
		       uint32_t apic_id, uint32_t flags)
{
	if (!(flags & (MADT_CPU_ENABLED | MADT_CPU_ONLINE_CAPABLE)))
		return;
	if (*n < max)
		ids[*n] = apic_id;
	(*n)++;
}

unsigned acpi_madt_cpus(const struct acpi_sdt_header *madt,
			uint32_t *apic_ids, unsigned max)
{
	const uint8_t *p = (const uint8_t *)madt + MADT_ENTRIES_OFFSET;
	const uint8_t *end = (const uint8_t *)madt + madt->length;
	unsigned n = 0;

	while (p + 2 <= end && p[1] >= 2 && p + p[1] <= end) {
		uint32_t id, flags;

		if (p[0] == MADT_TYPE_LOCAL_APIC && p[1] >= 8) {
			memcpy(&flags, p + 4, 4);
			record_cpu(apic_ids, max, &n, p[3], flags);
		} else if (p[0] == MADT_TYPE_LOCAL_X2APIC && p[1] >= 16) {
			memcpy(&id, p + 4, 4);
			memcpy(&flags, p + 8, 4);
			record_cpu(apic_ids, max, &n, id, flags);
		}
		p += p[1];
	}
	return n;
}
