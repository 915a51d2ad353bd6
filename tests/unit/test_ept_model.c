/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ept/ept.c against a model: thousands of random map/unmap/protect calls
 * whose results, and every lookup after them, must match a plain array.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/ept_fake.h"

/*
 * 64 regions of 2 MiB spread over several PML4 and PDPT entries, each either
 * one 2 MiB page or up to MODEL_SLOTS 4 KiB pages.
 */
#define MODEL_REGIONS 64
#define MODEL_SLOTS 32
#define MODEL_OPS 4000

struct model_region {
	bool large;
	uint64_t hpa, perms;
	bool mapped[MODEL_SLOTS];
	uint64_t slot_hpa[MODEL_SLOTS], slot_perms[MODEL_SLOTS];
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static uint64_t region_gpa(unsigned r)
{
	return ((uint64_t)(r >> 4) << 39) | ((uint64_t)((r >> 3) & 1) << 30) |
	       ((uint64_t)(r & 7) << 21);
}

static uint64_t random_perms(void)
{
	static const uint64_t p[] = {
		EPT_READ, EPT_READ | EPT_WRITE, EPT_READ | EPT_EXEC, EPT_RWX,
		EPT_EXEC,
	};

	return p[rng() % 5];
}

static bool region_has_4k(const struct model_region *m)
{
	for (unsigned s = 0; s < MODEL_SLOTS; s++) {
		if (m->mapped[s])
			return true;
	}
	return false;
}

static void model_check(struct fixture *f, struct model_region *model)
{
	for (unsigned r = 0; r < MODEL_REGIONS; r++) {
		const struct model_region *m = &model[r];

		/* One slot past the model's: only a 2 MiB page covers it. */
		for (unsigned s = 0; s <= MODEL_SLOTS; s++) {
			uint64_t gpa = region_gpa(r) + s * PAGE_SIZE + 8 * s;
			struct ept_mapping out;
			bool found = ept_lookup(&f->ept, gpa, &out);

			if (m->large) {
				assert_true(found);
				assert_int_equal(out.size, EPT_PAGE_2M);
				assert_int_equal(out.hpa, m->hpa);
				assert_int_equal(out.perms, m->perms);
			} else if (s < MODEL_SLOTS && m->mapped[s]) {
				assert_true(found);
				assert_int_equal(out.size, EPT_PAGE_4K);
				assert_int_equal(out.hpa, m->slot_hpa[s]);
				assert_int_equal(out.perms, m->slot_perms[s]);
			} else {
				assert_false(found);
			}
		}
	}
}

static void model_map(struct fixture *f, struct model_region *m,
		      uint64_t gpa, unsigned s, bool large)
{
	uint64_t perms = random_perms();
	uint64_t hpa = (rng() & 0xffffffffff000ull) &
		       ~(large ? LARGE_PAGE_SIZE - 1 : 0);
	enum hv_err want =
		m->large || (large ? region_has_4k(m) : m->mapped[s]) ?
		HV_ERR_EXISTS : HV_OK;

	assert_int_equal(ept_map(&f->ept, gpa, hpa,
				 large ? EPT_PAGE_2M : EPT_PAGE_4K, perms),
			 want);
	if (want)
		return;
	if (large) {
		m->large = true;
		m->hpa = hpa;
		m->perms = perms;
	} else {
		m->mapped[s] = true;
		m->slot_hpa[s] = hpa;
		m->slot_perms[s] = perms;
	}
}

/* An unmap of the wrong size fails (HV_ERR_CONFLICT), changing nothing. */
static void model_unmap(struct fixture *f, struct model_region *m,
			uint64_t gpa, unsigned s, bool large)
{
	struct ept_mapping old;
	enum hv_err ret = ept_unmap(&f->ept, gpa,
				    large ? EPT_PAGE_2M : EPT_PAGE_4K, &old);

	if (large && s != 0) {
		assert_int_equal(ret, HV_ERR_INVALID);
	} else if (m->large) {
		assert_int_equal(ret, large ? HV_OK : HV_ERR_CONFLICT);
		if (ret)
			return;
		assert_int_equal(old.size, EPT_PAGE_2M);
		assert_int_equal(old.hpa, m->hpa);
		m->large = false;
	} else if (large) {
		/* Only a 4 KiB leaf at the first page is found. */
		assert_int_equal(ret, m->mapped[0] ? HV_ERR_CONFLICT :
						     HV_ERR_NOT_FOUND);
	} else if (m->mapped[s]) {
		assert_int_equal(ret, 0);
		assert_int_equal(old.size, EPT_PAGE_4K);
		assert_int_equal(old.hpa, m->slot_hpa[s]);
		assert_int_equal(old.perms, m->slot_perms[s]);
		m->mapped[s] = false;
	} else {
		assert_int_equal(ret, HV_ERR_NOT_FOUND);
	}
}

static void model_protect(struct fixture *f, struct model_region *m,
			  uint64_t gpa, unsigned s)
{
	uint64_t perms = random_perms();
	enum hv_err ret = ept_protect(&f->ept, gpa + rng() % PAGE_SIZE, perms);

	if (m->large) {
		assert_int_equal(ret, 0);
		m->perms = perms;
	} else if (m->mapped[s]) {
		assert_int_equal(ret, 0);
		m->slot_perms[s] = perms;
	} else {
		assert_int_equal(ret, HV_ERR_NOT_FOUND);
	}
}

static void test_random_against_model(void **state)
{
	struct fixture *f = *state;
	static struct model_region model[MODEL_REGIONS];

	memset(model, 0, sizeof(model));
	for (unsigned i = 0; i < MODEL_OPS; i++) {
		unsigned r = rng() % MODEL_REGIONS;
		/* Slot 0 often: it is where 4K and 2M interact. */
		unsigned s = rng() % 4 ? rng() % MODEL_SLOTS : 0;
		uint64_t gpa = region_gpa(r) + s * PAGE_SIZE;

		switch (rng() % 4) {
		case 0:
			model_map(f, &model[r], gpa, s, false);
			break;
		case 1:
			model_map(f, &model[r], region_gpa(r), 0, true);
			break;
		case 2:
			model_unmap(f, &model[r], gpa, s, rng() % 4 == 0);
			break;
		default:
			model_protect(f, &model[r], gpa, s);
			break;
		}
		if (i % 256 == 0)
			model_check(f, model);
	}
	model_check(f, model);
	assert_int_equal(f->ept.tables, f->fm.used);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_random_against_model,
						ept_fixture_setup,
						ept_fixture_teardown),
	};

	return cmocka_run_group_tests_name("ept_model", tests, NULL, NULL);
}
