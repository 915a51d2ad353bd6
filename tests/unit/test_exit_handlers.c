/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The exit handlers of vmx/exit_cr.c, exit_msr.c, exit_vmx_insn.c,
 * exit_exception.c and exit_lost_page.c over a VMCS of plain words and fake instructions
 * (tests/unit/fake_exits/): for each misbehaviour, the exception injected
 * (and the instruction not skipped), or the emulated effect and the skip;
 * never a value in the VMCS that would fail the next VM entry.
 */

#include "tests/unit/exit_env.h"


/* MOV to CR<n> from RAX (qualification: CR number, type 0, GPR 0). */
static enum exit_action mov_to_cr(unsigned n, uint64_t value)
{
	v.regs.rax = value;
	ex.qualification = n;
	return handle_cr_access(&v, &ex);
}

/* ---- control registers ---- */

static void cr0_refused_values(void **state)
{
	(void)state;
	assert_int_equal(mov_to_cr(0, (CR0_LINUX & ~CR0_NE) | CR0_NW),
			 EXIT_RESUME);
	expect_gp();
	setup(NULL);
	mov_to_cr(0, (CR0_LINUX & ~CR0_NE) | 1ull << 32);
	expect_gp();
	setup(NULL);
	mov_to_cr(0, CR0_LINUX & ~(CR0_NE | CR0_PG));   /* from 64-bit code */
	expect_gp();
	/* None of them reached the VMCS. */
	assert_int_equal(fake_vmcs[VMCS_GUEST_CR0], CR0_LINUX);
	assert_int_equal(fake_vmcs[VMCS_CR0_READ_SHADOW], CR0_LINUX);
}

static void cr0_ne_flip_is_emulated(void **state)
{
	(void)state;
	mov_to_cr(0, CR0_LINUX & ~CR0_NE);
	expect_done();
	assert_int_equal(fake_vmcs[VMCS_CR0_READ_SHADOW], CR0_LINUX & ~CR0_NE);
	assert_int_equal(fake_vmcs[VMCS_GUEST_CR0], CR0_LINUX); /* NE kept */
}

static void cr4_vmxe_is_refused(void **state)
{
	(void)state;
	mov_to_cr(4, CR4_PAE | CR4_VMXE);
	expect_gp();
	assert_int_equal(fake_vmcs[VMCS_CR4_READ_SHADOW], CR4_PAE);
}

static void cr8_is_the_virtual_tpr(void **state)
{
	uint64_t tpr;

	(void)state;
	mov_to_cr(8, 15);
	expect_done();
	vlapic_rdmsr(&vm.plat[0].lapic, 0x808, 0, &tpr);
	assert_int_equal(tpr, 0xf0);
	/* MOV from CR8 to RBX (GPR 3, type 1). */
	ex.qualification = 8 | 1 << 4 | 3 << 8;
	handle_cr_access(&v, &ex);
	assert_int_equal(v.regs.rbx, 15);
	setup(NULL);
	mov_to_cr(8, 16);
	expect_gp();
}

/* ---- XSETBV ---- */

static void xsetbv_rules(void **state)
{
	(void)state;
	v.regs.rcx = 0;
	v.regs.rax = 0x5;                       /* AVX without SSE */
	handle_xsetbv(&v, &ex);
	expect_gp();
	setup(NULL);
	v.regs.rcx = 1;                         /* XCR1 */
	v.regs.rax = 0x3;
	handle_xsetbv(&v, &ex);
	expect_gp();
	setup(NULL);
	fake_vmcs[VMCS_GUEST_SS_ACCESS_RIGHTS] = AR_DATA_DPL3;
	v.regs.rax = 0x7;
	handle_xsetbv(&v, &ex);
	expect_gp();
	assert_int_equal(xsetbvs, 0);
	setup(NULL);
	v.regs.rax = 0x7;
	handle_xsetbv(&v, &ex);
	expect_done();
	assert_int_equal(xsetbvs, 1);
	assert_int_equal(xcr0_loaded, 0x7);
}

/* ---- MSRs ---- */

