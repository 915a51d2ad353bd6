/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/task_switch.c over a GDT, an IDT and TSSs built in a fake guest
 * RAM: JMP, CALL with its back link and NT, IRET back, a task gate in the
 * IDT with an error code pushed on the new stack, INT n against its
 * gate's DPL, virtual-8086 and conforming-code tasks, PAE's PDPTEs, the
 * T bit, and the faults the CPU raises (Table 7-1 of SDM Vol. 3A): those
 * before the commit point leave the old task and memory as they were,
 * those after it are the new task's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86/cpu_defs.h"
#include "guest/task_switch.h"
#include "tests/unit/flat_ram.h"

#define RAM_SIZE 0x20000u
#define GDT 0x1000u
#define IDT 0x2000u
#define LDT 0x3000u
#define TSS_A 0x4000u                   /* the running task */
#define TSS_B 0x6000u
#define PT_DIR 0x10000u                 /* 32-bit paging: directory, */
#define PT_TABLE 0x11000u               /* one table for 0-4 MiB */

/* Selectors of the GDT built by setup(). */
enum {
	SEL_CODE = 0x08, SEL_DATA = 0x10, SEL_LDT = 0x18, SEL_TSS_A = 0x20,
	SEL_TSS_B = 0x28, SEL_TSS_ABSENT = 0x30, SEL_TSS_SHORT = 0x38,
	SEL_TSS16 = 0x40, SEL_CODE3 = 0x48, SEL_DATA3 = 0x50,
	SEL_CONFORMING = 0x58, SEL_DATA_ABSENT = 0x60, SEL_DATA_FRESH = 0x68,
	SEL_TSS_BUSY = 0x70, GDT_LIMIT = 0xff,
};

#define EFLAGS_NT (1u << 14)
#define EFLAGS_VM (1u << 17)

static uint8_t ram[RAM_SIZE];
static struct ts_state st, before;
static struct ts_result res;

static struct flat_ram flat = { ram, RAM_SIZE };
static const struct ts_memory mem = {
	flat_ram_read, flat_ram_write, &flat
};

static uint32_t get32(uint32_t gpa)
{
	uint32_t v;

	memcpy(&v, ram + gpa, 4);
	return v;
}

static void put32(uint32_t gpa, uint32_t v)
{
	memcpy(ram + gpa, &v, 4);
}

/* A descriptor: access byte (P DPL S type) and flags (G D/B L AVL). */
static void desc(uint16_t sel, uint32_t base, uint32_t limit, uint8_t access,
		 uint8_t flags)
{
	uint64_t d = (limit & 0xffff) | ((uint64_t)(base & 0xffffff) << 16) |
		     ((uint64_t)access << 40) |
		     ((uint64_t)(limit >> 16 & 0xf) << 48) |
		     ((uint64_t)(flags & 0xf) << 52) |
		     ((uint64_t)(base >> 24) << 56);

	memcpy(ram + GDT + (sel & ~7u), &d, 8);
}

static uint8_t type_byte(uint16_t sel)
{
	return ram[GDT + (sel & ~7u) + 5];
}

static void task_gate(unsigned vector, uint16_t tss, unsigned dpl)
{
	uint64_t g = ((uint64_t)tss << 16) |
		     ((uint64_t)(0x85 | dpl << 5) << 40);

	memcpy(ram + IDT + vector * 8, &g, 8);
}

/* The new task's TSS at base: EIP, registers, flat kernel segments. */
static void fill_tss(uint32_t base, uint32_t eip)
{
	put32(base + 0x1c, 0);                  /* CR3 */
	put32(base + 0x20, eip);
	put32(base + 0x24, 0x2);
	for (unsigned i = 0; i < 8; i++)
		put32(base + 0x28 + 4 * i, 0x100 + i);
	put32(base + 0x38, 0x9000);             /* ESP */
	for (unsigned i = 0; i < 6; i++)
		put32(base + 0x48 + 4 * i, i == 1 ? SEL_CODE : SEL_DATA);
	put32(base + 0x60, 0);                  /* no LDT */
}

static void set_seg(unsigned n, uint16_t sel, uint32_t base, uint32_t limit,
		    uint32_t ar)
{
	st.seg[n] = (struct ts_segment){ sel, base, limit, ar };
}

