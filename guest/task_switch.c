// SPDX-License-Identifier: BSD-2-Clause
/*
 * Hardware task switching (guest/task_switch.h). In three parts, as the
 * SDM's steps fall (Vol. 3A, 7.3): the checks and every read and write
 * probe of the old and the new task, which may fault in the old task with
 * nothing changed; the commit (the old task's state saved, busy flags,
 * back link, TR, CR0.TS, the new task's registers); and the new task's
 * LDT and segment descriptors, whose faults the new task takes. The
 * guest's memory is reached as the CPU reaches it: the GDT, LDT and TSSs
 * by implicit supervisor accesses through the guest's page tables, the
 * error code by a push on the new task's stack.
 */
#include "guest/task_switch.h"
#include "guest/guest_pagewalk.h"
#include "arch/x86/cpu_defs.h"
#include "arch/x86/exceptions.h"
#include "lib/string.h"

#define EXC_INVALID_TSS 10
#define EXC_SEGMENT_NOT_PRESENT 11

/* The 32-bit TSS (SDM Vol. 3A, Figure 7-2). */
#define TSS_LINK 0x00
#define TSS_CR3 0x1c
#define TSS_EIP 0x20
#define TSS_EFLAGS 0x24
#define TSS_GPRS 0x28                   /* EAX .. EDI, 4 bytes each */
#define TSS_SEGS 0x48                   /* ES CS SS DS FS GS, 4 bytes each */
#define TSS_LDT 0x60
#define TSS_TRAP 0x64                   /* bit 0: T, #DB on entry */
#define TSS_SAVED_END TSS_LDT           /* the old task's EIP .. GS */
#define TSS32_SIZE 0x68
#define TSS32_MIN_LIMIT (TSS32_SIZE - 1)

/* Descriptor types with S = 0 (SDM Vol. 3A, Table 3-2). */
#define TYPE_LDT 0x2
#define TYPE_TSS_BUSY_BIT 0x2
#define TYPE_TSS16 0x1
#define TYPE_TSS32 0x9
/* Code and data types (S = 1; Table 3-1). */
#define TYPE_ACCESSED 0x1
#define TYPE_WRITABLE 0x2               /* data; readable for code */
#define TYPE_CONFORMING 0x4             /* code; expand-down for data */
#define TYPE_CODE 0x8

#define AR_G BIT(15)
#define DESC_TYPE_BYTE 5                /* type, S, DPL, P */

#define EFLAGS_FIXED_1 BIT(1)
#define EFLAGS_NT BIT(14)
#define EFLAGS_VM BIT(17)
/* The EFLAGS bits that exist; the rest load as 0 (bit 1 as 1). */
#define EFLAGS_DEFINED 0x3f7fd5u
/* DR7's local enables L0-L3 and LE: cleared on a task switch (17.2.4). */
#define DR7_LOCAL_ENABLES 0x155ull

#define PDPTE_P BIT(0)
#define PDPTE_RESERVED 0xfff00000000001e6ull

enum step { STEP_OK, STEP_FAULT, STEP_LOST, STEP_16BIT };

struct ts_ctx {
	const struct ts_memory *m;
	struct guest_paging paging;
	struct ts_result *out;
	uint32_t ext;                   /* EXT, bit 0 of error codes */
};

static enum step fault(struct ts_ctx *c, uint8_t vector, bool has_error,
		       uint32_t error)
{
	c->out->vector = vector;
	c->out->has_error_code = has_error;
	c->out->error_code = error;
	return STEP_FAULT;
}

/* A fault naming a selector: its index and TI, and EXT (SDM 6.13). */
static enum step selector_fault(struct ts_ctx *c, uint8_t vector,
				uint16_t selector)
{
	return fault(c, vector, true, (selector & 0xfffcu) | c->ext);
}

enum access { READ, WRITE, PROBE_WRITE };

/*
 * len bytes at linear address la, page by page through the guest's page
 * tables. Data with no RAM behind it reads as all ones and takes no
 * writes, as everywhere in apfvisor; PROBE_WRITE only checks that the
 * write would not fault.
 */
