/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fault list a replay prefetch reads (swap.prefetch_trace): the pages
 * of a recorded run's swap-in faults, in the order they first faulted, as
 * `tools/apftrace --extract-faults` writes it:
 *
 *	apfvisor-faults 1
 *	1a2b
 *	1a2c
 *	...
 *
 * one guest page number (gpa >> 12) per line, in lower- or upper-case hex
 * without 0x; an empty line, or spaces and a CR at a line's end, are
 * allowed. The file comes from the ESP, untrusted: tests/fuzz/
 * fuzz_fault_list.c runs the parser over any bytes.
 */
#ifndef SWAP_POLICY_FAULT_LIST_H
#define SWAP_POLICY_FAULT_LIST_H

#include "lib/types.h"

#define FAULT_LIST_MAGIC "apfvisor-faults 1"
/* Longest page number: 52-bit guest-physical addresses, 40-bit pages. */
#define FAULT_LIST_DIGITS_MAX 10

/*
 * Parses text (len bytes) into pages[] (room for max). Returns how many
 * pages it holds, or -1 with a reason in err ("line 3: ..."): a missing
 * or wrong first line, a line that is not a page number, more than max.
 */
long fault_list_parse(const char *text, size_t len, uint64_t *pages,
		      size_t max, char *err, size_t err_len);

/* Upper bound on the pages of a text of len bytes (a line per page). */
static inline size_t fault_list_max_pages(size_t len)
{
	return len / 2 + 1;
}

#endif
