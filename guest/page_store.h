/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A store that overwrites a whole guest page: the string store the guest
 * was executing when it touched a page the paging daemon had put in swap.
 * Linux clears every page it hands out with one (clear_page_erms: REP
 * STOSB, RCX = 4096; clear_page_rep: REP STOSQ, RCX = 512), glibc's memset
 * uses REP STOSB above a couple of KiB, and a page the guest freed and
 * allocates again is exactly such a page. Reading its old contents back
 * from the disk is wasted: the instruction replaces every byte. The fault
 * path (vmx/exit_ept.c, swap.whole_page_stores) instead gives the page a
 * fresh frame already holding what the instruction will leave in it, and
 * the guest runs the instruction again: the processor then makes the
 * stores itself, with everything that goes with them (the guest's dirty
 * bits, data breakpoints, the rest of a longer store). Until it has, the
 * page shows bytes the store has not reached yet already at their new
 * value: what another CPU may see of a fast-string store anyway, whose
 * stores are not ordered among themselves (SDM Vol. 3A, 9.2.4).
 *
 * Recognised, in 64-bit code only: REP STOSB/STOSW/STOSD/STOSQ (F3 or F2,
 * which STOS treats alike; 0x66 for STOSW, REX.W for STOSQ; segment
 * prefixes, which STOS ignores), 64-bit addressing (no 0x67), the
 * direction flag clear, RDI at the start of the page the fault was on,
 * and RCX covering the whole page. Anything else is refused and the page
 * is read back as usual. Pure C over the fetched bytes (guest-written,
 * untrusted: fuzzed by tests/fuzz/fuzz_page_store.c).
 */
#ifndef GUEST_PAGE_STORE_H
#define GUEST_PAGE_STORE_H

#include "lib/types.h"

#define PAGE_STORE_INSN_MAX 15  /* the longest x86 instruction */

/* The registers the store uses, as the VM exit found them. */
struct page_store_regs {
	uint64_t rax, rcx, rdi, rflags;
};

/* The store, and what the page holds once it has passed over it. */
struct page_store {
	unsigned length;        /* the instruction's bytes */
	unsigned size;          /* bytes per iteration: 1, 2, 4 or 8 */
	uint64_t fill;          /* the page, as 8-byte words of this value */
};

/*
 * bytes[0..len): the instruction at RIP; fault_la: the guest-linear
 * address of the write that faulted (the VM exit's). True, with *out,
 * when the instruction is one of the forms above and its next
 * 4096 / size iterations write exactly the page at fault_la.
 */
bool page_store_decode(const uint8_t *bytes, unsigned len,
		       const struct page_store_regs *regs, uint64_t fault_la,
		       struct page_store *out);

#endif
