/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ept/ept.c: map/lookup/unmap of 4 KiB and 2 MiB pages, argument checks,
 * A/D bits, permissions and table allocation failure, over fake physical
 * memory (ept_fake.h) where phys != virt.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/ept_fake.h"

static void test_init_and_pointer(void **state)
{
	struct fixture *f = *state;
	uint64_t eptp = ept_pointer(&f->ept);

	assert_int_equal(f->ept.tables, 1);
	assert_int_equal(f->ept.pml4_pa, FAKE_BASE);
	/* SDM 25.6.11: WB (6) in 2:0, walk length 4-1 in 5:3, A/D in 6. */
	assert_int_equal(eptp & 7, 6);
	assert_int_equal((eptp >> 3) & 7, 3);
	assert_true(eptp & BIT(6));
	assert_int_equal(eptp & ~0xfffull, FAKE_BASE);
	assert_int_equal(eptp & 0xf80, 0);
	assert_int_equal(eptp, FAKE_BASE | 0x5e);
}

static void test_init_failure(void **state)
{
	struct fake_mem fm = { .arena = NULL, .fail_at = 0 };
	struct ept_memory mem = { fake_alloc, fake_phys_to_virt, &fm };
	struct ept ept;

	(void)state;
	assert_int_equal(ept_init(&ept, &mem), HV_ERR_NOMEM);
}

static void test_map_4k(void **state)
{
	struct fixture *f = *state;
	uint64_t gpa = 0x12345000, hpa = 0xabcdef000;
	struct ept_mapping m;
	uint64_t *e;
	int level;

	assert_int_equal(ept_map(&f->ept, gpa, hpa, EPT_PAGE_4K,
				 EPT_READ | EPT_EXEC), 0);
	assert_int_equal(f->ept.tables, 4);
	assert_int_equal(f->fm.used, 4);

	assert_true(ept_lookup(&f->ept, gpa + 0x123, &m));
	assert_int_equal(m.hpa, hpa);
	assert_int_equal(m.size, EPT_PAGE_4K);
	assert_int_equal(m.perms, EPT_READ | EPT_EXEC);
	assert_false(m.accessed);
	assert_false(m.dirty);
	assert_false(ept_lookup(&f->ept, gpa + PAGE_SIZE, &m));
	assert_false(ept_lookup(&f->ept, gpa - PAGE_SIZE, &m));

	/* The entry is exactly address | WB << 3 | perms (SDM Table 29-6). */
	e = cpu_walk(f, gpa, &level);
	assert_non_null(e);
	assert_int_equal(level, 1);
	assert_int_equal(*e, hpa | (6 << 3) | EPT_READ | EPT_EXEC);

	/* A second page in the same table needs no new table. */
	assert_int_equal(ept_map(&f->ept, gpa + PAGE_SIZE, hpa, EPT_PAGE_4K,
				 EPT_RWX), 0);
	assert_int_equal(f->ept.tables, 4);
}

static void test_map_2m(void **state)
{
	struct fixture *f = *state;
	uint64_t gpa = 0x40000000, hpa = 0x7fe00000;
	struct ept_mapping m;
	uint64_t *e;
	int level;

	assert_int_equal(ept_map(&f->ept, gpa, hpa, EPT_PAGE_2M, EPT_RWX), 0);
	assert_int_equal(f->ept.tables, 3);

	assert_true(ept_lookup(&f->ept, gpa + LARGE_PAGE_SIZE - 1, &m));
	assert_int_equal(m.hpa, hpa);
	assert_int_equal(m.size, EPT_PAGE_2M);
	assert_int_equal(m.perms, EPT_RWX);
	assert_false(ept_lookup(&f->ept, gpa + LARGE_PAGE_SIZE, NULL));
	assert_true(ept_lookup(&f->ept, gpa, NULL));

	e = cpu_walk(f, gpa + 0x5000, &level);
	assert_non_null(e);
	assert_int_equal(level, 2);
	assert_int_equal(*e, hpa | (6 << 3) | EPT_LARGE_PAGE | EPT_RWX);
}