static void wrmsr_of(uint32_t msr, uint64_t value)
{
	v.regs.rcx = msr;
	v.regs.rax = (uint32_t)value;
	v.regs.rdx = value >> 32;
	handle_wrmsr(&v, &ex);
}

static void msrs_refused_values(void **state)
{
	static const struct {
		uint32_t msr;
		uint64_t value;
		uint32_t field;
	} refused[] = {
		{ MSR_IA32_PAT, 0x0007040600070402ull, VMCS_GUEST_IA32_PAT },
		{ MSR_IA32_SYSENTER_ESP, 0x0000800000000000ull,
		  VMCS_GUEST_SYSENTER_ESP },
		{ MSR_IA32_SYSENTER_EIP, 0x8000000000000000ull,
		  VMCS_GUEST_SYSENTER_EIP },
		{ MSR_IA32_DEBUGCTL, 1ull << 2, VMCS_GUEST_IA32_DEBUGCTL },
		{ MSR_IA32_EFER, EFER_SCE | EFER_LMA | EFER_NXE,
		  VMCS_GUEST_IA32_EFER },               /* LME off, paging on */
		{ MSR_IA32_EFER, EFER_LME | EFER_LMA | BIT(2),
		  VMCS_GUEST_IA32_EFER },               /* a reserved bit */
	};

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(refused); i++) {
		uint64_t before;

		setup(NULL);
		before = fake_vmcs[refused[i].field];
		wrmsr_of(refused[i].msr, refused[i].value);
		expect_gp();
		assert_int_equal(fake_vmcs[refused[i].field], before);
		assert_int_equal(v.stats.msr_gp_injected, 1);
	}
}

static void msrs_accepted_values(void **state)
{
	(void)state;
	wrmsr_of(MSR_IA32_PAT, 0x0007010600070106ull);
	expect_done();
	assert_int_equal(fake_vmcs[VMCS_GUEST_IA32_PAT], 0x0007010600070106ull);
	setup(NULL);
	wrmsr_of(MSR_IA32_SYSENTER_EIP, 0xffffffff81000000ull);
	expect_done();
	setup(NULL);
	/* NXE off with paging on: fine; LMA stays the CPU's. */
	wrmsr_of(MSR_IA32_EFER, EFER_SCE | EFER_LME);
	expect_done();
	assert_int_equal(fake_vmcs[VMCS_GUEST_IA32_EFER],
			 EFER_SCE | EFER_LME | EFER_LMA);
	/* Platform MSRs go to guest/msr.c, its #GP passed on. */
	setup(NULL);
	wrmsr_of(0x8b, 0);
	expect_done();
	assert_int_equal(fake_vmcs[VMCS_TSC_OFFSET], 0);
	/* A TSC write: the vCPU's new offset goes into the VMCS. */
	setup(NULL);
	wrmsr_of(MSR_IA32_TSC, 0xfffffffffffff000ull);
	expect_done();
	assert_true(fake_vmcs[VMCS_TSC_OFFSET] == 0xfffffffffffff000ull);
	setup(NULL);
	wrmsr_of(0x4000abcd, 0);
	expect_gp();
	setup(NULL);
	v.regs.rcx = 0x17;
	handle_rdmsr(&v, &ex);
	expect_done();
	assert_int_equal(v.regs.rax, 0x77);
	setup(NULL);
	v.regs.rcx = MSR_IA32_EFER;
	handle_rdmsr(&v, &ex);
	assert_int_equal(v.regs.rax, EFER_SCE | EFER_LME | EFER_LMA | EFER_NXE);
}

/*
 * A skipped instruction ends the STI or MOV SS shadow it ran in (it was
 * the one instruction the shadow covered); NMI blocking stays.
 */
