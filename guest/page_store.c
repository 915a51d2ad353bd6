// SPDX-License-Identifier: BSD-2-Clause
/*
 * The whole-page string store (see guest/page_store.h). Encodings: SDM
 * Vol. 2A 2.1.1 (legacy prefixes), 2.2.1 (REX), Vol. 2B "STOS/STOSB/
 * STOSW/STOSD/STOSQ" (AA: byte; AB: word, doubleword or quadword by the
 * operand size) and "REP" (F3; F2 repeats STOS the same way).
 */
#include "guest/page_store.h"

#define OP_STOSB 0xaa
#define OP_STOS 0xab
#define PREFIX_REP 0xf3
#define PREFIX_REPNE 0xf2
#define PREFIX_OPERAND_SIZE 0x66
#define REX_FIRST 0x40
#define REX_LAST 0x4f
#define REX_W BIT(3)
#define RFLAGS_DIRECTION BIT(10)
#define STORE_PAGE 4096u

static bool is_segment_override(uint8_t b)
{
	return b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e ||
	       b == 0x64 || b == 0x65;
}

/* The low size bytes of value repeated over 8 bytes. */
static uint64_t spread(uint64_t value, unsigned size)
{
	uint64_t unit = size == 8 ? value :
			value & ((1ull << (8 * size)) - 1);

	for (unsigned have = size; have < 8; have *= 2)
		unit |= unit << (8 * have);
	return unit;
}

/*
 * The prefixes and the opcode: the operand size in bytes, or 0 when the
 * bytes are not a REP STOS with 64-bit addressing. REX counts only as
 * the last prefix (SDM 2.2.1: a REX before another prefix is ignored).
 */
static unsigned decode_size(const uint8_t *bytes, unsigned len,
			    unsigned *length)
{
	bool rep = false, operand16 = false;
	uint8_t rex = 0;
	unsigned i = 0;

	for (; i < len && i < PAGE_STORE_INSN_MAX; i++) {
		uint8_t b = bytes[i];

		if (b == PREFIX_REP || b == PREFIX_REPNE)
			rep = true;
		else if (b == PREFIX_OPERAND_SIZE)
			operand16 = true;
		else if (is_segment_override(b))
			;
		else if (b >= REX_FIRST && b <= REX_LAST) {
			rex = b;
			continue;
		} else
			break;
		rex = 0;
	}
	if (i >= len || i >= PAGE_STORE_INSN_MAX || !rep)
		return 0;
	*length = i + 1;
	if (bytes[i] == OP_STOSB)
		return 1;
	if (bytes[i] != OP_STOS)
		return 0;
	if (rex & REX_W)
		return 8;
	return operand16 ? 2 : 4;
}

bool page_store_decode(const uint8_t *bytes, unsigned len,
		       const struct page_store_regs *regs, uint64_t fault_la,
		       struct page_store *out)
{
	unsigned length = 0, size = decode_size(bytes, len, &length);
	uint64_t per_page;

	if (!size || (regs->rflags & RFLAGS_DIRECTION) ||
	    (fault_la & (STORE_PAGE - 1)) || regs->rdi != fault_la)
		return false;
	per_page = STORE_PAGE / size;
	if (regs->rcx < per_page)
		return false;
	*out = (struct page_store){
		.length = length,
		.size = size,
		.fill = spread(regs->rax, size),
	};
	return true;
}