static void test_bad_arguments(void **state)
{
	struct fixture *f = *state;
	struct ept *ept = &f->ept;

	assert_int_equal(ept_map(ept, 0x1001, 0x2000, EPT_PAGE_4K, EPT_RWX),
			 HV_ERR_INVALID);
	assert_int_equal(ept_map(ept, 0x1000, 0x2001, EPT_PAGE_4K, EPT_RWX),
			 HV_ERR_INVALID);
	assert_int_equal(ept_map(ept, 0x1000, 0x200000, EPT_PAGE_2M, EPT_RWX),
			 HV_ERR_INVALID);
	assert_int_equal(ept_map(ept, 0x200000, 0x1000, EPT_PAGE_2M, EPT_RWX),
			 HV_ERR_INVALID);
	assert_int_equal(ept_map(ept, BIT(48), 0x1000, EPT_PAGE_4K, EPT_RWX),
			 HV_ERR_INVALID);
	assert_int_equal(ept_map(ept, 0x1000, BIT(52), EPT_PAGE_4K, EPT_RWX),
			 HV_ERR_INVALID);
	assert_int_equal(ept_map(ept, 0x1000, 0x1000, (enum ept_page_size)2,
				 EPT_RWX), HV_ERR_INVALID);
	/* No access at all, write without read, or stray bits. */
	assert_int_equal(ept_map(ept, 0x1000, 0x1000, EPT_PAGE_4K, 0),
			 HV_ERR_INVALID);
	assert_int_equal(ept_map(ept, 0x1000, 0x1000, EPT_PAGE_4K, EPT_WRITE),
			 HV_ERR_INVALID);
	assert_int_equal(ept_map(ept, 0x1000, 0x1000, EPT_PAGE_4K,
				 EPT_WRITE | EPT_EXEC), HV_ERR_INVALID);
	assert_int_equal(ept_map(ept, 0x1000, 0x1000, EPT_PAGE_4K,
				 EPT_RWX | EPT_LARGE_PAGE), HV_ERR_INVALID);
	/* Nothing was built for any of these. */
	assert_int_equal(ept->tables, 1);
	assert_false(ept_lookup(ept, 0x1000, NULL));
	/* Execute-only is the caller's call (a CPU capability). */
	assert_int_equal(ept_map(ept, 0x1000, 0x1000, EPT_PAGE_4K, EPT_EXEC),
			 0);
	/* The highest 4-level address works. */
	assert_int_equal(ept_map(ept, BIT(48) - PAGE_SIZE, EPT_ADDR_MASK,
				 EPT_PAGE_4K, EPT_READ), 0);
	assert_false(ept_lookup(ept, BIT(48), NULL));
}

static void test_double_map(void **state)
{
	struct fixture *f = *state;
	struct ept *ept = &f->ept;
	struct ept_mapping m;

	assert_int_equal(ept_map(ept, 0x5000, 0xa000, EPT_PAGE_4K, EPT_READ),
			 0);
	assert_int_equal(ept_map(ept, 0x5000, 0xb000, EPT_PAGE_4K, EPT_RWX),
			 HV_ERR_EXISTS);
	assert_true(ept_lookup(ept, 0x5000, &m));
	assert_int_equal(m.hpa, 0xa000);
	assert_int_equal(m.perms, EPT_READ);

	/* A 2 MiB map over a table that still has a mapping. */
	assert_int_equal(ept_map(ept, 0, 0x200000, EPT_PAGE_2M, EPT_RWX),
			 HV_ERR_EXISTS);
	assert_true(ept_lookup(ept, 0x5000, &m));
	assert_int_equal(m.size, EPT_PAGE_4K);

	/* 2 MiB twice, and 4 KiB inside 2 MiB. */
	assert_int_equal(ept_map(ept, 0x400000, 0x600000, EPT_PAGE_2M,
				 EPT_RWX), 0);
	assert_int_equal(ept_map(ept, 0x400000, 0x800000, EPT_PAGE_2M,
				 EPT_RWX), HV_ERR_EXISTS);
	assert_int_equal(ept_map(ept, 0x401000, 0x1000, EPT_PAGE_4K, EPT_RWX),
			 HV_ERR_EXISTS);
	assert_int_equal(ept_map(ept, 0x400000, 0x1000, EPT_PAGE_4K, EPT_RWX),
			 HV_ERR_EXISTS);
	assert_true(ept_lookup(ept, 0x401000, &m));
	assert_int_equal(m.hpa, 0x600000);
	assert_int_equal(m.size, EPT_PAGE_2M);
}

