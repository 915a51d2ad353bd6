/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The exit handlers of vmx/exit_cr.c, exit_msr.c, exit_vmx_insn.c and
 * exit_string_io.c over a VMCS of plain words and fake instructions
 * (tests/unit/fake_exits/): for each misbehaviour, the exception injected
 * (and the instruction not skipped), or the emulated effect and the skip;
 * never a value in the VMCS that would fail the next VM entry.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86/cpu.h"
#include "arch/x86/exceptions.h"
#include "vmx/exit_handlers.h"
#include "vmx/vmx_ops.h"
#include "lib/console.h"
#include "guest/debug_hypercall.h"

#define CR0_FIXED0 (CR0_PE | CR0_NE | CR0_PG)
#define CR4_FIXED0 CR4_VMXE
#define CR0_LINUX (CR0_PE | CR0_MP | CR0_ET | CR0_NE | CR0_WP | CR0_PG)
#define AR_CODE64 0xa09b                /* CS: L, P, DPL 0 */
#define AR_DATA_DPL0 0x93
#define AR_DATA_DPL3 0xf3
#define RAM_SIZE 0x10000

uint64_t fake_vmcs[FAKE_VMCS_FIELDS];
static struct vm vm;
static struct vcpu v;
static struct vmx_exit ex;
static int injected;                    /* vector, -1: none */
static uint32_t injected_error;
static uint64_t xcr0_loaded;
static unsigned xsetbvs;
static uint8_t ram[RAM_SIZE];
static uint8_t port_out[64];
static unsigned nport_out;
static char ended[256];

/* ---- the fake instructions and the rest of apfvisor ---- */

/* The host's machine-check banks (CPUID 1 EDX MCE and MCA, the MSRs). */
static bool host_mca = true;
static uint64_t mc_status[2], mc_addr[2];
static uint64_t dr6 = 0xffff0ff0;
static char console_text[2048];
static size_t console_len;

void cpuid_count(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	assert_int_equal(subleaf, 0);
	if (leaf == CPUID_LEAF_FEATURES) {
		*r = (struct cpuid_regs){ .edx = host_mca ?
			CPUID_1_EDX_MCE | CPUID_1_EDX_MCA : 0 };
		return;
	}
	assert_int_equal(leaf, CPUID_LEAF_XSAVE);
	*r = (struct cpuid_regs){ .eax = 0xe7 };        /* x87 .. AVX-512 */
}

uint64_t read_dr6(void)
{
	return dr6;
}

void write_dr6(uint64_t value)
{
	dr6 = value;
}

static void capture_console(const char *s, size_t len)
{
	if (console_len + len < sizeof(console_text)) {
		memcpy(console_text + console_len, s, len);
		console_len += len;
		console_text[console_len] = 0;
	}
}

uint64_t rdmsr(uint32_t msr)
{
	switch (msr) {
	case MSR_IA32_VMX_CR0_FIXED0: return CR0_FIXED0;
	case MSR_IA32_VMX_CR0_FIXED1: return 0xffffffff;
	case MSR_IA32_VMX_CR4_FIXED0: return CR4_FIXED0;
	case MSR_IA32_MCG_CAP: return 2;        /* two banks */
	case MSR_IA32_MCG_STATUS: return 0x5;   /* RIPV, MCIP */
	case MSR_IA32_MC_STATUS(0): return mc_status[0];
	case MSR_IA32_MC_STATUS(1): return mc_status[1];
	case MSR_IA32_MC_ADDR(0): return mc_addr[0];
	case MSR_IA32_MC_ADDR(1): return mc_addr[1];
	default: fail_msg("rdmsr 0x%x", msr);
	}
	return 0;
}

void xsetbv(uint32_t xcr, uint64_t value)
{
	assert_int_equal(xcr, 0);
	xcr0_loaded = value;
	xsetbvs++;
}

uint64_t rdtsc(void)
{
	return 1000;
}

void vmx_inject_exception(uint8_t vector, bool has_error_code,
			  uint32_t error_code)
{
	assert_int_equal(injected, -1);
	injected = vector;
	injected_error = has_error_code ? error_code : 0xffffffff;
}

enum exit_action handle_unexpected(struct vcpu *vc, const struct vmx_exit *e)
{
	(void)vc;
	(void)e;
	fail_msg("handle_unexpected");
	return EXIT_STOP;
}

/* debug.hypercall's operations: the last call seen. */
static uint64_t hc_op, hc_arg;
static unsigned hc_calls;

