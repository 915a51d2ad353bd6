/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The EPT tables of one guest (Intel SDM Vol. 3C, 29.3 "The Extended Page
 * Table Mechanism"). Pure table manipulation: memory for tables comes from
 * struct ept_memory so that tests/unit can run this over fake physical
 * memory. Invalidation (INVEPT) is the caller's job (vmx/).
 */
#ifndef EPT_EPT_H
#define EPT_EPT_H

#include "lib/errors.h"
#include "lib/types.h"

/* EPT entry bits (SDM Vol. 3C, Table 29-1 .. 29-6). */
#define EPT_READ        BIT(0)
#define EPT_WRITE       BIT(1)
#define EPT_EXEC        BIT(2)
#define EPT_RWX         (EPT_READ | EPT_WRITE | EPT_EXEC)
#define EPT_MEMTYPE_SHIFT 3             /* bits 5:3 in leaf entries */
#define EPT_MEMTYPE_UC  0ull
#define EPT_MEMTYPE_WB  6ull
#define EPT_IGNORE_PAT  BIT(6)
#define EPT_LARGE_PAGE  BIT(7)          /* in a PDE: maps 2 MiB */
#define EPT_ACCESSED    BIT(8)
#define EPT_DIRTY       BIT(9)          /* leaf entries only */
#define EPT_ADDR_MASK   0x000ffffffffff000ull

/* EPTP (SDM Vol. 3C, 25.6.11 "Extended-Page-Table Pointer"). */
#define EPTP_MEMTYPE_WB      6ull
#define EPTP_WALK_LENGTH_4   (3ull << 3)
#define EPTP_ENABLE_AD       BIT(6)

enum ept_page_size {
	EPT_PAGE_4K = 0,
	EPT_PAGE_2M = 1,
};

struct ept_memory {
	/* Returns the host-physical address of a zeroed 4 KiB page, or 0. */
	uint64_t (*alloc_table)(void *ctx);
	/* Returns a pointer through which host-physical pa can be accessed. */
	void *(*phys_to_virt)(void *ctx, uint64_t pa);
	void *ctx;
};

struct ept {
	uint64_t pml4_pa;
	struct ept_memory mem;
	uint64_t tables;        /* number of table pages allocated */
};

struct ept_mapping {
	uint64_t hpa;           /* host-physical base of the page */
	enum ept_page_size size;
	uint64_t perms;         /* EPT_READ|EPT_WRITE|EPT_EXEC subset */
	bool accessed;
	bool dirty;
};

/* Allocates the PML4. HV_OK, or HV_ERR_NOMEM when no table could be had. */
enum hv_err ept_init(struct ept *ept, const struct ept_memory *mem);

/* The EPTP value for the VMCS: 4-level walk, WB, A/D enabled. */
uint64_t ept_pointer(const struct ept *ept);

/*
 * Maps gpa -> hpa, write-back, with perms. Both addresses must be aligned to
 * the page size. perms may add EPT_ACCESSED: the leaf starts with its
 * accessed bit set, as if the CPU had used it once (SDM 29.3.5 lets software
 * set it), so that a CLOCK scan spares a page just mapped. The dirty bit
 * always starts clear. Returns HV_OK; HV_ERR_INVALID for misalignment, gpa
 * beyond 48 bits or bad perms (none, bits other than R/W/X/A, or W without R:
 * SDM 29.3.3.1); HV_ERR_NOMEM for a failed table allocation (tables linked
 * before the failure stay, empty); HV_ERR_EXISTS when something is already
 * mapped there (a 4 KiB map inside an existing 2 MiB page, or a 2 MiB map over
 * an existing table with mappings, or the same page twice). A 2 MiB map over
 * an empty page table abandons that table page (it stays counted in tables):
 * a CPU may walk it until the caller's INVEPT.
 */
enum hv_err ept_map(struct ept *ept, uint64_t gpa, uint64_t hpa,
		    enum ept_page_size size, uint64_t perms);

/*
 * Removes the leaf of the given size that maps gpa. On success returns HV_OK
 * and, when old is not NULL, fills it with what was mapped (including the A/D
 * bits at the moment of removal). Returns HV_ERR_INVALID when gpa is not
 * aligned to size, HV_ERR_NOT_FOUND when nothing is mapped; HV_ERR_CONFLICT,
 * changing nothing, when a leaf of the other size covers gpa (so a 4 KiB unmap
 * never removes a whole 2 MiB page, even at its first byte).
 */
enum hv_err ept_unmap(struct ept *ept, uint64_t gpa,
		      enum ept_page_size size, struct ept_mapping *old);

/* Looks up the leaf covering gpa; returns false when none is present. */
bool ept_lookup(const struct ept *ept, uint64_t gpa, struct ept_mapping *out);

/* Clears the accessed bit of the leaf covering gpa; returns its old value. */
bool ept_test_and_clear_accessed(struct ept *ept, uint64_t gpa);

/* Clears the dirty bit of the leaf covering gpa; returns its old value. */
bool ept_test_and_clear_dirty(struct ept *ept, uint64_t gpa);

/*
 * Changes the permissions of the leaf covering gpa, keeping its A/D bits.
 * Returns HV_OK; HV_ERR_NOT_FOUND when nothing is mapped, HV_ERR_INVALID when
 * perms are invalid (as ept_map).
 */
enum hv_err ept_protect(struct ept *ept, uint64_t gpa, uint64_t perms);

#endif
