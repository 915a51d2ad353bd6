/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * vmx/exception_inject.c over a VMCS of plain words (tests/unit/
 * fake_exits): the interruption information and error code of an
 * injected hardware exception, and RF in the RFLAGS it pushes, set for
 * faults as the CPU sets it (kvm-unit-tests' idt_test, "Testing #GP
 * rflags.rf": the #GP of a refused MOV to CR4 came without it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86/cpu.h"
#include "arch/x86/exceptions.h"
#include "vmx/exit_handlers.h"
#include "vmx/vmx_ops.h"

uint64_t fake_vmcs[FAKE_VMCS_FIELDS];

#define RFLAGS_GUEST (RFLAGS_RESERVED_1 | RFLAGS_IF | RFLAGS_ZF)
#define HW_EXCEPTION(vector) (INTR_INFO_VALID | INTR_TYPE_HW_EXCEPTION | \
			      (vector))

static int setup(void **state)
{
	(void)state;
	memset(fake_vmcs, 0, sizeof(fake_vmcs));
	fake_vmcs[VMCS_GUEST_CR0] = CR0_PE | CR0_PG;
	fake_vmcs[VMCS_GUEST_RFLAGS] = RFLAGS_GUEST;
	return 0;
}

/* #GP(0) of a refused CR4 or MSR write: error code, and RF pushed. */
static void general_protection_pushes_rf(void **state)
{
	(void)state;
	fake_vmcs[VMCS_ENTRY_EXCEPTION_ERROR_CODE] = 0x55;
	vmx_inject_exception(EXC_GENERAL_PROTECTION, true, 0);
	assert_int_equal(fake_vmcs[VMCS_ENTRY_INTERRUPTION_INFO],
			 HW_EXCEPTION(EXC_GENERAL_PROTECTION) |
			 INTR_INFO_DELIVER_ERROR_CODE);
	assert_int_equal(fake_vmcs[VMCS_ENTRY_EXCEPTION_ERROR_CODE], 0);
	assert_int_equal(fake_vmcs[VMCS_GUEST_RFLAGS],
			 RFLAGS_GUEST | RFLAGS_RF);
}

/* Every fault sets RF; a trap, an abort and #DB leave RFLAGS alone. */
static void rf_for_faults_only(void **state)
{
	static const uint8_t faults[] = {
		EXC_DIVIDE_ERROR, EXC_INVALID_OPCODE, EXC_STACK_FAULT,
		EXC_GENERAL_PROTECTION, EXC_PAGE_FAULT, EXC_ALIGNMENT_CHECK,
		5, 7, 10, 11, 16, 19, 20, 21,
	};
	static const uint8_t others[] = {
		EXC_DEBUG, EXC_BREAKPOINT, EXC_OVERFLOW, EXC_DOUBLE_FAULT,
		EXC_MACHINE_CHECK,
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(faults); i++) {
		setup(NULL);
		assert_true(vmx_exception_sets_rf(faults[i]));
		vmx_inject_exception(faults[i], false, 0);
		assert_int_equal(fake_vmcs[VMCS_GUEST_RFLAGS],
				 RFLAGS_GUEST | RFLAGS_RF);
		assert_int_equal(fake_vmcs[VMCS_ENTRY_INTERRUPTION_INFO],
				 HW_EXCEPTION(faults[i]));
	}
	for (size_t i = 0; i < ARRAY_SIZE(others); i++) {
		setup(NULL);
		assert_false(vmx_exception_sets_rf(others[i]));
		vmx_inject_exception(others[i], false, 0);
		assert_int_equal(fake_vmcs[VMCS_GUEST_RFLAGS], RFLAGS_GUEST);
		assert_int_equal(fake_vmcs[VMCS_ENTRY_INTERRUPTION_INFO],
				 HW_EXCEPTION(others[i]));
	}
	/* RF already set (a handler's IRET image): stays set. */
	setup(NULL);
	fake_vmcs[VMCS_GUEST_RFLAGS] = RFLAGS_GUEST | RFLAGS_RF;
	vmx_inject_exception(EXC_DEBUG, false, 0);
	assert_int_equal(fake_vmcs[VMCS_GUEST_RFLAGS],
			 RFLAGS_GUEST | RFLAGS_RF);
}

/* Real mode: no error code is pushed, nor asked for (VM entry refuses). */
static void real_mode_drops_the_error_code(void **state)
{
	(void)state;
	fake_vmcs[VMCS_GUEST_CR0] = 0;
	vmx_inject_exception(EXC_GENERAL_PROTECTION, true, 7);
	assert_int_equal(fake_vmcs[VMCS_ENTRY_INTERRUPTION_INFO],
			 HW_EXCEPTION(EXC_GENERAL_PROTECTION));
	assert_int_equal(fake_vmcs[VMCS_ENTRY_EXCEPTION_ERROR_CODE], 0);
	assert_int_equal(fake_vmcs[VMCS_GUEST_RFLAGS],
			 RFLAGS_GUEST | RFLAGS_RF);

	setup(NULL);
	vmx_inject_exception(EXC_PAGE_FAULT, true, 7);
	assert_int_equal(fake_vmcs[VMCS_ENTRY_INTERRUPTION_INFO],
			 HW_EXCEPTION(EXC_PAGE_FAULT) |
			 INTR_INFO_DELIVER_ERROR_CODE);
	assert_int_equal(fake_vmcs[VMCS_ENTRY_EXCEPTION_ERROR_CODE], 7);
}

#define T(name) cmocka_unit_test_setup(name, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(general_protection_pushes_rf),
		T(rf_for_faults_only),
		T(real_mode_drops_the_error_code),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
