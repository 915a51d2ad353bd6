/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/mmio_decode.c: the MOV forms of volatile 32-bit loads and stores
 * as GCC and Clang emit them, in 64-bit and 32-bit code: every ModRM/SIB
 * displacement form, RIP-relative, REX (W, R), 0x66, segment overrides,
 * the absolute-address forms A1/A3; the byte forms (88, 8A, C6: AH..BH
 * without REX, SPL..DIL and R8B.. with it, 0x66 and REX.W ignored) and
 * MOVZX (0F B6, 0F B7), what a load leaves in its register and what a
 * store writes;
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
	assert_int_equal(insn.reg_size, size);
	assert_int_equal(insn.write, write);
	assert_false(insn.has_immediate);
	assert_false(insn.high_byte);
	assert_int_equal(insn.reg, reg);
}

/* A byte form: size 1, its register, AH..BH or not. */
static void expect_byte(unsigned length, bool write, enum mmio_gpr reg,
			bool high_byte)
{
	assert_int_equal(insn.length, length);
	assert_int_equal(insn.size, 1);
	assert_int_equal(insn.reg_size, 1);
	assert_int_equal(insn.write, write);
	assert_int_equal(insn.reg, reg);
	assert_int_equal(insn.high_byte, high_byte);
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

static void byte_loads_and_stores(void **state)
{
	(void)state;
	/* mov %sil,(%rcx): memset's loop; REX 0x40 makes 6 SIL, not DH */
	assert_true(DECODE(MMIO_MODE_64, 0x40, 0x88, 0x31));
	expect_byte(3, true, MMIO_RSI, false);
	/* mov %dh,(%rcx): the same ModRM without REX */
	assert_true(DECODE(MMIO_MODE_64, 0x88, 0x31));
	expect_byte(2, true, MMIO_RDX, true);
	/* mov (%rdi),%ah; mov (%rdi),%spl; mov (%rdi),%al */
	assert_true(DECODE(MMIO_MODE_64, 0x8a, 0x27));
	expect_byte(2, false, MMIO_RAX, true);
	assert_true(DECODE(MMIO_MODE_64, 0x40, 0x8a, 0x27));
	expect_byte(3, false, MMIO_RSP, false);
	assert_true(DECODE(MMIO_MODE_64, 0x8a, 0x07));
	expect_byte(2, false, MMIO_RAX, false);
	/* mov 0x30(%rdi),%bh; with REX.R: mov 0x30(%rdi),%r15b */
	assert_true(DECODE(MMIO_MODE_64, 0x8a, 0x7f, 0x30));
	expect_byte(3, false, MMIO_RBX, true);
	assert_true(DECODE(MMIO_MODE_64, 0x44, 0x8a, 0x7f, 0x30));
	expect_byte(4, false, MMIO_R15, false);
	/* REX.W and 0x66 leave a byte form a byte: mov %ch,(%rax) under
	 * 0x66; REX.W makes 5 BPL */
	assert_true(DECODE(MMIO_MODE_64, 0x66, 0x88, 0x28));
	expect_byte(3, true, MMIO_RCX, true);
	assert_true(DECODE(MMIO_MODE_64, 0x48, 0x88, 0x28));
	expect_byte(3, true, MMIO_RBP, false);
	/* 32-bit code has no REX: 0x40 is INC EAX, 4-7 always AH..BH */
	assert_true(DECODE(MMIO_MODE_32, 0x88, 0x3d, 0x80, 0, 0xe0, 0xfe));
	expect_byte(6, true, MMIO_RBX, true);
	assert_false(DECODE(MMIO_MODE_32, 0x40, 0x88, 0x31));
	/* A REX before 0x66 does not count: %dh again */
	assert_true(DECODE(MMIO_MODE_64, 0x40, 0x66, 0x88, 0x31));
	expect_byte(4, true, MMIO_RDX, true);
}

static void byte_immediates(void **state)
{
	(void)state;
	/* movb $0xff,(%rdi) */
	assert_true(DECODE(MMIO_MODE_64, 0xc6, 0x07, 0xff));
	assert_true(insn.length == 3 && insn.size == 1 && insn.write &&
		    insn.has_immediate && insn.immediate == 0xff &&
		    !insn.high_byte);
	/* REX.W does not widen it: one immediate byte, not sign-extended */
	assert_true(DECODE(MMIO_MODE_64, 0x48, 0xc6, 0x07, 0x80));
	assert_true(insn.length == 4 && insn.size == 1 &&
		    insn.immediate == 0x80);
	/* 0x66 neither: movb $0x12,0x80(%eax) in 32-bit code, disp32 */
	assert_true(DECODE(MMIO_MODE_32, 0x66, 0xc6, 0x80, 0x80, 0, 0, 0,
			   0x12));
	assert_true(insn.length == 8 && insn.size == 1 &&
		    insn.immediate == 0x12);
	assert_false(DECODE(MMIO_MODE_64, 0xc6, 0x07));         /* no ib */
	assert_false(DECODE(MMIO_MODE_64, 0xc6, 0x0f, 0x01));   /* /1 */
}

static void zero_extending_loads(void **state)
{
	(void)state;
	/* movzbl (%rdi),%eax */
	assert_true(DECODE(MMIO_MODE_64, 0x0f, 0xb6, 0x07));
	assert_true(insn.length == 3 && insn.size == 1 && insn.reg_size == 4 &&
		    !insn.write && insn.reg == MMIO_RAX && !insn.high_byte);
	/* movzbl 0x30(%rdi),%esp: 4 is ESP here, never AH */
	assert_true(DECODE(MMIO_MODE_64, 0x0f, 0xb6, 0x67, 0x30));
	assert_true(insn.reg == MMIO_RSP && !insn.high_byte &&
		    insn.reg_size == 4);
	/* movzwq 0x10(%rdi),%r8 (REX.WR); movzbw (%rax),%cx (0x66) */
	assert_true(DECODE(MMIO_MODE_64, 0x4c, 0x0f, 0xb7, 0x47, 0x10));
	assert_true(insn.length == 5 && insn.size == 2 && insn.reg_size == 8 &&
		    insn.reg == MMIO_R8);
	assert_true(DECODE(MMIO_MODE_64, 0x66, 0x0f, 0xb6, 0x08));
	assert_true(insn.length == 4 && insn.size == 1 && insn.reg_size == 2 &&
		    insn.reg == MMIO_RCX);
	/* 32-bit code: movzwl 0xfee00030,%edx */
	assert_true(DECODE(MMIO_MODE_32, 0x0f, 0xb7, 0x15, 0x30, 0, 0xe0,
			   0xfe));
	assert_true(insn.length == 7 && insn.size == 2 && insn.reg_size == 4 &&
		    insn.reg == MMIO_RDX);
	assert_false(DECODE(MMIO_MODE_64, 0x0f, 0xbe, 0x07));   /* movsx */
	assert_false(DECODE(MMIO_MODE_64, 0x0f, 0xb6, 0xc0));   /* register */
	assert_false(DECODE(MMIO_MODE_64, 0x0f, 0xb6));
	assert_false(DECODE(MMIO_MODE_64, 0x0f));
}

static void refusals(void **state)
{
	(void)state;
	assert_false(DECODE(MMIO_MODE_64, 0x01, 0x00));         /* add */
	assert_false(DECODE(MMIO_MODE_64, 0x88, 0xc0));         /* register */
	assert_false(DECODE(MMIO_MODE_64, 0x8c, 0x00));         /* mov sreg */
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

/* The 64-bit instruction of these bytes into insn, or the test fails. */
#define INSN(...) assert_true(DECODE(MMIO_MODE_64, __VA_ARGS__))

static void merged_loads(void **state)
{
	const uint64_t old = 0x1122334455667788ull;

	(void)state;
	INSN(0x66, 0x8b, 0x07);                 /* 16-bit: 63:16 kept */
	assert_true(mmio_merge_load(&insn, ~0ull, 0x1234) ==
		    0xffffffffffff1234ull);
	INSN(0x8b, 0x07);                       /* 32-bit: zero-extended */
	assert_true(mmio_merge_load(&insn, ~0ull, 0x12345678) == 0x12345678);
	assert_true(mmio_merge_load(&insn, 0, ~0ull) == 0xffffffffull);
	INSN(0x48, 0x8b, 0x07);
	assert_true(mmio_merge_load(&insn, 1, 0x1122334455667788ull) ==
		    0x1122334455667788ull);
	INSN(0x8a, 0x07);                       /* AL: the low byte only */
	assert_true(mmio_merge_load(&insn, old, ~0ull) ==
		    0x11223344556677ffull);
	INSN(0x8a, 0x27);                       /* AH: bits 15:8 only */
	assert_true(mmio_merge_load(&insn, old, 0xab) ==
		    0x112233445566ab88ull);
	assert_true(mmio_merge_load(&insn, old, ~0ull) ==
		    0x112233445566ff88ull);
	INSN(0x40, 0x8a, 0x27);                 /* SPL: the low byte */
	assert_true(mmio_merge_load(&insn, old, 0xab) ==
		    0x11223344556677abull);
	INSN(0x0f, 0xb6, 0x07);                 /* movzbl: the whole RAX */
	assert_true(mmio_merge_load(&insn, old, ~0ull) == 0xff);
	INSN(0x66, 0x0f, 0xb6, 0x07);           /* movzbw: 63:16 kept */
	assert_true(mmio_merge_load(&insn, old, 0x1ab) ==
		    0x11223344556600abull);
	INSN(0x48, 0x0f, 0xb7, 0x07);           /* movzwq */
	assert_true(mmio_merge_load(&insn, old, ~0ull) == 0xffff);
}

static void stored_values(void **state)
{
	const uint64_t reg = 0x1122334455667788ull;

	(void)state;
	INSN(0x88, 0x07);                       /* AL */
	assert_true(mmio_store_value(&insn, reg) == 0x88);
	INSN(0x88, 0x27);                       /* AH */
	assert_true(mmio_store_value(&insn, reg) == 0x77);
	INSN(0x40, 0x88, 0x27);                 /* SPL */
	assert_true(mmio_store_value(&insn, reg) == 0x88);
	INSN(0x66, 0x89, 0x07);
	assert_true(mmio_store_value(&insn, reg) == 0x7788);
	INSN(0x89, 0x07);
	assert_true(mmio_store_value(&insn, reg) == 0x55667788);
	INSN(0x48, 0x89, 0x07);
	assert_true(mmio_store_value(&insn, reg) == reg);
	INSN(0xc6, 0x07, 0x5a);                 /* the immediate, not RAX */
	assert_true(mmio_store_value(&insn, reg) == 0x5a);
	INSN(0x48, 0xc7, 0x07, 0xfe, 0xff, 0xff, 0xff);
	assert_true(mmio_store_value(&insn, reg) == ~1ull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(loads),
		cmocka_unit_test(stores),
		cmocka_unit_test(absolute_addresses),
		cmocka_unit_test(byte_loads_and_stores),
		cmocka_unit_test(byte_immediates),
		cmocka_unit_test(zero_extending_loads),
		cmocka_unit_test(refusals),
		cmocka_unit_test(merged_loads),
		cmocka_unit_test(stored_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
