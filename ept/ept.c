/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EPT table manipulation (Intel SDM Vol. 3C, 29.3 "The Extended Page Table
 * Mechanism (EPT)"). Four levels: PML4 (level 4), PDPT (3), PD (2), PT (1);
 * leaves are 4 KiB PTEs or 2 MiB PDEs. 1 GiB pages are never created.
 *
 * The tables are live while this code edits them: a logical processor in VMX
 * non-root operation may walk them and set accessed/dirty bits at any time
 * (SDM 29.3.5). So an entry is read and written with single 64-bit atomic
 * accesses, and a change that must keep the CPU's A/D updates (clearing a
 * bit, changing permissions, removing a leaf) is an atomic read-modify-write.
 * Flushing cached translations (INVEPT, SDM 29.4.3) is the caller's job.
 */
#include "ept/ept.h"

#define EPT_LEVELS 4
#define EPT_ENTRIES 512
/* A 4-level walk translates 48 bits of guest-physical address. */
#define EPT_GPA_LIMIT BIT(48)

/* SDM Table 29-6 / 29-4: a leaf's memory type sits in bits 5:3. */
#define EPT_LEAF_WB (EPT_MEMTYPE_WB << EPT_MEMTYPE_SHIFT)

static uint64_t *table_at(const struct ept *ept, uint64_t pa)
{
	return ept->mem.phys_to_virt(ept->mem.ctx, pa);
}

static unsigned entry_index(uint64_t gpa, int level)
{
	return (gpa >> (PAGE_SHIFT + 9 * (level - 1))) & (EPT_ENTRIES - 1);
}

static uint64_t level_size(int level)
{
	return level == 2 ? LARGE_PAGE_SIZE : PAGE_SIZE;
}

static uint64_t entry_read(const uint64_t *e)
{
	return __atomic_load_n(e, __ATOMIC_RELAXED);
}

static void entry_write(uint64_t *e, uint64_t v)
{
	__atomic_store_n(e, v, __ATOMIC_RELEASE);
}

/* SDM 29.3.2: an entry is present when any of bits 2:0 is set. */
static bool entry_present(uint64_t e)
{
	return (e & EPT_RWX) != 0;
}

static bool entry_is_leaf(uint64_t e, int level)
{
	return level == 1 || (level == 2 && (e & EPT_LARGE_PAGE));
}

/*
 * Write-only and write+execute without read are EPT misconfigurations
 * (SDM 29.3.3.1), and an entry without any of R/W/X is not present at all.
 * Execute-only is accepted: whether the CPU supports it (IA32_VMX_EPT_VPID_CAP
 * bit 0) is for the caller to check.
 */
static bool perms_valid(uint64_t perms)
{
	if (!perms || (perms & ~EPT_RWX))
		return false;
	return !((perms & EPT_WRITE) && !(perms & EPT_READ));
}

enum hv_err ept_init(struct ept *ept, const struct ept_memory *mem)
{
	*ept = (struct ept){ .mem = *mem };
	ept->pml4_pa = mem->alloc_table(mem->ctx);
	if (!ept->pml4_pa)
		return HV_ERR_NOMEM;
	ept->tables = 1;
	return HV_OK;
}

/* SDM Vol. 3C, 25.6.11: memory type in 2:0, walk length - 1 in 5:3, A/D 6. */
uint64_t ept_pointer(const struct ept *ept)
{
	return ept->pml4_pa | EPTP_MEMTYPE_WB | EPTP_WALK_LENGTH_4 |
	       EPTP_ENABLE_AD;
}

/* Returns the leaf entry covering gpa and its level, or NULL. */
static uint64_t *find_leaf(const struct ept *ept, uint64_t gpa, int *level)
{
	uint64_t *table = table_at(ept, ept->pml4_pa);

	if (gpa >= EPT_GPA_LIMIT)
		return NULL;
	for (int lvl = EPT_LEVELS;; lvl--) {
		uint64_t *e = &table[entry_index(gpa, lvl)];
		uint64_t v = entry_read(e);

		if (!entry_present(v))
			return NULL;
		if (entry_is_leaf(v, lvl)) {
			*level = lvl;
			return e;
		}
		table = table_at(ept, v & EPT_ADDR_MASK);
	}
}

/*
 * Walks from the PML4 down to the table of level target, allocating missing
 * tables on the way. Returns HV_OK and the table, HV_ERR_NOMEM when a table
 * could not be allocated (the tables linked so far stay: empty tables are
 * harmless), or HV_ERR_EXISTS when a large leaf already covers gpa.
 */
static enum hv_err walk_alloc(struct ept *ept, uint64_t gpa, int target,
			      uint64_t **table)
{
	uint64_t *t = table_at(ept, ept->pml4_pa);

	for (int lvl = EPT_LEVELS; lvl > target; lvl--) {
		uint64_t *e = &t[entry_index(gpa, lvl)];
		uint64_t v = entry_read(e);

		if (!entry_present(v)) {
			uint64_t pa = ept->mem.alloc_table(ept->mem.ctx);

			if (!pa)
				return HV_ERR_NOMEM;
			ept->tables++;
			/*
			 * Non-leaf entries grant everything; the leaf alone
			 * decides (the access rights of a walk are the AND of
			 * all levels, SDM 29.3.3.2). Bits 7:3 must be 0 here.
			 */
			v = pa | EPT_RWX;
			entry_write(e, v);
		} else if (v & EPT_LARGE_PAGE) {
			return HV_ERR_EXISTS;
		}
		t = table_at(ept, v & EPT_ADDR_MASK);
	}
	*table = t;
	return HV_OK;
}