static void skip_ends_the_interrupt_shadow(void **state)
{
	(void)state;
	fake_vmcs[VMCS_GUEST_INTERRUPTIBILITY] = INTERRUPTIBILITY_STI |
						 INTERRUPTIBILITY_NMI;
	v.regs.rcx = 0x17;
	handle_rdmsr(&v, &ex);
	expect_done();
	assert_int_equal(fake_vmcs[VMCS_GUEST_INTERRUPTIBILITY],
			 INTERRUPTIBILITY_NMI);
	setup(NULL);
	fake_vmcs[VMCS_GUEST_INTERRUPTIBILITY] = INTERRUPTIBILITY_MOV_SS;
	v.regs.rcx = 0x123;                     /* refused: not skipped */
	handle_rdmsr(&v, &ex);
	expect_gp();
	assert_int_equal(fake_vmcs[VMCS_GUEST_INTERRUPTIBILITY],
			 INTERRUPTIBILITY_MOV_SS);
	setup(NULL);
	fake_vmcs[VMCS_GUEST_INTERRUPTIBILITY] = INTERRUPTIBILITY_MOV_SS;
	handle_vmcall(&v, &ex);
	expect_done();
	assert_int_equal(fake_vmcs[VMCS_GUEST_INTERRUPTIBILITY], 0);
}

/*
 * Finishing an instruction for the guest as the CPU would: EIP wraps at
 * 4 GiB outside 64-bit code (and only there), and a single step (TF)
 * traps after it (a pending BS for the VM entry to deliver).
 */
static void skip_wraps_eip_and_single_steps(void **state)
{
	(void)state;
	ex.guest_rip = 0xfffffffe;              /* 3 bytes: past 4 GiB */
	fake_vmcs[VMCS_GUEST_CS_ACCESS_RIGHTS] = 0xc09b;    /* 32-bit code */
	fake_vmcs[VMCS_GUEST_IA32_EFER] = 0;
	handle_invd(&v, &ex);
	assert_int_equal(fake_vmcs[VMCS_GUEST_RIP], 0x1);
	assert_int_equal(fake_vmcs[VMCS_GUEST_PENDING_DEBUG], 0);

	setup(NULL);
	ex.guest_rip = 0xfffffffe;              /* 64-bit code: no wrap */
	handle_invd(&v, &ex);
	assert_int_equal(fake_vmcs[VMCS_GUEST_RIP], 0x100000001ull);

	setup(NULL);
	fake_vmcs[VMCS_GUEST_RFLAGS] = RFLAGS_TF | RFLAGS_RESERVED_1;
	handle_invd(&v, &ex);
	expect_done();
	assert_int_equal(fake_vmcs[VMCS_GUEST_PENDING_DEBUG], DR6_BS);
	assert_int_equal(injected, -1);
}

/* ---- VMCALL and the VMX instructions ---- */

static void vmcall_and_vmx_instructions(void **state)
{
	(void)state;
	v.regs.rax = 0x1234;
	handle_vmcall(&v, &ex);
	expect_done();
	assert_true(v.regs.rax == (uint64_t)-1000);
	setup(NULL);
	fake_vmcs[VMCS_GUEST_SS_ACCESS_RIGHTS] = AR_DATA_DPL3;
	handle_vmcall(&v, &ex);
	assert_true(v.regs.rax == (uint64_t)-1);
	setup(NULL);
	fake_vmcs[VMCS_GUEST_CS_ACCESS_RIGHTS] = 0xc09b;     /* 32-bit code */
	handle_vmcall(&v, &ex);
	assert_int_equal(v.regs.rax, 0xfffffc18);             /* -1000, 32 */
	setup(NULL);
	handle_invalid_opcode(&v, &ex);
	assert_int_equal(injected, EXC_INVALID_OPCODE);
	assert_int_equal(injected_error, 0xffffffff);
	assert_int_equal(skipped(), 0);
}

/*
 * debug.hypercall: off, its number is as unknown as any (the test image's
 * program sees -KVM_EPERM from user mode); on, it is answered from any
 * CPL, with RBX and RCX as the operation and its argument.
 */
