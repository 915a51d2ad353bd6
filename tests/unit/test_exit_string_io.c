/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * vmx/exit_string_io.c: INS and OUTS (REP or not) through the guest's
 * page tables over the fakes of tests/unit/exit_env.h: the bytes moved,
 * the faults raised, 64-bit segment rules and address wrap.
 */
#include "tests/unit/exit_env.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(outs_and_ins),
		T(string_io_faults_and_limits),
		T(string_io_in_64bit_mode),
		T(string_io_address_wrap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
