/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/devices/io_registry.c: port and MMIO ranges registered, refused
 * when they overlap (or are empty, too long, too many), found at their
 * first and last address and not one past; unclaimed addresses find
 * nothing; a per-vCPU MMIO range found where that vCPU has it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "guest/devices/io_registry.h"

static struct io_registry reg;

static enum io_claim port_a(struct vm *vm, void *opaque, uint16_t port,
			    unsigned size, bool in, uint32_t *value)
{
	(void)vm; (void)opaque; (void)port; (void)size; (void)in;
	(void)value;
	return IO_CLAIMED;
}

static enum io_claim mmio_a(struct vm *vm, void *opaque, unsigned vcpu,
			    uint64_t offset, unsigned size, bool write,
			    uint64_t *value)
{
	(void)vm; (void)opaque; (void)vcpu; (void)offset; (void)size;
	(void)write; (void)value;
	return IO_CLAIMED;
}

static enum io_register_result ports(uint16_t base, uint32_t count,
				     void *opaque)
{
	const struct io_port_range r = {
		.base = base, .count = count, .fn = port_a, .opaque = opaque,
	};

	return io_register_ports(&reg, &r);
}

static enum io_register_result mmio(uint64_t base, uint64_t len)
{
	const struct io_mmio_range r = { .base = base, .len = len,
					 .fn = mmio_a };

	return io_register_mmio(&reg, &r);
}

static int setup(void **state)
{
	(void)state;
	io_registry_init(&reg);
	return 0;
}

static void empty_registry_claims_nothing(void **state)
{
	uint64_t off;

	(void)state;
	for (uint32_t p = 0; p < IO_PORT_SPACE; p++)
		assert_null(io_find_port(&reg, (uint16_t)p));
	assert_int_equal(io_find_mmio(&reg, 0, 0xfec00000, 0, &off), -1);
}

static void port_found_at_its_edges_only(void **state)
{
	int a, b;
	const struct io_port_range *r;

	(void)state;
	assert_int_equal(ports(0x3f8, 8, &a), IO_REGISTERED);
	assert_int_equal(ports(0x20, 2, &b), IO_REGISTERED);
	assert_null(io_find_port(&reg, 0x3f7));
	r = io_find_port(&reg, 0x3f8);
	assert_non_null(r);
	assert_ptr_equal(r->opaque, &a);
	assert_ptr_equal(io_find_port(&reg, 0x3ff), r);
	assert_null(io_find_port(&reg, 0x400));
	assert_ptr_equal(io_find_port(&reg, 0x21)->opaque, &b);
	assert_null(io_find_port(&reg, 0x22));
	assert_null(io_find_port(&reg, 0x1f));
}

static void port_space_ends_are_usable(void **state)
{
	(void)state;
	assert_int_equal(ports(0, 1, NULL), IO_REGISTERED);
	assert_int_equal(ports(0xffff, 1, NULL), IO_REGISTERED);
	assert_non_null(io_find_port(&reg, 0));
	assert_non_null(io_find_port(&reg, 0xffff));
	assert_null(io_find_port(&reg, 1));
	assert_null(io_find_port(&reg, 0xfffe));
}

static void overlapping_ports_refused(void **state)
{
	(void)state;
	assert_int_equal(ports(0x40, 4, NULL), IO_REGISTERED);
	assert_int_equal(ports(0x43, 1, NULL), IO_REGISTER_OVERLAP);
	assert_int_equal(ports(0x3c, 5, NULL), IO_REGISTER_OVERLAP);
	assert_int_equal(ports(0x30, 0x20, NULL), IO_REGISTER_OVERLAP);
	assert_int_equal(ports(0x40, 4, NULL), IO_REGISTER_OVERLAP);
	/* Touching is not overlapping; a refused range leaves no trace. */
	assert_int_equal(ports(0x3c, 4, NULL), IO_REGISTERED);
	assert_int_equal(ports(0x44, 1, NULL), IO_REGISTERED);
	assert_int_equal(reg.nports, 3);
	assert_null(io_find_port(&reg, 0x30));
}

static void bad_port_ranges_refused(void **state)
{
	const struct io_port_range no_fn = { .base = 0x80, .count = 1 };

	(void)state;
	assert_int_equal(ports(0x80, 0, NULL), IO_REGISTER_BAD_RANGE);
	assert_int_equal(ports(0xfffe, 3, NULL), IO_REGISTER_BAD_RANGE);
	assert_int_equal(io_register_ports(&reg, &no_fn),
			 IO_REGISTER_BAD_RANGE);
	assert_int_equal(reg.nports, 0);
}

