/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where guest RAM lies in the guest-physical space: as on QEMU's pc
 * machine, one range from 0 up to a split point below the PCI hole (and
 * the I/O APIC and local APIC pages at 0xFEC00000 and 0xFEE00000), and the
 * rest from 4 GiB up. Every part of apfvisor that needs to know what is
 * RAM (the page states, the loaders' memory maps, fw_cfg, the EPT fault
 * path, the async-PF area check) asks this one description. Plain C over
 * plain data (tests/unit/test_guest_ram.c).
 *
 * Page bookkeeping is indexed by a dense page index, RAM order, so that
 * the hole costs no host memory: pages [0, low_size / 4 KiB) are the low
 * range, the high range's pages follow them.
 */
#ifndef LIB_GUEST_RAM_H
#define LIB_GUEST_RAM_H

#include "lib/types.h"

/* The high range starts here (QEMU: x86ms->above_4g_mem_start). */
#define GUEST_RAM_HIGH_BASE GiB(4)
#define GUEST_RAM_MAX_RANGES 2

struct guest_ram_layout {
	uint64_t low_size;      /* RAM at [0, low_size), below the hole */
	uint64_t high_size;     /* RAM at [4 GiB, 4 GiB + high_size) */
};

struct guest_ram_range {
	uint64_t base, size;
};

/* The layout QEMU's pc machine gives a guest of total bytes. */
void guest_ram_layout_pc(struct guest_ram_layout *l, uint64_t total);

/* The ranges in address order (the high one only when it has RAM). */
unsigned guest_ram_ranges(const struct guest_ram_layout *l,
			  struct guest_ram_range out[GUEST_RAM_MAX_RANGES]);

static inline uint64_t guest_ram_total(const struct guest_ram_layout *l)
{
	return l->low_size + l->high_size;
}

static inline uint64_t guest_ram_pages(const struct guest_ram_layout *l)
{
	return guest_ram_total(l) >> PAGE_SHIFT;
}

/* One past the highest RAM address. */
static inline uint64_t guest_ram_top(const struct guest_ram_layout *l)
{
	return l->high_size ? GUEST_RAM_HIGH_BASE + l->high_size : l->low_size;
}

static inline bool guest_ram_contains(const struct guest_ram_layout *l,
				      uint64_t gpa)
{
	return gpa < l->low_size ||
	       (gpa >= GUEST_RAM_HIGH_BASE &&
		gpa - GUEST_RAM_HIGH_BASE < l->high_size);
}

/* True when [gpa, gpa + len) is RAM of one range (len > 0). */
bool guest_ram_contains_span(const struct guest_ram_layout *l, uint64_t gpa,
			     uint64_t len);

/* The dense index of the RAM page with number gfn (which must be RAM). */
static inline uint64_t guest_ram_page_index(const struct guest_ram_layout *l,
					    uint64_t gfn)
{
	uint64_t low_pages = l->low_size >> PAGE_SHIFT;

	return gfn < low_pages ? gfn :
	       gfn - (GUEST_RAM_HIGH_BASE >> PAGE_SHIFT) + low_pages;
}

/* The page number of the RAM page with dense index i (i < pages). */
static inline uint64_t guest_ram_index_gfn(const struct guest_ram_layout *l,
					   uint64_t i)
{
	uint64_t low_pages = l->low_size >> PAGE_SHIFT;

	return i < low_pages ? i :
	       i - low_pages + (GUEST_RAM_HIGH_BASE >> PAGE_SHIFT);
}

#endif
