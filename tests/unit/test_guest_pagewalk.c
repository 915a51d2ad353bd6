/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/guest_pagewalk.c over page tables built in a fake guest RAM: each
 * paging mode, each page size, and the #PF cases (not present, a write to
 * a read-only page with and without CR0.WP, a user access to a supervisor
 * page), and a table outside RAM.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86/cpu.h"
#include "guest/guest_pagewalk.h"

#define RAM_SIZE (1u << 20)
#define P 1ull
#define RW 2ull
#define US 4ull
#define PS 0x80ull

static uint8_t ram[RAM_SIZE];

static int rd(void *ctx, uint64_t gpa, void *buf, unsigned len)
{
	(void)ctx;
	if (gpa >= RAM_SIZE || RAM_SIZE - gpa < len)
		return -1;
	memcpy(buf, ram + gpa, len);
	return 0;
}

static void put64(uint64_t gpa, uint64_t v)
{
	memcpy(ram + gpa, &v, 8);
}

static void put32(uint64_t gpa, uint32_t v)
{
	memcpy(ram + gpa, &v, 4);
}

static int setup(void **state)
{
	(void)state;
	memset(ram, 0, sizeof(ram));
	return 0;
}

static enum guest_walk walk(const struct guest_paging *p, uint64_t la,
			    bool write, bool user, uint64_t *gpa,
			    uint32_t *err)
{
	*gpa = 0xdead;
	*err = 0xdead;
	return guest_pagewalk(p, la, write, user, rd, NULL, gpa, err);
}

static void paging_off_is_identity(void **state)
{
	struct guest_paging p = { .cr0 = CR0_PE };
	uint64_t gpa;
	uint32_t err;

	(void)state;
	assert_int_equal(walk(&p, 0x12345, true, false, &gpa, &err),
			 GUEST_WALK_OK);
	assert_int_equal(gpa, 0x12345);
}

/* 4-level: PML4 at 0x1000, PDPT 0x2000, PD 0x3000, PT 0x4000. */
static struct guest_paging four_level(void)
{
	put64(0x1000 + 1 * 8, 0x2000 | P | RW | US);        /* la 512 GiB */
	put64(0x2000 + 0 * 8, 0x3000 | P | RW | US);
	put64(0x2000 + 1 * 8, 0x40000000 | P | RW | PS);   /* 1 GiB page */
	put64(0x3000 + 0 * 8, 0x4000 | P | RW | US);
	put64(0x3000 + 1 * 8, 0x200000 | P | US | PS);     /* 2 MiB, RO */
	put64(0x4000 + 5 * 8, 0x7000 | P | RW | US);
	put64(0x4000 + 6 * 8, 0x8000 | P | US);            /* RO */
	put64(0x4000 + 7 * 8, 0x9000 | P | RW);            /* supervisor */
	return (struct guest_paging){
		.cr0 = CR0_PE | CR0_PG | CR0_WP, .cr3 = 0x1000,
		.cr4 = CR4_PAE, .efer = EFER_LME | EFER_LMA,
	};
}

#define BASE (1ull << 39)

static void four_level_pages(void **state)
{
	struct guest_paging p = four_level();
	uint64_t gpa;
	uint32_t err;

	(void)state;
	assert_int_equal(walk(&p, BASE + 0x5123, true, true, &gpa, &err),
			 GUEST_WALK_OK);
	assert_int_equal(gpa, 0x7123);
	assert_int_equal(walk(&p, BASE + 0x200000 + 0x12345, false, true,
			      &gpa, &err), GUEST_WALK_OK);
	assert_int_equal(gpa, 0x212345);
	assert_int_equal(walk(&p, BASE + (1ull << 30) + 0x123456, true,
			      false, &gpa, &err), GUEST_WALK_OK);
	assert_int_equal(gpa, 0x40123456);
}

