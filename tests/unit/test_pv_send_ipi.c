// SPDX-License-Identifier: BSD-2-Clause
/*
 * guest/pv_send_ipi.c: KVM_HC_SEND_IPI's bitmap halves, their width, the
 * APIC IDs no vCPU has, the delivery modes; guest_deliver_ipi is faked and
 * records what it was given.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "guest/pv_send_ipi.h"

static struct vm vm;
static struct vlapic_ipi sent[MAX_VCPUS];
static unsigned nsent;

void guest_deliver_ipi(struct vm *g, const struct vlapic_ipi *ipi)
{
	assert_ptr_equal(g, &vm);
	assert_true(nsent < MAX_VCPUS);
	sent[nsent++] = *ipi;
}

static int setup(void **state)
{
	(void)state;
	memset(&vm, 0, sizeof(vm));
	vm.nvcpus = 4;
	for (unsigned n = 0; n < vm.nvcpus; n++)
		vm.plat[n].lapic.id = n;
	nsent = 0;
	return 0;
}

static void bitmap_bits_are_ids_from_min(void **state)
{
	(void)state;
	/* IDs 1 and 3 in the low half; 0x40f1: fixed, vector 0xf1. */
	assert_int_equal(guest_pv_send_ipi(&vm, 2, 0x5, 0, 1, 0x40f1, true), 2);
	assert_int_equal(nsent, 2);
	assert_int_equal(sent[0].dest, 1);
	assert_int_equal(sent[1].dest, 3);
	assert_int_equal(sent[0].vector, 0xf1);
	assert_int_equal(sent[0].mode, VLAPIC_IPI_FIXED);
	assert_false(sent[0].logical);
	assert_int_equal(sent[0].shorthand, VLAPIC_DEST_FIELD);
	assert_int_equal(sent[0].source, 2);
}

static void ids_without_a_vcpu_are_skipped(void **state)
{
	(void)state;
	/* kvm-unit-tests' apic test: every bit, min 0xffffffff: none. */
	assert_int_equal(guest_pv_send_ipi(&vm, 0, 0xffffffff, 0, 0xffffffff,
					   0, true), 0);
	assert_int_equal(nsent, 0);
	/* Bits past the last vCPU count nothing either. */
	assert_int_equal(guest_pv_send_ipi(&vm, 0, ~0ull, ~0ull, 0, 0xf0,
					   true), 4);
	assert_int_equal(nsent, 4);
}

static void high_half_starts_one_width_up(void **state)
{
	(void)state;
	vm.nvcpus = 40;
	for (unsigned n = 0; n < vm.nvcpus; n++)
		vm.plat[n].lapic.id = n;
	/* 32-bit caller: the high half's bit 1 is ID 32 + 1. */
	assert_int_equal(guest_pv_send_ipi(&vm, 0, 0, 0x2, 0, 0x4f0, false),
			 1);
	assert_int_equal(sent[0].dest, 33);
	/* 64-bit caller: the high half starts at 64, past every vCPU. */
	assert_int_equal(guest_pv_send_ipi(&vm, 0, 0, 0x2, 0, 0x4f0, true),
			 0);
}

static void delivery_modes(void **state)
{
	(void)state;
	assert_int_equal(guest_pv_send_ipi(&vm, 0, 1, 0, 1, 0x400, true), 1);
	assert_int_equal(sent[0].mode, VLAPIC_IPI_NMI);
	assert_int_equal(guest_pv_send_ipi(&vm, 0, 1, 0, 1, 0x1f0, true), 1);
	assert_int_equal(sent[1].mode, VLAPIC_IPI_LOWEST);
	/* SMI (2) and the reserved modes send nothing. */
	assert_int_equal(guest_pv_send_ipi(&vm, 0, 1, 0, 1, 0x200, true), 0);
	assert_int_equal(guest_pv_send_ipi(&vm, 0, 1, 0, 1, 0x700, true), 0);
	assert_int_equal(nsent, 2);
}

#define T(name) cmocka_unit_test_setup(name, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(bitmap_bits_are_ids_from_min),
		T(ids_without_a_vcpu_are_skipped),
		T(high_half_starts_one_width_up),
		T(delivery_modes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
