/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The task-switch exit (vmx/exit_task_switch.c) over the exit handlers'
 * fake VMCS and RAM (tests/unit/exit_env.h), a 32-bit guest with a GDT
 * of two TSSs: the event a task gate in the IDT delivered is not
 * injected again (the copy the exit dispatch queued is withdrawn), a
 * hardware exception's error code lands on the new stack, an NMI leaves
 * NMIs blocked and an IRET unblocks them, JMP resumes after the
 * instruction, CR0.TS shows in both CR0 views, a new CR3 drops the
 * VPID's translations, a bad TSS is the guest's fault and a 16-bit TSS
 * ends the VM.
 */
#include "tests/unit/exit_env.h"

#define GDT 0x1000u
#define TSS_A 0x2000u
#define TSS_B 0x2100u
#define SEL_CODE 0x08u
#define SEL_DATA 0x10u
#define SEL_TSS_A 0x20u
#define SEL_TSS_B 0x28u
#define SEL_TSS16 0x30u
#define QUAL_JMP (2u << 30)
#define QUAL_IRET (1u << 30)
#define QUAL_IDT (3u << 30)
#define CR4_PSE_BIT (1u << 4)             /* 4 MiB pages */

static void put32(uint32_t gpa, uint32_t value)
{
	memcpy(ram + gpa, &value, 4);
}

static uint32_t get32(uint32_t gpa)
{
	uint32_t value;

	memcpy(&value, ram + gpa, 4);
	return value;
}

static void put_desc(unsigned sel, uint64_t d)
{
	memcpy(ram + GDT + sel, &d, 8);
}

static void set_seg(unsigned n, uint16_t sel, uint32_t base, uint32_t limit,
		    uint32_t ar)
{
	fake_vmcs[VMCS_GUEST_ES_SELECTOR + 2 * n] = sel;
	fake_vmcs[VMCS_GUEST_ES_BASE + 2 * n] = base;
	fake_vmcs[VMCS_GUEST_ES_LIMIT + 2 * n] = limit;
	fake_vmcs[VMCS_GUEST_ES_ACCESS_RIGHTS + 2 * n] = ar;
}

/* A 32-bit ring-0 guest without paging, running the task in TSS A. */
static void protected_mode_guest(void)
{
	put_desc(SEL_CODE, 0x00cf9b000000ffffull);
	put_desc(SEL_DATA, 0x00cf93000000ffffull);
	put_desc(SEL_TSS_A, 0x00008b0020000067ull);
	put_desc(SEL_TSS_B, 0x0000890021000067ull);
	put_desc(SEL_TSS16, 0x000081002100002bull);
	put32(TSS_B + 0x20, 0x5000);            /* EIP */
	put32(TSS_B + 0x24, 0x2);               /* EFLAGS */
	put32(TSS_B + 0x38, 0x9000);            /* ESP */
	for (unsigned i = 0; i < 6; i++)
		put32(TSS_B + 0x48 + 4 * i, i == 1 ? SEL_CODE : SEL_DATA);
	fake_vmcs[VMCS_GUEST_CR0] = CR0_PE | CR0_NE | CR0_ET;
	fake_vmcs[VMCS_CR0_READ_SHADOW] = CR0_PE | CR0_ET;
	fake_vmcs[VMCS_GUEST_CR4] = CR4_VMXE;
	fake_vmcs[VMCS_GUEST_IA32_EFER] = 0;
	fake_vmcs[VMCS_GUEST_RFLAGS] = 0x202;
	fake_vmcs[VMCS_GUEST_RSP] = 0x7000;
	fake_vmcs[VMCS_GUEST_GDTR_BASE] = GDT;
	fake_vmcs[VMCS_GUEST_GDTR_LIMIT] = 0x3f;
	for (unsigned n = 0; n < 6; n++)
		set_seg(n, n == 1 ? SEL_CODE : SEL_DATA, 0, 0xffffffff,
			n == 1 ? 0xc09b : 0xc093);
	set_seg(6, 0, 0, 0, VMX_AR_UNUSABLE | 0x82);
	set_seg(7, SEL_TSS_A, TSS_A, 0x67, 0x8b);
	v.vpid = 1;
}

/* An exit while the CPU delivered `info` through a task gate. */
static enum exit_action gate_exit(uint32_t info, uint32_t error)
{
	ex.qualification = QUAL_IDT | SEL_TSS_B;
	fake_vmcs[VMCS_IDT_VECTORING_INFO] = info;
	fake_vmcs[VMCS_IDT_VECTORING_ERROR] = error;
	/* What vcpu_requeue_interrupted_event queued before the handler. */
	fake_vmcs[VMCS_ENTRY_INTERRUPTION_INFO] = info;
	return handle_task_switch(&v, &ex);
}

static void expect_in_task_b(void)
{
	assert_int_equal(fake_vmcs[VMCS_GUEST_TR_SELECTOR], SEL_TSS_B);
	assert_int_equal(fake_vmcs[VMCS_GUEST_TR_ACCESS_RIGHTS], 0x8b);
	assert_int_equal(fake_vmcs[VMCS_GUEST_RIP], 0x5000);
	assert_true(fake_vmcs[VMCS_GUEST_CR0] & CR0_TS);
	assert_true(fake_vmcs[VMCS_CR0_READ_SHADOW] & CR0_TS);
	assert_int_equal(v.stats.task_switches, 1);
}

