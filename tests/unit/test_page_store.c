/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/page_store.c: the string stores that overwrite a whole page as
 * Linux and glibc emit them (clear_page_erms's REP STOSB with RCX 4096,
 * clear_page_rep's REP STOSQ with RCX 512, memset's REP STOSB over many
 * pages) and the fill each leaves; and the
 * refusals: no REP, another opcode, 0x67, the direction flag set, RDI
 * not at the page's start or not where the fault was, too few
 * iterations left, bytes cut short, more than 15 bytes of prefixes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "guest/page_store.h"

#define PAGE 0x7f0000201000ull

#define DECODE(regs, la, ...)                                                \
	({                                                                   \
		static const uint8_t b_[] = { __VA_ARGS__ };                 \
		page_store_decode(b_, sizeof(b_), regs, la, &ps);            \
	})

static struct page_store ps;

static struct page_store_regs regs_at(uint64_t rdi, uint64_t rcx,
				      uint64_t rax)
{
	return (struct page_store_regs){ .rax = rax, .rcx = rcx, .rdi = rdi,
					 .rflags = 0x246 };
}

static void linux_clear_page(void **state)
{
	struct page_store_regs r = regs_at(PAGE, 4096, 0);

	(void)state;
	/* clear_page_erms: rep stosb */
	assert_true(DECODE(&r, PAGE, 0xf3, 0xaa));
	assert_int_equal(ps.length, 2);
	assert_int_equal(ps.size, 1);
	assert_int_equal(ps.fill, 0);
	/* clear_page_rep: rep stosq */
	r = regs_at(PAGE, 512, 0);
	assert_true(DECODE(&r, PAGE, 0xf3, 0x48, 0xab));
	assert_int_equal(ps.length, 3);
	assert_int_equal(ps.size, 8);
}

static void a_memset_over_many_pages(void **state)
{
	struct page_store_regs r = regs_at(PAGE, 3 * 4096 + 100, 0x1234a5);

	(void)state;
	assert_true(DECODE(&r, PAGE, 0xf3, 0xaa));
	assert_int_equal(ps.fill, 0xa5a5a5a5a5a5a5a5ull);
}

static void the_fill_of_each_size(void **state)
{
	struct page_store_regs r = regs_at(PAGE, 4096, 0x1122334455667788ull);

	(void)state;
	r.rcx = 2048;           /* rep stosw */
	assert_true(DECODE(&r, PAGE, 0x66, 0xf3, 0xab));
	assert_int_equal(ps.size, 2);
	assert_int_equal(ps.fill, 0x7788778877887788ull);
	assert_int_equal(ps.length, 3);
	r.rcx = 1024;           /* rep stosl, a segment prefix ignored */
	assert_true(DECODE(&r, PAGE, 0x26, 0xf3, 0xab));
	assert_int_equal(ps.size, 4);
	assert_int_equal(ps.fill, 0x5566778855667788ull);
	r.rcx = 512;            /* repne stosq: F2 repeats STOS as F3 does */
	assert_true(DECODE(&r, PAGE, 0xf2, 0x48, 0xab));
	assert_int_equal(ps.fill, 0x1122334455667788ull);
	r.rcx = 1024;           /* a REX without W, then the opcode: stosl */
	assert_true(DECODE(&r, PAGE, 0xf3, 0x41, 0xab));
	assert_int_equal(ps.size, 4);
	/* a REX before another prefix is ignored: its W reaches nothing */
	assert_true(DECODE(&r, PAGE, 0x48, 0xf3, 0xab));
	assert_int_equal(ps.size, 4);
}

static void refused(void **state)
{
	struct page_store_regs r = regs_at(PAGE, 4096, 0);

	(void)state;
	assert_false(DECODE(&r, PAGE, 0xaa));                /* no REP */
	assert_false(DECODE(&r, PAGE, 0xf3, 0xa4));          /* rep movsb */
	assert_false(DECODE(&r, PAGE, 0xf3, 0x67, 0xaa));    /* 32-bit RDI */
	assert_false(DECODE(&r, PAGE, 0xf3));                /* cut short */
	r.rflags |= 1u << 10;                                /* DF: down */
	assert_false(DECODE(&r, PAGE, 0xf3, 0xaa));
	r = regs_at(PAGE + 8, 4096, 0);                      /* mid-page */
	assert_false(DECODE(&r, PAGE + 8, 0xf3, 0xaa));
	r = regs_at(PAGE, 4096, 0);                          /* elsewhere */
	assert_false(DECODE(&r, PAGE + 4096, 0xf3, 0xaa));
	r = regs_at(PAGE, 4095, 0);                          /* too short */
	assert_false(DECODE(&r, PAGE, 0xf3, 0xaa));
	r = regs_at(PAGE, 511, 0);
	assert_false(DECODE(&r, PAGE, 0xf3, 0x48, 0xab));
	r = regs_at(PAGE, 4096, 0);
	/* 14 prefixes and the opcode: 15 bytes, accepted; one more: not */
	assert_true(DECODE(&r, PAGE, 0xf3, 0x26, 0x26, 0x26, 0x26, 0x26,
			   0x26, 0x26, 0x26, 0x26, 0x26, 0x26, 0x26, 0x26,
			   0xaa));
	assert_int_equal(ps.length, 15);
	assert_false(DECODE(&r, PAGE, 0xf3, 0x26, 0x26, 0x26, 0x26, 0x26,
			    0x26, 0x26, 0x26, 0x26, 0x26, 0x26, 0x26, 0x26,
			    0x26, 0xaa));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(linux_clear_page),
		cmocka_unit_test(a_memset_over_many_pages),
		cmocka_unit_test(the_fill_of_each_size),
		cmocka_unit_test(refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