static bool table_empty(const uint64_t *t)
{
	for (unsigned i = 0; i < EPT_ENTRIES; i++) {
		if (entry_present(entry_read(&t[i])))
			return false;
	}
	return true;
}

/*
 * A slot may take a new leaf when nothing is there, or, for a 2 MiB leaf,
 * when only an empty page table is there. That table is then abandoned, not
 * reused: until the caller's INVEPT a CPU may still hold the old PDE in its
 * paging-structure caches (SDM 29.4.1) and walk through that page.
 */
static bool slot_free(const struct ept *ept, uint64_t e, int level)
{
	if (!entry_present(e))
		return true;
	if (level != 2 || (e & EPT_LARGE_PAGE))
		return false;
	return table_empty(table_at(ept, e & EPT_ADDR_MASK));
}

enum hv_err ept_map(struct ept *ept, uint64_t gpa, uint64_t hpa,
		    enum ept_page_size size, uint64_t perms)
{
	int level = size == EPT_PAGE_2M ? 2 : 1;
	uint64_t psize = level_size(level);
	/*
	 * A preset accessed bit is only a hint to the CLOCK scan; the CPU
	 * ignores bits 8 and 9 when the EPTP does not enable A/D (SDM 29.3.5).
	 */
	uint64_t accessed = perms & EPT_ACCESSED;
	uint64_t *table, *e;
	enum hv_err err;

	perms &= ~EPT_ACCESSED;
	if ((size != EPT_PAGE_4K && size != EPT_PAGE_2M) ||
	    !perms_valid(perms) || !IS_ALIGNED(gpa, psize) ||
	    !IS_ALIGNED(hpa, psize) || gpa >= EPT_GPA_LIMIT ||
	    (hpa & ~EPT_ADDR_MASK))
		return HV_ERR_INVALID;

	err = walk_alloc(ept, gpa, level, &table);
	if (err)
		return err;
	e = &table[entry_index(gpa, level)];
	if (!slot_free(ept, entry_read(e), level))
		return HV_ERR_EXISTS;
	/* SDM Table 29-4 (2 MiB PDE) and 29-6 (PTE): address, WB, R/W/X. */
	entry_write(e, hpa | EPT_LEAF_WB | perms | accessed |
			       (level == 2 ? EPT_LARGE_PAGE : 0));
	return HV_OK;
}

static void describe(uint64_t e, int level, struct ept_mapping *m)
{
	*m = (struct ept_mapping){
		.hpa = e & EPT_ADDR_MASK & ~(level_size(level) - 1),
		.size = level == 2 ? EPT_PAGE_2M : EPT_PAGE_4K,
		.perms = e & EPT_RWX,
		.accessed = (e & EPT_ACCESSED) != 0,
		.dirty = (e & EPT_DIRTY) != 0,
	};
}

enum hv_err ept_unmap(struct ept *ept, uint64_t gpa,
		      enum ept_page_size size, struct ept_mapping *old)
{
	int want = size == EPT_PAGE_2M ? 2 : 1;
	uint64_t *e, v;
	int level;

	if ((size != EPT_PAGE_4K && size != EPT_PAGE_2M) ||
	    !IS_ALIGNED(gpa, level_size(want)))
		return HV_ERR_INVALID;
	e = find_leaf(ept, gpa, &level);
	if (!e)
		return HV_ERR_NOT_FOUND;
	/* The caller meant another page: never drop 2 MiB by accident. */
	if (level != want)
		return HV_ERR_CONFLICT;
	/* An exchange, so that an A/D bit set just now is reported. */
	v = __atomic_exchange_n(e, 0, __ATOMIC_ACQ_REL);
	if (old)
		describe(v, level, old);
	return HV_OK;
}

bool ept_lookup(const struct ept *ept, uint64_t gpa, struct ept_mapping *out)
{
	const uint64_t *e;
	int level;

	e = find_leaf(ept, gpa, &level);
	if (!e)
		return false;
	if (out)
		describe(entry_read(e), level, out);
	return true;
}

/*
 * Until the caller flushes the translation (INVEPT), a CPU that cached it
 * with the bit set may not set the bit again (SDM 29.4.1): a clear followed
 * by a later test is only meaningful with a flush in between.
 */
static bool test_and_clear(struct ept *ept, uint64_t gpa, uint64_t bit)
{
	uint64_t *e;
	int level;

	e = find_leaf(ept, gpa, &level);
	if (!e)
		return false;
	return (__atomic_fetch_and(e, ~bit, __ATOMIC_ACQ_REL) & bit) != 0;
}

bool ept_test_and_clear_accessed(struct ept *ept, uint64_t gpa)
{
	return test_and_clear(ept, gpa, EPT_ACCESSED);
}

bool ept_test_and_clear_dirty(struct ept *ept, uint64_t gpa)
{
	return test_and_clear(ept, gpa, EPT_DIRTY);
}

enum hv_err ept_protect(struct ept *ept, uint64_t gpa, uint64_t perms)
{
	uint64_t *e, v;
	int level;

	if (!perms_valid(perms))
		return HV_ERR_INVALID;
	e = find_leaf(ept, gpa, &level);
	if (!e)
		return HV_ERR_NOT_FOUND;
	/* Compare-and-swap keeps an A/D update the CPU makes meanwhile. */
	v = entry_read(e);
	do {
		if (!entry_present(v))
			return HV_ERR_NOT_FOUND;
	} while (!__atomic_compare_exchange_n(e, &v, (v & ~EPT_RWX) | perms,
					      false, __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	return HV_OK;
}