static void port_table_full(void **state)
{
	(void)state;
	for (unsigned i = 0; i < IO_PORT_RANGES_MAX; i++)
		assert_int_equal(ports((uint16_t)(i * 2), 1, NULL),
				 IO_REGISTERED);
	assert_int_equal(ports(0x1000, 1, NULL), IO_REGISTER_FULL);
	assert_null(io_find_port(&reg, 0x1000));
}

static void mmio_found_at_its_edges_only(void **state)
{
	uint64_t off = 0;

	(void)state;
	assert_int_equal(mmio(0xfec00000, 0x1000), IO_REGISTERED);
	assert_int_equal(mmio(0xfed00000, 0x400), IO_REGISTERED);
	assert_int_equal(io_find_mmio(&reg, 0, 0xfec00000, 0, &off), 0);
	assert_int_equal(off, 0);
	assert_int_equal(io_find_mmio(&reg, 0, 0xfec00fff, 0, &off), 0);
	assert_int_equal(off, 0xfff);
	assert_int_equal(io_find_mmio(&reg, 0, 0xfec01000, 0, &off), -1);
	assert_int_equal(io_find_mmio(&reg, 0, 0xfebfffff, 0, &off), -1);
	assert_int_equal(io_find_mmio(&reg, 0, 0xfed003ff, 0, &off), 1);
	assert_int_equal(io_find_mmio(&reg, 0, 0xfed00000, 1, &off), 1);
	assert_int_equal(io_find_mmio(&reg, 0, 0xfec00000, 1, &off), -1);
}

static void overlapping_mmio_refused(void **state)
{
	(void)state;
	assert_int_equal(mmio(0xfec00000, 0x1000), IO_REGISTERED);
	assert_int_equal(mmio(0xfec00fff, 1), IO_REGISTER_OVERLAP);
	assert_int_equal(mmio(0xfebff000, 0x1001), IO_REGISTER_OVERLAP);
	assert_int_equal(mmio(0xfe000000, 0x1000000), IO_REGISTER_OVERLAP);
	assert_int_equal(mmio(0xfec01000, 0x1000), IO_REGISTERED);
	assert_int_equal(mmio(0xfebff000, 0x1000), IO_REGISTERED);
	assert_int_equal(mmio(0, 0), IO_REGISTER_BAD_RANGE);
	assert_int_equal(mmio(~0ull - 0xfff, 0x2000), IO_REGISTER_BAD_RANGE);
	assert_int_equal(mmio(~0ull - 0xfff, 0x1000), IO_REGISTERED);
	assert_int_equal(reg.nmmio, 4);
}

/* Each vCPU's page where its word says (low bits are flags). */
static struct {
	uint64_t flags_and_base;
	uint64_t other;
} vcpus[2] = { { 0x1000 | 0x900, 0 }, { 0x2000 | 0x100, 0 } };

static void per_vcpu_mmio_range(void **state)
{
	const struct io_mmio_range own = {
		.len = 0x1000, .vcpu_base = &vcpus[0].flags_and_base,
		.vcpu_stride = sizeof(vcpus[0]), .vcpu_base_mask = ~0xfffull,
		.fn = mmio_a,
	};
	uint64_t off;

	(void)state;
	assert_int_equal(io_register_mmio(&reg, &own), IO_REGISTERED);
	/* It may lie over a fixed range; a lookup finds it first. */
	assert_int_equal(mmio(0x2000, 0x1000), IO_REGISTERED);
	assert_int_equal(io_find_mmio(&reg, 0, 0x1800, 0, &off), 0);
	assert_int_equal(off, 0x800);
	assert_int_equal(io_find_mmio(&reg, 1, 0x1800, 0, &off), -1);
	assert_int_equal(io_find_mmio(&reg, 1, 0x2004, 0, &off), 0);
	assert_int_equal(off, 4);
	assert_int_equal(io_find_mmio(&reg, 1, 0x2004, 1, &off), 1);
	assert_int_equal(io_find_mmio(&reg, 0, 0x2004, 0, &off), 1);
	/* A vCPU that moves its page is found at the new place. */
	vcpus[1].flags_and_base = 0x5000 | 0x100;
	assert_int_equal(io_find_mmio(&reg, 1, 0x5ffc, 0, &off), 0);
	assert_int_equal(off, 0xffc);
	assert_int_equal(io_find_mmio(&reg, 1, 0x2004, 0, &off), 1);
	vcpus[1].flags_and_base = 0x2000 | 0x100;
}

#define T(f) cmocka_unit_test_setup(f, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(empty_registry_claims_nothing),
		T(port_found_at_its_edges_only),
		T(port_space_ends_are_usable),
		T(overlapping_ports_refused),
		T(bad_port_ranges_refused),
		T(port_table_full),
		T(mmio_found_at_its_edges_only),
		T(overlapping_mmio_refused),
		T(per_vcpu_mmio_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
