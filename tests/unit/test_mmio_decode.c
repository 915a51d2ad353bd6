/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/mmio_decode.c: the MOV forms of volatile 32-bit loads and stores
 * as GCC and Clang emit them, in 64-bit and 32-bit code: every ModRM/SIB
 * displacement form, RIP-relative, REX (W, R), 0x66, segment overrides,
 * the absolute-address forms A1/A3;
 * and the refusals (other opcodes, a register operand, REX or 0x67 in
 * 32-bit code, LOCK, truncated bytes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "guest/mmio_decode.h"

#define DECODE(mode, ...)                                                    \
	({                                                                   \
		static const uint8_t b_[] = { __VA_ARGS__ };                 \
		mmio_decode(b_, sizeof(b_), mode, &insn);                    \
	})

static struct mmio_insn insn;

static void expect(unsigned length, unsigned size, bool write,
		   enum mmio_gpr reg)
{
	assert_int_equal(insn.length, length);
	assert_int_equal(insn.size, size);
	assert_int_equal(insn.write, write);
	assert_false(insn.has_immediate);
	assert_int_equal(insn.reg, reg);
}

static void loads(void **state)
{
	(void)state;
	assert_true(DECODE(MMIO_MODE_64, 0x8b, 0x00));  /* mov (%rax),%eax */
	expect(2, 4, false, MMIO_RAX);
	assert_true(DECODE(MMIO_MODE_64, 0x8b, 0x47, 0x10));    /* 0x10(%rdi) */
	expect(3, 4, false, MMIO_RAX);
	assert_true(DECODE(MMIO_MODE_64, 0x8b, 0x97, 0x10, 0, 0, 0)); /* %edx */
	expect(6, 4, false, MMIO_RDX);
	/* mov 0x10(%rsp),%ecx: SIB, disp8 */
	assert_true(DECODE(MMIO_MODE_64, 0x8b, 0x4c, 0x24, 0x10));
	expect(4, 4, false, MMIO_RCX);
	/* mov 0xfec00010,%eax as (,%riz) SIB with no base: disp32 */
	assert_true(DECODE(MMIO_MODE_64, 0x8b, 0x04, 0x25, 0x10, 0, 0xc0,
			   0xfe));
	expect(7, 4, false, MMIO_RAX);
	/* mov 0x1234(%rip),%esi */
	assert_true(DECODE(MMIO_MODE_64, 0x8b, 0x35, 0x34, 0x12, 0, 0));
	expect(6, 4, false, MMIO_RSI);
	/* mov (%r8),%r9d; mov (%rax),%rax with REX.W; (%rbp) = disp8 0 */
	assert_true(DECODE(MMIO_MODE_64, 0x45, 0x8b, 0x08));
	expect(3, 4, false, MMIO_R9);
	assert_true(DECODE(MMIO_MODE_64, 0x48, 0x8b, 0x00));
	expect(3, 8, false, MMIO_RAX);
	assert_true(DECODE(MMIO_MODE_64, 0x8b, 0x65, 0x00));
	expect(3, 4, false, MMIO_RSP);
	/* 16-bit: 66 8b 07 mov (%rdi),%ax */
	assert_true(DECODE(MMIO_MODE_64, 0x66, 0x8b, 0x07));
	expect(3, 2, false, MMIO_RAX);
	/* 32-bit code: mov 0xfec00010,%eax (mod 0 rm 5 = disp32) */
	assert_true(DECODE(MMIO_MODE_32, 0x8b, 0x05, 0x10, 0, 0xc0, 0xfe));
	expect(6, 4, false, MMIO_RAX);
	/* 32-bit: mov %fs:0x10(%ebx,%esi,4),%edi */
	assert_true(DECODE(MMIO_MODE_32, 0x64, 0x8b, 0x7c, 0xb3, 0x10));
	expect(5, 4, false, MMIO_RDI);
}

static void stores(void **state)
{
	(void)state;
	assert_true(DECODE(MMIO_MODE_64, 0x89, 0x10));  /* mov %edx,(%rax) */
	expect(2, 4, true, MMIO_RDX);
	assert_true(DECODE(MMIO_MODE_64, 0x44, 0x89, 0x78, 0x10));
	expect(4, 4, true, MMIO_R15);
	assert_true(DECODE(MMIO_MODE_32, 0x89, 0x15, 0, 0, 0xc0, 0xfe));
	expect(6, 4, true, MMIO_RDX);
	/* movl $0x12345678,0x10(%eax) */
	assert_true(DECODE(MMIO_MODE_32, 0xc7, 0x40, 0x10, 0x78, 0x56, 0x34,
			   0x12));
	assert_int_equal(insn.length, 7);
	assert_true(insn.write && insn.has_immediate && insn.size == 4);
	assert_true(insn.immediate == 0x12345678);
	/* movl $imm,0xfec00000 (disp32) */
	assert_true(DECODE(MMIO_MODE_32, 0xc7, 0x05, 0, 0, 0xc0, 0xfe, 1, 0, 0,
			   0));
	assert_int_equal(insn.length, 10);
	assert_true(insn.immediate == 1);
	/* movq $-1,(%rax): imm32 sign-extended */
	assert_true(DECODE(MMIO_MODE_64, 0x48, 0xc7, 0x00, 0xff, 0xff, 0xff,
			   0xff));
	assert_true(insn.size == 8 && insn.immediate == ~0ull);
	assert_int_equal(insn.length, 7);
	/* movw $0x1234,(%rax): imm16 */
	assert_true(DECODE(MMIO_MODE_64, 0x66, 0xc7, 0x00, 0x34, 0x12));
	assert_true(insn.size == 2 && insn.immediate == 0x1234);
	assert_int_equal(insn.length, 5);
	/* RIP-relative with an immediate: movl $5,0x100(%rip) */
	assert_true(DECODE(MMIO_MODE_64, 0xc7, 0x05, 0, 1, 0, 0, 5, 0, 0, 0));
	assert_int_equal(insn.length, 10);
}

static void absolute_addresses(void **state)
{
	(void)state;
	/* 32-bit: mov 0xfec00010,%eax; mov %eax,0xfec00010 */
	assert_true(DECODE(MMIO_MODE_32, 0xa1, 0x10, 0, 0xc0, 0xfe));
	expect(5, 4, false, MMIO_RAX);
	assert_true(DECODE(MMIO_MODE_32, 0xa3, 0x10, 0, 0xc0, 0xfe));
	expect(5, 4, true, MMIO_RAX);
	/* 64-bit: movabs takes an 8-byte offset, 4 under 0x67 */
	assert_true(DECODE(MMIO_MODE_64, 0xa1, 0x10, 0, 0xc0, 0xfe, 0, 0, 0,
			   0));
	expect(9, 4, false, MMIO_RAX);
	assert_true(DECODE(MMIO_MODE_64, 0x67, 0xa3, 0x10, 0, 0xc0, 0xfe));
	expect(6, 4, true, MMIO_RAX);
	assert_true(DECODE(MMIO_MODE_64, 0x48, 0xa1, 0, 0, 0xc0, 0xfe, 0, 0, 0,
			   0));
	expect(10, 8, false, MMIO_RAX);
	assert_false(DECODE(MMIO_MODE_64, 0xa1, 0x10, 0, 0xc0, 0xfe));
	assert_false(DECODE(MMIO_MODE_32, 0xa0, 0x10, 0, 0xc0, 0xfe)); /* AL */
}

static void refusals(void **state)
{
	(void)state;
	assert_false(DECODE(MMIO_MODE_64, 0x8a, 0x00));         /* 8-bit */
	assert_false(DECODE(MMIO_MODE_64, 0x01, 0x00));         /* add */
	assert_false(DECODE(MMIO_MODE_64, 0xf0, 0x89, 0x00));   /* lock */
	assert_false(DECODE(MMIO_MODE_64, 0xf3, 0x8b, 0x00));   /* rep */
	assert_false(DECODE(MMIO_MODE_64, 0x8b, 0xc0));         /* register */
	assert_false(DECODE(MMIO_MODE_64, 0xc7, 0x08, 0, 0, 0, 0)); /* /1 */
	assert_false(DECODE(MMIO_MODE_32, 0x48, 0x8b, 0x00));   /* dec eax */
	assert_false(DECODE(MMIO_MODE_32, 0x67, 0x8b, 0x07));   /* 16-bit */
	assert_false(DECODE(MMIO_MODE_64, 0x8b, 0x80, 0, 0));   /* cut short */
	assert_false(DECODE(MMIO_MODE_64, 0xc7, 0x00, 1, 0, 0));
	assert_false(DECODE(MMIO_MODE_64, 0x8b));
	assert_false(mmio_decode(NULL, 0, MMIO_MODE_64, &insn));
	/* Fifteen prefixes leave no room for the opcode. */
	assert_false(DECODE(MMIO_MODE_64, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
			    0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
			    0x66, 0x8b, 0x00));
}

static void merged_loads(void **state)
{
	(void)state;
	assert_true(mmio_merge_load(0xffffffffffffffffull, 0x1234, 2) ==
		    0xffffffffffff1234ull);
	assert_true(mmio_merge_load(0xffffffffffffffffull, 0x12345678, 4) ==
		    0x12345678);
	assert_true(mmio_merge_load(1, 0x1122334455667788ull, 8) ==
		    0x1122334455667788ull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(loads),
		cmocka_unit_test(stores),
		cmocka_unit_test(absolute_addresses),
		cmocka_unit_test(refusals),
		cmocka_unit_test(merged_loads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
