// SPDX-License-Identifier: BSD-2-Clause
/*
 * EPT violations (SDM Vol. 3C, 29.3.3.2; qualification: Table 28-7). A
 * violation on a page that was not present needs no INVEPT after it is
 * mapped: the processor drops the faulting translation itself (29.4.3.1).
 *
 * The page is brought in through the paging daemon's fault path: begin,
 * and, when its swap-in is under way, wait for it (the synchronous case;
 * async page faults will resume the guest instead).
 */
#include "vmx/exit_handlers.h"
#include "vmx/ept_qualification.h"
#include "vmx/vmx_ops.h"
#include "swap/swap_daemon.h"
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

enum exit_action handle_ept_violation(struct vcpu *v, const struct vmx_exit *e)
{
	struct vm *g = v->guest;
	uint64_t gpa = vmcs_read(VMCS_GUEST_PHYSICAL_ADDRESS);
	enum guest_fault_result r;

	reblock_nmi_if_needed(v, e);
	r = swap_fault_wait(g->swap, gpa, v->id, &g->ended);
	if (r == GUEST_FAULT_RESOLVED || g->ended)
		return g->ended ? EXIT_STOP : EXIT_RESUME;
	if (r == GUEST_FAULT_OUTSIDE_RAM) {
		vm_end(g, false,
		       "access outside guest RAM: gpa 0x%016llx %s, rip 0x%llx",
		       (unsigned long long)gpa, access_kind(e->qualification),
		       (unsigned long long)e->guest_rip);
		return EXIT_STOP;
	}
	hv_error("vcpu %u: EPT violation at gpa 0x%llx (%s) not resolved: %s",
		 v->id, (unsigned long long)gpa, access_kind(e->qualification),
		 guest_fault_result_name(r));
	vm_end(g, false, "EPT violation at gpa 0x%016llx not resolved: %s",
	       (unsigned long long)gpa, guest_fault_result_name(r));
	return EXIT_STOP;
}
