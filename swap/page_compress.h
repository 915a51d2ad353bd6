/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A guest page compressed and back, with lz4 (Debian's source, built
 * freestanding at build time: Makefile, LZ4_SRC). The compressed swap
 * tier keeps a page this way when it shrinks below a threshold. The
 * compressor's working state (PAGE_COMPRESS_STATE_SIZE bytes) is the
 * caller's, so that nothing large lands on a hypervisor stack.
 */
#ifndef SWAP_PAGE_COMPRESS_H
#define SWAP_PAGE_COMPRESS_H

#include "lib/types.h"

/* lz4's LZ4_stream_t (LZ4_STREAM_MINSIZE; checked in page_compress.c). */
#define PAGE_COMPRESS_STATE_SIZE 16416u

/*
 * Compresses the 4 KiB page at page into out (room bytes); returns the
 * compressed size, or 0 when it does not fit in room (the page does not
 * compress well enough: it goes to the disk instead). state:
 * PAGE_COMPRESS_STATE_SIZE bytes, 8-byte aligned, any contents.
 */
unsigned page_compress(const void *page, void *out, unsigned room,
		       void *state);

/*
 * Expands len bytes at in into the 4 KiB page at page; false when they do
 * not make exactly one page (damaged: never trusted as the page).
 */
bool page_decompress(const void *in, unsigned len, void *page);

#endif
