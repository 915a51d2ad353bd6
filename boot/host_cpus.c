// SPDX-License-Identifier: BSD-2-Clause
#include "boot/host_cpus.h"
#include "lib/console.h"

static bool listed(const uint32_t *ids, unsigned n, uint32_t id)
{
	for (unsigned i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

static unsigned copy_ids(const uint32_t *from, unsigned n, uint32_t *ids,
			 unsigned max)
{
	n = MIN(n, max);
	for (unsigned i = 0; i < n; i++)
		ids[i] = from[i];
	return n;
}

/* The MADT's IDs that MP Services lists too, in MADT order. */
static unsigned common_ids(const struct host_cpu_lists *l, uint32_t *ids,
			   unsigned max)
{
	unsigned n = 0;

	for (unsigned i = 0; i < l->n_madt && n < max; i++)
		if (listed(l->mp, l->n_mp, l->madt[i]))
			ids[n++] = l->madt[i];
	return n;
}

static unsigned from_both(const struct host_cpu_lists *l, uint32_t *ids,
			  unsigned max)
{
	unsigned n = common_ids(l, ids, max);

	if (n == l->n_madt && n == l->n_mp) {
		hv_info("host cpus: %u (ACPI MADT; UEFI MP services agree)", n);
		return n;
	}
	if (n) {
		hv_info("host cpus: %u (the ACPI MADT lists %u, UEFI MP "
			"services %u: those both list)", n, l->n_madt, l->n_mp);
		return n;
	}
	n = copy_ids(l->mp, l->n_mp, ids, max);
	hv_info("host cpus: %u (UEFI MP services; the ACPI MADT lists %u "
		"other APIC IDs: not used)", n, l->n_madt);
	return n;
}

unsigned host_cpus_choose(const struct host_cpu_lists *l, uint32_t bsp_apic_id,
			  uint32_t *ids, unsigned max)
{
	unsigned n;

	if (l->n_madt && l->n_mp)
		return from_both(l, ids, max);
	if (l->n_madt) {
		n = copy_ids(l->madt, l->n_madt, ids, max);
		hv_info("host cpus: %u (ACPI MADT; no UEFI MP services)", n);
		return n;
	}
	if (l->n_mp) {
		n = copy_ids(l->mp, l->n_mp, ids, max);
		hv_info("host cpus: %u (UEFI MP services; no ACPI MADT)", n);
		return n;
	}
	hv_info("host cpus: 1 (no CPU list found: boot cpu only)");
	ids[0] = bsp_apic_id;
	return 1;
}