static int setup(void **state)
{
	(void)state;
	memset(ram, 0, sizeof(ram));
	desc(SEL_CODE, 0, 0xfffff, 0x9b, 0xc);
	desc(SEL_DATA, 0, 0xfffff, 0x93, 0xc);
	desc(SEL_LDT, LDT, 0x17, 0x82, 0);
	desc(SEL_TSS_A, TSS_A, 0x67, 0x8b, 0);
	desc(SEL_TSS_B, TSS_B, 0x67, 0x89, 0);
	desc(SEL_TSS_ABSENT, TSS_B, 0x67, 0x09, 0);
	desc(SEL_TSS_SHORT, TSS_B, 0x50, 0x89, 0);
	desc(SEL_TSS16, TSS_B, 0x2b, 0x81, 0);
	desc(SEL_CODE3, 0, 0xfffff, 0xfb, 0xc);
	desc(SEL_DATA3, 0, 0xfffff, 0xf3, 0xc);
	desc(SEL_CONFORMING, 0, 0xfffff, 0x9f, 0xc);
	desc(SEL_DATA_ABSENT, 0, 0xfffff, 0x13, 0xc);
	desc(SEL_DATA_FRESH, 0x100, 0xfff, 0x92, 0x4);
	desc(SEL_TSS_BUSY, TSS_B, 0x67, 0x8b, 0);
	task_gate(13, SEL_TSS_B, 0);
	task_gate(0x80, SEL_TSS_B, 0);
	fill_tss(TSS_B, 0x5000);
	memset(&st, 0, sizeof(st));
	for (unsigned i = 0; i < 8; i++)
		st.gpr[i] = i + 1;
	st.eip = 0x1234;
	st.eflags = 0x202;
	for (unsigned n = TS_ES; n <= TS_GS; n++)
		set_seg(n, SEL_DATA, 0, 0xffffffff, 0xc093);
	set_seg(TS_CS, SEL_CODE, 0, 0xffffffff, 0xc09b);
	set_seg(TS_LDTR, 0, 0, 0, TS_AR_UNUSABLE);
	set_seg(TS_TR, SEL_TSS_A, TSS_A, 0x67, TS_AR_TSS32_BUSY);
	st.cr0 = CR0_PE | CR0_ET | CR0_NE;
	st.gdtr_base = GDT;
	st.gdtr_limit = GDT_LIMIT;
	st.idtr_base = IDT;
	st.idtr_limit = 0x7ff;
	st.dr7 = 0x455;                         /* L0, L1, L2 | reserved 1 */
	return 0;
}

static enum ts_outcome run(uint16_t sel, enum ts_source source)
{
	struct ts_request r = {
		.selector = sel, .source = source, .return_eip = st.eip + 7,
		.soft_int_vector = -1,
	};

	before = st;
	return task_switch(&st, &r, &mem, &res);
}

static void assert_new_task_b(void)
{
	assert_int_equal(st.seg[TS_TR].selector, SEL_TSS_B);
	assert_int_equal(st.seg[TS_TR].base, TSS_B);
	assert_int_equal(st.seg[TS_TR].ar, TS_AR_TSS32_BUSY);
	assert_int_equal(st.eip, 0x5000);
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(st.gpr[i], i == TS_ESP ? 0x9000 : 0x100 + i);
	assert_int_equal(st.seg[TS_CS].selector, SEL_CODE);
	assert_int_equal(st.seg[TS_CS].ar, 0xc09b);
	assert_int_equal(st.seg[TS_CS].limit, 0xffffffff);
	assert_int_equal(st.seg[TS_SS].ar, 0xc093);
	assert_true(st.seg[TS_LDTR].ar & TS_AR_UNUSABLE);
	assert_true(st.cr0 & CR0_TS);
	assert_int_equal(st.dr7, 0x400);        /* local enables cleared */
	assert_true(res.committed);
}

/* The old task's state in TSS A: EIP, EFLAGS, registers, selectors. */
static void assert_saved_in_a(uint32_t eip, uint32_t eflags)
{
	assert_int_equal(get32(TSS_A + 0x20), eip);
	assert_int_equal(get32(TSS_A + 0x24), eflags);
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(get32(TSS_A + 0x28 + 4 * i), i + 1);
	assert_int_equal(get32(TSS_A + 0x4c), SEL_CODE);
	assert_int_equal(get32(TSS_A + 0x50), SEL_DATA);
}

