/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/cpuid.c: leaf 1 hides VMX and shows the hypervisor bit, MCE and
 * MCA, the KVM leaves at 0x40000000 (Documentation/virt/kvm/x86/cpuid.rst), every
 * other leaf passes through; and the per-vCPU cache of answers, which
 * keeps no leaf whose answer follows guest state (1, 0xD).
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

static const struct cpuid_context ctx2 = {
	.vcpu_id = 1, .nvcpus = 2, .guest_osxsave = false,
	.kvm_features = 0x01000008,
};

static struct cpuid_regs run_ctx(const struct cpuid_context *ctx,
				 uint32_t leaf, uint32_t subleaf,
				 const struct cpuid_regs *h)
{
	struct cpuid_regs out;

	/* Garbage, so that a register left unset shows. */
	memset(&out, 0xa5, sizeof(out));
	guest_cpuid(ctx, leaf, subleaf, h, &out);
	return out;
}

static struct cpuid_regs run(uint32_t leaf, uint32_t subleaf,
			     const struct cpuid_regs *h)
{
	return run_ctx(&ctx2, leaf, subleaf, h);
}

static void test_leaf1(void **state)
{
	struct cpuid_regs h = { .eax = 0x000906ea, .ebx = 0x00100800,
				.ecx = 0xffffffff, .edx = 0xffffffff };
	struct cpuid_regs out;
	struct cpuid_context osx = ctx2;

	(void)state;
	out = run(1, 0, &h);
	assert_int_equal(out.eax, 0x000906ea);
	/* APIC ID = vcpu id, 2 logical processors, CLFLUSH size kept. */
	assert_int_equal(out.ebx, 0x01020800);
	/* Hidden: MONITOR DS-CPL VMX SMX EIST TM2 SDBG xTPR PDCM DCA OSXSAVE */
	assert_int_equal(out.ecx, 0xffffffffu & ~(BIT(3) | BIT(4) | BIT(5) |
						  BIT(6) | BIT(7) | BIT(8) |
						  BIT(11) | BIT(14) | BIT(15) |
						  BIT(18) | BIT(27)));
	/* Hidden: DS ACPI TM PBE */
	assert_int_equal(out.edx, 0xffffffffu & ~(BIT(21) | BIT(22) | BIT(29) |
						  BIT(31)));

	/* Shown even when the host lacks them: x2APIC, TSC-deadline, HV. */
	h.ecx = BIT(5);
	out = run(1, 0, &h);
	assert_int_equal(out.ecx, BIT(21) | BIT(24) | BIT(31));
	/* ... and MCE, MCA: the banks are emulated (guest/mce.c). */
	h.edx = 0;
	out = run(1, 0, &h);
	assert_int_equal(out.edx, BIT(7) | BIT(14));

	/* OSXSAVE mirrors the guest's CR4, not the host's. */
	osx.guest_osxsave = true;
	h.ecx = 0;
	out = run_ctx(&osx, 1, 0, &h);
	assert_int_equal(out.ecx, BIT(21) | BIT(24) | BIT(27) | BIT(31));
	/* The host's answer is not modified. */
	assert_int_equal(h.ecx, 0);
}

/* A globally disabled APIC: CPUID.1:EDX[9] reads 0 (kvm-unit-tests apic). */
static void test_leaf1_apic_disabled(void **state)
{
	struct cpuid_context off = ctx2;
	struct cpuid_regs h = { .edx = 0xffffffff };

	(void)state;
	assert_int_equal(run(1, 0, &h).edx & BIT(9), BIT(9));
	off.apic_disabled = true;
	assert_int_equal(run_ctx(&off, 1, 0, &h).edx & BIT(9), 0);
	/* Other leaves keep it: leaf 0x80000001 EDX[9] is not the APIC. */
	assert_int_equal(run_ctx(&off, 0x80000001, 0, &h).edx,
			 run(0x80000001, 0, &h).edx);
}

