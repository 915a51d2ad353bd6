// SPDX-License-Identifier: BSD-2-Clause
/*
 * Task switches (exit reason 9). VMX lets no task switch happen in the
 * guest (SDM Vol. 3C, 26.4.2): JMP or CALL to a TSS or task gate, IRET
 * with NT set, and an event whose IDT entry is a task gate all exit, with
 * the new TSS's selector and the source in the qualification (Table
 * 28-2). The switch itself is guest/task_switch.c; here the VMCS is read
 * into its state and written back, and the event the exit interrupted is
 * settled as KVM's handle_task_switch (arch/x86/kvm/vmx/vmx.c) settles
 * it: the switch delivers it, so it is not injected again; a hardware
 * exception's error code goes onto the new task's stack; the old task
 * resumes after a software interrupt or exception and after JMP, CALL
 * and IRET, at the interrupted instruction otherwise.
 */
#include "vmx/exit_handlers.h"
#include "vmx/vmx_ops.h"
#include "arch/x86/cpu.h"
#include "arch/x86/exceptions.h"
#include "guest/task_switch.h"
#include "guest/vm.h"

#define TS_QUAL_SELECTOR(q) ((uint16_t)(q))
#define TS_QUAL_SOURCE(q) ((enum ts_source)(((q) >> 30) & 3))
#define DR6_BT BIT(15)                  /* #DB from a TSS's T bit */

static int read_guest(void *ctx, uint64_t gpa, void *buf, unsigned len)
{
	return vm_read_ram(ctx, gpa, buf, len);
}

static int write_guest(void *ctx, uint64_t gpa, const void *buf,
		       unsigned len)
{
	return vm_write_ram(ctx, gpa, buf, len);
}

static const uint32_t pdpte_fields[4] = {
	VMCS_GUEST_PDPTE0, VMCS_GUEST_PDPTE1, VMCS_GUEST_PDPTE2,
	VMCS_GUEST_PDPTE3,
};

/* The segment fields lie in parallel: selector, base, limit, AR. */
static void read_segment(unsigned n, struct ts_segment *seg)
{
	seg->selector = (uint16_t)vmcs_read(VMCS_GUEST_ES_SELECTOR + 2 * n);
	seg->base = (uint32_t)vmcs_read(VMCS_GUEST_ES_BASE + 2 * n);
	seg->limit = vmcs_read32(VMCS_GUEST_ES_LIMIT + 2 * n);
	seg->ar = vmcs_read32(VMCS_GUEST_ES_ACCESS_RIGHTS + 2 * n);
}

static void write_segment(unsigned n, const struct ts_segment *seg)
{
	vmcs_write(VMCS_GUEST_ES_SELECTOR + 2 * n, seg->selector);
	vmcs_write(VMCS_GUEST_ES_BASE + 2 * n, seg->base);
	vmcs_write(VMCS_GUEST_ES_LIMIT + 2 * n, seg->limit);
	vmcs_write(VMCS_GUEST_ES_ACCESS_RIGHTS + 2 * n, seg->ar);
}

static void read_state(const struct vcpu *v, struct ts_state *s)
{
	const struct guest_regs *r = &v->regs;

	*s = (struct ts_state){
		.gpr = { (uint32_t)r->rax, (uint32_t)r->rcx, (uint32_t)r->rdx,
			 (uint32_t)r->rbx,
			 (uint32_t)vmcs_read(VMCS_GUEST_RSP),
			 (uint32_t)r->rbp, (uint32_t)r->rsi,
			 (uint32_t)r->rdi },
		.eip = (uint32_t)vmcs_read(VMCS_GUEST_RIP),
		.eflags = (uint32_t)vmcs_read(VMCS_GUEST_RFLAGS),
		/* PG, WP, PAE, PSE are never masked: the guest's own. */
		.cr0 = vmcs_read(VMCS_GUEST_CR0),
		.cr3 = vmcs_read(VMCS_GUEST_CR3),
		.cr4 = vmcs_read(VMCS_GUEST_CR4),
		.efer = vmcs_read(VMCS_GUEST_IA32_EFER),
		.gdtr_base = vmcs_read(VMCS_GUEST_GDTR_BASE),
		.gdtr_limit = vmcs_read32(VMCS_GUEST_GDTR_LIMIT),
		.idtr_base = vmcs_read(VMCS_GUEST_IDTR_BASE),
		.idtr_limit = vmcs_read32(VMCS_GUEST_IDTR_LIMIT),
		.dr7 = vmcs_read(VMCS_GUEST_DR7),
	};
	for (unsigned n = 0; n < TS_SEG_COUNT; n++)
		read_segment(n, &s->seg[n]);
}