static void four_level_faults(void **state)
{
	struct guest_paging p = four_level();
	uint64_t gpa;
	uint32_t err;

	(void)state;
	/* Not present: PT entry 8, and PML4 entry 0. */
	assert_int_equal(walk(&p, BASE + 0x8000, false, false, &gpa, &err),
			 GUEST_WALK_PAGE_FAULT);
	assert_int_equal(err, 0);
	assert_int_equal(walk(&p, 0x1000, true, true, &gpa, &err),
			 GUEST_WALK_PAGE_FAULT);
	assert_int_equal(err, PF_ERR_WRITE | PF_ERR_USER);
	/* Read-only: a write faults, from ring 0 too while CR0.WP = 1. */
	assert_int_equal(walk(&p, BASE + 0x6000, true, false, &gpa, &err),
			 GUEST_WALK_PAGE_FAULT);
	assert_int_equal(err, PF_ERR_PRESENT | PF_ERR_WRITE);
	assert_int_equal(walk(&p, BASE + 0x200000, true, true, &gpa, &err),
			 GUEST_WALK_PAGE_FAULT);
	assert_int_equal(err, PF_ERR_PRESENT | PF_ERR_WRITE | PF_ERR_USER);
	p.cr0 &= ~CR0_WP;
	assert_int_equal(walk(&p, BASE + 0x6000, true, false, &gpa, &err),
			 GUEST_WALK_OK);
	assert_int_equal(gpa, 0x8000);
	/* A supervisor page: user accesses fault, ring 0 does not. */
	assert_int_equal(walk(&p, BASE + 0x7000, false, true, &gpa, &err),
			 GUEST_WALK_PAGE_FAULT);
	assert_int_equal(err, PF_ERR_PRESENT | PF_ERR_USER);
	assert_int_equal(walk(&p, BASE + 0x7000, false, false, &gpa, &err),
			 GUEST_WALK_OK);
	/* The 1 GiB page has no U/S: user accesses fault. */
	assert_int_equal(walk(&p, BASE + (1ull << 30), false, true, &gpa,
			      &err), GUEST_WALK_PAGE_FAULT);
	/* A table outside RAM. */
	put64(0x4000 + 9 * 8, 0x7fff0000 | P | RW | US);
	put64(0x3000 + 2 * 8, 0x7fff0000 | P | RW | US);
	assert_int_equal(walk(&p, BASE + 0x400000, false, false, &gpa, &err),
			 GUEST_WALK_TABLE_UNREADABLE);
}

static void pae_paging(void **state)
{
	struct guest_paging p = {
		.cr0 = CR0_PE | CR0_PG, .cr3 = 0x1020, .cr4 = CR4_PAE,
	};
	uint64_t gpa;
	uint32_t err;

	(void)state;
	put64(0x1020 + 2 * 8, 0x3000 | P);              /* la 2-3 GiB */
	put64(0x3000 + 1 * 8, 0x600000 | P | RW | PS);  /* 2 MiB */
	put64(0x3000 + 2 * 8, 0x4000 | P | RW);
	put64(0x4000 + 3 * 8, 0x5000 | P | RW);
	assert_int_equal(walk(&p, 0x80200000 + 0x1234, true, false, &gpa,
			      &err), GUEST_WALK_OK);
	assert_int_equal(gpa, 0x601234);
	assert_int_equal(walk(&p, 0x80400000 + 0x3010, false, false, &gpa,
			      &err), GUEST_WALK_OK);
	assert_int_equal(gpa, 0x5010);
	assert_int_equal(walk(&p, 0x40000000, false, false, &gpa, &err),
			 GUEST_WALK_PAGE_FAULT);
}

static void thirty_two_bit_paging(void **state)
{
	struct guest_paging p = {
		.cr0 = CR0_PE | CR0_PG, .cr3 = 0x1000, .cr4 = BIT(4), /* PSE */
	};
	uint64_t gpa;
	uint32_t err;

	(void)state;
	put32(0x1000 + 1 * 4, 0x00800000 | P | RW | PS);   /* 4 MiB page */
	put32(0x1000 + 2 * 4, 0x2000 | P | RW | US);
	put32(0x2000 + 3 * 4, 0x6000 | P | RW | US);
	assert_int_equal(walk(&p, 0x00400000 + 0x12345, true, false, &gpa,
			      &err), GUEST_WALK_OK);
	assert_int_equal(gpa, 0x00812345);
	assert_int_equal(walk(&p, 0x00803abc, true, true, &gpa, &err),
			 GUEST_WALK_OK);
	assert_int_equal(gpa, 0x6abc);
	/* Without CR4.PSE the PS bit means nothing: a table at 8 MiB. */
	p.cr4 = 0;
	assert_int_equal(walk(&p, 0x00400000, false, false, &gpa, &err),
			 GUEST_WALK_TABLE_UNREADABLE);
}

#define T(name) cmocka_unit_test_setup(name, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(paging_off_is_identity),
		T(four_level_pages),
		T(four_level_faults),
		T(pae_paging),
		T(thirty_two_bit_paging),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