int64_t vm_debug_hypercall(struct vm *g, uint64_t op, uint64_t arg)
{
	assert_ptr_equal(g, &vm);
	hc_op = op;
	hc_arg = arg;
	hc_calls++;
	return 3;
}

enum msr_result guest_rdmsr(struct vm *g, unsigned n, uint32_t msr,
			    uint64_t *value)
{
	(void)g;
	(void)n;
	*value = 0x77;
	return msr == 0x17 ? MSR_HANDLED : MSR_RAISE_GP;
}

enum msr_result guest_wrmsr(struct vm *g, unsigned n, uint32_t msr,
			    uint64_t value)
{
	(void)g;
	(void)n;
	(void)value;
	return msr == 0x8b ? MSR_HANDLED : MSR_RAISE_GP;
}

bool guest_port_io(struct vm *g, uint16_t port, unsigned size, bool in,
		   uint32_t *value)
{
	assert_ptr_equal(g, &vm);
	assert_int_equal(port, 0x3f8);
	if (in) {
		*value = size == 1 ? 0xab : 0xabcd;
		return true;
	}
	for (unsigned i = 0; i < size; i++, nport_out++)
		if (nport_out < sizeof(port_out))
			port_out[nport_out] = (uint8_t)(*value >> (8 * i));
	return true;
}

int vm_read_ram(struct vm *g, uint64_t gpa, void *dst, uint64_t len)
{
	assert_ptr_equal(g, &vm);
	if (gpa >= RAM_SIZE || RAM_SIZE - gpa < len)
		return -1;
	memcpy(dst, ram + gpa, len);
	return 0;
}

int vm_write_ram(struct vm *g, uint64_t gpa, const void *src, uint64_t len)
{
	assert_ptr_equal(g, &vm);
	if (gpa >= RAM_SIZE || RAM_SIZE - gpa < len)
		return -1;
	memcpy(ram + gpa, src, len);
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
	g->ended = true;
}

/* ---- set-up: a 64-bit ring-0 guest as Linux runs ---- */

static int setup(void **state)
{
	(void)state;
	memset(fake_vmcs, 0, sizeof(fake_vmcs));
	memset(&vm, 0, sizeof(vm));
	memset(&v, 0, sizeof(v));
	memset(ram, 0, sizeof(ram));
	vm.nvcpus = 1;
	vlapic_init(&vm.plat[0].lapic, 0, true, 2500000000ull);
	vlapic_wrmsr(&vm.plat[0].lapic, VLAPIC_MSR_APIC_BASE,
		     VLAPIC_DEFAULT_BASE | VLAPIC_BASE_EN | VLAPIC_BASE_EXTD |
			     VLAPIC_BASE_BSP, 0, NULL);
	v.guest = &vm;
	v.plat = &vm.plat[0];
	ex = (struct vmx_exit){ .guest_rip = 0x1000, .instruction_length = 3 };
	nport_out = xsetbvs = 0;
	injected = -1;
	host_mca = true;
	memset(mc_status, 0, sizeof(mc_status));
	memset(mc_addr, 0, sizeof(mc_addr));
	dr6 = 0xffff0ff0;
	console_len = 0;
	console_text[0] = 0;
	ended[0] = 0;
	fake_vmcs[VMCS_GUEST_RIP] = ex.guest_rip;
	fake_vmcs[VMCS_GUEST_CR0] = CR0_LINUX;
	fake_vmcs[VMCS_CR0_READ_SHADOW] = CR0_LINUX;
	fake_vmcs[VMCS_GUEST_CR4] = CR4_PAE | CR4_VMXE;
	fake_vmcs[VMCS_CR4_READ_SHADOW] = CR4_PAE;
	fake_vmcs[VMCS_GUEST_IA32_EFER] = EFER_SCE | EFER_LME | EFER_LMA |
					  EFER_NXE;
	fake_vmcs[VMCS_GUEST_CS_ACCESS_RIGHTS] = AR_CODE64;
	fake_vmcs[VMCS_GUEST_SS_ACCESS_RIGHTS] = AR_DATA_DPL0;
	fake_vmcs[VMCS_GUEST_IA32_PAT] = 0x0007040600070406ull;
	return 0;
}

/* How many instructions the handler skipped: none or the exiting one. */
static unsigned skipped(void)
{
	uint64_t rip = fake_vmcs[VMCS_GUEST_RIP];

	if (rip == ex.guest_rip)
		return 0;
	assert_int_equal(rip, ex.guest_rip + ex.instruction_length);
	return 1;
}