static enum step linear(struct ts_ctx *c, uint32_t la, void *buf,
			unsigned len, enum access how, bool user)
{
	uint8_t *p = buf;

	while (len) {
		unsigned chunk = 0x1000 - (la & 0xfff);
		uint64_t gpa;
		uint32_t pf;

		chunk = chunk < len ? chunk : len;
		switch (guest_pagewalk(&c->paging, la, how != READ, user,
				       c->m->read, c->m->ctx, &gpa, &pf)) {
		case GUEST_WALK_OK:
			break;
		case GUEST_WALK_PAGE_FAULT:
			c->out->cr2 = la;
			return fault(c, EXC_PAGE_FAULT, true, pf);
		case GUEST_WALK_TABLE_UNREADABLE:
			return STEP_LOST;
		}
		if (how == READ && c->m->read(c->m->ctx, gpa, p, chunk))
			memset(p, 0xff, chunk);
		else if (how == WRITE)
			(void)c->m->write(c->m->ctx, gpa, p, chunk);
		la += chunk;
		len -= chunk;
		if (p)
			p += chunk;
	}
	return STEP_OK;
}

static enum step read_sys(struct ts_ctx *c, uint32_t la, void *buf,
			  unsigned len)
{
	return linear(c, la, buf, len, READ, false);
}

static enum step write_sys(struct ts_ctx *c, uint32_t la, const void *buf,
			   unsigned len, bool probe)
{
	return linear(c, la, (void *)buf, len, probe ? PROBE_WRITE : WRITE,
		      false);
}

/* The linear address of sel's descriptor; false: outside its table. */
static bool descriptor_address(const struct ts_state *s, uint16_t sel,
			       uint32_t *la)
{
	uint32_t offset = sel & ~7u;
	const struct ts_segment *ldt = &s->seg[TS_LDTR];

	if (sel & 4) {
		if (ldt->ar & TS_AR_UNUSABLE || offset + 7 > ldt->limit)
			return false;
		*la = ldt->base + offset;
		return true;
	}
	if (offset + 7 > s->gdtr_limit)
		return false;
	*la = (uint32_t)(s->gdtr_base + offset);
	return true;
}

static struct ts_segment decode(uint16_t sel, uint64_t d)
{
	struct ts_segment seg = {
		.selector = sel,
		.base = (uint32_t)(((d >> 16) & 0xffffff) |
				   ((d >> 32) & 0xff000000)),
		.limit = (uint32_t)((d & 0xffff) | ((d >> 32) & 0xf0000)),
		.ar = (uint32_t)(d >> 40) & 0xf0ff,
	};

	if (seg.ar & AR_G)
		seg.limit = (seg.limit << 12) | 0xfff;
	return seg;
}

static unsigned dpl(uint32_t ar)
{
	return (ar >> TS_AR_DPL_SHIFT) & 3;
}

static unsigned current_cpl(const struct ts_state *s)
{
	return s->eflags & EFLAGS_VM ? 3 : dpl(s->seg[TS_SS].ar);
}

/* INT n through a task gate: the gate's DPL against CPL (6.12.1.1). */
static enum step check_gate_dpl(struct ts_ctx *c, const struct ts_state *s,
				int vector)
{
	uint32_t offset = (uint32_t)vector * 8;
	uint64_t gate;
	enum step st;

	if (offset + 7 > s->idtr_limit)
		return fault(c, EXC_GENERAL_PROTECTION, true, offset | 2);
	st = read_sys(c, (uint32_t)s->idtr_base + offset, &gate, 8);
	if (st != STEP_OK)
		return st;
	if (current_cpl(s) > dpl((uint32_t)(gate >> 40)))
		return fault(c, EXC_GENERAL_PROTECTION, true, offset | 2);
	return STEP_OK;
}

/*
 * The new task's TSS descriptor (Table 7-1): in the GDT, a TSS, present,
 * busy only for IRET, 32-bit, at least 0x68 bytes.
 */
static enum step check_new_tss(struct ts_ctx *c, const struct ts_state *s,
			       const struct ts_request *r, uint32_t *desc_la,
			       struct ts_segment *tss)
{
	bool iret = r->source == TS_FROM_IRET;
	uint8_t bad_vector = iret ? EXC_INVALID_TSS : EXC_GENERAL_PROTECTION;
	uint64_t d;
	unsigned type;
	enum step st;

