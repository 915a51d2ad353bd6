/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/cpuid.c: leaf 1 hides VMX and shows the hypervisor bit, the KVM
 * leaves at 0x40000000 (Documentation/virt/kvm/x86/cpuid.rst), and every
 * other leaf passes through.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "guest/cpuid.h"

/* Distinct non-zero values, so that a swapped or dropped register shows. */
static const struct cpuid_regs host = {
	.eax = 0x11223344, .ebx = 0x55667788, .ecx = 0x99aabbcc,
	.edx = 0xddeeff00,
};

static void assert_regs(const struct cpuid_regs *r, uint32_t eax,
			uint32_t ebx, uint32_t ecx, uint32_t edx)
{
	assert_int_equal(r->eax, eax);
	assert_int_equal(r->ebx, ebx);
	assert_int_equal(r->ecx, ecx);
	assert_int_equal(r->edx, edx);
}

static struct cpuid_regs run(uint32_t leaf, uint32_t subleaf,
			     const struct cpuid_regs *h)
{
	struct cpuid_regs out;

	/* Garbage, so that a register left unset shows. */
	memset(&out, 0xa5, sizeof(out));
	guest_cpuid(leaf, subleaf, h, &out);
	return out;
}

static void test_leaf1(void **state)
{
	struct cpuid_regs h = host, out;

	(void)state;
	/* 0x99aabbcc has VMX (bit 5) clear and bit 31 set already. */
	out = run(1, 0, &h);
	assert_regs(&out, 0x11223344, 0x55667788, 0x99aabbcc, 0xddeeff00);

	h.ecx = 0x00000021;             /* VMX and SSE3 */
	out = run(1, 0, &h);
	assert_regs(&out, 0x11223344, 0x55667788, 0x80000001, 0xddeeff00);

	h.ecx = 0xffffffff;
	out = run(1, 0, &h);
	assert_int_equal(out.ecx, 0xffffffdf);

	h.ecx = 0;
	out = run(1, 7, &h);            /* the subleaf does not matter */
	assert_regs(&out, 0x11223344, 0x55667788, 0x80000000, 0xddeeff00);

	/* VMX's neighbours stay: MONITOR (3), DS-CPL (4), SMX (6). */
	h.ecx = BIT(3) | BIT(4) | BIT(5) | BIT(6) | BIT(21) | BIT(30);
	out = run(1, 0, &h);
	assert_int_equal(out.ecx, BIT(3) | BIT(4) | BIT(6) | BIT(21) |
				  BIT(30) | BIT(31));
	/* The host's answer is not modified. */
	assert_int_equal(h.ecx, BIT(3) | BIT(4) | BIT(5) | BIT(6) | BIT(21) |
				BIT(30));
}

static void test_hypervisor_base(void **state)
{
	struct cpuid_regs out = run(0x40000000, 0, &host);
	char sig[12];

	(void)state;
	assert_int_equal(out.eax, 0x40000001);
	memcpy(sig, &out.ebx, 4);
	memcpy(sig + 4, &out.ecx, 4);
	memcpy(sig + 8, &out.edx, 4);
	assert_memory_equal(sig, "KVMKVMKVM\0\0\0", 12);
	assert_regs(&out, 0x40000001, 0x4b4d564b, 0x564b4d56, 0x0000004d);

	/* The host's own hypervisor leaves (nested) are not shown. */
	out = run(0x40000000, 3, &host);
	assert_regs(&out, 0x40000001, 0x4b4d564b, 0x564b4d56, 0x0000004d);
}

static void test_hypervisor_features(void **state)
{
	struct cpuid_regs out = run(0x40000001, 0, &host);

	(void)state;
	assert_regs(&out, 0, 0, 0, 0);
}

static void test_hypervisor_range_zero(void **state)
{
	const uint32_t leaves[] = {
		0x40000002, 0x40000003, 0x40000010, 0x40000080, 0x400000fe,
		0x400000ff,
	};

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(leaves); i++) {
		struct cpuid_regs out = run(leaves[i], 0, &host);

		assert_regs(&out, 0, 0, 0, 0);
	}
}

static void test_pass_through(void **state)
{
	const uint32_t leaves[] = {
		0x0, 0x2, 0x4, 0x7, 0xb, 0xd, 0x3fffffff, 0x40000100,
		0x40000101, 0x4fffffff, 0x80000000, 0x80000001, 0x80000008,
		0xffffffff,
	};

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(leaves); i++) {
		for (uint32_t sub = 0; sub < 3; sub++) {
			struct cpuid_regs out = run(leaves[i], sub, &host);

			assert_regs(&out, host.eax, host.ebx, host.ecx,
				    host.edx);
		}
	}
	/* VMX and hypervisor bits mean nothing outside leaf 1. */
	{
		struct cpuid_regs h = { 0, 0, BIT(5), 0 }, out;

		out = run(0x80000001, 0, &h);
		assert_regs(&out, 0, 0, BIT(5), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf1),
		cmocka_unit_test(test_hypervisor_base),
		cmocka_unit_test(test_hypervisor_features),
		cmocka_unit_test(test_hypervisor_range_zero),
		cmocka_unit_test(test_pass_through),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
