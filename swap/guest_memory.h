/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Guest RAM: the state of every guest page and the one place where it
 * changes (DESIGN.md, "Guest pages"). Today a page is UNTOUCHED until its
 * first access, which maps a zeroed frame from the pool (RESIDENT); the
 * paging daemon adds WRITEBACK, SWAPPED and SWAPIN. Pure C over struct
 * ept_memory, so tests/unit can drive it without hardware. The caller holds
 * the guest lock.
 */
#ifndef SWAP_GUEST_MEMORY_H
#define SWAP_GUEST_MEMORY_H

#include "ept/ept.h"
#include "swap/frame_pool.h"

enum guest_page_state {
	PAGE_UNTOUCHED = 0,     /* never accessed: zero-fill on first touch */
	PAGE_RESIDENT,          /* backed by a frame, mapped in EPT */
	PAGE_WRITEBACK,         /* chosen for eviction, write to swap in flight */
	PAGE_SWAPPED,           /* only on the swap device */
	PAGE_SWAPIN,            /* read from swap in flight */
};

enum guest_fault_result {
	GUEST_FAULT_RESOLVED,           /* mapped: resume the guest */
	GUEST_FAULT_OUTSIDE_RAM,        /* gpa is not guest RAM */
	GUEST_FAULT_NO_FRAME,           /* pool empty and nothing to evict */
	GUEST_FAULT_ALREADY_MAPPED,     /* EPT permissions, not presence */
	GUEST_FAULT_INTERNAL_ERROR,     /* EPT table allocation failed */
};

struct guest_memory_stats {
	uint64_t faults;                /* EPT violations seen */
	uint64_t zero_fills;            /* UNTOUCHED -> RESIDENT */
};

struct guest_memory {
	uint64_t ram_size;              /* bytes, multiple of 4 KiB */
	uint64_t npages;
	uint8_t *state;                 /* enum guest_page_state per page */
	struct ept *ept;
	struct frame_pool *pool;
	struct guest_memory_stats stats;
};

/* state_storage holds ram_size / 4 KiB bytes. */
void guest_memory_init(struct guest_memory *gm, uint64_t ram_size,
		       uint8_t *state_storage, struct ept *ept,
		       struct frame_pool *pool);

/* An EPT violation at gpa: bring the page in. */
enum guest_fault_result guest_memory_fault(struct guest_memory *gm,
					   uint64_t gpa);

/* Copies len bytes into guest RAM at gpa, making the pages resident. */
int guest_memory_write(struct guest_memory *gm, uint64_t gpa, const void *src,
		       uint64_t len);

enum guest_page_state guest_memory_page_state(const struct guest_memory *gm,
					      uint64_t gpa);

const char *guest_fault_result_name(enum guest_fault_result r);

#endif