static void expect_gp(void)
{
	assert_int_equal(injected, EXC_GENERAL_PROTECTION);
	assert_int_equal(injected_error, 0);
	assert_int_equal(skipped(), 0);
}

static void expect_done(void)
{
	assert_int_equal(injected, -1);
	assert_int_equal(skipped(), 1);
}

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
	vm.debug_hypercall = false;
	fake_vmcs[VMCS_GUEST_SS_ACCESS_RIGHTS] = AR_DATA_DPL3;
	v.regs.rax = APFVISOR_HC_DEBUG;
	handle_vmcall(&v, &ex);
	assert_true(v.regs.rax == (uint64_t)-1);
	assert_int_equal(hc_calls, 0);
	setup(NULL);
	vm.debug_hypercall = true;
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
	vm.debug_hypercall = true;
	v.regs.rax = APFVISOR_HC_DEBUG + 1;
	handle_vmcall(&v, &ex);
	assert_true(v.regs.rax == (uint64_t)-1000);
	assert_int_equal(hc_calls, 1);
	vm.debug_hypercall = false;
}

/* ---- INS and OUTS ---- */

/* REP OUTSB/INSB etc. with paging off (linear = physical). */
static enum exit_action string_io(bool in, unsigned size, bool rep,
				  unsigned addr_size)
{
	fake_vmcs[VMCS_GUEST_CR0] = CR0_PE | CR0_NE;
	fake_vmcs[VMCS_GUEST_IA32_EFER] = 0;
	fake_vmcs[VMCS_EXIT_INSTRUCTION_INFO] = addr_size << 7 | 3u << 15;
	ex.qualification = (size - 1) | (in ? 8u : 0) | 1u << 4 |
			   (rep ? 1u << 5 : 0) | 0x3f8ull << 16;
	return handle_string_io(&v, &ex);
}

static void outs_and_ins(void **state)
{
	(void)state;
	memcpy(ram + 0x100, "abc", 3);
	v.regs.rsi = 0x100;
	v.regs.rcx = 3;
	string_io(false, 1, true, 2);
	expect_done();
	assert_int_equal(nport_out, 3);
	assert_memory_equal(port_out, "abc", 3);
	assert_int_equal(v.regs.rsi, 0x103);
	assert_int_equal(v.regs.rcx, 0);
	/* Backwards (DF), 16-bit elements. */
	setup(NULL);
	fake_vmcs[VMCS_GUEST_RFLAGS] = BIT(10);
	v.regs.rdi = 0x204;
	v.regs.rcx = 2;
	string_io(true, 2, true, 2);
	expect_done();
	assert_int_equal(ram[0x204], 0xcd);
	assert_int_equal(ram[0x202], 0xcd);
	assert_int_equal(v.regs.rdi, 0x200);
	/* REP with RCX = 0: nothing moves, the instruction is done. */
	setup(NULL);
	v.regs.rcx = 0;
	v.regs.rsi = 0x100;
	string_io(false, 1, true, 2);
	expect_done();
	assert_int_equal(nport_out, 0);
	/* 16-bit addresses wrap in SI, the upper bits of RSI stay. */
	setup(NULL);
	v.regs.rsi = 0x12340000ffffull;
	v.regs.rcx = 0x10001;                   /* CX = 1 */
	string_io(false, 1, true, 0);
	expect_done();
	assert_true(v.regs.rsi == 0x123400000000ull);
	assert_int_equal(v.regs.rcx, 0x10000);
}

