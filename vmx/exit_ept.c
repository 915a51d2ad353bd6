// SPDX-License-Identifier: BSD-2-Clause
/*
 * EPT violations (SDM Vol. 3C, 29.3.3.2; qualification: Table 28-7). A
 * violation on a page that was not present needs no INVEPT after it is
 * mapped: the processor drops the faulting translation itself (29.4.3.1).
 */
#include "vmx/exit_handlers.h"
#include "vmx/vmx_ops.h"
#include "guest/guest.h"
#include "swap/swap_daemon.h"
#include "lib/console.h"

#define EPT_QUAL_READ BIT(0)
#define EPT_QUAL_WRITE BIT(1)
#define EPT_QUAL_FETCH BIT(2)

static const char *access_kind(uint64_t qual)
{
	if (qual & EPT_QUAL_FETCH)
		return "fetch";
	return (qual & EPT_QUAL_WRITE) ? "write" : "read";
}

enum exit_action handle_ept_violation(struct vcpu *v, const struct vmx_exit *e)
{
	struct guest *g = v->guest;
	uint64_t gpa = vmcs_read(VMCS_GUEST_PHYSICAL_ADDRESS);
	enum guest_fault_result r;

	r = swap_daemon_fault(g, gpa);
	if (r == GUEST_FAULT_RESOLVED || g->ended)
		return g->ended ? EXIT_STOP : EXIT_RESUME;
	if (r == GUEST_FAULT_OUTSIDE_RAM) {
		guest_end(g, false,
			  "access outside guest RAM: gpa 0x%016llx %s, rip 0x%llx",
			  (unsigned long long)gpa, access_kind(e->qualification),
			  (unsigned long long)e->guest_rip);
		return EXIT_STOP;
	}
	hv_error("vcpu %u: EPT violation at gpa 0x%llx (%s) not resolved: %s",
		 v->id, (unsigned long long)gpa, access_kind(e->qualification),
		 guest_fault_result_name(r));
	guest_end(g, false, "EPT violation at gpa 0x%016llx not resolved: %s",
		  (unsigned long long)gpa, guest_fault_result_name(r));
	return EXIT_STOP;
}