static void test_hypervisor_base(void **state)
{
	struct cpuid_regs out = run(0x40000000, 0, &host);
	char sig[12];

	(void)state;
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
	assert_regs(&out, 0x01000008, 0, 0, 0);
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

static void test_topology(void **state)
{
	struct cpuid_regs out;

	(void)state;
	out = run(0xb, 0, &host);
	assert_regs(&out, 0, 1, 0x100, 1);
	out = run(0xb, 1, &host);
	assert_regs(&out, 1, 2, 0x201, 1);
	out = run(0x1f, 2, &host);
	assert_regs(&out, 0, 0, 2, 1);
	/* Cache leaf 4: cores per package - 1 in EAX[31:26]. */
	{
		struct cpuid_regs h = { .eax = 0xfc004121 };

		out = run(4, 0, &h);
		assert_int_equal(out.eax, (1u << 26) | 0x0121);
		h.eax = 0;      /* no more caches: left alone */
		out = run(4, 3, &h);
		assert_int_equal(out.eax, 0);
	}
}

static void test_hidden_leaves(void **state)
{
	struct cpuid_regs h = { 0xffffffff, 0xffffffff, 0xffffffff,
				0xffffffff };
	struct cpuid_regs out;

	(void)state;
	out = run(6, 0, &h);
	assert_regs(&out, BIT(2), 0, 0, 0);
	out = run(0xa, 0, &h);
	assert_regs(&out, 0, 0, 0, 0);
	out = run(5, 0, &h);
	assert_regs(&out, 0, 0, 0, 0);
	out = run(7, 0, &h);
	assert_int_equal(out.edx, 0);
	assert_int_equal(out.ebx & (BIT(2) | BIT(4) | BIT(11) |
				    BIT(12) | BIT(14) | BIT(15) | BIT(25)), 0);
	assert_int_equal(out.ebx & BIT(0), BIT(0));     /* FSGSBASE stays */
	out = run(7, 1, &h);
	assert_regs(&out, 0, 0, 0, 0);                  /* no FRED */
	out = run(0xd, 1, &h);
	assert_int_equal(out.eax, 0xffffffffu & ~BIT(3));
	out = run(0x80000007, 0, &h);
	assert_int_equal(out.edx, BIT(8));
}

/*
 * IA32_TSC_ADJUST is emulated (guest/vcpu_tsc.h): offered whatever the
 * host has. RDTSCP and RDPID follow VT-x's "enable RDTSCP" control.
 */
static void test_tsc_features(void **state)
{
	struct cpuid_regs none = { 0, 0, 0, 0 };
	struct cpuid_regs all = { 0xffffffff, 0xffffffff, 0xffffffff,
				  0xffffffff };
	struct cpuid_context no_rdtscp = ctx2;
	struct cpuid_regs out;

	(void)state;
	out = run(7, 0, &none);
	assert_int_equal(out.ebx, BIT(1));
	out = run(7, 0, &all);
	assert_int_equal(out.ebx & BIT(1), BIT(1));
	assert_int_equal(out.ecx & BIT(22), BIT(22));   /* RDPID */
	out = run(0x80000001, 0, &all);
	assert_int_equal(out.edx, 0xffffffffu);         /* RDTSCP */
	no_rdtscp.no_rdtscp = true;
	out = run_ctx(&no_rdtscp, 7, 0, &all);
	assert_int_equal(out.ecx & BIT(22), 0);
	assert_int_equal(out.ebx & BIT(1), BIT(1));
	out = run_ctx(&no_rdtscp, 0x80000001, 0, &all);
	assert_int_equal(out.edx, 0xffffffffu & ~BIT(27));
	assert_int_equal(out.ecx, 0xffffffffu);         /* LAHF, LZCNT, ... */
}

/* Where the host's XSAVEC misplaces state, the guest is not offered it. */
static void test_xsavec_hidden(void **state)
{
	struct cpuid_regs h = { .eax = 0xf, .ebx = 0x440, .ecx = 0, .edx = 0 };
	struct cpuid_context hide = ctx2;
	struct cpuid_regs out;

	(void)state;
	out = run(0xd, 1, &h);
	assert_int_equal(out.eax, BIT(0) | BIT(1) | BIT(2));    /* XSAVEC on */
	hide.hide_xsavec = true;
	out = run_ctx(&hide, 0xd, 1, &h);
	assert_int_equal(out.eax, BIT(0) | BIT(2));     /* XSAVEOPT, XGETBV1 */
	out = run_ctx(&hide, 0xd, 0, &h);               /* other subleaves stay */
	assert_regs(&out, h.eax, h.ebx, h.ecx, h.edx);
}

static void test_pass_through(void **state)
{
	const uint32_t leaves[] = {
		0x0, 0x2, 0x3fffffff, 0x40000100, 0x40000101, 0x4fffffff,
		0x80000000, 0x80000001, 0x80000008, 0xffffffff,
	};

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(leaves); i++) {
		for (uint32_t sub = 0; sub < 3; sub++) {
			struct cpuid_regs out = run(leaves[i], sub, &host);

			assert_regs(&out, host.eax, host.ebx, host.ecx,
				    host.edx);
		}
	}
}