static void string_io_faults_and_limits(void **state)
{
	(void)state;
	/* Paging on, an empty PML4 at 0x1000: #PF, CR2 the address. */
	fake_vmcs[VMCS_GUEST_CR3] = 0x1000;
	fake_vmcs[VMCS_EXIT_INSTRUCTION_INFO] = 2u << 7 | 3u << 15;
	ex.qualification = 0 | 1u << 4 | 0x3f8ull << 16;        /* OUTSB */
	v.regs.rsi = 0x400000;
	handle_string_io(&v, &ex);
	assert_int_equal(injected, EXC_PAGE_FAULT);
	assert_int_equal(injected_error, 0);
	assert_int_equal(v.regs.cr2, 0x400000);
	assert_int_equal(skipped(), 0);
	/*
	 * Nothing at the address (paging off, past RAM): OUTS sends all
	 * ones, INS drops the byte, as a load or store there does; the
	 * instruction is done and the guest goes on.
	 */
	setup(NULL);
	v.regs.rsi = RAM_SIZE;
	assert_int_equal(string_io(false, 1, false, 2), EXIT_RESUME);
	expect_done();
	assert_int_equal(nport_out, 1);
	assert_int_equal(port_out[0], 0xff);
	assert_int_equal(ended[0], 0);
	setup(NULL);
	v.regs.rdi = RAM_SIZE - 1;              /* one byte in, one past */
	assert_int_equal(string_io(true, 2, false, 2), EXIT_RESUME);
	expect_done();
	assert_int_equal(ram[RAM_SIZE - 1], 0xcd);
	assert_int_equal(ended[0], 0);
	/* A long REP: 1024 elements per exit, then the instruction again. */
	setup(NULL);
	v.regs.rsi = 0;
	v.regs.rcx = 1500;
	nport_out = 0;
	memset(port_out, 0, sizeof(port_out));
	fake_vmcs[VMCS_GUEST_CR0] = CR0_PE | CR0_NE;
	fake_vmcs[VMCS_GUEST_IA32_EFER] = 0;
	fake_vmcs[VMCS_EXIT_INSTRUCTION_INFO] = 2u << 7 | 3u << 15;
	ex.qualification = 1 << 4 | 1 << 5 | 0x3f8ull << 16;
	handle_string_io(&v, &ex);
	assert_int_equal(nport_out, 1024);
	assert_int_equal(v.regs.rcx, 1500 - 1024);
	assert_int_equal(skipped(), 0);
	handle_string_io(&v, &ex);
	assert_int_equal(nport_out, 1500);
	assert_int_equal(v.regs.rcx, 0);
	assert_int_equal(v.regs.rsi, 1500);
	expect_done();
	assert_int_equal(v.stats.string_io, 2);
}

/* 64-bit code, paging on: the first GiB mapped 1:1 by one PDPT entry. */
static enum exit_action string_io_64(bool in, unsigned segment)
{
	uint64_t pml4e = 0x2000 | 3, pdpte = 0 | 3 | BIT(7);

	memcpy(ram + 0x1000, &pml4e, 8);
	memcpy(ram + 0x2000, &pdpte, 8);
	fake_vmcs[VMCS_GUEST_CR3] = 0x1000;
	fake_vmcs[VMCS_EXIT_INSTRUCTION_INFO] = 2u << 7 | segment << 15;
	ex.qualification = (in ? 8u : 0) | 1u << 4 | 0x3f8ull << 16;
	return handle_string_io(&v, &ex);
}

/*
 * In 64-bit mode DS, ES and SS have no base (only FS and GS do), and a
 * non-canonical address raises #GP (#SS through SS) with nothing moved
 * and the instruction not done, as on the CPU.
 */
static void string_io_in_64bit_mode(void **state)
{
	(void)state;
	ram[0x200] = 'd';
	ram[0x300] = 'f';
	fake_vmcs[VMCS_GUEST_DS_BASE] = 0x100;
	fake_vmcs[VMCS_GUEST_FS_BASE] = 0x100;
	v.regs.rsi = 0x200;
	string_io_64(false, 3);                 /* DS: no base */
	expect_done();
	assert_int_equal(port_out[0], 'd');
	setup(NULL);
	ram[0x300] = 'f';
	fake_vmcs[VMCS_GUEST_FS_BASE] = 0x100;
	v.regs.rsi = 0x200;
	string_io_64(false, 4);                 /* FS: its base */
	expect_done();
	assert_int_equal(port_out[0], 'f');
	setup(NULL);
	v.regs.rsi = 0x0000800000000000ull;     /* not canonical */
	string_io_64(false, 3);
	expect_gp();
	assert_int_equal(nport_out, 0);
	setup(NULL);
	v.regs.rsi = 0x00007ffffffffffful;      /* the last byte canonical... */
	ex.qualification = 1 | 1u << 4 | 0x3f8ull << 16;
	fake_vmcs[VMCS_GUEST_CR3] = 0x1000;
	fake_vmcs[VMCS_EXIT_INSTRUCTION_INFO] = 2u << 7 | 2u << 15;  /* SS */
	handle_string_io(&v, &ex);              /* ...the word's end is not */
	assert_int_equal(injected, EXC_STACK_FAULT);
	assert_int_equal(skipped(), 0);
}

/*
 * Linear addresses wrap at 4 GiB outside 64-bit code, also between the
 * bytes of one element; in 64-bit code with a 32-bit address size the
 * offset is cut to 32 bits before the whole FS/GS base is added (SDM
 * Vol. 1, 3.3.7). Both found by tests/fuzz/fuzz_string_io.c.
 */
