/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: INS and OUTS (vmx/exit_string_io.c) with the guest's
 * own page tables (guest/guest_pagewalk.c). Built with
 * tests/unit/fake_exits first on the include path: the VMCS is an array
 * of words (fake_vmcs), and the guest's RAM, its ports, exception
 * injection and the VM's end are defined here.
 *
 * The input is a header, read with fuzz_take, then the guest's RAM
 * (RAM_SIZE bytes) as tests/fuzz/fuzz_guest_ram.h pieces. The header:
 * CR0, CR3, CR4 and EFER (any paging mode: off, 32-bit with or without
 * PSE, PAE, 4- and 5-level, large pages at each level; IA-32e mode with
 * paging and PAE, as VM entry ensures), CS and SS access rights, RFLAGS.DF
 * and TF, the exit's element size, direction, REP and port, the address
 * size (16/32, or 32/64 in 64-bit code) and segment, the six segment bases
 * (FS and GS canonical), RCX (its count below 64 unless a header bit asks
 * for more: each element costs page walks), RSI, RDI and RIP. The
 * instruction is run as the CPU would run it again: until it is done, an
 * exception is injected or the VM ends, at most EXITS times.
 *
 * Beyond the sanitizers' checks, after each exit:
 *   - EXIT_STOP exactly when the VM ended, with nothing injected; RIP
 *     moved past the instruction (wrapping at 4 GiB outside 64-bit code)
 *     exactly when the count reached 0;
 *   - one port access per element moved, at most 1024 per exit, none
 *     after the VM ended; an OUTS writes no RAM, an INS one byte at a
 *     time;
 *   - RCX (REP) went down by the elements moved, in its address-size part
 *     (the upper 48 bits of a 16-bit count kept, a 32-bit one
 *     zero-extended); RSI/RDI moved by the element size per element,
 *     backwards with DF; the other index register untouched;
 *   - against a model: each byte of each element where the page tables
 *     (as they stood when it moved) put its linear address -- the offset
 *     cut to the address size, the segment base added (none in 64-bit
 *     code but for FS and GS), wrapping at 4 GiB outside 64-bit code; an
 *     OUTS sending the RAM's bytes (all ones where there is none), an INS
 *     storing the port's; and the element that stopped the run stopping
 *     it for the model too: #GP/#SS for a non-canonical address, #PF with
 *     CR2 at its first faulting byte, the VM's end for page tables
 *     outside RAM.
 */
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "arch/x86/cpu.h"
#include "arch/x86/exceptions.h"
#include "arch/x86/register_rules.h"
#include "guest/guest_pagewalk.h"
#include "vmx/exit_handlers.h"
#include "vmx/vmx_ops.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_guest_ram.h"
#include "tests/fuzz/fuzz_script.h"

#define RAM_SIZE (64u << 10)
#define EXITS 3
#define BATCH 1024
#define RFLAGS_DF BIT(10)

uint64_t fake_vmcs[FAKE_VMCS_FIELDS];
static struct vm vm;
static struct vcpu v;
static uint8_t ram[RAM_SIZE];

/* What this exit did, as the fakes saw it. */
static struct {
	unsigned ports;                 /* guest_port_io calls */
	unsigned ram_writes;
	int injected;                   /* vector, -1: none */
	uint32_t port_value[BATCH];     /* OUTS: what was sent */
	uint64_t written_gpa[4 * BATCH];
	uint8_t written[4 * BATCH];
	bool ended;
} seen;

static bool outs, mode64;
static unsigned element, seg;
static uint16_t port;
static uint32_t in_value;               /* what the port gives an INS */

/* ---- what exit_string_io.c calls ---- */

uint64_t rdmsr(uint32_t msr)
{
	(void)msr;
	return 0;
}

uint64_t rdtsc(void)
{
	return 0;
}

void cpuid_count(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	(void)leaf;
	(void)subleaf;
	memset(r, 0, sizeof(*r));
}

void xsetbv(uint32_t xcr, uint64_t value)
{
	(void)xcr;
	(void)value;
}

uint64_t read_dr6(void)
{
	return 0;
}

void write_dr6(uint64_t value)
{
	(void)value;
}

int vm_read_ram(struct vm *g, uint64_t gpa, void *dst, uint64_t len)
{
	CHECK(g == &vm);
	if (gpa >= RAM_SIZE || len > RAM_SIZE - gpa)
		return -1;
	memcpy(dst, ram + gpa, len);
	return 0;
}

