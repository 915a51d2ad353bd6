/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The environment of the exit-handler tests (test_exit_handlers.c,
 * test_exit_string_io.c): a VMCS of plain words (tests/unit/fake_exits/),
 * guest RAM, the injections, the console and the host functions the
 * handlers call, recorded; setup() and the skip checks. Included once by
 * each test program.
 */
#ifndef TESTS_UNIT_EXIT_ENV_H
#define TESTS_UNIT_EXIT_ENV_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86/cpu.h"
#include "arch/x86/exceptions.h"
#include "guest/pv_send_ipi.h"
#include "vmx/exit_handlers.h"
#include "vmx/vcpu_events.h"
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

static inline void capture_console(const char *s, size_t len)
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

static unsigned invvpids;

bool invvpid(uint64_t type, uint16_t vpid)
{
	assert_int_equal(type, INVVPID_SINGLE_CONTEXT);
	assert_int_equal(vpid, v.vpid);
	invvpids++;
	return true;
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

/*
 * The rest of what HLT, CPUID and the event exits call (vmx/exit_basic.c):
 * the waits, counted; the paging daemon, the LAPIC, the platform.
 */
static unsigned halts, parks;

void vcpu_block_until_event(struct vcpu *vc)
{
	assert_ptr_equal(vc, &v);
	halts++;
}

void vcpu_park(struct vcpu *vc)
{
	assert_ptr_equal(vc, &v);
	parks++;
}

bool swap_daemon_has_service_cpu(const struct swap_daemon *d)
{
	(void)d;
	return true;
}

/* With a service CPU, a vCPU's exit never runs the daemon's work. */
bool swap_daemon_work_as(struct swap_daemon *d, enum swap_worker who)
{
	(void)d;
	assert_int_equal(who, SWAP_WORKER_VCPU);
	return false;
}

void lapic_eoi(void)
{
}

bool platform_stopping(void)
{
	return false;
}

void cpu_halt_forever(void)
{
	fail_msg("cpu_halt_forever");
	abort();
}

void vmcs_dump(void)
{
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

/* KVM_HC_SEND_IPI: the last call's arguments. */
static uint64_t pv_ipi_args[4];
static bool pv_ipi_wide;
static unsigned pv_ipi_calls;

unsigned guest_pv_send_ipi(struct vm *g, unsigned from, uint64_t low,
			   uint64_t high, uint64_t min, uint64_t icr,
			   bool wide)
{
	assert_ptr_equal(g, &vm);
	assert_int_equal(from, v.id);
	pv_ipi_args[0] = low;
	pv_ipi_args[1] = high;
	pv_ipi_args[2] = min;
	pv_ipi_args[3] = icr;
	pv_ipi_wide = wide;
	pv_ipi_calls++;
	return 2;
}

enum msr_result guest_rdmsr(struct vm *g, unsigned n, uint32_t msr,
			    uint64_t *value)
{
	(void)g;
	(void)n;
	*value = 0x77;
	return msr == 0x17 ? MSR_HANDLED : MSR_RAISE_GP;
}

/* BIOS_SIGN_ID is taken; IA32_TSC sets the offset to the value, as a
 * stand-in for guest/msr.c's arithmetic (tests/unit/test_guest_msr.c). */
enum msr_result guest_wrmsr(struct vm *g, unsigned n, uint32_t msr,
			    uint64_t value)
{
	if (msr == MSR_IA32_TSC) {
		g->plat[n].msrs.tsc.offset = value;
		return MSR_HANDLED;
	}
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
	g->end.ended = true;
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
	nport_out = xsetbvs = invvpids = 0;
	halts = parks = 0;
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

/*
 * How many instructions the handler skipped: none or the exiting one.
 * Inline, as the two below: not every test program uses all three.
 */
static inline unsigned skipped(void)
{
	uint64_t rip = fake_vmcs[VMCS_GUEST_RIP];

	if (rip == ex.guest_rip)
		return 0;
	assert_int_equal(rip, ex.guest_rip + ex.instruction_length);
	return 1;
}

static inline void expect_gp(void)
{
	assert_int_equal(injected, EXC_GENERAL_PROTECTION);
	assert_int_equal(injected_error, 0);
	assert_int_equal(skipped(), 0);
}

static inline void expect_done(void)
{
	assert_int_equal(injected, -1);
	assert_int_equal(skipped(), 1);
}

/* The interruption information of a hardware exception (an exit's). */
#define HW_EXCEPTION(vector) (INTR_INFO_VALID | INTR_TYPE_HW_EXCEPTION | \
			      (vector))

#define T(name) cmocka_unit_test_setup(name, setup)

#endif
