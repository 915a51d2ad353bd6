// SPDX-License-Identifier: BSD-2-Clause
/* Guest page-table walks (guest/guest_pagewalk.h). */
#include "guest/guest_pagewalk.h"
#include "arch/x86/cpu.h"

#define PTE_P   BIT(0)
#define PTE_RW  BIT(1)
#define PTE_US  BIT(2)
#define PTE_PS  BIT(7)
#define ADDR_MASK 0x000ffffffffff000ull
#define CR4_PSE BIT(4)
#define CR4_LA57_BIT BIT(12)

struct walk {
	const struct guest_paging *p;
	guest_read_fn read;
	void *ctx;
	bool write, user;
	bool rw, us;            /* every level so far allows it */
};

/* One entry; false when unreadable. */
static bool entry(struct walk *w, uint64_t table, unsigned index,
		  unsigned size, uint64_t *e)
{
	uint32_t e32;

	if (size == 4) {
		if (w->read(w->ctx, table + index * 4u, &e32, 4))
			return false;
		*e = e32;
		return true;
	}
	return w->read(w->ctx, table + index * 8u, e, 8) == 0;
}

static enum guest_walk fault(const struct walk *w, bool present,
			     uint32_t *err)
{
	*err = (present ? PF_ERR_PRESENT : 0) |
	       (w->write ? PF_ERR_WRITE : 0) | (w->user ? PF_ERR_USER : 0);
	return GUEST_WALK_PAGE_FAULT;
}

/* The leaf's rights against the access (4.6): R/W and U/S of every level. */
static enum guest_walk check_rights(const struct walk *w, uint32_t *err)
{
	if (w->user && !w->us)
		return fault(w, true, err);
	if (w->write && !w->rw && (w->user || (w->p->cr0 & CR0_WP)))
		return fault(w, true, err);
	return GUEST_WALK_OK;
}

/*
 * From `table`, `levels` levels of `bits`-bit indexes below `shift`;
 * large pages allowed at the levels in large_at (bit n: the level whose
 * entries map 2^(12 + n * bits) bytes).
 */
static enum guest_walk descend(struct walk *w, uint64_t table, uint64_t la,
			       unsigned levels, unsigned bits, unsigned size,
			       unsigned large_at, uint64_t *gpa, uint32_t *err)
{
	for (unsigned level = levels; level-- > 0;) {
		unsigned shift = 12 + level * bits;
		unsigned index = (unsigned)(la >> shift) & ((1u << bits) - 1);
		uint64_t e, mask = size == 4 ? 0xfffff000ull : ADDR_MASK;

		if (!entry(w, table, index, size, &e))
			return GUEST_WALK_TABLE_UNREADABLE;
		if (!(e & PTE_P))
			return fault(w, false, err);
		w->rw &= !!(e & PTE_RW);
		w->us &= !!(e & PTE_US);
		if (level && (e & PTE_PS) && (large_at & BIT(level))) {
			uint64_t page = BIT(shift) - 1;

			if (size == 4)  /* 4 MiB page: bits 31:22 */
				*gpa = (e & 0xffc00000ull) | (la & page);
			else
				*gpa = (e & ADDR_MASK & ~page) | (la & page);
			return check_rights(w, err);
		}
		if (!level) {
			*gpa = (e & mask) | (la & 0xfff);
			return check_rights(w, err);
		}
		table = e & mask;
	}
	return GUEST_WALK_TABLE_UNREADABLE;     /* not reached */
}

enum guest_walk guest_pagewalk(const struct guest_paging *p, uint64_t la,
			       bool write, bool user, guest_read_fn read,
			       void *ctx, uint64_t *gpa, uint32_t *pf_error)
{
	struct walk w = { p, read, ctx, write, user, true, true };
	uint64_t pdpte;

	if (!(p->cr0 & CR0_PG)) {
		*gpa = la;
		return GUEST_WALK_OK;
	}
	if (p->efer & EFER_LMA)
		return descend(&w, p->cr3 & ADDR_MASK, la,
			       p->cr4 & CR4_LA57_BIT ? 5 : 4, 9, 8,
			       BIT(1) | BIT(2), gpa, pf_error);
	if (p->cr4 & CR4_PAE) {
		/* The four PDPTEs (4.4.1): no R/W or U/S bits of their own. */
		if (read(ctx, (p->cr3 & 0xffffffe0ull) + ((la >> 30) & 3) * 8,
			 &pdpte, 8))
			return GUEST_WALK_TABLE_UNREADABLE;
		if (!(pdpte & PTE_P))
			return fault(&w, false, pf_error);
		return descend(&w, pdpte & ADDR_MASK, la, 2, 9, 8, BIT(1), gpa,
			       pf_error);
	}
	return descend(&w, p->cr3 & 0xfffff000ull, la & 0xffffffffull, 2, 10,
		       4, p->cr4 & CR4_PSE ? BIT(1) : 0, gpa, pf_error);
}