int vm_write_ram(struct vm *g, uint64_t gpa, const void *src, uint64_t len)
{
	CHECK(g == &vm);
	CHECK(!outs && len == 1 && !seen.ended);
	CHECK(seen.ram_writes < 4 * BATCH);
	seen.written_gpa[seen.ram_writes] = gpa;
	seen.written[seen.ram_writes++] = *(const uint8_t *)src;
	if (gpa >= RAM_SIZE)
		return -1;
	ram[gpa] = *(const uint8_t *)src;
	return 0;
}

bool guest_port_io(struct vm *g, uint16_t p, unsigned size, bool in,
		   uint32_t *value)
{
	CHECK(g == &vm && p == port && size == element && in == !outs);
	CHECK(!seen.ended && seen.ports < BATCH);
	if (in)
		*value = size == 4 ? in_value
				   : in_value & ((1u << (8 * size)) - 1);
	else
		seen.port_value[seen.ports] = *value;
	seen.ports++;
	return true;
}

void vmx_inject_exception(uint8_t vector, bool has_error_code,
			  uint32_t error_code)
{
	(void)error_code;
	CHECK(seen.injected < 0);
	CHECK(has_error_code);
	CHECK(vector == EXC_PAGE_FAULT || vector == EXC_GENERAL_PROTECTION ||
	      vector == EXC_STACK_FAULT);
	CHECK(vector == EXC_PAGE_FAULT || mode64);
	seen.injected = vector;
}

void vm_end(struct vm *g, bool clean, const char *fmt, ...)
{
	(void)fmt;
	CHECK(g == &vm && !clean);
	seen.ended = true;
	g->end.ended = true;
}

/* ---- the model ---- */

static uint8_t replay[RAM_SIZE];        /* RAM as the exit found it, with
					 * the INS bytes stored so far */

static uint64_t addr_mask(unsigned asz)
{
	return asz == 0 ? 0xffff : asz == 1 ? 0xffffffffull : ~0ull;
}

/*
 * The linear address of byte i of the element at index value idx: the
 * offset cut to the address size, the segment base added, the sum and
 * each byte's address cut to 32 bits outside 64-bit code (SDM Vol. 1,
 * 3.3.7: in 64-bit code the base is added after the offset is cut).
 */
static uint64_t byte_address(uint64_t base, uint64_t idx, unsigned asz,
			     unsigned i)
{
	uint64_t la = base + (idx & addr_mask(asz));

	if (!mode64)
		la &= 0xffffffffull;
	la += i;
	return mode64 ? la : la & 0xffffffffull;
}

static int replay_read(void *ctx, uint64_t gpa, void *buf, unsigned len)
{
	(void)ctx;
	if (gpa >= RAM_SIZE || len > RAM_SIZE - gpa)
		return -1;
	memcpy(buf, replay + gpa, len);
	return 0;
}

static enum guest_walk walk(const struct guest_paging *p, uint64_t la,
			    bool user, uint64_t *gpa, uint32_t *err)
{
	return guest_pagewalk(p, la, !outs, user, replay_read, NULL, gpa,
			      err);
}

/*
 * Each element moved, against the model: its bytes where the page tables
 * (as they were when it moved) put base + index, an OUTS sending the
 * RAM's bytes (all ones where there is none), an INS storing the port's;
 * then the element that stopped the run: its #GP/#SS, #PF with CR2 at its
 * first faulting byte, or the page tables outside RAM.
 */
