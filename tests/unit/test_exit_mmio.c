/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * vmx/exit_mmio.c over a VMCS of plain words (tests/unit/fake_exits/):
 * the instruction fetched at CS:RIP, decoded and performed on the I/O APIC
 * or xAPIC page, the register written back, RIP moved past it; and an
 * instruction whose linear address wraps at 4 GiB outside 64-bit code
 * (found by tests/fuzz/fuzz_mmio_exit.c: the fetch went on at 4 GiB
 * instead of 0 and the guest was ended); the byte forms (an AH load
 * merges bits 15:8 only, a MOVZX load zero-extends, a byte store to an
 * xAPIC register is dropped); the xAPIC page of a disabled or x2APIC-mode
 * APIC as a hole (all ones read, stores dropped) and the registers back
 * once xAPIC mode is on again (kvm-unit-tests x86/apic.c,
 * test_apic_disable: memset of the page, then reads of it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86/cpu.h"
#include "guest/interrupts.h"
#include "guest/devices/ioapic.h"
#include "guest/io_mmio.h"
#include "guest/devices/vlapic_mmio.h"
#include "vmx/ept_qualification.h"
#include "vmx/exit_handlers.h"
#include "vmx/vmx_ops.h"

#define RAM_SIZE 0x10000
#define TOP_PAGE 0xfffff000ull          /* a ROM-like page below 4 GiB */
#define AR_CODE32 0xc09b
#define AR_CODE64 0xa09b

uint64_t fake_vmcs[FAKE_VMCS_FIELDS];
static struct vm vm;
static struct vcpu v;
static struct vmx_exit ex;
static uint8_t ram[RAM_SIZE], top[PAGE_SIZE];
static char ended[256];

uint64_t rdtsc(void)
{
	return 1000;
}

static uint8_t *ram_at(uint64_t gpa, uint64_t len)
{
	if (gpa < RAM_SIZE && len <= RAM_SIZE - gpa)
		return ram + gpa;
	if (gpa >= TOP_PAGE && gpa < 1ull << 32 && len <= (1ull << 32) - gpa)
		return top + (gpa - TOP_PAGE);
	return NULL;
}

int vm_read_ram(struct vm *g, uint64_t gpa, void *dst, uint64_t len)
{
	uint8_t *at = ram_at(gpa, len);

	assert_ptr_equal(g, &vm);
	if (!at)
		return -1;
	memcpy(dst, at, len);
	return 0;
}

void vm_end(struct vm *g, bool clean, const char *fmt, ...)
{
	va_list ap;

	(void)clean;
	assert_ptr_equal(g, &vm);
	va_start(ap, fmt);
	vsnprintf(ended, sizeof(ended), fmt, ap);
	va_end(ap);
	g->end.ended = true;
}

void guest_deliver_ipi(struct vm *g, const struct vlapic_ipi *ipi)
{
	(void)g;
	(void)ipi;
}

void guest_level_eoi(struct vm *g, uint8_t vector)
{
	(void)g;
	(void)vector;
}

static void no_delivery(void *ctx, const struct ioapic_message *m)
{
	(void)ctx;
	(void)m;
}

/* 32-bit protected-mode code, paging off, xAPIC at its reset base. */
static int setup(void **state)
{
	(void)state;
	memset(fake_vmcs, 0, sizeof(fake_vmcs));
	memset(&vm, 0, sizeof(vm));
	memset(&v, 0, sizeof(v));
	memset(ram, 0, sizeof(ram));
	memset(top, 0, sizeof(top));
	ended[0] = 0;
	vm.nvcpus = 1;
	vlapic_init(&vm.plat[0].lapic, 0, true, 2500000000ull);
	ioapic_init(&vm.dev.ioapic, no_delivery, NULL);
	assert_true(guest_io_mmio_register(&vm));
	v.guest = &vm;
	v.plat = &vm.plat[0];
	fake_vmcs[VMCS_GUEST_CR0] = CR0_PE | CR0_NE;
	fake_vmcs[VMCS_GUEST_CS_ACCESS_RIGHTS] = AR_CODE32;
	fake_vmcs[VMCS_GUEST_SS_ACCESS_RIGHTS] = 0x93;
	return 0;
}

static enum exit_action mmio_exit(uint64_t rip, bool write, uint64_t gpa)
{
	struct guest_mmio_hit hit;

	ex = (struct vmx_exit){
		.qualification = write ? EPT_QUAL_WRITE : EPT_QUAL_READ,
		.guest_rip = rip,
	};
	fake_vmcs[VMCS_GUEST_RIP] = rip;
	return handle_mmio(&v, &ex, gpa,
			   vmx_mmio_range(&v, gpa, &hit) ? &hit : NULL);
}

/* mov eax, [edi] from the xAPIC version register: zero-extended. */
static void load_from_lapic(void **state)
{
	static const uint8_t load[] = { 0x8b, 0x07 };

	(void)state;
	memcpy(ram + 0x2000, load, sizeof(load));
	v.regs.rax = 0xffffffff00000000ull;
	assert_int_equal(mmio_exit(0x2000, false, VLAPIC_DEFAULT_BASE + 0x30),
			 EXIT_RESUME);
	assert_int_equal(fake_vmcs[VMCS_GUEST_RIP], 0x2002);
	assert_true(v.regs.rax ==
		    vlapic_mmio_read(&vm.plat[0].lapic, 0x30, 4, 1000));
	assert_int_equal(v.stats.mmio_emulated, 1);
}

/*
 * CS base + EIP at 0xfffffffd, paging off: the first three bytes below
 * 4 GiB, the other seven at 0 (the linear address wraps); EIP stays
 * within the 4 GiB limit. mov dword [0xfec00000], 0x12345678.
 */
static void fetch_wraps_at_4gib(void **state)
{
	static const uint8_t store[] = { 0xc7, 0x05, 0x00, 0x00, 0xc0, 0xfe,
					 0x78, 0x56, 0x34, 0x12 };

	(void)state;
	memcpy(top + PAGE_SIZE - 3, store, 3);
	memcpy(ram, store + 3, sizeof(store) - 3);
	fake_vmcs[VMCS_GUEST_CS_BASE] = 0x1000;
	assert_int_equal(mmio_exit(0xffffeffd, true, IOAPIC_BASE),
			 EXIT_RESUME);
	assert_string_equal(ended, "");
	assert_int_equal(fake_vmcs[VMCS_GUEST_RIP], 0xfffff007);
	assert_int_equal(ioapic_read(&vm.dev.ioapic, IOAPIC_IOREGSEL, 4), 0x78);
	/* At the very top of EIP, RIP itself wraps to the next byte. */
	setup(NULL);
	memcpy(top + PAGE_SIZE - 3, store, 3);
	memcpy(ram, store + 3, sizeof(store) - 3);
	fake_vmcs[VMCS_GUEST_CS_BASE] = 0;
	assert_int_equal(mmio_exit(0xfffffffd, true, IOAPIC_BASE),
			 EXIT_RESUME);
	assert_int_equal(fake_vmcs[VMCS_GUEST_RIP], 7);
}

/* In 64-bit code nothing wraps at 4 GiB: the bytes past it are not RAM. */
static void no_wrap_in_64bit_code(void **state)
{
	static const uint8_t store[] = { 0xc7, 0x04, 0x25, 0x00, 0x00, 0xc0,
					 0xfe, 0x78, 0x56, 0x34, 0x12 };
	uint64_t pml4e = 0x2000 | 3, pdpte;

	(void)state;
	/* The first 4 GiB mapped 1:1 by four 1 GiB pages. */
	memcpy(ram + 0x1000, &pml4e, 8);
	for (unsigned i = 0; i < 4; i++) {
		pdpte = (uint64_t)i << 30 | 3 | BIT(7);
		memcpy(ram + 0x2000 + 8 * i, &pdpte, 8);
	}
	memcpy(top + PAGE_SIZE - 3, store, 3);
	memcpy(ram, store + 3, sizeof(store) - 3);
	fake_vmcs[VMCS_GUEST_CR0] = CR0_PE | CR0_NE | CR0_PG;
	fake_vmcs[VMCS_GUEST_CR3] = 0x1000;
	fake_vmcs[VMCS_GUEST_CR4] = CR4_PAE;
	fake_vmcs[VMCS_GUEST_IA32_EFER] = EFER_LME | EFER_LMA;
	fake_vmcs[VMCS_GUEST_CS_ACCESS_RIGHTS] = AR_CODE64;
	assert_int_equal(mmio_exit(0xfffffffd, true, IOAPIC_BASE), EXIT_STOP);
	/* Ended with the three bytes below 4 GiB, nothing after them. */
	assert_non_null(strstr(ended, "bytes c7 04 25"));
	assert_string_equal(strstr(ended, "bytes c7 04 25"), "bytes c7 04 25");
}

/* mov ah, [edi]; movzx ecx, byte [edi]; mov [edi], dh on the xAPIC page. */
static void byte_accesses_to_lapic(void **state)
{
	static const uint8_t code[] = { 0x8a, 0x27, 0x0f, 0xb6, 0x0f,
					0x88, 0x37 };
	struct vlapic *a = &vm.plat[0].lapic;
	uint64_t version = vlapic_mmio_read(a, 0x30, 4, 1000);
	uint64_t tpr = vlapic_mmio_read(a, 0x80, 4, 1000);

	(void)state;
	memcpy(ram + 0x2000, code, sizeof(code));
	v.regs.rax = 0x1122334455667788ull;
	v.regs.rcx = ~0ull;
	v.regs.rdx = 0xff00;
	assert_int_equal(mmio_exit(0x2000, false, VLAPIC_DEFAULT_BASE + 0x30),
			 EXIT_RESUME);
	assert_true(v.regs.rax ==
		    (0x1122334455660088ull | (version & 0xff) << 8));
	assert_int_equal(mmio_exit(0x2002, false, VLAPIC_DEFAULT_BASE + 0x30),
			 EXIT_RESUME);
	assert_true(v.regs.rcx == (version & 0xff));
	/* A store that is not 32 bits is dropped, as KVM drops it. */
	assert_int_equal(mmio_exit(0x2005, true, VLAPIC_DEFAULT_BASE + 0x80),
			 EXIT_RESUME);
	assert_int_equal(fake_vmcs[VMCS_GUEST_RIP], 0x2007);
	assert_true(vlapic_mmio_read(a, 0x80, 4, 1000) == tpr);
	assert_int_equal(v.stats.mmio_emulated, 3);
}

/*
 * mov [ecx], dh (memset's byte store), then mov eax, [edi]: with
 * IA32_APIC_BASE = apic_base, the page is a hole and the APIC is not
 * touched.
 */
static void expect_hole(uint64_t apic_base)
{
	static const uint8_t code[] = { 0x88, 0x31, 0x8b, 0x07 };
	struct vlapic *a = &vm.plat[0].lapic, before;

	assert_true(vlapic_wrmsr(a, VLAPIC_MSR_APIC_BASE, apic_base, 1000,
				 NULL) >= 0);
	assert_true(vmx_owns_mmio(&v, VLAPIC_DEFAULT_BASE + 0xfff));
	assert_false(vmx_owns_mmio(&v, VLAPIC_DEFAULT_BASE + 0x1000));
	before = *a;
	memcpy(ram + 0x2000, code, sizeof(code));
	v.regs.rax = 0x1122334455667788ull;
	assert_int_equal(mmio_exit(0x2000, true, VLAPIC_DEFAULT_BASE + 0x80),
			 EXIT_RESUME);
	assert_int_equal(mmio_exit(0x2002, false, VLAPIC_DEFAULT_BASE + 0x30),
			 EXIT_RESUME);
	assert_true(v.regs.rax == 0xffffffffull);
	assert_memory_equal(a, &before, sizeof(before));
	assert_string_equal(ended, "");
}

static void disabled_or_x2apic_page_is_a_hole(void **state)
{
	struct vlapic *a = &vm.plat[0].lapic;
	uint64_t base = a->apic_base, version = vlapic_mmio_read(a, 0x30, 4,
								  1000);

	(void)state;
	expect_hole(base & ~(VLAPIC_BASE_EN | VLAPIC_BASE_EXTD));
	/* Enabled again in xAPIC mode: the registers answer again. */
	assert_true(vlapic_wrmsr(a, VLAPIC_MSR_APIC_BASE, base, 1000, NULL) >=
		    0);
	v.regs.rax = ~0ull;
	assert_int_equal(mmio_exit(0x2002, false, VLAPIC_DEFAULT_BASE + 0x30),
			 EXIT_RESUME);
	assert_true(v.regs.rax == version);
	expect_hole(base | VLAPIC_BASE_EXTD);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup(f, setup)
	const struct CMUnitTest tests[] = {
		T(load_from_lapic),
		T(fetch_wraps_at_4gib),
		T(no_wrap_in_64bit_code),
		T(byte_accesses_to_lapic),
		T(disabled_or_x2apic_page_is_a_hole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
