// SPDX-License-Identifier: BSD-2-Clause
/*
 * EPT violations (SDM Vol. 3C, 29.3.3.2; qualification: Table 28-7). A
 * violation on a page that was not present needs no INVEPT after it is
 * mapped: the processor drops the faulting translation itself (29.4.3.1).
 *
 * The page is brought in through the paging daemon's fault path: begin
 * it, and take an async-PF token when its swap-in is under way, in one
 * call into the VM (vm_fault_begin, one hold of the memory lock); with a
 * token, tell the guest with an async page fault and resume it at once;
 * or, where the guest could take an interrupt, rest as in HLT until the
 * page is in or an interrupt comes (KVM's APF halt); or else wait for the
 * page (synchronous). A page
 * whose swap-in failed for good is a machine check for the guest
 * (vmx/exit_lost_page.c). A write by a string store about to overwrite
 * the whole page (swap.whole_page_stores, guest/page_store.h) skips the
 * read: the page gets a frame already holding what the store leaves.
 */
#include "vmx/exit_handlers.h"
#include "vmx/vcpu_events.h"
#include "lib/trace/trace.h"
#include "vmx/ept_qualification.h"
#include "vmx/vmx_ops.h"
#include "swap/swap_daemon.h"
#include "guest/async_pf.h"
#include "guest/page_store.h"
#include "vmx/insn_fetch.h"
#include "arch/x86/cpu.h"
#include "lib/console.h"

static const char *access_kind(uint64_t qual)
{
	if (qual & EPT_QUAL_FETCH)
		return "fetch";
	return (qual & EPT_QUAL_WRITE) ? "write" : "read";
}

/*
 * The violation happened while IRET unblocked NMIs: IRET will run again
 * on resume, so NMIs must be blocked again until it does (SDM Vol. 3C,
 * 28.2.3 and 29.3.3.2; KVM's handle_ept_violation does the same).
 */
static void reblock_nmi_if_needed(struct vcpu *v, const struct vmx_exit *e)
{
	if (!ept_violation_reblocks_nmi(e->qualification,
					vmcs_read32(VMCS_IDT_VECTORING_INFO)))
		return;
	vmcs_write(VMCS_GUEST_INTERRUPTIBILITY,
		   vmcs_read32(VMCS_GUEST_INTERRUPTIBILITY) |
			   INTERRUPTIBILITY_NMI);
	v->stats.nmi_reblocked++;
}

/* What apf/ needs to know of the vCPU at the violation (KVM's rules). */
static void read_fault_state(struct apf_guest_state *gs)
{
	uint32_t shadow = vmcs_read32(VMCS_GUEST_INTERRUPTIBILITY);

	*gs = (struct apf_guest_state){
		.event_in_delivery = vmcs_read32(VMCS_IDT_VECTORING_INFO) &
				     INTR_INFO_VALID,
		.exception_pending = vmcs_read32(VMCS_ENTRY_INTERRUPTION_INFO) &
				     INTR_INFO_VALID,
		.interrupts_enabled = vmcs_read(VMCS_GUEST_RFLAGS) & RFLAGS_IF,
		.interrupt_shadow = shadow & (INTERRUPTIBILITY_STI |
					      INTERRUPTIBILITY_MOV_SS),
		.paging = vmcs_read(VMCS_GUEST_CR0) & CR0_PG,
		.cpl = (vmcs_read32(VMCS_GUEST_SS_ACCESS_RIGHTS) >> 5) & 3,
	};
}

/*
 * The page's swap-in is under way and the VM took a token for it: tell
 * the guest "page not present" (#PF, CR2 = token, error code 0).
 */
static void inject_not_present(struct vcpu *v, uint32_t token)
{
	v->regs.cr2 = token;
	vmx_inject_exception(KVM_APF_PF_VECTOR, true, KVM_APF_PF_ERROR_CODE);
}

/*
 * The CPU's own access (a page walk, an instruction fetch) to an address
 * with no RAM: nothing to emulate; the VM ends, saying where.
 */
static enum exit_action not_emulated(struct vcpu *v, const struct vmx_exit *e,
				     uint64_t gpa, const char *what)
{
	bool walk = ept_violation_in_page_walk(e->qualification);

	vm_end(v->guest, false, "%s at gpa 0x%016llx, which is %s, rip 0x%llx",
	       walk ? "guest page-table access" : "instruction fetch",
	       (unsigned long long)gpa, what,
	       (unsigned long long)e->guest_rip);
	return EXIT_STOP;
}

/*
 * An address that is neither RAM nor a device: as on a PC, a load reads
 * all ones and a store is dropped (the instruction is emulated on the
 * "unclaimed" device of vmx/exit_mmio.c); the VM goes on.
 */
static enum exit_action unclaimed_access(struct vcpu *v,
					 const struct vmx_exit *e,
					 uint64_t gpa)
{
	if (ept_unclaimed_access_kind(e->qualification) !=
	    EPT_UNCLAIMED_EMULATE)
		return not_emulated(v, e, gpa, "outside guest RAM");
	v->stats.unclaimed_accesses++;
	return handle_mmio(v, e, gpa, NULL);
}

/* A write by an instruction to the page it addressed (no fetch, no walk). */
#define EPT_QUAL_STORE_MASK (EPT_QUAL_WRITE | EPT_QUAL_FETCH |               \
			     EPT_QUAL_LINEAR_VALID | EPT_QUAL_FINAL_TRANSLATION)
#define EPT_QUAL_STORE (EPT_QUAL_WRITE | EPT_QUAL_LINEAR_VALID |             \
			EPT_QUAL_FINAL_TRANSLATION)
#define DR7_ENABLES 0xffull     /* L0-L3, G0-G3 */