	if ((r->selector & 4) || !descriptor_address(s, r->selector, desc_la))
		return selector_fault(c, bad_vector, r->selector);
	st = read_sys(c, *desc_la, &d, 8);
	if (st != STEP_OK)
		return st;
	*tss = decode(r->selector, d);
	type = tss->ar & TS_AR_TYPE_MASK;
	if ((tss->ar & TS_AR_S) ||
	    (type & ~(unsigned)(TYPE_TSS_BUSY_BIT | TYPE_CODE)) != TYPE_TSS16)
		return selector_fault(c, bad_vector, r->selector);
	if (!(tss->ar & TS_AR_P))
		return selector_fault(c, EXC_SEGMENT_NOT_PRESENT, r->selector);
	if (!!(type & TYPE_TSS_BUSY_BIT) != iret)
		return selector_fault(c, bad_vector, r->selector);
	if (!(type & TYPE_CODE))
		return STEP_16BIT;
	if (tss->limit < TSS32_MIN_LIMIT)
		return selector_fault(c, EXC_INVALID_TSS, r->selector);
	return STEP_OK;
}

/* Under PAE paging, the four PDPTEs of the new CR3 (SDM Vol. 3A, 4.4.1). */
static enum step read_pdptes(struct ts_ctx *c, uint64_t cr3, uint64_t *pdpte)
{
	for (unsigned i = 0; i < 4; i++) {
		if (c->m->read(c->m->ctx, (cr3 & 0xffffffe0u) + i * 8,
			       &pdpte[i], 8))
			return STEP_LOST;
		if ((pdpte[i] & PDPTE_P) && (pdpte[i] & PDPTE_RESERVED))
			return fault(c, EXC_GENERAL_PROTECTION, true, 0);
	}
	return STEP_OK;
}

/* Everything the switch needs, read and checked before the commit. */
struct plan {
	uint32_t new_desc_la, old_desc_la;
	struct ts_segment tss;
	uint8_t old_saved[TSS_SAVED_END - TSS_EIP];
	uint8_t next[TSS32_SIZE];       /* the new TSS */
	uint64_t pdpte[4];
	bool load_cr3;
};

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static bool pae_paging(const struct ts_state *s)
{
	return (s->cr0 & CR0_PG) && (s->cr4 & CR4_PAE);
}

/* The writes of the commit, each checked before any is made. */
static enum step probe_writes(struct ts_ctx *c, const struct ts_state *s,
			      const struct ts_request *r, struct plan *p)
{
	enum step st = STEP_OK;

	if (r->source == TS_FROM_JMP || r->source == TS_FROM_IRET) {
		if (!descriptor_address(s, s->seg[TS_TR].selector,
					&p->old_desc_la))
			return selector_fault(c, EXC_GENERAL_PROTECTION,
					      s->seg[TS_TR].selector);
		st = write_sys(c, p->old_desc_la + DESC_TYPE_BYTE, NULL, 1,
			       true);
	}
	if (st == STEP_OK)
		st = write_sys(c, s->seg[TS_TR].base + TSS_EIP, NULL,
			       sizeof(p->old_saved), true);
	if (st == STEP_OK && r->source != TS_FROM_IRET)
		st = write_sys(c, p->new_desc_la + DESC_TYPE_BYTE, NULL, 1,
			       true);
	if (st == STEP_OK &&
	    (r->source == TS_FROM_CALL || r->source == TS_FROM_IDT))
		st = write_sys(c, p->tss.base + TSS_LINK, NULL, 2, true);
	return st;
}

static enum step prepare(struct ts_ctx *c, const struct ts_state *s,
			 const struct ts_request *r, struct plan *p)
{
	enum step st = STEP_OK;

	if (r->soft_int_vector >= 0)
		st = check_gate_dpl(c, s, r->soft_int_vector);
	if (st == STEP_OK)
		st = check_new_tss(c, s, r, &p->new_desc_la, &p->tss);
	/* VM entry allows only a busy TSS in TR: 0x3 (16-bit) or 0xb. */
	if (st == STEP_OK && !(s->seg[TS_TR].ar & TYPE_CODE))
		st = STEP_16BIT;
	if (st == STEP_OK)
		st = read_sys(c, s->seg[TS_TR].base + TSS_EIP, p->old_saved,
			      sizeof(p->old_saved));
	if (st == STEP_OK)
		st = read_sys(c, p->tss.base, p->next, sizeof(p->next));
	if (st != STEP_OK)
		return st;
	p->load_cr3 = s->cr0 & CR0_PG;
	if (p->load_cr3 && pae_paging(s) && !(s->efer & EFER_LMA))
		st = read_pdptes(c, get32(p->next + TSS_CR3), p->pdpte);
	if (st == STEP_OK)
		st = probe_writes(c, s, r, p);
	return st;
}

