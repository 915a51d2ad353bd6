/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Guest-linear to guest-physical, by walking the guest's own page tables
 * (SDM Vol. 3A, chapter 4): paging off, 32-bit paging (4 MiB pages with
 * CR4.PSE), PAE paging, and 4- and 5-level paging, with the present,
 * write and user checks a data access makes. For the instructions
 * apfvisor emulates on the guest's memory (INS/OUTS). Plain C: the caller
 * reads the tables.
 */
#ifndef GUEST_GUEST_PAGEWALK_H
#define GUEST_GUEST_PAGEWALK_H

#include "lib/types.h"

struct guest_paging {
	uint64_t cr0, cr3, cr4, efer;
};

/* Reads len (4 or 8) bytes of guest-physical memory: 0, or -1. */
typedef int (*guest_read_fn)(void *ctx, uint64_t gpa, void *buf,
			     unsigned len);

/* #PF error code bits (SDM Vol. 3A, 4.7). */
#define PF_ERR_PRESENT  BIT(0)
#define PF_ERR_WRITE    BIT(1)
#define PF_ERR_USER     BIT(2)

enum guest_walk {
	GUEST_WALK_OK,
	GUEST_WALK_PAGE_FAULT,          /* *pf_error says why */
	GUEST_WALK_TABLE_UNREADABLE,    /* a table lies outside guest RAM */
};

enum guest_walk guest_pagewalk(const struct guest_paging *p, uint64_t la,
			       bool write, bool user, guest_read_fn read,
			       void *ctx, uint64_t *gpa, uint32_t *pf_error);

#endif
