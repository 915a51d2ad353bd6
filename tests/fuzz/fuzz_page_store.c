/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: guest/page_store.c over arbitrary instruction bytes
 * and registers (the first 40 bytes: RAX, RCX, RDI, RFLAGS and the
 * fault's linear address). An accepted store fits in the bytes given and
 * in 15, repeats 1, 2, 4 or 8 bytes, starts at the page the fault was on
 * with the direction flag clear, has at least a page of iterations left in
 * RCX, fills the page with its value's low bytes repeated, and decoding
 * is a pure function of its input.
 */
#include <stdint.h>
#include <string.h>

#include "guest/page_store.h"
#include "tests/fuzz/fuzz_check.h"

#define REGS_BYTES 40

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct page_store_regs r;
	struct page_store ps, again;
	uint64_t la, unit;
	unsigned len;

	if (size < REGS_BYTES)
		return 0;
	memcpy(&r.rax, data, 8);
	memcpy(&r.rcx, data + 8, 8);
	memcpy(&r.rdi, data + 16, 8);
	memcpy(&r.rflags, data + 24, 8);
	memcpy(&la, data + 32, 8);
	len = size - REGS_BYTES > 64 ? 64 : (unsigned)(size - REGS_BYTES);
	memset(&ps, 0x55, sizeof(ps));
	if (!page_store_decode(data + REGS_BYTES, len, &r, la, &ps))
		return 0;
	CHECK(ps.length >= 2 && ps.length <= len && ps.length <= 15);
	CHECK(ps.size == 1 || ps.size == 2 || ps.size == 4 || ps.size == 8);
	CHECK(!(r.rflags & (1u << 10)) && (la & 4095) == 0 && r.rdi == la);
	CHECK(r.rcx >= 4096 / ps.size);
	unit = ps.size == 8 ? r.rax : r.rax & ((1ull << (8 * ps.size)) - 1);
	for (unsigned at = 0; at < 8; at += ps.size)
		CHECK(((ps.fill >> (8 * at)) & (ps.size == 8 ? ~0ull :
			((1ull << (8 * ps.size)) - 1))) == unit);
	CHECK(page_store_decode(data + REGS_BYTES, ps.length, &r, la, &again));
	CHECK(memcmp(&ps, &again, sizeof(ps)) == 0);
	return 0;
}