static void test_2m_over_empty_table(void **state)
{
	struct fixture *f = *state;
	struct ept *ept = &f->ept;
	struct ept_mapping m;
	uint64_t tables;

	assert_int_equal(ept_map(ept, 0x201000, 0x1000, EPT_PAGE_4K, EPT_RWX),
			 0);
	tables = ept->tables;
	assert_int_equal(ept_unmap(ept, 0x201000, EPT_PAGE_4K, NULL), 0);
	/* The page table is empty now: a 2 MiB page may replace it. */
	assert_int_equal(ept_map(ept, 0x200000, 0xc00000, EPT_PAGE_2M,
				 EPT_RWX), 0);
	assert_int_equal(ept->tables, tables);
	assert_true(ept_lookup(ept, 0x201000, &m));
	assert_int_equal(m.size, EPT_PAGE_2M);
	assert_int_equal(m.hpa, 0xc00000);
	/* And going back to 4 KiB pages takes a fresh table. */
	assert_int_equal(ept_unmap(ept, 0x200000, EPT_PAGE_2M, NULL), 0);
	assert_int_equal(ept_map(ept, 0x201000, 0x1000, EPT_PAGE_4K, EPT_RWX),
			 0);
	assert_int_equal(ept->tables, tables + 1);
}

static void test_unmap(void **state)
{
	struct fixture *f = *state;
	struct ept *ept = &f->ept;
	struct ept_mapping old;
	uint64_t *e;
	int level;

	assert_int_equal(ept_unmap(ept, 0x3000, EPT_PAGE_4K, &old),
			 HV_ERR_NOT_FOUND);
	assert_int_equal(ept_map(ept, 0x3000, 0x9000, EPT_PAGE_4K, EPT_RWX), 0);
	e = cpu_walk(f, 0x3000, &level);
	*e |= EPT_ACCESSED | EPT_DIRTY;
	/* Only from the page's first byte. */
	assert_int_equal(ept_unmap(ept, 0x3010, EPT_PAGE_4K, &old),
			 HV_ERR_INVALID);
	memset(&old, 0, sizeof(old));
	assert_int_equal(ept_unmap(ept, 0x3000, EPT_PAGE_4K, &old), 0);
	assert_int_equal(old.hpa, 0x9000);
	assert_int_equal(old.size, EPT_PAGE_4K);
	assert_int_equal(old.perms, EPT_RWX);
	assert_true(old.accessed);
	assert_true(old.dirty);
	assert_false(ept_lookup(ept, 0x3000, NULL));
	assert_int_equal(*e, 0);
	assert_int_equal(ept_unmap(ept, 0x3000, EPT_PAGE_4K, &old),
			 HV_ERR_NOT_FOUND);

	/* 2 MiB: a 4 KiB page inside it cannot be unmapped on its own. */
	assert_int_equal(ept_map(ept, 0x600000, 0xa00000, EPT_PAGE_2M,
				 EPT_READ), 0);
	assert_int_equal(ept_unmap(ept, 0x601000, EPT_PAGE_4K, &old),
			 HV_ERR_CONFLICT);
	assert_int_equal(ept_unmap(ept, 0x601000, EPT_PAGE_2M, &old),
			 HV_ERR_INVALID);
	assert_true(ept_lookup(ept, 0x601000, NULL));
	assert_int_equal(ept_unmap(ept, 0x600000, EPT_PAGE_2M, NULL), 0);
	assert_false(ept_lookup(ept, 0x601000, NULL));
	assert_int_equal(ept_map(ept, 0x600000, 0xa00000, EPT_PAGE_2M,
				 EPT_READ), 0);
	assert_int_equal(ept_unmap(ept, 0x600000, EPT_PAGE_2M, &old), 0);
	assert_int_equal(old.size, EPT_PAGE_2M);
	assert_int_equal(old.hpa, 0xa00000);
	assert_false(old.accessed);
}