static void jmp_saves_the_old_task_and_loads_the_new(void **state)
{
	(void)state;
	assert_int_equal(run(SEL_TSS_B, TS_FROM_JMP), TS_SWITCHED);
	assert_new_task_b();
	assert_saved_in_a(0x1234 + 7, 0x202);
	assert_int_equal(type_byte(SEL_TSS_A), 0x89);   /* no longer busy */
	assert_int_equal(type_byte(SEL_TSS_B), 0x8b);
	assert_int_equal(st.eflags, 0x2);               /* no NT */
	assert_int_equal(get32(TSS_B), 0);              /* no back link */
	assert_false(res.debug_trap);
}

static void call_links_back_and_sets_nt(void **state)
{
	(void)state;
	assert_int_equal(run(SEL_TSS_B, TS_FROM_CALL), TS_SWITCHED);
	assert_new_task_b();
	assert_int_equal(get32(TSS_B), SEL_TSS_A);
	assert_int_equal(st.eflags, 0x2 | EFLAGS_NT);
	assert_int_equal(type_byte(SEL_TSS_A), 0x8b);   /* both busy */
	assert_int_equal(type_byte(SEL_TSS_B), 0x8b);
}

static void iret_goes_back_to_the_caller(void **state)
{
	(void)state;
	assert_int_equal(run(SEL_TSS_B, TS_FROM_CALL), TS_SWITCHED);
	st.gpr[TS_EAX] = 0xabc;
	assert_int_equal(run(SEL_TSS_A, TS_FROM_IRET), TS_SWITCHED);
	assert_int_equal(st.seg[TS_TR].selector, SEL_TSS_A);
	assert_int_equal(st.eip, 0x1234 + 7);
	assert_int_equal(st.eflags, 0x202);
	assert_int_equal(st.gpr[TS_EAX], 1);
	assert_int_equal(type_byte(SEL_TSS_B), 0x89);   /* freed */
	assert_int_equal(type_byte(SEL_TSS_A), 0x8b);
	/* B is saved with NT clear, after its IRET. */
	assert_int_equal(get32(TSS_B + 0x24), 0x2);
	assert_int_equal(get32(TSS_B + 0x20), 0x5000 + 7);
	assert_int_equal(get32(TSS_B + 0x28), 0xabc);
	/* Called again, B resumes after its IRET. */
	assert_int_equal(run(SEL_TSS_B, TS_FROM_CALL), TS_SWITCHED);
	assert_int_equal(st.eip, 0x5000 + 7);
}

static void idt_task_gate_pushes_the_error_code(void **state)
{
	struct ts_request r = {
		.selector = SEL_TSS_B, .source = TS_FROM_IDT,
		.return_eip = st.eip, .soft_int_vector = -1,
		.push_error_code = true, .error_code = 0x1234,
		.external = true,
	};

	(void)state;
	assert_int_equal(task_switch(&st, &r, &mem, &res), TS_SWITCHED);
	assert_int_equal(st.gpr[TS_ESP], 0x9000 - 4);
	assert_int_equal(get32(0x9000 - 4), 0x1234);
	assert_int_equal(get32(TSS_B), SEL_TSS_A);
	assert_true(st.eflags & EFLAGS_NT);
	assert_saved_in_a(0x1234, 0x202);       /* the faulting EIP */
	assert_int_equal(type_byte(SEL_TSS_A), 0x8b);
}

static void int_n_checks_the_gate_dpl(void **state)
{
	struct ts_request r = {
		.selector = SEL_TSS_B, .source = TS_FROM_IDT,
		.return_eip = st.eip + 2, .soft_int_vector = 0x80,
	};

	(void)state;
	set_seg(TS_CS, SEL_CODE3 | 3, 0, 0xffffffff, 0xc0fb);
	set_seg(TS_SS, SEL_DATA3 | 3, 0, 0xffffffff, 0xc0f3);
	before = st;
	assert_int_equal(task_switch(&st, &r, &mem, &res), TS_FAULT);
	assert_int_equal(res.vector, 13);
	assert_int_equal(res.error_code, 0x80 * 8 + 2);
	assert_memory_equal(&st, &before, sizeof(st));
	/* From CPL 0 the gate lets INT n through. */
	setup(NULL);
	assert_int_equal(task_switch(&st, &r, &mem, &res), TS_SWITCHED);
	assert_int_equal(get32(TSS_A + 0x20), 0x1234 + 2);
}