static void vmcall_debug_hypercall(void **state)
{
	(void)state;
	hc_calls = 0;
	vm.config.debug_hypercall = false;
	fake_vmcs[VMCS_GUEST_SS_ACCESS_RIGHTS] = AR_DATA_DPL3;
	v.regs.rax = APFVISOR_HC_DEBUG;
	handle_vmcall(&v, &ex);
	assert_true(v.regs.rax == (uint64_t)-1);
	assert_int_equal(hc_calls, 0);
	setup(NULL);
	vm.config.debug_hypercall = true;
	fake_vmcs[VMCS_GUEST_SS_ACCESS_RIGHTS] = AR_DATA_DPL3;
	v.regs.rax = APFVISOR_HC_DEBUG;
	v.regs.rbx = DEBUG_HC_PAGE_STATE;
	v.regs.rcx = 0x123456789000ull;
	handle_vmcall(&v, &ex);
	expect_done();
	assert_int_equal(hc_calls, 1);
	assert_int_equal(hc_op, DEBUG_HC_PAGE_STATE);
	assert_true(hc_arg == 0x123456789000ull);
	assert_int_equal(v.regs.rax, 3);
	/* Another number is still unknown. */
	setup(NULL);
	vm.config.debug_hypercall = true;
	v.regs.rax = APFVISOR_HC_DEBUG + 1;
	handle_vmcall(&v, &ex);
	assert_true(v.regs.rax == (uint64_t)-1000);
	assert_int_equal(hc_calls, 1);
	vm.config.debug_hypercall = false;
}

/*
 * KVM_HC_SEND_IPI from CPL 0 goes to guest_pv_send_ipi with RBX, RCX,
 * RDX, RSI (32 bits wide outside 64-bit code) and returns its count;
 * from CPL 3 it is refused (-KVM_EPERM) as every hypercall.
 */
static void vmcall_pv_send_ipi(void **state)
{
	(void)state;
	pv_ipi_calls = 0;
	v.regs.rax = KVM_HC_SEND_IPI;
	v.regs.rbx = 0x1ffffffffull;
	v.regs.rcx = 2;
	v.regs.rdx = 3;
	v.regs.rsi = 0x4f1;
	handle_vmcall(&v, &ex);
	expect_done();
	assert_int_equal(pv_ipi_calls, 1);
	assert_true(pv_ipi_args[0] == 0x1ffffffffull && pv_ipi_args[1] == 2 &&
		    pv_ipi_args[2] == 3 && pv_ipi_args[3] == 0x4f1);
	assert_true(pv_ipi_wide);
	assert_int_equal(v.regs.rax, 2);
	setup(NULL);
	fake_vmcs[VMCS_GUEST_CS_ACCESS_RIGHTS] = 0xc09b;     /* 32-bit code */
	v.regs.rax = KVM_HC_SEND_IPI;
	v.regs.rbx = 0x1ffffffffull;
	handle_vmcall(&v, &ex);
	assert_int_equal(pv_ipi_calls, 2);
	assert_true(pv_ipi_args[0] == 0xffffffffull && !pv_ipi_wide);
	setup(NULL);
	fake_vmcs[VMCS_GUEST_SS_ACCESS_RIGHTS] = AR_DATA_DPL3;
	v.regs.rax = KVM_HC_SEND_IPI;
	handle_vmcall(&v, &ex);
	assert_true(v.regs.rax == (uint64_t)-1);
	assert_int_equal(pv_ipi_calls, 2);
}

/*
 * The exception bitmap: #DB and #AC (given back; KVM intercepts both
 * against the delivery loops of CVE-2015-8104 and CVE-2015-5307) and #MC;
 * nothing else (a #PF or #UD there would cost every guest fault an exit).
 */
static void exception_bitmap(void **state)
{
	(void)state;
	assert_int_equal(vmx_exception_intercepts(),
			 BIT(EXC_DEBUG) | BIT(EXC_ALIGNMENT_CHECK) |
			 BIT(EXC_MACHINE_CHECK));
}

/*
 * #DB comes back to the guest with DR6 as the CPU would have left it: the
 * hit breakpoint from the qualification, the old B0-B3 replaced, BD/BS
 * added, the reserved ones set, RTM (active low) set unless reported.
 */
