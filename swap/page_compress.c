// SPDX-License-Identifier: BSD-2-Clause
/* Pages through lz4 (swap/page_compress.h). */
#include "swap/page_compress.h"
#include "lz4.h"

_Static_assert(PAGE_COMPRESS_STATE_SIZE >= sizeof(LZ4_stream_t),
	       "PAGE_COMPRESS_STATE_SIZE holds lz4's stream state");

unsigned page_compress(const void *page, void *out, unsigned room,
		       void *state)
{
	int n;

	if (!room || room > INT32_MAX)
		return 0;
	/* Acceleration 1: lz4's default, its best ratio for its speed. */
	n = LZ4_compress_fast_extState(state, page, out, PAGE_SIZE, (int)room,
				       1);
	return n > 0 ? (unsigned)n : 0;
}

bool page_decompress(const void *in, unsigned len, void *page)
{
	if (!len || len > INT32_MAX)
		return false;
	return LZ4_decompress_safe(in, page, (int)len, PAGE_SIZE) == PAGE_SIZE;
}
