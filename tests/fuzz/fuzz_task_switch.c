/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: guest/task_switch.c with the guest's GDT, IDT, LDT,
 * TSSs and page tables all from the input. The input is a header (the
 * request and the old task: little-endian fields, see read_header) and
 * then pieces of a 64 KiB guest RAM (tests/fuzz/fuzz_guest_ram.h). The
 * promises: a switch that did not reach its commit point left the old
 * task as it was; one that did runs the new task in TR, busy, with
 * CR0.TS set, DR7's local enables clear, EFLAGS with only defined bits
 * and bit 1, and segments VM entry accepts (CS usable code, SS's DPL the
 * CPL, VM86 segments when EFLAGS.VM); a fault is one of the five a task
 * switch raises, with an error code. Each input's time is bounded by
 * libFuzzer's -timeout (tests/fuzz/fuzz.mk).
 */
#include <stdint.h>
#include <string.h>

#include "guest/task_switch.h"
#include "tests/unit/flat_ram.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_guest_ram.h"

#define RAM_SIZE (16 * FUZZ_PAGE)
#define CR0_PE 1u
#define CR0_TS (1u << 3)
#define CR0_NE (1u << 5)
#define CR0_PG (1u << 31)
#define CR4_PSE (1u << 4)
#define CR4_PAE (1u << 5)
#define EFLAGS_NT (1u << 14)
#define EFLAGS_VM (1u << 17)

static uint8_t ram[RAM_SIZE];

static struct flat_ram flat = { ram, RAM_SIZE };

/*
 * selector (2), how (1: bits 1:0 source, 2 error code, 3 external, 4
 * paging, 5 PAE, 6 old task in VM86, 7 INT n), error code (4), vector
 * (1), CR3 (4), GDTR base (4) and limit (2), IDTR base (4) and limit
 * (2), TR selector (2), base (4), limit (2), 16-bit (1), LDTR selector
 * (2), base (4), limit (2), CPL (1), EFLAGS (4), EIP (4).
 */
static void read_header(struct fuzz_script *in, struct ts_request *r,
			struct ts_state *s)
{
	unsigned how, cpl;
	uint8_t vector;

	r->selector = (uint16_t)fuzz_take(in, 2);
	how = (unsigned)fuzz_take(in, 1);
	r->source = (enum ts_source)(how & 3);
	r->push_error_code = how & 4;
	r->external = how & 8;
	r->error_code = (uint32_t)fuzz_take(in, 4);
	vector = (uint8_t)fuzz_take(in, 1);
	r->soft_int_vector = how & 0x80 ? vector : -1;
	s->cr0 = CR0_PE | CR0_NE | (how & 0x10 ? CR0_PG : 0);
	s->cr4 = how & 0x20 ? CR4_PAE : CR4_PSE;
	s->cr3 = fuzz_take(in, 4);
	s->gdtr_base = fuzz_take(in, 4);
	s->gdtr_limit = (uint32_t)fuzz_take(in, 2);
	s->idtr_base = fuzz_take(in, 4);
	s->idtr_limit = (uint32_t)fuzz_take(in, 2);
	s->seg[TS_TR].selector = (uint16_t)fuzz_take(in, 2);
	s->seg[TS_TR].base = (uint32_t)fuzz_take(in, 4);
	s->seg[TS_TR].limit = (uint32_t)fuzz_take(in, 2);
	s->seg[TS_TR].ar = fuzz_take(in, 1) & 1 ? 0x83 : TS_AR_TSS32_BUSY;
	s->seg[TS_LDTR].selector = (uint16_t)fuzz_take(in, 2);
	s->seg[TS_LDTR].base = (uint32_t)fuzz_take(in, 4);
	s->seg[TS_LDTR].limit = (uint32_t)fuzz_take(in, 2);
	s->seg[TS_LDTR].ar = s->seg[TS_LDTR].selector & ~3u ? 0x82 :
			     TS_AR_UNUSABLE;
	cpl = (unsigned)fuzz_take(in, 1) & 3;
	for (unsigned n = TS_ES; n <= TS_GS; n++)
		s->seg[n] = (struct ts_segment){ (uint16_t)(0x10 | cpl), 0,
						 0xffffffff,
						 0xc093 | cpl << 5 };
	s->seg[TS_CS] = (struct ts_segment){ (uint16_t)(0x08 | cpl), 0,
					     0xffffffff, 0xc09b | cpl << 5 };
	s->eflags = ((uint32_t)fuzz_take(in, 4) & 0x3f7fd5) | 2;
	if (how & 0x40)
		s->eflags |= EFLAGS_VM;
	s->eip = (uint32_t)fuzz_take(in, 4);
	for (unsigned i = 0; i < TS_GPR_COUNT; i++)
		s->gpr[i] = 0x1000 * i;
	s->dr7 = 0x7ff;
}

