// SPDX-License-Identifier: BSD-2-Clause
#include "swap/swap_verify.h"
#include "lib/checksum.h"
#include "lib/console.h"
#include "lib/heap.h"

#define PTE_AD_BITS (BIT(5) | BIT(6))

static const uint64_t *frame_words(const struct swap_verify *v, uint64_t pa)
{
	return v->frames->phys_to_virt(v->frames->ctx, pa);
}

static uint64_t frame_sum(const struct swap_verify *v, uint64_t pa,
			  uint64_t mask)
{
	return page_checksum(frame_words(v, pa), mask);
}

void swap_verify_init(struct swap_verify *v, const struct ept_memory *frames,
		      const struct guest_ram_layout *ram)
{
	v->frames = frames;
	v->ram = *ram;
	v->sums = hv_alloc(guest_ram_pages(ram) * sizeof(uint64_t));
	v->sums_no_ad = hv_alloc(guest_ram_pages(ram) * sizeof(uint64_t));
}

static uint64_t entry(const struct swap_verify *v, uint64_t gfn)
{
	return guest_ram_page_index(&v->ram, gfn);
}

void swap_verify_written(struct swap_verify *v, uint64_t gfn,
			 uint64_t frame_pa)
{
	v->sums[entry(v, gfn)] = frame_sum(v, frame_pa, ~0ull);
	v->sums_no_ad[entry(v, gfn)] = frame_sum(v, frame_pa, ~PTE_AD_BITS);
}

bool swap_verify_read(const struct swap_verify *v, uint64_t gfn,
		      uint32_t slot, uint64_t frame_pa)
{
	uint64_t want = v->sums[entry(v, gfn)], got;

	if (!want)
		return true;
	got = frame_sum(v, frame_pa, ~0ull);
	if (got == want)
		return true;
	hv_error("swap: the page at gpa 0x%llx came back from slot %u "
		 "different from what was written (checksum 0x%llx, want "
		 "0x%llx)", (unsigned long long)(gfn << PAGE_SHIFT), slot,
		 (unsigned long long)got, (unsigned long long)want);
	return false;
}

bool swap_verify_clean(const struct swap_verify *v, uint64_t gfn,
		       uint64_t frame_pa)
{
	const uint64_t *w;
	unsigned nonzero = 0, pte_like = 0;

	if (!v->sums[entry(v, gfn)] || frame_sum(v, frame_pa, ~0ull) == v->sums[entry(v, gfn)])
		return true;
	w = frame_words(v, frame_pa);
	for (unsigned i = 0; i < PAGE_SIZE / sizeof(*w); i++) {
		nonzero += w[i] != 0;
		pte_like += (w[i] & 1) &&
			    guest_ram_contains(&v->ram,
					       w[i] & 0x000ffffffffff000ull);
	}
	hv_info("debug: swap: gpa 0x%llx changed since it was written, with "
		"its EPT dirty bit clear; %s; %u nonzero words, %u look like "
		"present PTEs; written again",
		(unsigned long long)(gfn << PAGE_SHIFT),
		frame_sum(v, frame_pa, ~PTE_AD_BITS) == v->sums_no_ad[entry(v, gfn)] ?
			"only bits 5/6 (PTE accessed/dirty) differ" :
			"other bits differ",
		nonzero, pte_like);
	return false;
}
