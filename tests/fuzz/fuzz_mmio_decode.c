/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: guest/mmio_decode.c over arbitrary instruction bytes
 * (the first byte picks 32- or 64-bit code). An accepted instruction fits
 * in the bytes given and in 15, has its opcode among them, a size of 1,
 * 2, 4 or 8 (8 only in 64-bit code), a register below 16 (below 8 in
 * 32-bit code; below 4 when it is AH..BH, a byte register only in code
 * that can have no REX), a destination at least as wide as the access and
 * wider only for a load (MOVZX), and an immediate only when it stores
 * one; decoding is a pure function of the bytes.
 */
#include <stdint.h>
#include <string.h>

#include "guest/mmio_decode.h"
#include "tests/fuzz/fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mmio_insn insn, again;
	enum mmio_cpu_mode mode;
	unsigned len;

	if (size < 1)
		return 0;
	mode = data[0] & 1 ? MMIO_MODE_64 : MMIO_MODE_32;
	len = size - 1 > 64 ? 64 : (unsigned)(size - 1);
	memset(&insn, 0x55, sizeof(insn));
	if (!mmio_decode(data + 1, len, mode, &insn))
		return 0;
	CHECK(insn.length >= 2 && insn.length <= len &&
	      insn.length <= MMIO_INSN_MAX);
	CHECK(insn.size == 1 || insn.size == 2 || insn.size == 4 ||
	      (insn.size == 8 && mode == MMIO_MODE_64));
	CHECK(insn.reg < (mode == MMIO_MODE_64 ? MMIO_GPR_COUNT : 8));
	CHECK(insn.reg_size == insn.size ||
	      (!insn.write && insn.size < insn.reg_size &&
	       (insn.reg_size == 2 || insn.reg_size == 4 ||
		(insn.reg_size == 8 && mode == MMIO_MODE_64))));
	CHECK(!insn.high_byte || (insn.size == 1 && insn.reg < 4));
	CHECK(!insn.has_immediate || insn.write);
	CHECK(insn.has_immediate || insn.immediate == 0);
	CHECK(insn.size == 8 || insn.immediate >> (8 * insn.size) == 0);
	/* The bytes after the instruction do not change it. */
	CHECK(mmio_decode(data + 1, insn.length, mode, &again));
	CHECK(memcmp(&insn, &again, sizeof(insn)) == 0);
	return 0;
}