/* Faults before the commit point: the old task and memory untouched. */
static void assert_refused(uint16_t sel, enum ts_source source,
			   uint8_t vector, uint32_t error)
{
	static uint8_t ram_before[RAM_SIZE];

	setup(NULL);
	memcpy(ram_before, ram, RAM_SIZE);
	assert_int_equal(run(sel, source), TS_FAULT);
	assert_int_equal(res.vector, vector);
	assert_true(res.has_error_code);
	assert_int_equal(res.error_code, error);
	assert_false(res.committed);
	assert_memory_equal(&st, &before, sizeof(st));
	assert_memory_equal(ram, ram_before, RAM_SIZE);
}

static void a_bad_new_tss_faults_in_the_old_task(void **state)
{
	(void)state;
	assert_refused(SEL_TSS_ABSENT, TS_FROM_JMP, 11, SEL_TSS_ABSENT);
	assert_refused(SEL_TSS_SHORT, TS_FROM_CALL, 10, SEL_TSS_SHORT);
	assert_refused(SEL_TSS_BUSY, TS_FROM_JMP, 13, SEL_TSS_BUSY);
	assert_refused(SEL_TSS_B, TS_FROM_IRET, 10, SEL_TSS_B);
	assert_refused(SEL_CODE, TS_FROM_CALL, 13, SEL_CODE);
	assert_refused(SEL_TSS_B | 4, TS_FROM_JMP, 13, SEL_TSS_B | 4);
	assert_refused(0x1f8, TS_FROM_JMP, 13, 0x1f8);  /* past the GDT */
	assert_refused(SEL_CODE, TS_FROM_IRET, 10, SEL_CODE);
}

static void an_event_sets_ext_in_the_error_code(void **state)
{
	struct ts_request r = {
		.selector = SEL_TSS_ABSENT, .source = TS_FROM_IDT,
		.soft_int_vector = -1, .external = true,
	};

	(void)state;
	assert_int_equal(task_switch(&st, &r, &mem, &res), TS_FAULT);
	assert_int_equal(res.vector, 11);
	assert_int_equal(res.error_code, SEL_TSS_ABSENT | 1);
}

static void a_16bit_tss_is_refused(void **state)
{
	(void)state;
	assert_int_equal(run(SEL_TSS16, TS_FROM_JMP), TS_16BIT_TSS);
	assert_memory_equal(&st, &before, sizeof(st));
}

/* A segment of TSS B's (at offset 0x48 + 4 * n) set to sel, switched to. */
static void assert_new_task_faults(unsigned offset, uint16_t sel,
				   uint8_t vector, uint32_t error)
{
	setup(NULL);
	put32(TSS_B + offset, sel);
	assert_int_equal(run(SEL_TSS_B, TS_FROM_JMP), TS_FAULT);
	assert_int_equal(res.vector, vector);
	assert_int_equal(res.error_code, error);
	assert_true(res.committed);
	assert_int_equal(st.seg[TS_TR].selector, SEL_TSS_B);
	assert_int_equal(st.eip, 0x5000);
	assert_int_equal(type_byte(SEL_TSS_B), 0x8b);
	/* What VM entry checks stays consistent: CS usable, SS's DPL. */
	assert_false(st.seg[TS_CS].ar & TS_AR_UNUSABLE);
	assert_int_equal((st.seg[TS_SS].ar >> 5) & 3,
			 (st.seg[TS_CS].ar >> 5) & 3);
}

static void bad_segments_fault_in_the_new_task(void **state)
{
	(void)state;
	assert_new_task_faults(0x4c, SEL_DATA, 10, SEL_DATA);   /* CS data */
	assert_new_task_faults(0x4c, 0, 10, 0);                 /* CS null */
	assert_new_task_faults(0x4c, SEL_CODE3, 10, SEL_CODE3); /* DPL 3 */
	assert_new_task_faults(0x50, 0, 10, 0);                 /* SS null */
	assert_new_task_faults(0x50, SEL_CODE, 10, SEL_CODE);   /* SS code */
	assert_new_task_faults(0x50, SEL_DATA3 | 3, 10, SEL_DATA3);
	assert_new_task_faults(0x50, SEL_DATA_ABSENT, 12, SEL_DATA_ABSENT);
	assert_new_task_faults(0x54, SEL_DATA_ABSENT, 11, SEL_DATA_ABSENT);
	assert_new_task_faults(0x54, SEL_TSS_A, 10, SEL_TSS_A); /* system */
	assert_new_task_faults(0x54, 0x1f8, 10, 0x1f8);         /* past GDT */
	assert_new_task_faults(0x54, 0x0c, 10, 0x0c);           /* no LDT */
	assert_new_task_faults(0x60, SEL_DATA, 10, SEL_DATA);   /* LDT: data */
	assert_new_task_faults(0x60, SEL_LDT | 4, 10, SEL_LDT | 4);
}