static void test_accessed_dirty(void **state)
{
	struct fixture *f = *state;
	struct ept *ept = &f->ept;
	struct ept_mapping m;
	uint64_t *e, before;
	int level;

	assert_int_equal(ept_map(ept, 0x8000, 0x5000, EPT_PAGE_4K, EPT_RWX), 0);
	assert_int_equal(ept_map(ept, 0x800000, 0x400000, EPT_PAGE_2M,
				 EPT_RWX), 0);
	assert_false(ept_test_and_clear_accessed(ept, 0x8000));
	assert_false(ept_test_and_clear_dirty(ept, 0x8000));

	/* The CPU reads and writes the page. */
	e = cpu_walk(f, 0x8000, &level);
	*e |= EPT_ACCESSED | EPT_DIRTY;
	before = *e;
	assert_true(ept_lookup(ept, 0x8000, &m));
	assert_true(m.accessed);
	assert_true(m.dirty);

	assert_true(ept_test_and_clear_accessed(ept, 0x8abc));
	assert_int_equal(*e, before & ~EPT_ACCESSED);
	assert_false(ept_test_and_clear_accessed(ept, 0x8000));
	assert_true(ept_lookup(ept, 0x8000, &m));
	assert_false(m.accessed);
	assert_true(m.dirty);
	assert_true(ept_test_and_clear_dirty(ept, 0x8000));
	assert_false(ept_test_and_clear_dirty(ept, 0x8000));
	assert_int_equal(*e, before & ~(EPT_ACCESSED | EPT_DIRTY));

	/* Same on a 2 MiB leaf, from any address inside it. */
	e = cpu_walk(f, 0x800000, &level);
	assert_int_equal(level, 2);
	*e |= EPT_DIRTY;
	assert_false(ept_test_and_clear_accessed(ept, 0x9ff000));
	assert_true(ept_test_and_clear_dirty(ept, 0x9ff000));
	assert_int_equal(*e & EPT_DIRTY, 0);

	/* Nothing mapped: nothing set. */
	assert_false(ept_test_and_clear_accessed(ept, 0x7000));
	assert_false(ept_test_and_clear_dirty(ept, BIT(47)));
}

static void test_protect(void **state)
{
	struct fixture *f = *state;
	struct ept *ept = &f->ept;
	struct ept_mapping m;
	uint64_t *e;
	int level;

	assert_int_equal(ept_protect(ept, 0x2000, EPT_READ), HV_ERR_NOT_FOUND);
	assert_int_equal(ept_map(ept, 0x2000, 0x3000, EPT_PAGE_4K, EPT_RWX), 0);
	e = cpu_walk(f, 0x2000, &level);
	*e |= EPT_ACCESSED | EPT_DIRTY;
	assert_int_equal(ept_protect(ept, 0x2fff, EPT_READ), 0);
	assert_true(ept_lookup(ept, 0x2000, &m));
	assert_int_equal(m.perms, EPT_READ);
	assert_int_equal(m.hpa, 0x3000);
	assert_true(m.accessed);
	assert_true(m.dirty);
	assert_int_equal(*e, 0x3000 | (6 << 3) | EPT_READ | EPT_ACCESSED |
				     EPT_DIRTY);
	assert_int_equal(ept_protect(ept, 0x2000, 0), HV_ERR_INVALID);
	assert_int_equal(ept_protect(ept, 0x2000, EPT_WRITE), HV_ERR_INVALID);
	assert_int_equal(ept_protect(ept, 0x2000, BIT(3)), HV_ERR_INVALID);
	assert_true(ept_lookup(ept, 0x2000, &m));
	assert_int_equal(m.perms, EPT_READ);
}

/*
 * A 4 KiB unmap at the first byte of a 2 MiB page is refused
 * (HV_ERR_CONFLICT) and the 2 MiB stay mapped; so is a 2 MiB unmap of a
 * 4 KiB page.
 */
static void test_unmap_wrong_size(void **state)
{
	struct fixture *f = *state;
	struct ept *ept = &f->ept;
	struct ept_mapping m;

	assert_int_equal(ept_map(ept, 0x400000, 0x800000, EPT_PAGE_2M,
				 EPT_RWX), 0);
	assert_int_equal(ept_unmap(ept, 0x400000, EPT_PAGE_4K, &m),
			 HV_ERR_CONFLICT);
	assert_true(ept_lookup(ept, 0x400000, &m));
	assert_int_equal(m.size, EPT_PAGE_2M);
	assert_true(ept_lookup(ept, 0x5ff000, NULL));

	assert_int_equal(ept_map(ept, 0x200000, 0x1000, EPT_PAGE_4K, EPT_RWX),
			 0);
	assert_int_equal(ept_unmap(ept, 0x200000, EPT_PAGE_2M, &m),
			 HV_ERR_CONFLICT);
	assert_true(ept_lookup(ept, 0x200000, NULL));
	assert_int_equal(ept_unmap(ept, 0x200000, 3, &m), HV_ERR_INVALID);
}