static void string_io_address_wrap(void **state)
{
	uint64_t e;

	(void)state;
	/* 32-bit code, paging off: a dword at 0xfffffffe is ff ff, then
	 * the bytes at 0 and 1. */
	ram[0] = 'a';
	ram[1] = 'b';
	fake_vmcs[VMCS_GUEST_DS_BASE] = 0xfffffff0;
	v.regs.rsi = 0xe;
	string_io(false, 4, false, 1);
	expect_done();
	assert_int_equal(nport_out, 4);
	assert_memory_equal(port_out, "\xff\xff" "ab", 4);
	/* A word stored at 0xffffffff: its high byte lands at 0. */
	setup(NULL);
	v.regs.rdi = 0xffffffff;
	string_io(true, 2, false, 1);
	expect_done();
	assert_int_equal(ram[0], 0xab);
	/* 64-bit code, OUTSB through FS with ESI: FS base in the upper
	 * half (PML4 entry 256 -> page tables -> gpa 0x8000), ESI's upper
	 * half ignored; the lower half of the address space maps 0 -> 0. */
	setup(NULL);
	ram[0x100] = 'l';
	ram[0x8100] = 'u';
	e = 0x2000 | 3;
	memcpy(ram + 0x1000, &e, 8);            /* PML4[0] */
	e = 0 | 3 | BIT(7);
	memcpy(ram + 0x2000, &e, 8);            /* 1 GiB page at 0 */
	e = 0x3000 | 3;
	memcpy(ram + 0x1000 + 256 * 8, &e, 8);  /* PML4[256] */
	e = 0x4000 | 3;
	memcpy(ram + 0x3000, &e, 8);
	e = 0x5000 | 3;
	memcpy(ram + 0x4000, &e, 8);
	e = 0x8000 | 3;
	memcpy(ram + 0x5000, &e, 8);
	fake_vmcs[VMCS_GUEST_CR3] = 0x1000;
	fake_vmcs[VMCS_GUEST_FS_BASE] = 0xffff800000000000ull;
	fake_vmcs[VMCS_EXIT_INSTRUCTION_INFO] = 1u << 7 | 4u << 15;
	ex.qualification = 1u << 4 | 0x3f8ull << 16;
	v.regs.rsi = 0xffffffff00000100ull;
	handle_string_io(&v, &ex);
	expect_done();
	assert_int_equal(nport_out, 1);
	assert_int_equal(port_out[0], 'u');
	assert_true(v.regs.rsi == 0x101);       /* ESI, zero-extended */
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

#define HW_EXCEPTION(vector) (INTR_INFO_VALID | INTR_TYPE_HW_EXCEPTION | \
			      (vector))

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

/* #AC: given back with error code 0 and RF in the pushed RFLAGS. */
static void alignment_check_is_given_back(void **state)
{
	(void)state;
	fake_vmcs[VMCS_GUEST_RFLAGS] = RFLAGS_AC | RFLAGS_RESERVED_1;
	assert_int_equal(handle_guest_exception(
				 &v, &ex, HW_EXCEPTION(EXC_ALIGNMENT_CHECK)),
			 EXIT_RESUME);
	assert_int_equal(injected, EXC_ALIGNMENT_CHECK);
	assert_int_equal(injected_error, 0);
	assert_int_equal(fake_vmcs[VMCS_GUEST_RFLAGS],
			 RFLAGS_AC | RFLAGS_RESERVED_1 | RFLAGS_RF);
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
	assert_true(vm.ended);
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
	assert_false(vm.ended);

	setup(NULL);
	guest_mce_init(m);
	fake_vmcs[VMCS_GUEST_CR4] = CR4_PAE;
	console_add_sink(capture_console);
	assert_int_equal(handle_lost_page(&v, &ex, 0x1234567), EXIT_STOP);
	console_remove_sink(capture_console);
	assert_int_equal(injected, -1);
	assert_true(vm.ended);
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

#define T(name) cmocka_unit_test_setup(name, setup)

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
		T(vmcall_debug_hypercall),
		T(lost_page_is_a_machine_check),
		T(outs_and_ins),
		T(string_io_faults_and_limits),
		T(string_io_in_64bit_mode),
		T(string_io_address_wrap),
		T(exception_bitmap),
		T(debug_is_given_back_with_dr6),
		T(icebp_is_given_back_as_itself),
		T(alignment_check_is_given_back),
		T(machine_check_ends_the_vm_with_the_banks),
		T(rdpmc_raises_gp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