static void segments_through_the_ldt_and_the_accessed_bit(void **state)
{
	uint64_t d = 0x00cf93000000ffffull;     /* flat data, DPL 0 */

	(void)state;
	memcpy(ram + LDT + 8, &d, 8);
	put32(TSS_B + 0x60, SEL_LDT);
	put32(TSS_B + 0x54, 0x0c);              /* DS: LDT entry 1 */
	put32(TSS_B + 0x48, SEL_DATA_FRESH);    /* ES: not yet accessed */
	put32(TSS_B + 0x58, 0);                 /* FS: null */
	assert_int_equal(run(SEL_TSS_B, TS_FROM_JMP), TS_SWITCHED);
	assert_int_equal(st.seg[TS_LDTR].base, LDT);
	assert_int_equal(st.seg[TS_LDTR].limit, 0x17);
	assert_int_equal(st.seg[TS_DS].selector, 0x0c);
	assert_int_equal(st.seg[TS_DS].ar, 0xc093);
	assert_int_equal(st.seg[TS_ES].ar, 0x4093);
	assert_int_equal(st.seg[TS_ES].base, 0x100);
	assert_int_equal(type_byte(SEL_DATA_FRESH), 0x93);
	assert_true(st.seg[TS_FS].ar & TS_AR_UNUSABLE);
}

static void conforming_code_runs_at_the_selectors_rpl(void **state)
{
	(void)state;
	put32(TSS_B + 0x4c, SEL_CONFORMING | 3);
	for (unsigned n = 0; n < 6; n++)
		if (n != 1)
			put32(TSS_B + 0x48 + 4 * n, SEL_DATA3 | 3);
	assert_int_equal(run(SEL_TSS_B, TS_FROM_CALL), TS_SWITCHED);
	assert_int_equal(st.seg[TS_CS].selector, SEL_CONFORMING | 3);
	assert_int_equal((st.seg[TS_CS].ar >> 5) & 3, 0);
	assert_int_equal((st.seg[TS_SS].ar >> 5) & 3, 3);
}

static void a_vm86_task_gets_real_mode_segments(void **state)
{
	(void)state;
	put32(TSS_B + 0x24, EFLAGS_VM | 0x2);
	put32(TSS_B + 0x4c, 0x4200);
	put32(TSS_B + 0x54, 0x1234);
	assert_int_equal(run(SEL_TSS_B, TS_FROM_JMP), TS_SWITCHED);
	assert_int_equal(st.eflags, EFLAGS_VM | 0x2);
	assert_int_equal(st.seg[TS_CS].base, 0x42000);
	assert_int_equal(st.seg[TS_DS].base, 0x12340);
	for (unsigned n = TS_ES; n <= TS_GS; n++) {
		assert_int_equal(st.seg[n].limit, 0xffff);
		assert_int_equal(st.seg[n].ar, TS_AR_VM86);
	}
	/* Back through a task gate (a #UD, say): VM86 selectors saved. */
	assert_int_equal(run(SEL_TSS_A, TS_FROM_IDT), TS_SWITCHED);
	assert_int_equal(get32(TSS_B + 0x4c), 0x4200);
	assert_int_equal(get32(TSS_B + 0x24), EFLAGS_VM | 0x2);
	assert_int_equal(st.seg[TS_CS].ar, 0xc09b);
	assert_int_equal(get32(TSS_A), SEL_TSS_B);
}

static void the_t_bit_asks_for_a_debug_trap(void **state)
{
	(void)state;
	ram[TSS_B + 0x64] = 1;
	assert_int_equal(run(SEL_TSS_B, TS_FROM_JMP), TS_SWITCHED);
	assert_true(res.debug_trap);
}

/* Identity-maps the first 4 MiB with 4 KiB pages; page at la: flags. */
static void paging_on(void)
{
	put32(PT_DIR, PT_TABLE | 0x3);
	for (uint32_t i = 0; i < 1024; i++)
		put32(PT_TABLE + 4 * i, i << 12 | 0x3);
	st.cr0 |= CR0_PG | CR0_WP;
	st.cr3 = PT_DIR;
	put32(TSS_B + 0x1c, PT_DIR);
}