static void debug_is_given_back_with_dr6(void **state)
{
	(void)state;
	assert_int_equal(vmx_dr6_after_debug_exit(0xffff0ff3, 0x1),
			 0xffff0ff1);
	assert_int_equal(vmx_dr6_after_debug_exit(0, DR6_BS),
			 0xffff0ff0 | DR6_BS);
	assert_int_equal(vmx_dr6_after_debug_exit(0xffff0ff0, DR6_RTM | 0x4),
			 (0xffff0ff4ull & ~DR6_RTM));

	dr6 = 0xffff0ff8;                       /* B3 from an older event */
	ex.qualification = 0x2;                 /* B1 hit now */
	assert_int_equal(handle_guest_exception(&v, &ex,
						HW_EXCEPTION(EXC_DEBUG)),
			 EXIT_RESUME);
	assert_int_equal(injected, EXC_DEBUG);
	assert_int_equal(injected_error, 0xffffffff);
	assert_int_equal(dr6, 0xffff0ff2);
	assert_int_equal(skipped(), 0);
	assert_int_equal(v.stats.debug_reflected, 1);
	assert_int_equal(fake_vmcs[VMCS_GUEST_PENDING_DEBUG], 0);

	/* Single-stepping over STI: the pending BS that VM entry checks. */
	setup(NULL);
	fake_vmcs[VMCS_GUEST_RFLAGS] = RFLAGS_TF | RFLAGS_RESERVED_1;
	fake_vmcs[VMCS_GUEST_INTERRUPTIBILITY] = INTERRUPTIBILITY_STI;
	ex.qualification = DR6_BS;
	handle_guest_exception(&v, &ex, HW_EXCEPTION(EXC_DEBUG));
	assert_int_equal(fake_vmcs[VMCS_GUEST_PENDING_DEBUG], DR6_BS);
	assert_int_equal(injected, EXC_DEBUG);
}

/* INT1 (ICEBP) goes back as the privileged software exception it was. */
static void icebp_is_given_back_as_itself(void **state)
{
	(void)state;
	handle_guest_exception(&v, &ex, INTR_INFO_VALID |
			       INTR_TYPE_PRIV_SW_EXCEPTION | EXC_DEBUG);
	assert_int_equal(injected, -1);
	assert_int_equal(fake_vmcs[VMCS_ENTRY_INTERRUPTION_INFO],
			 INTR_INFO_VALID | INTR_TYPE_PRIV_SW_EXCEPTION |
			 EXC_DEBUG);
	assert_int_equal(fake_vmcs[VMCS_ENTRY_INSTRUCTION_LENGTH],
			 ex.instruction_length);
	assert_int_equal(v.stats.debug_reflected, 1);
}

/*
 * #AC: given back with error code 0 (RF in the pushed RFLAGS is
 * vmx_inject_exception's, tests/unit/test_exception_inject.c).
 */
static void alignment_check_is_given_back(void **state)
{
	(void)state;
	fake_vmcs[VMCS_GUEST_RFLAGS] = RFLAGS_AC | RFLAGS_RESERVED_1;
	assert_int_equal(handle_guest_exception(
				 &v, &ex, HW_EXCEPTION(EXC_ALIGNMENT_CHECK)),
			 EXIT_RESUME);
	assert_int_equal(injected, EXC_ALIGNMENT_CHECK);
	assert_int_equal(injected_error, 0);
	assert_int_equal(skipped(), 0);
	assert_int_equal(v.stats.alignment_check_reflected, 1);
}

/*
 * A machine check while the guest ran is the host's: every valid bank
 * logged (status, address), the VM ended, nothing injected.
 */
