/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A guest's RAM from a fuzz script, in pieces: each piece is a page
 * number (1 byte, modulo the pages there are), an offset in the page (2
 * bytes, modulo 4096), a length (1 byte) and that many bytes, copied
 * there (cut at the end of RAM). RAM starts zeroed; pieces may overlap
 * and the last one wins. So a short input can put page tables in several
 * pages and code at any address. A buffer of less than a page takes the
 * offset modulo its size.
 */
#ifndef TESTS_FUZZ_FUZZ_GUEST_RAM_H
#define TESTS_FUZZ_FUZZ_GUEST_RAM_H

#include <string.h>

#include "tests/fuzz/fuzz_script.h"

#define FUZZ_PAGE 4096u

/* One piece; false when the script has ended. */
static inline bool fuzz_ram_piece(struct fuzz_script *s, uint8_t *ram,
				  size_t ram_size)
{
	size_t pages = ram_size / FUZZ_PAGE ? ram_size / FUZZ_PAGE : 1, at, len;

	if (!s->left)
		return false;
	at = (size_t)fuzz_take(s, 1) % pages * FUZZ_PAGE;
	at += (size_t)fuzz_take(s, 2) % FUZZ_PAGE;
	if (at >= ram_size)             /* less than a page */
		at %= ram_size;
	len = (size_t)fuzz_take(s, 1);
	if (len > s->left)
		len = s->left;
	memcpy(ram + at, s->p, len < ram_size - at ? len : ram_size - at);
	s->p += len;
	s->left -= len;
	return true;
}

/* Zeroes ram and fills it with every piece left in the script. */
static inline void fuzz_fill_ram(struct fuzz_script *s, uint8_t *ram,
				 size_t ram_size)
{
	memset(ram, 0, ram_size);
	while (fuzz_ram_piece(s, ram, ram_size))
		;
}

#endif