static void an_nmi_through_a_task_gate_is_delivered_once(void **state)
{
	(void)state;
	protected_mode_guest();
	assert_int_equal(gate_exit(INTR_INFO_VALID | INTR_TYPE_NMI | 2, 0),
			 EXIT_RESUME);
	expect_in_task_b();
	assert_int_equal(fake_vmcs[VMCS_ENTRY_INTERRUPTION_INFO], 0);
	assert_int_equal(injected, -1);
	assert_true(fake_vmcs[VMCS_GUEST_INTERRUPTIBILITY] &
		    INTERRUPTIBILITY_NMI);
	/* The old task resumes where the NMI came, with NT's back link. */
	assert_int_equal(get32(TSS_A + 0x20), ex.guest_rip);
	assert_int_equal(get32(TSS_B), SEL_TSS_A);
	assert_int_equal(fake_vmcs[VMCS_GUEST_RFLAGS], 0x2 | (1u << 14));
}

static void an_iret_back_unblocks_nmis(void **state)
{
	(void)state;
	protected_mode_guest();
	put_desc(SEL_TSS_B, 0x00008b0021000067ull);     /* busy: called */
	fake_vmcs[VMCS_GUEST_INTERRUPTIBILITY] = INTERRUPTIBILITY_NMI;
	ex.qualification = QUAL_IRET | SEL_TSS_B;
	assert_int_equal(handle_task_switch(&v, &ex), EXIT_RESUME);
	expect_in_task_b();
	assert_int_equal(fake_vmcs[VMCS_GUEST_INTERRUPTIBILITY], 0);
	assert_int_equal(get32(TSS_A + 0x20), ex.guest_rip +
			 ex.instruction_length);
}

static void a_page_fault_error_code_goes_on_the_new_stack(void **state)
{
	(void)state;
	protected_mode_guest();
	assert_int_equal(gate_exit(INTR_INFO_VALID | INTR_TYPE_HW_EXCEPTION |
				   INTR_INFO_DELIVER_ERROR_CODE | 14, 0x2),
			 EXIT_RESUME);
	expect_in_task_b();
	assert_int_equal(fake_vmcs[VMCS_GUEST_RSP], 0x9000 - 4);
	assert_int_equal(get32(0x9000 - 4), 0x2);
	assert_int_equal(fake_vmcs[VMCS_ENTRY_INTERRUPTION_INFO], 0);
	assert_false(fake_vmcs[VMCS_GUEST_INTERRUPTIBILITY] &
		     INTERRUPTIBILITY_NMI);
}

static void jmp_resumes_after_the_instruction(void **state)
{
	(void)state;
	protected_mode_guest();
	put32(TSS_B + 0x1c, 0x3000);            /* a new CR3 */
	fake_vmcs[VMCS_GUEST_CR0] |= CR0_PG;
	fake_vmcs[VMCS_GUEST_CR3] = 0x4000;
	/* 32-bit paging: both directories map 0-4 MiB with a 4 MiB page. */
	fake_vmcs[VMCS_GUEST_CR4] |= CR4_PSE_BIT;
	put32(0x3000, 0x83);
	put32(0x4000, 0x83);
	fake_vmcs[VMCS_GUEST_INTERRUPTIBILITY] = INTERRUPTIBILITY_STI;
	ex.qualification = QUAL_JMP | SEL_TSS_B;
	assert_int_equal(handle_task_switch(&v, &ex), EXIT_RESUME);
	expect_in_task_b();
	assert_int_equal(get32(TSS_A + 0x20), ex.guest_rip +
			 ex.instruction_length);
	assert_int_equal(fake_vmcs[VMCS_GUEST_CR3], 0x3000);
	assert_int_equal(invvpids, 1);
	assert_int_equal(fake_vmcs[VMCS_GUEST_INTERRUPTIBILITY], 0);
	assert_int_equal(ram[GDT + SEL_TSS_A + 5], 0x89);
}

static void a_bad_tss_is_the_guests_fault(void **state)
{
	(void)state;
	protected_mode_guest();
	ram[GDT + SEL_TSS_B + 5] = 0x09;        /* not present */
	ex.qualification = QUAL_JMP | SEL_TSS_B;
	assert_int_equal(handle_task_switch(&v, &ex), EXIT_RESUME);
	assert_int_equal(injected, 11);
	assert_int_equal(injected_error, SEL_TSS_B);
	assert_int_equal(skipped(), 0);
	assert_int_equal(fake_vmcs[VMCS_GUEST_TR_SELECTOR], SEL_TSS_A);
	assert_false(fake_vmcs[VMCS_GUEST_CR0] & CR0_TS);
}

static void a_16bit_tss_ends_the_vm(void **state)
{
	(void)state;
	protected_mode_guest();
	ex.qualification = QUAL_JMP | SEL_TSS16;
	assert_int_equal(handle_task_switch(&v, &ex), EXIT_STOP);
	assert_non_null(strstr(ended, "16-bit TSSs are not emulated"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(an_nmi_through_a_task_gate_is_delivered_once),
		T(an_iret_back_unblocks_nmis),
		T(a_page_fault_error_code_goes_on_the_new_stack),
		T(jmp_resumes_after_the_instruction),
		T(a_bad_tss_is_the_guests_fault),
		T(a_16bit_tss_ends_the_vm),
	};

	(void)expect_gp;
	(void)expect_done;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
