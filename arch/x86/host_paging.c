// SPDX-License-Identifier: BSD-2-Clause
/*
 * Identity map of all physical memory with 2 MiB pages (SDM Vol. 3A, 4.5).
 * Guest frames, the heap and device registers (LAPIC, PCI BARs) are all
 * reached through their physical address. 2 MiB pages that overlap RAM are
 * write-back; the rest is mapped uncacheable (PCD|PWT), whatever the MTRRs
 * say, so device registers are never cached.
 */
#include "arch/x86/host_paging.h"
#include "arch/x86/cpu.h"
#include "lib/heap.h"
#include "lib/string.h"

#define PTE_PRESENT BIT(0)
#define PTE_WRITE   BIT(1)
#define PTE_PWT     BIT(3)
#define PTE_PCD     BIT(4)
#define PTE_LARGE   BIT(7)
#define PT_ENTRIES  512

static bool overlaps_ram(const struct phys_range *ram, unsigned n,
			 uint64_t base, uint64_t size)
{
	for (unsigned i = 0; i < n; i++) {
		const struct phys_range *r = &ram[i];

		if (r->base < base + size && base < r->base + r->size)
			return true;
	}
	return false;
}

static uint64_t *table_at(uint64_t pa)
{
	return (uint64_t *)(uintptr_t)pa;
}

uint64_t host_paging_build(const struct phys_range *ram, unsigned n,
			   uint64_t phys_top)
{
	uint64_t top = ALIGN_UP(MAX(phys_top, GiB(4)), GiB(1));
	uint64_t pml4 = hv_alloc_pages_low(1);
	uint64_t *pml4_t = table_at(pml4);

	for (uint64_t gib = 0; gib < top; gib += GiB(1)) {
		unsigned l4 = (gib >> 39) & 511, l3 = (gib >> 30) & 511;
		uint64_t pdpt, pd;

		if (!(pml4_t[l4] & PTE_PRESENT))
			pml4_t[l4] = hv_alloc_pages_low(1) | PTE_PRESENT | PTE_WRITE;
		pdpt = pml4_t[l4] & ~0xfffull;
		pd = hv_alloc_pages_low(1);
		table_at(pdpt)[l3] = pd | PTE_PRESENT | PTE_WRITE;
		for (unsigned i = 0; i < PT_ENTRIES; i++) {
			uint64_t pa = gib + (uint64_t)i * LARGE_PAGE_SIZE;
			uint64_t cache = overlaps_ram(ram, n, pa,
							 LARGE_PAGE_SIZE)
						 ? 0 : (PTE_PCD | PTE_PWT);

			table_at(pd)[i] = pa | PTE_PRESENT | PTE_WRITE |
					  PTE_LARGE | cache;
		}
	}
	return pml4;
}

/* The table an entry points to, created (zeroed) when not present. */
static uint64_t *next_table(uint64_t *entry)
{
	if (!(*entry & PTE_PRESENT))
		*entry = hv_alloc_pages_low(1) | PTE_PRESENT | PTE_WRITE;
	return table_at(*entry & ~0xfffull);
}

/*
 * Firmware may put 64-bit PCI BARs far above RAM (OVMF: hundreds of GiB),
 * beyond what host_paging_build mapped. Turning entries from not present
 * to present needs no invalidation on any CPU (SDM Vol. 3A, 4.10.4.3).
 */
bool host_paging_map_mmio(uint64_t base, uint64_t size)
{
	uint64_t *pml4_t = table_at(read_cr3() & ~0xfffull);
	uint64_t end;

	if (!host_mmio_range_ok(base, size))
		return false;
	end = ALIGN_UP(base + size, LARGE_PAGE_SIZE);
	for (uint64_t pa = ALIGN_DOWN(base, LARGE_PAGE_SIZE); pa < end;
	     pa += LARGE_PAGE_SIZE) {
		uint64_t *pdpt = next_table(&pml4_t[(pa >> 39) & 511]);
		uint64_t *pde = &next_table(&pdpt[(pa >> 30) & 511])
					[(pa >> 21) & 511];

		if (!(*pde & PTE_PRESENT))
			*pde = pa | PTE_PRESENT | PTE_WRITE | PTE_LARGE |
			       PTE_PCD | PTE_PWT;
	}
	return true;
}