/* What VM entry checks of the segments (SDM Vol. 3C, 27.3.1.2). */
static void check_segments(const struct ts_state *s, bool fully_loaded)
{
	bool vm86 = s->eflags & EFLAGS_VM;
	unsigned cpl = vm86 ? 3 : s->seg[TS_CS].selector & 3;
	uint32_t cs = s->seg[TS_CS].ar, ss = s->seg[TS_SS].ar;

	CHECK(!(cs & TS_AR_UNUSABLE) && (cs & TS_AR_P) && (cs & TS_AR_S));
	CHECK(((ss >> 5) & 3) == cpl);
	if (vm86) {
		for (unsigned n = TS_ES; n <= TS_GS; n++) {
			CHECK(s->seg[n].ar == TS_AR_VM86);
			CHECK(s->seg[n].base == (uint32_t)s->seg[n].selector << 4);
		}
		return;
	}
	CHECK(cs & 8);                                  /* code */
	CHECK(cs & 4 ? ((cs >> 5) & 3) <= cpl : ((cs >> 5) & 3) == cpl);
	if (!fully_loaded)
		return;
	CHECK(!(ss & TS_AR_UNUSABLE) && (ss & 0xa) == 0x2);
	for (unsigned n = TS_ES; n <= TS_GS; n++) {
		uint32_t ar = s->seg[n].ar;

		CHECK((ar & TS_AR_UNUSABLE) || ((ar & TS_AR_P) && (ar & 1)));
		CHECK(!(ar & TS_AR_UNUSABLE) || !(s->seg[n].selector & ~3u));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_script in = { data, size };
	struct ts_memory mem = { flat_ram_read, flat_ram_write, &flat };
	struct ts_request r = { 0 };
	struct ts_state s = { 0 }, old;
	struct ts_result res;
	enum ts_outcome o;

	memset(ram, 0, sizeof(ram));
	read_header(&in, &r, &s);
	while (fuzz_ram_piece(&in, ram, sizeof(ram)))
		;
	old = s;
	o = task_switch(&s, &r, &mem, &res);
	CHECK(o == TS_SWITCHED || o == TS_FAULT || o == TS_TABLES_OUTSIDE_RAM ||
	      o == TS_16BIT_TSS);
	if (!res.committed) {
		CHECK(o != TS_SWITCHED);
		CHECK(memcmp(&s, &old, sizeof(s)) == 0);
	}
	if (o == TS_FAULT) {
		CHECK(res.vector >= 10 && res.vector <= 14);
		CHECK(res.has_error_code);
	}
	if (!res.committed)
		return 0;
	CHECK(o != TS_16BIT_TSS);
	CHECK(s.seg[TS_TR].selector == r.selector);
	CHECK((s.seg[TS_TR].ar & 0x9f) == TS_AR_TSS32_BUSY);
	CHECK(s.cr0 & CR0_TS);
	CHECK(!(s.dr7 & 0x155));
	CHECK((s.eflags & ~0x3f7fd5u) == 2);
	if (r.source == TS_FROM_CALL || r.source == TS_FROM_IDT)
		CHECK(s.eflags & EFLAGS_NT);
	check_segments(&s, o == TS_SWITCHED);
	return 0;
}