static void tss_pages_fault_before_the_commit(void **state)
{
	(void)state;
	paging_on();
	put32(PT_TABLE + 4 * (TSS_B >> 12), 0);         /* B not mapped */
	before = st;
	assert_int_equal(run(SEL_TSS_B, TS_FROM_JMP), TS_FAULT);
	assert_int_equal(res.vector, 14);
	assert_int_equal(res.cr2, TSS_B);
	assert_int_equal(res.error_code, 0);    /* read, supervisor */
	assert_false(res.committed);
	assert_int_equal(type_byte(SEL_TSS_A), 0x8b);
	/* A read-only old TSS: the save would fault (CR0.WP). */
	setup(NULL);
	paging_on();
	put32(PT_TABLE + 4 * (TSS_A >> 12), TSS_A | 0x1);
	assert_int_equal(run(SEL_TSS_B, TS_FROM_JMP), TS_FAULT);
	assert_int_equal(res.vector, 14);
	assert_int_equal(res.error_code, 0x3);  /* present, write */
	assert_int_equal(res.cr2, TSS_A + 0x20);
	assert_int_equal(type_byte(SEL_TSS_A), 0x8b);
	assert_int_equal(get32(TSS_A + 0x20), 0);
	assert_memory_equal(&st, &before, sizeof(st));
	/* Page tables outside RAM. */
	setup(NULL);
	paging_on();
	st.cr3 = RAM_SIZE;
	assert_int_equal(run(SEL_TSS_B, TS_FROM_JMP), TS_TABLES_OUTSIDE_RAM);
}

static void the_error_code_push_checks_the_stack(void **state)
{
	struct ts_request r = {
		.selector = SEL_TSS_B, .source = TS_FROM_IDT,
		.soft_int_vector = -1, .push_error_code = true,
		.error_code = 0x10, .external = true,
	};

	(void)state;
	put32(TSS_B + 0x38, 2);                 /* ESP 2: no room */
	assert_int_equal(task_switch(&st, &r, &mem, &res), TS_FAULT);
	assert_int_equal(res.vector, 12);
	assert_int_equal(res.error_code, 1);    /* EXT */
	assert_true(res.committed);
}

static void pae_loads_the_new_pdptes(void **state)
{
	uint64_t pdpte = 0x12000 | 1;

	(void)state;
	st.cr0 |= CR0_PG;
	st.cr4 |= CR4_PAE;
	st.cr3 = 0x13000;
	/* Both directories map 0-2 MiB with one large page. */
	memcpy(ram + 0x13000, &pdpte, 8);
	memcpy(ram + 0x13020, &pdpte, 8);
	put32(0x12000, 0x83);
	put32(TSS_B + 0x1c, 0x13020);
	assert_int_equal(run(SEL_TSS_B, TS_FROM_JMP), TS_SWITCHED);
	assert_int_equal(st.cr3, 0x13020);
	assert_int_equal(st.pdpte[0], pdpte);
	assert_true(res.cr3_changed);
	/* A reserved bit in a present PDPTE: #GP(0), nothing switched. */
	setup(NULL);
	st.cr0 |= CR0_PG;
	st.cr4 |= CR4_PAE;
	st.cr3 = 0x13000;
	memcpy(ram + 0x13000, &pdpte, 8);
	pdpte |= 1u << 5;
	memcpy(ram + 0x13020, &pdpte, 8);
	put32(0x12000, 0x83);
	put32(TSS_B + 0x1c, 0x13020);
	assert_int_equal(run(SEL_TSS_B, TS_FROM_JMP), TS_FAULT);
	assert_int_equal(res.vector, 13);
	assert_int_equal(res.error_code, 0);
	assert_false(res.committed);
}

#define T(name) cmocka_unit_test_setup(name, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(jmp_saves_the_old_task_and_loads_the_new),
		T(call_links_back_and_sets_nt),
		T(iret_goes_back_to_the_caller),
		T(idt_task_gate_pushes_the_error_code),
		T(int_n_checks_the_gate_dpl),
		T(a_bad_new_tss_faults_in_the_old_task),
		T(an_event_sets_ext_in_the_error_code),
		T(a_16bit_tss_is_refused),
		T(bad_segments_fault_in_the_new_task),
		T(segments_through_the_ldt_and_the_accessed_bit),
		T(conforming_code_runs_at_the_selectors_rpl),
		T(a_vm86_task_gets_real_mode_segments),
		T(the_t_bit_asks_for_a_debug_trap),
		T(tss_pages_fault_before_the_commit),
		T(the_error_code_push_checks_the_stack),
		T(pae_loads_the_new_pdptes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