/* EPT_ACCESSED in perms presets A (SDM 29.3.5); D stays clear. */
static void test_map_accessed(void **state)
{
	struct fixture *f = *state;
	struct ept *ept = &f->ept;
	struct ept_mapping m;
	uint64_t *e;
	int level;

	assert_int_equal(ept_map(ept, 0x7000, 0x9000, EPT_PAGE_4K,
				 EPT_RWX | EPT_ACCESSED), 0);
	e = cpu_walk(f, 0x7000, &level);
	assert_int_equal(*e, 0x9000 | (6 << 3) | EPT_RWX | EPT_ACCESSED);
	assert_true(ept_lookup(ept, 0x7000, &m));
	assert_true(m.accessed);
	assert_false(m.dirty);
	assert_int_equal(m.perms, EPT_RWX);
	assert_true(ept_test_and_clear_accessed(ept, 0x7000));
	assert_false(ept_test_and_clear_accessed(ept, 0x7000));

	assert_int_equal(ept_map(ept, 0x200000, 0x400000, EPT_PAGE_2M,
				 EPT_READ | EPT_ACCESSED), 0);
	assert_true(ept_lookup(ept, 0x200000, &m));
	assert_true(m.accessed);
	assert_int_equal(m.perms, EPT_READ);

	/* Only A may be preset; A alone grants nothing. */
	assert_int_equal(ept_map(ept, 0x8000, 0x9000, EPT_PAGE_4K,
				 EPT_RWX | EPT_DIRTY), HV_ERR_INVALID);
	assert_int_equal(ept_map(ept, 0x8000, 0x9000, EPT_PAGE_4K,
				 EPT_ACCESSED), HV_ERR_INVALID);
	assert_int_equal(ept_protect(ept, 0x7000, EPT_READ | EPT_ACCESSED),
			 HV_ERR_INVALID);
}

static void test_alloc_failure(void **state)
{
	struct fixture *f = *state;
	struct ept *ept = &f->ept;
	uint64_t gpa = 0x8040201000ull;

	/* Fail the PDPT, then the PD, then the PT of the same walk. */
	for (unsigned extra = 0; extra < 3; extra++) {
		f->fm.fail_at = f->fm.used + (extra ? 1 : 0);
		assert_int_equal(ept_map(ept, gpa, 0x1000, EPT_PAGE_4K,
					 EPT_RWX), HV_ERR_NOMEM);
		assert_false(ept_lookup(ept, gpa, NULL));
		assert_int_equal(ept->tables, f->fm.used);
	}
	/* The tables made so far are reused: only the PT is missing. */
	f->fm.fail_at = NO_FAIL;
	assert_int_equal(ept_map(ept, gpa, 0x1000, EPT_PAGE_4K, EPT_RWX), 0);
	assert_int_equal(ept->tables, 4);
	assert_true(ept_lookup(ept, gpa, NULL));

	/* Running out of memory altogether. */
	f->fm.fail_at = f->fm.used;
	assert_int_equal(ept_map(ept, 0x200000, 0x200000, EPT_PAGE_4K,
				 EPT_RWX), HV_ERR_NOMEM);
	assert_int_equal(ept_map(ept, 0x200000, 0x200000, EPT_PAGE_2M,
				 EPT_RWX), HV_ERR_NOMEM);
	/* A map that needs no new table still works. */
	assert_int_equal(ept_map(ept, gpa + PAGE_SIZE, 0x2000, EPT_PAGE_4K,
				 EPT_RWX), 0);
}

#define EPT_TEST(fn) \
	cmocka_unit_test_setup_teardown(fn, ept_fixture_setup, \
					ept_fixture_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		EPT_TEST(test_init_and_pointer),
		cmocka_unit_test(test_init_failure),
		EPT_TEST(test_map_4k),
		EPT_TEST(test_map_2m),
		EPT_TEST(test_bad_arguments),
		EPT_TEST(test_double_map),
		EPT_TEST(test_2m_over_empty_table),
		EPT_TEST(test_unmap),
		EPT_TEST(test_accessed_dirty),
		EPT_TEST(test_protect),
		EPT_TEST(test_alloc_failure),
		EPT_TEST(test_unmap_wrong_size),
		EPT_TEST(test_map_accessed),
	};

	return cmocka_run_group_tests_name("ept", tests, NULL, NULL);
}