/* Sets or clears the busy bit of the TSS descriptor at la (committed). */
static void write_busy(struct ts_ctx *c, uint32_t la, uint32_t ar, bool busy)
{
	uint8_t byte = (uint8_t)(ar & 0xff);

	byte = busy ? byte | TYPE_TSS_BUSY_BIT : byte & ~TYPE_TSS_BUSY_BIT;
	(void)write_sys(c, la + DESC_TYPE_BYTE, &byte, 1, false);
}

/* Steps 4 to 8 of 7.3: the old task saved, the busy flags, the link. */
static void save_old_task(struct ts_ctx *c, const struct ts_state *s,
			  const struct ts_request *r, struct plan *p)
{
	uint8_t *saved = p->old_saved;
	uint32_t eflags = s->eflags;

	if (r->source == TS_FROM_JMP || r->source == TS_FROM_IRET) {
		uint64_t d;

		/* The old descriptor as it is now, its type byte rewritten. */
		if (read_sys(c, p->old_desc_la, &d, 8) == STEP_OK)
			write_busy(c, p->old_desc_la, (uint32_t)(d >> 40),
				   false);
	}
	if (r->source == TS_FROM_IRET)
		eflags &= ~EFLAGS_NT;
	put32(saved + TSS_EIP - TSS_EIP, r->return_eip);
	put32(saved + TSS_EFLAGS - TSS_EIP, eflags);
	for (unsigned i = 0; i < TS_GPR_COUNT; i++)
		put32(saved + TSS_GPRS - TSS_EIP + 4 * i, s->gpr[i]);
	/* Selectors are 16 bits; the upper halves are left as they were. */
	for (unsigned i = TS_ES; i <= TS_GS; i++)
		memcpy(saved + TSS_SEGS - TSS_EIP + 4 * i,
		       &s->seg[i].selector, 2);
	(void)write_sys(c, s->seg[TS_TR].base + TSS_EIP, saved,
			sizeof(p->old_saved), false);
	if (r->source == TS_FROM_CALL || r->source == TS_FROM_IDT) {
		uint16_t link = s->seg[TS_TR].selector;

		memcpy(p->next + TSS_LINK, &link, 2);
		(void)write_sys(c, p->tss.base + TSS_LINK, &link, 2, false);
	}
	if (r->source != TS_FROM_IRET)
		write_busy(c, p->new_desc_la, p->tss.ar, true);
}

/*
 * Steps 9 and 10: TR, CR0.TS, DR7, CR3 and the registers of the new task.
 * Its segment registers get their selectors; their descriptors are loaded
 * next, and until then the data segments and LDTR are unusable and CS and
 * SS hold a flat image at the new CPL, so that a fault on the way leaves
 * a state VM entry accepts (SDM Vol. 3C, 27.3.1.2).
 */