static void write_state(struct vcpu *v, const struct ts_state *s,
			const struct ts_result *res)
{
	struct guest_regs *r = &v->regs;

	r->rax = s->gpr[TS_EAX];
	r->rcx = s->gpr[TS_ECX];
	r->rdx = s->gpr[TS_EDX];
	r->rbx = s->gpr[TS_EBX];
	vmcs_write(VMCS_GUEST_RSP, s->gpr[TS_ESP]);
	r->rbp = s->gpr[TS_EBP];
	r->rsi = s->gpr[TS_ESI];
	r->rdi = s->gpr[TS_EDI];
	vmcs_write(VMCS_GUEST_RIP, s->eip);
	vmcs_write(VMCS_GUEST_RFLAGS, s->eflags);
	for (unsigned n = 0; n < TS_SEG_COUNT; n++)
		write_segment(n, &s->seg[n]);
	vmcs_write(VMCS_GUEST_DR7, s->dr7);
	if (!res->committed)
		return;
	/* CR0.TS is the guest's (not in the guest/host mask): both views. */
	vmcs_write(VMCS_GUEST_CR0, vmcs_read(VMCS_GUEST_CR0) | CR0_TS);
	vmcs_write(VMCS_CR0_READ_SHADOW,
		   vmcs_read(VMCS_CR0_READ_SHADOW) | CR0_TS);
	vmcs_write(VMCS_GUEST_CR3, s->cr3);
	/* Under EPT, VM entry takes PAE paging's PDPTEs from the VMCS. */
	if ((s->cr0 & CR0_PG) && (s->cr4 & CR4_PAE))
		for (unsigned i = 0; i < 4; i++)
			vmcs_write(pdpte_fields[i], s->pdpte[i]);
	/* A MOV to CR3 drops the old translations: so does this one. */
	if (res->cr3_changed && !invvpid(INVVPID_SINGLE_CONTEXT, v->vpid))
		invvpid(INVVPID_ALL_CONTEXT, v->vpid);
}

/*
 * The event a task gate in the IDT was delivering (the IDT-vectoring
 * information): the switch delivers it, so the copy the exit dispatch
 * queued for the next entry is withdrawn. True: an NMI.
 */
static bool take_event(uint32_t info, const struct vmx_exit *e,
		       struct ts_request *r)
{
	uint32_t type = info & INTR_TYPE_MASK;

	vmcs_write(VMCS_ENTRY_INTERRUPTION_INFO, 0);
	switch (type) {
	case INTR_TYPE_HW_EXCEPTION:
		r->push_error_code = info & INTR_INFO_DELIVER_ERROR_CODE;
		r->error_code = vmcs_read32(VMCS_IDT_VECTORING_ERROR);
		/* fall through */
	case INTR_TYPE_EXTERNAL:
	case INTR_TYPE_NMI:
		r->return_eip = (uint32_t)e->guest_rip;
		r->external = true;
		return type == INTR_TYPE_NMI;
	case INTR_TYPE_SW_INTERRUPT:
		r->soft_int_vector = (int)(info & INTR_VECTOR_MASK);
		return false;
	default:        /* INT3, INTO, INT1: resume after them */
		return false;
	}
}

/*
 * Blocking after the switch: the instruction that caused it is done (no
 * STI or MOV SS shadow); an NMI delivered through a task gate blocks
 * NMIs until an IRET, and an IRET, task switch or not, unblocks them
 * (SDM Vol. 3A, 6.7.1).
 */
static void update_blocking(enum ts_source source, bool nmi)
{
	uint32_t b = vmcs_read32(VMCS_GUEST_INTERRUPTIBILITY);

	b &= ~(INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOV_SS);
	if (source == TS_FROM_IRET)
		b &= ~INTERRUPTIBILITY_NMI;
	if (nmi)
		b |= INTERRUPTIBILITY_NMI;
	vmcs_write(VMCS_GUEST_INTERRUPTIBILITY, b);
}

static enum exit_action refuse(struct vcpu *v, const struct vmx_exit *e,
			       const char *why)
{
	vm_end(v->guest, false, "task switch to TSS selector 0x%x at rip "
	       "0x%llx: %s", TS_QUAL_SELECTOR(e->qualification),
	       (unsigned long long)e->guest_rip, why);
	return EXIT_STOP;
}

enum exit_action handle_task_switch(struct vcpu *v, const struct vmx_exit *e)
{
	uint32_t info = vmcs_read32(VMCS_IDT_VECTORING_INFO);
	struct ts_request r = {
		.selector = TS_QUAL_SELECTOR(e->qualification),
		.source = TS_QUAL_SOURCE(e->qualification),
		.return_eip = (uint32_t)(e->guest_rip + e->instruction_length),
		.soft_int_vector = -1,
	};
	struct ts_memory mem = { read_guest, write_guest, v->guest };
	struct ts_state s;
	struct ts_result res;
	bool nmi = false;

	/* In IA-32e mode the CPU raises #GP itself: no such exit. */
	if (vmcs_read(VMCS_GUEST_IA32_EFER) & EFER_LMA)
		return handle_unexpected(v, e);
	if (r.source == TS_FROM_IDT && (info & INTR_INFO_VALID))
		nmi = take_event(info, e, &r);
	read_state(v, &s);
	switch (task_switch(&s, &r, &mem, &res)) {
	case TS_TABLES_OUTSIDE_RAM:
		return refuse(v, e, "the guest's page tables are outside RAM");
	case TS_16BIT_TSS:
		return refuse(v, e, "16-bit TSSs are not emulated");
	case TS_FAULT:
		if (res.vector == EXC_PAGE_FAULT)
			v->regs.cr2 = res.cr2;
		vmx_inject_exception(res.vector, res.has_error_code,
				     res.error_code);
		break;
	case TS_SWITCHED:
		if (res.debug_trap) {
			write_dr6(read_dr6() | DR6_BT);
			vmx_inject_exception(EXC_DEBUG, false, 0);
		}
		break;
	}
	write_state(v, &s, &res);
	update_blocking(r.source, nmi && res.committed);
	v->irq_memo.quiet = false;      /* EFLAGS.IF may have changed */
	v->stats.task_switches++;
	return EXIT_RESUME;
}