static void machine_check_ends_the_vm_with_the_banks(void **state)
{
	(void)state;
	console_add_sink(capture_console);
	mc_status[1] = MCI_STATUS_VAL | MCI_STATUS_ADDRV | 0x9f;
	mc_addr[1] = 0x12345000;
	assert_int_equal(handle_guest_exception(
				 &v, &ex, HW_EXCEPTION(EXC_MACHINE_CHECK)),
			 EXIT_STOP);
	console_remove_sink(capture_console);
	assert_int_equal(injected, -1);
	assert_true(vm.end.ended);
	assert_non_null(strstr(ended, "machine check on host cpu while "
				      "vcpu 0 ran the guest at rip 0x1000"));
	assert_non_null(strstr(console_text, "apfvisor: error: machine "
				       "check: MCG_STATUS 0x5, 2 banks\n"));
	assert_non_null(strstr(console_text, "apfvisor: error: machine "
				       "check: bank 1 status "
				       "0x840000000000009f addr 0x12345000 "
				       "misc 0x0\n"));
	assert_null(strstr(console_text, "bank 0"));

	/* A CPU without banks: said so, no MSR read (rdmsr would fail). */
	setup(NULL);
	host_mca = false;
	console_add_sink(capture_console);
	assert_int_equal(vmx_log_machine_check(), 0);
	console_remove_sink(capture_console);
	assert_non_null(strstr(console_text, "reports no banks"));
}

/*
 * A guest page lost to a failed swap-in (vmx/exit_lost_page.c): an
 * action-required #MC (vector 18, no error code) at the faulting
 * instruction, bank 9 naming the page; with CR4.MCE clear the VM ends
 * instead, naming the gpa and why, and nothing is injected.
 */
static void lost_page_is_a_machine_check(void **state)
{
	struct guest_mce *m = &vm.plat[0].msrs.mce;

	(void)state;
	guest_mce_init(m);
	fake_vmcs[VMCS_GUEST_CR4] = CR4_PAE | CR4_MCE;
	assert_int_equal(handle_lost_page(&v, &ex, 0x1234567), EXIT_RESUME);
	assert_int_equal(injected, EXC_MACHINE_CHECK);
	assert_int_equal(injected_error, 0xffffffff);
	assert_int_equal(skipped(), 0);
	assert_true(m->bank[9][MCE_ADDR] == 0x1234000);
	assert_true(m->bank[9][MCE_STATUS] == 0xbd80000000000134ull);
	assert_int_equal(v.stats.mce_injected, 1);
	assert_false(vm.end.ended);

	setup(NULL);
	guest_mce_init(m);
	fake_vmcs[VMCS_GUEST_CR4] = CR4_PAE;
	console_add_sink(capture_console);
	assert_int_equal(handle_lost_page(&v, &ex, 0x1234567), EXIT_STOP);
	console_remove_sink(capture_console);
	assert_int_equal(injected, -1);
	assert_true(vm.end.ended);
	assert_string_equal(ended, "gpa 0x0000000001234000 lost to a failed "
			    "swap-in; vcpu 0 cannot take its machine check "
			    "(rip 0x1000): the guest has CR4.MCE clear (a "
			    "machine check shuts the CPU down)");
	assert_non_null(strstr(console_text, "apfvisor: error: gpa "
				       "0x0000000001234000 lost"));
	assert_int_equal(m->bank[9][MCE_STATUS], 0);
}

/* RDPMC exits (no PMU is offered): #GP, never the host's counters. */
static void rdpmc_raises_gp(void **state)
{
	(void)state;
	assert_int_equal(handle_rdpmc(&v, &ex), EXIT_RESUME);
	expect_gp();
	assert_int_equal(skipped(), 0);
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		T(cr0_refused_values),
		T(cr0_ne_flip_is_emulated),
		T(cr4_vmxe_is_refused),
		T(cr8_is_the_virtual_tpr),
		T(xsetbv_rules),
		T(msrs_refused_values),
		T(msrs_accepted_values),
		T(skip_ends_the_interrupt_shadow),
		T(skip_wraps_eip_and_single_steps),
		T(vmcall_and_vmx_instructions),
		T(vmcall_pv_send_ipi),
		T(vmcall_debug_hypercall),
		T(lost_page_is_a_machine_check),
		T(exception_bitmap),
		T(debug_is_given_back_with_dr6),
		T(icebp_is_given_back_as_itself),
		T(alignment_check_is_given_back),
		T(machine_check_ends_the_vm_with_the_banks),
		T(rdpmc_raises_gp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