static void load_new_task(struct ts_state *s, const struct ts_request *r,
			  const struct plan *p, struct ts_result *out)
{
	const uint8_t *n = p->next;
	uint32_t eflags = get32(n + TSS_EFLAGS);
	unsigned cpl;

	s->seg[TS_TR] = p->tss;
	s->seg[TS_TR].ar = (p->tss.ar & ~TS_AR_TYPE_MASK) |
			   TYPE_TSS32 | TYPE_TSS_BUSY_BIT;
	s->cr0 |= CR0_TS;
	s->dr7 &= ~DR7_LOCAL_ENABLES;
	if (p->load_cr3) {
		out->cr3_changed = get32(n + TSS_CR3) != s->cr3;
		s->cr3 = get32(n + TSS_CR3);
		memcpy(s->pdpte, p->pdpte, sizeof(s->pdpte));
	}
	eflags = (eflags & EFLAGS_DEFINED) | EFLAGS_FIXED_1;
	if (r->source == TS_FROM_CALL || r->source == TS_FROM_IDT)
		eflags |= EFLAGS_NT;
	s->eflags = eflags;
	s->eip = get32(n + TSS_EIP);
	for (unsigned i = 0; i < TS_GPR_COUNT; i++)
		s->gpr[i] = get32(n + TSS_GPRS + 4 * i);
	cpl = eflags & EFLAGS_VM ? 3 : get32(n + TSS_SEGS + 4 * TS_CS) & 3;
	for (unsigned i = TS_ES; i <= TS_GS; i++)
		s->seg[i] = (struct ts_segment){
			.selector = (uint16_t)get32(n + TSS_SEGS + 4 * i),
			.ar = TS_AR_UNUSABLE,
		};
	s->seg[TS_CS].ar = TS_AR_P | TS_AR_S | TS_AR_DB | (cpl << 5) |
			   TYPE_CODE | TYPE_WRITABLE | TYPE_ACCESSED;
	s->seg[TS_SS].ar = TS_AR_UNUSABLE | TS_AR_S | TS_AR_DB | (cpl << 5) |
			   TYPE_WRITABLE | TYPE_ACCESSED;
	s->seg[TS_LDTR] = (struct ts_segment){
		.selector = (uint16_t)get32(n + TSS_LDT),
		.ar = TS_AR_UNUSABLE,
	};
	out->debug_trap = n[TSS_TRAP] & 1;
}

/* The new task's LDT: null (unusable), or a present LDT in the GDT. */
static enum step load_ldt(struct ts_ctx *c, struct ts_state *s)
{
	uint16_t sel = s->seg[TS_LDTR].selector;
	struct ts_segment seg;
	uint32_t la;
	uint64_t d;
	enum step st;

	if (!(sel & ~3u))
		return STEP_OK;
	if ((sel & 4) || !descriptor_address(s, sel, &la))
		return selector_fault(c, EXC_INVALID_TSS, sel);
	st = read_sys(c, la, &d, 8);
	if (st != STEP_OK)
		return st;
	seg = decode(sel, d);
	if ((seg.ar & TS_AR_S) || (seg.ar & TS_AR_TYPE_MASK) != TYPE_LDT ||
	    !(seg.ar & TS_AR_P))
		return selector_fault(c, EXC_INVALID_TSS, sel);
	s->seg[TS_LDTR] = seg;
	return STEP_OK;
}

/* Table 7-1's checks of one segment of the new task at CPL cpl. */
static enum step check_segment(struct ts_ctx *c, unsigned which,
			       const struct ts_segment *seg, unsigned cpl)
{
	unsigned type = seg->ar & TS_AR_TYPE_MASK;
	unsigned rpl = seg->selector & 3, d = dpl(seg->ar);
	bool code = type & TYPE_CODE;
	bool bad;

	if (!(seg->ar & TS_AR_S))
		return selector_fault(c, EXC_INVALID_TSS, seg->selector);
	switch (which) {
	case TS_CS:
		bad = !code ||
		      (type & TYPE_CONFORMING ? d > cpl : d != cpl);
		break;
	case TS_SS:
		bad = code || !(type & TYPE_WRITABLE) || rpl != cpl ||
		      d != cpl;
		break;
	default:        /* data, or readable code; DPL >= CPL and RPL */
		bad = (code && !(type & TYPE_WRITABLE)) ||
		      ((!code || !(type & TYPE_CONFORMING)) &&
		       (cpl > d || rpl > d));
		break;
	}
	if (bad)
		return selector_fault(c, EXC_INVALID_TSS, seg->selector);
	if (!(seg->ar & TS_AR_P))
		return selector_fault(c, which == TS_SS ? EXC_STACK_FAULT :
					 EXC_SEGMENT_NOT_PRESENT,
				      seg->selector);
	return STEP_OK;
}

