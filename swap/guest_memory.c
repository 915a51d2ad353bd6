// SPDX-License-Identifier: BSD-2-Clause
#include "swap/guest_memory.h"
#include "lib/string.h"

void guest_memory_init(struct guest_memory *gm, uint64_t ram_size,
		       uint8_t *state_storage, struct ept *ept,
		       struct frame_pool *pool)
{
	memset(gm, 0, sizeof(*gm));
	gm->ram_size = ram_size;
	gm->npages = ram_size >> PAGE_SHIFT;
	gm->state = state_storage;
	gm->ept = ept;
	gm->pool = pool;
	memset(gm->state, PAGE_UNTOUCHED, gm->npages);
}

static uint8_t *frame_ptr(struct guest_memory *gm, uint64_t hpa)
{
	return gm->ept->mem.phys_to_virt(gm->ept->mem.ctx, hpa);
}

/* UNTOUCHED -> RESIDENT: a zeroed frame, mapped read/write/execute. */
static enum guest_fault_result zero_fill(struct guest_memory *gm, uint64_t gfn)
{
	uint64_t hpa;

	if (!frame_pool_alloc(gm->pool, &hpa))
		return GUEST_FAULT_NO_FRAME;
	memset(frame_ptr(gm, hpa), 0, PAGE_SIZE);
	if (ept_map(gm->ept, gfn << PAGE_SHIFT, hpa, EPT_PAGE_4K, EPT_RWX)) {
		frame_pool_free(gm->pool, hpa);
		return GUEST_FAULT_INTERNAL_ERROR;
	}
	gm->state[gfn] = PAGE_RESIDENT;
	gm->stats.zero_fills++;
	return GUEST_FAULT_RESOLVED;
}

enum guest_fault_result guest_memory_fault(struct guest_memory *gm,
					   uint64_t gpa)
{
	uint64_t gfn = gpa >> PAGE_SHIFT;

	gm->stats.faults++;
	if (gpa >= gm->ram_size)
		return GUEST_FAULT_OUTSIDE_RAM;
	switch (gm->state[gfn]) {
	case PAGE_UNTOUCHED:
		return zero_fill(gm, gfn);
	case PAGE_RESIDENT:
		return GUEST_FAULT_ALREADY_MAPPED;
	default:
		return GUEST_FAULT_INTERNAL_ERROR;
	}
}

int guest_memory_write(struct guest_memory *gm, uint64_t gpa, const void *src,
		       uint64_t len)
{
	const uint8_t *from = src;

	while (len) {
		uint64_t off = gpa & (PAGE_SIZE - 1);
		uint64_t chunk = MIN(len, PAGE_SIZE - off);
		struct ept_mapping m;

		if (gpa >= gm->ram_size)
			return -1;
		if (gm->state[gpa >> PAGE_SHIFT] == PAGE_UNTOUCHED &&
		    zero_fill(gm, gpa >> PAGE_SHIFT) != GUEST_FAULT_RESOLVED)
			return -1;
		if (!ept_lookup(gm->ept, gpa, &m))
			return -1;
		memcpy(frame_ptr(gm, m.hpa) + off, from, chunk);
		gpa += chunk;
		from += chunk;
		len -= chunk;
	}
	return 0;
}

enum guest_page_state guest_memory_page_state(const struct guest_memory *gm,
					      uint64_t gpa)
{
	return (enum guest_page_state)gm->state[gpa >> PAGE_SHIFT];
}

const char *guest_fault_result_name(enum guest_fault_result r)
{
	switch (r) {
	case GUEST_FAULT_RESOLVED: return "resolved";
	case GUEST_FAULT_OUTSIDE_RAM: return "outside guest RAM";
	case GUEST_FAULT_NO_FRAME: return "no free host frame";
	case GUEST_FAULT_ALREADY_MAPPED: return "page already mapped";
	default: return "internal error";
	}
}