static void check_elements(uint64_t idx0, uint64_t seg_base, unsigned asz,
			   bool df)
{
	struct guest_paging p = {
		fake_vmcs[VMCS_GUEST_CR0], fake_vmcs[VMCS_GUEST_CR3],
		fake_vmcs[VMCS_GUEST_CR4], fake_vmcs[VMCS_GUEST_IA32_EFER],
	};
	bool user = (fake_vmcs[VMCS_GUEST_SS_ACCESS_RIGHTS] >> 5 & 3) == 3;
	unsigned va_bits = guest_va_bits(p.cr4), w = 0;
	/* An exception or the VM's end stopped the run at element ports. */
	bool stopped = seen.injected >= 0 || seen.ended;
	uint64_t gpa;
	uint32_t err;

	for (unsigned k = 0; k < seen.ports + stopped; k++) {
		uint64_t idx = idx0 + (df ? -(uint64_t)k : (uint64_t)k) *
				       element;
		uint64_t first = byte_address(seg_base, idx, asz, 0);
		uint64_t last = first + element - 1;
		uint32_t sent = 0;
		unsigned i;

		if (mode64 && (!address_canonical(first, va_bits) ||
			       !address_canonical(last, va_bits))) {
			CHECK(k == seen.ports);
			CHECK(seen.injected == (seg == 2 ? EXC_STACK_FAULT :
						EXC_GENERAL_PROTECTION));
			return;
		}
		for (i = 0; i < element; i++) {
			uint64_t la = byte_address(seg_base, idx, asz, i);
			enum guest_walk r = walk(&p, la, user, &gpa, &err);

			if (r == GUEST_WALK_PAGE_FAULT) {
				CHECK(k == seen.ports);
				CHECK(seen.injected == EXC_PAGE_FAULT);
				CHECK(v.regs.cr2 == la);
				return;
			}
			if (r == GUEST_WALK_TABLE_UNREADABLE) {
				CHECK(k == seen.ports && seen.ended);
				return;
			}
			if (k == seen.ports)
				continue;
			if (outs) {
				sent |= (uint32_t)(gpa < RAM_SIZE ?
						   replay[gpa] : 0xff) << (8 * i);
				continue;
			}
			CHECK(w < seen.ram_writes);
			CHECK(seen.written_gpa[w] == gpa);
			CHECK(seen.written[w] ==
			      (uint8_t)(in_value >> (8 * i)));
			w++;
		}
		/* Stopped at an element the model finds nothing wrong with */
		CHECK(k < seen.ports);
		if (outs) {
			CHECK(seen.port_value[k] == sent);
		} else {
			/* The bytes land before the next element walks. */
			for (unsigned b = w - element; b < w; b++)
				if (seen.written_gpa[b] < RAM_SIZE)
					replay[seen.written_gpa[b]] =
						seen.written[b];
		}
	}
	CHECK(w == seen.ram_writes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned sizes[4] = { 1, 2, 4, 1 };
	struct fuzz_script in = { data, size };
	struct vmx_exit ex = { 0 };
	uint64_t qual, cr0, cr4, efer, rip, base[6], *index, *other, mask;
	unsigned asz, how;
	bool rep, df, long_count;

	/* The handler reads only the fields set below and these. */
	fake_vmcs[VMCS_GUEST_INTERRUPTIBILITY] = 0;
	fake_vmcs[VMCS_GUEST_PENDING_DEBUG] = 0;
	memset(&vm, 0, sizeof(vm));
	memset(&v, 0, sizeof(v));
	v.guest = &vm;
	v.plat = &vm.plat[0];
	vm.nvcpus = 1;

	cr0 = fuzz_take(&in, 4);
	fake_vmcs[VMCS_GUEST_CR3] = fuzz_take(&in, 8);
	cr4 = fuzz_take(&in, 4);
	efer = fuzz_take(&in, 2);
	/* What VM entry guarantees: IA-32e mode has paging and PAE. */
	if (efer & EFER_LMA) {
		cr0 |= CR0_PG | CR0_PE;
		cr4 |= CR4_PAE;
		efer |= EFER_LME;
	}
	if (cr0 & CR0_PG)
		cr0 |= CR0_PE;
	fake_vmcs[VMCS_GUEST_CR0] = cr0;
	fake_vmcs[VMCS_GUEST_CR4] = cr4;
	fake_vmcs[VMCS_GUEST_IA32_EFER] = efer;
	fake_vmcs[VMCS_GUEST_CS_ACCESS_RIGHTS] = fuzz_take(&in, 2);
	mode64 = vcpu_in_64bit_code();
	fake_vmcs[VMCS_GUEST_SS_ACCESS_RIGHTS] = fuzz_take(&in, 1);
	how = (unsigned)fuzz_take(&in, 1);
	df = how & 1;
	fake_vmcs[VMCS_GUEST_RFLAGS] = 2 | (df ? RFLAGS_DF : 0) |
				       (how & 2 ? RFLAGS_TF : 0);
	/* Element size, IN, REP as the exit qualification has them. */
	element = sizes[(how >> 2) & 3];
	outs = !(how & 16);
	rep = how & 32;
	/* 16 or 32 bits; 32 or 64 in 64-bit code (nothing else exists) */
	asz = (how >> 6 & 1) + (mode64 ? 1 : 0);
	seg = (unsigned)fuzz_take(&in, 1);
	long_count = seg & 0x80;
	seg = (seg & 7) % 6;                    /* ES CS SS DS FS GS */
	port = (uint16_t)fuzz_take(&in, 2);
	in_value = (uint32_t)fuzz_take(&in, 4);
	qual = (element - 1) | (outs ? 0 : 8u) | 16u | (rep ? 32u : 0) |
	       (uint64_t)port << 16;
	fake_vmcs[VMCS_EXIT_INSTRUCTION_INFO] = asz << 7 | seg << 15;
	/* FS and GS hold canonical bases (VM entry and WRMSR see to it). */
	for (unsigned s = 0; s < 6; s++) {
		unsigned bits = guest_va_bits(cr4);

		base[s] = fuzz_take(&in, s >= 4 ? 8 : 4);
		if (s >= 4)
			base[s] = (uint64_t)((int64_t)(base[s] << (64 - bits))
					     >> (64 - bits));
		fake_vmcs[VMCS_GUEST_ES_BASE + 2 * s] = base[s];
	}
	/* Counts past 63 only when asked: they cost a walk per byte. */
	v.regs.rcx = fuzz_take(&in, 8);
	if (!long_count)
		v.regs.rcx &= ~(addr_mask(asz) & ~63ull);
	v.regs.rsi = fuzz_take(&in, 8);
	v.regs.rdi = fuzz_take(&in, 8);
	rip = fuzz_take(&in, 8);
	ex = (struct vmx_exit){
		.qualification = qual,
		.guest_rip = rip,
		.instruction_length = 1 + (unsigned)fuzz_take(&in, 1) % 15,
	};
	fake_vmcs[VMCS_GUEST_RIP] = rip;

	fuzz_fill_ram(&in, ram, RAM_SIZE);
	mask = addr_mask(asz);
	index = outs ? &v.regs.rsi : &v.regs.rdi;
	other = outs ? &v.regs.rdi : &v.regs.rsi;
	/* The segment the handler uses: ES for INS; no base in 64-bit mode
	 * but for FS and GS. */
	if (!outs)
		seg = 0;
	uint64_t seg_base = mode64 && seg < 4 ? 0 : base[seg];

	for (unsigned n = 0; n < EXITS; n++) {
		uint64_t rcx0 = v.regs.rcx, idx0 = *index, other0 = *other;
		uint64_t count0 = rep ? rcx0 & mask : 1, moved_low, want;
		enum exit_action a;
		bool done;

		seen.ports = seen.ram_writes = 0;     /* the arrays follow */
		seen.ended = false;
		seen.injected = -1;
		memcpy(replay, ram, RAM_SIZE);
		a = handle_string_io(&v, &ex);

		CHECK(seen.ports <= count0 && seen.ports <= BATCH);
		CHECK(*other == other0);
		if (seen.ended)
			CHECK(a == EXIT_STOP && seen.injected < 0);
		else
			CHECK(a == EXIT_RESUME);
		/* The count, in its address-size part. */
		if (rep) {
			CHECK(((rcx0 - v.regs.rcx) & mask) == seen.ports);
			if (!seen.ports)
				CHECK(v.regs.rcx == rcx0);
			else if (asz == 0)
				CHECK((v.regs.rcx & ~mask) == (rcx0 & ~mask));
			else if (asz == 1)
				CHECK(v.regs.rcx >> 32 == 0);
		} else {
			CHECK(v.regs.rcx == rcx0 && seen.ports <= 1);
		}
		/* The index register moved by the elements done. */
		moved_low = (*index - idx0) & mask;
		want = (uint64_t)seen.ports * element;
		CHECK(moved_low == ((df ? -want : want) & mask));
		if (!seen.ports)
			CHECK(*index == idx0);
		else if (asz == 0)
			CHECK((*index & ~mask) == (idx0 & ~mask));
		else if (asz == 1)      /* a 32-bit result is zero-extended */
			CHECK(*index >> 32 == 0);
		/* RIP: past the instruction exactly when the count is 0. */
		done = seen.injected < 0 && !seen.ended &&
		       seen.ports == count0;
		if (done) {
			uint64_t next = rip + ex.instruction_length;

			if (!mode64)
				next &= 0xffffffffull;
			CHECK(fake_vmcs[VMCS_GUEST_RIP] == next);
		} else {
			CHECK(fake_vmcs[VMCS_GUEST_RIP] == rip);
		}
		check_elements(idx0, seg_base, asz, df);
		if (!outs)
			CHECK(seen.ram_writes == seen.ports * element);
		if (done || seen.injected >= 0 || seen.ended)
			break;
	}
	return 0;
}