static enum step load_segment(struct ts_ctx *c, struct ts_state *s,
			      unsigned which, unsigned cpl)
{
	uint16_t sel = s->seg[which].selector;
	struct ts_segment seg;
	uint32_t la;
	uint64_t d;
	enum step st;

	if (!(sel & ~3u))       /* null: CS and SS may not be */
		return which == TS_CS || which == TS_SS ?
			selector_fault(c, EXC_INVALID_TSS, sel) : STEP_OK;
	if (!descriptor_address(s, sel, &la))
		return selector_fault(c, EXC_INVALID_TSS, sel);
	st = read_sys(c, la, &d, 8);
	if (st != STEP_OK)
		return st;
	seg = decode(sel, d);
	st = check_segment(c, which, &seg, cpl);
	if (st == STEP_OK && !(seg.ar & TYPE_ACCESSED)) {
		uint8_t byte = (uint8_t)(seg.ar | TYPE_ACCESSED);

		seg.ar |= TYPE_ACCESSED;
		st = write_sys(c, la + DESC_TYPE_BYTE, &byte, 1, false);
	}
	if (st == STEP_OK)
		s->seg[which] = seg;
	return st;
}

/* Step 11: the descriptors of the new task's segments (VM86: none). */
static enum step load_segments(struct ts_ctx *c, struct ts_state *s)
{
	static const unsigned order[] = { TS_CS, TS_SS, TS_ES, TS_DS, TS_FS,
					  TS_GS };
	enum step st;

	if (s->eflags & EFLAGS_VM) {
		for (unsigned i = TS_ES; i <= TS_GS; i++) {
			struct ts_segment *seg = &s->seg[i];

			seg->base = (uint32_t)seg->selector << 4;
			seg->limit = 0xffff;
			seg->ar = TS_AR_VM86;
		}
		return load_ldt(c, s);
	}
	st = load_ldt(c, s);
	for (unsigned i = 0; st == STEP_OK && i < ARRAY_SIZE(order); i++)
		st = load_segment(c, s, order[i], s->seg[TS_CS].selector & 3);
	return st;
}

/*
 * An exception's error code, pushed on the new task's stack (6.12.2):
 * 4 bytes, SS's limit checked (expand-down too), at the new CPL.
 */
static enum step push_error_code(struct ts_ctx *c, struct ts_state *s,
				 uint32_t code)
{
	const struct ts_segment *ss = &s->seg[TS_SS];
	uint32_t mask = ss->ar & TS_AR_DB ? 0xffffffffu : 0xffffu;
	uint32_t esp = s->gpr[TS_ESP];
	uint32_t offset = (esp - 4) & mask;
	uint64_t last = (uint64_t)offset + 3;
	bool down = ss->ar & TYPE_CONFORMING;   /* data: expand-down */
	enum step st;

	if (down ? offset <= ss->limit || last > mask : last > ss->limit)
		return fault(c, EXC_STACK_FAULT, true, c->ext);
	st = linear(c, ss->base + offset, &code, 4, WRITE,
		    current_cpl(s) == 3);
	if (st == STEP_OK)
		s->gpr[TS_ESP] = (esp & ~mask) | offset;
	return st;
}

enum ts_outcome task_switch(struct ts_state *s, const struct ts_request *r,
			    const struct ts_memory *m, struct ts_result *out)
{
	struct ts_ctx c = {
		.m = m,
		.paging = { s->cr0, s->cr3, s->cr4, s->efer },
		.out = out,
		.ext = r->external ? 1 : 0,
	};
	struct plan p;
	enum step st;

	*out = (struct ts_result){ 0 };
	st = prepare(&c, s, r, &p);
	if (st == STEP_OK) {
		/* The commit point: from here the new task takes faults. */
		save_old_task(&c, s, r, &p);
		load_new_task(s, r, &p, out);
		out->committed = true;
		c.paging.cr0 = s->cr0;
		c.paging.cr3 = s->cr3;
		st = load_segments(&c, s);
	}
	if (st == STEP_OK && r->push_error_code)
		st = push_error_code(&c, s, r->error_code);
	switch (st) {
	case STEP_OK:
		return TS_SWITCHED;
	case STEP_FAULT:
		return TS_FAULT;
	case STEP_LOST:
		return TS_TABLES_OUTSIDE_RAM;
	case STEP_16BIT:
		break;
	}
	return TS_16BIT_TSS;
}