/*
 * Could the faulting access be a string store that starts a page in swap?
 * The cheap tests, before any instruction byte is fetched: a write to the
 * start of a page at RDI, in 64-bit code, not while an event was being
 * delivered, not single-stepped nor under a data breakpoint (the guest's
 * debugger would see the page filled ahead), the page guest RAM on the
 * disk or in the tier (read without the lock: guest_memory_overwrite
 * looks again; an address outside RAM must not index the page states).
 */
static bool may_overwrite_page(struct vcpu *v, const struct vmx_exit *e,
			       uint64_t gpa, uint64_t *la)
{
	struct vm *g = v->guest;

	if (!g->memory.ram.whole_page_stores ||
	    (e->qualification & EPT_QUAL_STORE_MASK) != EPT_QUAL_STORE)
		return false;
	*la = vmcs_read(VMCS_GUEST_LINEAR_ADDRESS);
	if ((*la & (PAGE_SIZE - 1)) || *la != v->regs.rdi)
		return false;
	if (!guest_memory_only_in_swap(&g->memory.ram, gpa))
		return false;
	return !(vmcs_read32(VMCS_IDT_VECTORING_INFO) & INTR_INFO_VALID) &&
	       !(vmcs_read(VMCS_GUEST_RFLAGS) & RFLAGS_TF) &&
	       !(vmcs_read(VMCS_GUEST_DR7) & DR7_ENABLES) &&
	       (vmcs_read(VMCS_GUEST_IA32_EFER) & EFER_LMA) &&
	       (vmcs_read32(VMCS_GUEST_CS_ACCESS_RIGHTS) & SEGMENT_AR_L);
}

/*
 * swap.whole_page_stores: true when the page was given a frame already
 * holding what the store at RIP leaves in it; the guest then runs the
 * store again, on its own.
 */
static bool overwritten_by_store(struct vcpu *v, const struct vmx_exit *e,
				 uint64_t gpa)
{
	uint8_t bytes[PAGE_STORE_INSN_MAX];
	struct page_store_regs regs;
	struct page_store store;
	uint64_t la;
	unsigned n;

	if (!may_overwrite_page(v, e, gpa, &la))
		return false;
	n = vcpu_fetch_instruction(v, e->guest_rip, ~0ull, bytes,
				   PAGE_STORE_INSN_MAX);
	regs = (struct page_store_regs){
		.rax = v->regs.rax, .rcx = v->regs.rcx, .rdi = v->regs.rdi,
		.rflags = vmcs_read(VMCS_GUEST_RFLAGS),
	};
	return page_store_decode(bytes, n, &regs, la, &store) &&
	       swap_fault_overwrite(v->guest->memory.swap, gpa, v->id,
				    store.fill) == GUEST_FAULT_RESOLVED;
}

enum exit_action handle_ept_violation(struct vcpu *v, const struct vmx_exit *e)
{
	struct vm *g = v->guest;
	uint64_t gpa = vmcs_read(VMCS_GUEST_PHYSICAL_ADDRESS);
	struct apf_guest_state gs;
	enum guest_fault_result r;
	struct vm_apf_try try;
	struct guest_mmio_hit hit;

	reblock_nmi_if_needed(v, e);
	/* A device page counts only where guest RAM does not reach. */
	if (!guest_memory_is_ram(&g->memory.ram, gpa) &&
	    vmx_mmio_range(v, gpa, &hit)) {
		exit_stats_detail(&v->stats.exit, EXIT_DETAIL_EPT_MMIO);
		if (ept_violation_in_page_walk(e->qualification))
			return not_emulated(v, e, gpa, "a device page");
		return handle_mmio(v, e, gpa, &hit);
	}
	exit_stats_detail(&v->stats.exit, EXIT_DETAIL_EPT_MEMORY);
	if (overwritten_by_store(v, e, gpa))
		return EXIT_RESUME;
	r = vm_fault_begin(g, v->id, gpa, read_fault_state, &gs, &try);
	if (r == GUEST_FAULT_SWAPIN_STARTED || r == GUEST_FAULT_WAIT_IO) {
		trace_try_async_get_page_at(try.tried, v->id, gpa,
					    try.token != 0);
		if (try.token) {
			inject_not_present(v, try.token);
			return EXIT_RESUME;
		}
		/* The access runs again once the page is in or after an
		 * interrupt, and faults again if it is still not in. */
		if (apf_halt_allowed(&gs)) {
			vcpu_apf_halt(v, gpa);
			return g->end.ended ? EXIT_STOP : EXIT_RESUME;
		}
	}
	if (r == GUEST_FAULT_RESOLVED)
		latency_hist_add(try.from_tier ? &v->stats.tier_hit :
				 &v->stats.minor_fault,
				 rdtsc() - v->stats.exit.exit_tsc);
	else
		r = swap_fault_wait(g->memory.swap, gpa, v->id, &g->end.ended);
	if (r == GUEST_FAULT_RESOLVED || g->end.ended)
		return g->end.ended ? EXIT_STOP : EXIT_RESUME;
	if (r == GUEST_FAULT_OUTSIDE_RAM)
		return unclaimed_access(v, e, gpa);
	if (r == GUEST_FAULT_IO_ERROR)
		return handle_lost_page(v, e, gpa);
	hv_error("vcpu %u: EPT violation at gpa 0x%llx (%s) not resolved: %s",
		 v->id, (unsigned long long)gpa, access_kind(e->qualification),
		 guest_fault_result_name(r));
	vm_end(g, false, "EPT violation at gpa 0x%016llx not resolved: %s",
	       (unsigned long long)gpa, guest_fault_result_name(r));
	return EXIT_STOP;
}