static void test_cache(void **state)
{
	struct cpuid_cache c;
	const struct cpuid_regs *found;
	struct cpuid_regs a = { 1, 2, 3, 4 }, b = { 5, 6, 7, 8 };

	(void)state;
	cpuid_cache_init(&c);
	/* Empty: no leaf is found, whatever slot it falls on. */
	for (uint32_t leaf = 0; leaf < 2 * CPUID_CACHE_SLOTS; leaf++)
		assert_null(cpuid_cache_find(&c, leaf, 0));
	cpuid_cache_store(&c, 0, 0, &a);
	found = cpuid_cache_find(&c, 0, 0);
	assert_non_null(found);
	assert_regs(found, 1, 2, 3, 4);
	/* Another subleaf, or a leaf sharing the slot, is not that answer. */
	assert_null(cpuid_cache_find(&c, 0, 1));
	assert_null(cpuid_cache_find(&c, CPUID_CACHE_SLOTS, 0));
	cpuid_cache_store(&c, CPUID_CACHE_SLOTS, 0, &b);        /* evicts */
	found = cpuid_cache_find(&c, CPUID_CACHE_SLOTS, 0);
	assert_non_null(found);
	assert_regs(found, 5, 6, 7, 8);
	assert_null(cpuid_cache_find(&c, 0, 0));
	/* Subleaves of one leaf have slots of their own. */
	cpuid_cache_store(&c, 0xb, 0, &a);
	cpuid_cache_store(&c, 0xb, 1, &b);
	found = cpuid_cache_find(&c, 0xb, 0);
	assert_non_null(found);
	assert_regs(found, 1, 2, 3, 4);
	found = cpuid_cache_find(&c, 0xb, 1);
	assert_non_null(found);
	assert_regs(found, 5, 6, 7, 8);
	/* The hypervisor leaves too. */
	cpuid_cache_store(&c, CPUID_HYPERVISOR_BASE, 0, &a);
	assert_non_null(cpuid_cache_find(&c, CPUID_HYPERVISOR_BASE, 0));
	/* Leaves 1 and 0xD follow CR4.OSXSAVE and XCR0: never kept. */
	cpuid_cache_store(&c, 0x1, 0, &a);
	assert_null(cpuid_cache_find(&c, 0x1, 0));
	for (uint32_t sub = 0; sub < 3; sub++) {
		cpuid_cache_store(&c, 0xd, sub, &a);
		assert_null(cpuid_cache_find(&c, 0xd, sub));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf1),
		cmocka_unit_test(test_leaf1_apic_disabled),
		cmocka_unit_test(test_hypervisor_base),
		cmocka_unit_test(test_hypervisor_features),
		cmocka_unit_test(test_hypervisor_range_zero),
		cmocka_unit_test(test_topology),
		cmocka_unit_test(test_hidden_leaves),
		cmocka_unit_test(test_tsc_features),
		cmocka_unit_test(test_xsavec_hidden),
		cmocka_unit_test(test_pass_through),
		cmocka_unit_test(test_cache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
